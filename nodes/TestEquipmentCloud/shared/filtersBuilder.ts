import {
	FILTER_KEY_TYPE,
	KEYWORD_DATA_TYPES,
	ValidationError,
	isDecimalNumber,
	isFilterKeyword,
	keywordsFor,
	validateFilter,
	validateFilterKey,
	type DataType,
	type FilterCondition,
	type FilterInput,
	type FilterJoin,
} from '../../../client';
import { KEY_TYPE_SEPARATOR } from './filters.description';
import { DATE_PRESETS, dayOfValue, daysFromToday, isDatePreset, isDayCount, MAX_RELATIVE_DAYS, presetConditions, type DatePreset } from './filtersDates';
import { filterDataType, type FilterKey } from './filtersKeys';
import type { ListResource } from './resources';

/** One filter of the property-first builder as n8n stores it (the fields its type shows). */
export interface FilterRow {
	key?: unknown;
	dateCondition?: unknown;
	days?: unknown;
	dateValueMode?: unknown;
	dateValue?: unknown;
	daysFromToday?: unknown;
	numberCondition?: unknown;
	numberValue?: unknown;
	textCondition?: unknown;
	textValue?: unknown;
	condition?: unknown;
	value?: unknown;
}

export interface BuilderContext {
	resource: ListResource;
	/** The workflow's timezone (for timestamps from expressions). */
	timeZone: string;
	/** Today in the workflow's timezone (see filtersDates.ts). */
	today: () => string;
	/** The list's keys, read at most once per execution. */
	keys: () => Promise<FilterKey[] | undefined>;
	/** For an input item: its index, and whether a field of a row was an expression (not typed in the form). */
	expressions?: { item: number; used(row: number, field: keyof FilterRow): boolean };
}

export interface BuiltFilters {
	filters: FilterInput[];
	/**
	 * The filters as the user set them, relative days unexpanded: stays the same from day to day,
	 * so the trigger keeps its memory while "in the next 30 days" moves with the calendar.
	 */
	signature: unknown[];
}

/** One row read: its key, and its conditions with the words that described them. */
interface ReadRow {
	key: number | string;
	/** The account's name when it was at hand, else the key as given. */
	name: string;
	conditions: FilterCondition[];
	preset?: DatePreset;
	signature: unknown;
}

/** How errors name the records of a list. */
/** Each list's records, one and many, for errors. */
const LIST_NAMES: Record<ListResource, { one: string; many: string }> = {
	customer: { one: 'customer', many: 'customers' },
	device: { one: 'device', many: 'devices' },
	overdueDevice: { one: 'overdue device', many: 'overdue devices' },
	testResult: { one: 'test result', many: 'test results' },
	project: { one: 'project', many: 'projects' },
	subUser: { one: 'sub-user', many: 'sub-users' },
	recycleBin: { one: 'recycle bin entry', many: 'recycle bin entries' },
};

const fail = (name: string, message: string): never => {
	throw new ValidationError(`Filter "${name}"`, message);
};

function splitKey(raw: unknown): { key: unknown; type?: DataType } {
	if (typeof raw === 'string' && raw.includes(KEY_TYPE_SEPARATOR)) {
		const at = raw.lastIndexOf(KEY_TYPE_SEPARATOR);
		return { key: raw.slice(0, at).trim(), type: filterDataType(raw.slice(at + 1).trim()) };
	}
	return { key: typeof raw === 'string' ? raw.trim() : raw };
}

/** The key as the account lists it: by ID or field name, else (an expression's convenience) by its name. */
function findKey(keys: FilterKey[], key: number | string, raw: unknown): FilterKey | undefined {
	const byKey = keys.find((k) => String(k.key) === String(key));
	if (byKey) return byKey;
	const text = String(raw).trim().toLowerCase();
	const byName = keys.filter((k) => k.name.toLowerCase() === text);
	return byName.length === 1 ? byName[0] : undefined;
}

function keyword(word: unknown, type: DataType, name: string): FilterCondition['keyword'] | DatePreset {
	const allowed = keywordsFor(type);
	if (isDatePreset(word)) {
		if (type === 'Date') return word;
		fail(name, `"${DATE_PRESETS[word]}" applies to dates, not to ${type} (use one of: ${allowed.join(', ')})`);
	}
	if (typeof word !== 'string' || !isFilterKeyword(word)) {
		return fail(name, `unknown keyword ${JSON.stringify(word)} (use one of: ${allowed.join(', ')})`);
	}
	if (!(KEYWORD_DATA_TYPES[word] as readonly DataType[]).includes(type)) {
		fail(name, `keyword "${word}" does not apply to ${type} (use one of: ${allowed.join(', ')})`);
	}
	return word;
}

function dayCount(n: unknown, name: string, what: string, min: number): number {
	const value = typeof n === 'string' && /^-?\d+$/.test(n.trim()) ? Number(n) : n;
	if (!isDayCount(value, min)) {
		fail(name, `${what} must be a whole number from ${min} to ${MAX_RELATIVE_DAYS}, got ${JSON.stringify(n ?? null)}`);
	}
	return value as number;
}

function dateValue(value: unknown, name: string, timeZone: string): string {
	const day = dayOfValue(value, timeZone);
	if (day !== undefined) return day;
	if (value === '' || value === undefined || value === null) return fail(name, 'no date given (write YYYY-MM-DD or pick a date)');
	return fail(name, `${JSON.stringify(typeof value === 'object' ? String(value) : value)} is not a date (write YYYY-MM-DD or pick a date)`);
}

function numberValue(value: unknown, name: string): string {
	if (typeof value === 'number' && Number.isFinite(value)) return String(Object.is(value, -0) ? 0 : value);
	if (typeof value === 'string' && isDecimalNumber(value.trim())) return value.trim();
	return fail(name, `${JSON.stringify(value ?? null)} is not a number (e.g. 12 or -3.5)`);
}

function textValue(value: unknown): string {
	return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
}

/** The condition(s) of one row, for a key of type `type`. `typed`: the row showed that type's fields. */
function conditionsOf(row: FilterRow, n: number, type: DataType, typed: boolean, name: string, ctx: BuilderContext): Pick<ReadRow, 'conditions' | 'preset' | 'signature'> {
	const word = keyword(typed ? { Date: row.dateCondition, Number: row.numberCondition, Text: row.textCondition }[type] : row.condition, type, name);
	if (isDatePreset(word)) {
		const days = dayCount(row.days, name, 'Number of Days', 0);
		return { conditions: presetConditions(word, ctx.today(), days), preset: word, signature: { preset: word, days } };
	}
	if (type === 'Date') {
		if (typed && row.dateValueMode === 'relative') {
			const days = dayCount(row.daysFromToday, name, 'Days From Today', -MAX_RELATIVE_DAYS);
			return { conditions: [{ keyword: word, value: daysFromToday(ctx.today(), days) }], signature: { keyword: word, daysFromToday: days } };
		}
		const value = dateValue(typed ? row.dateValue : row.value, name, ctx.timeZone);
		return { conditions: [{ keyword: word, value }], signature: { keyword: word, value } };
	}
	const value = type === 'Number' ? numberValue(typed ? row.numberValue : row.value, name) : textValue(typed ? row.textValue : row.value);
	const { expressions } = ctx;
	if (value === '' && expressions?.used(n, typed ? 'textValue' : 'value')) fail(name, emptyFromExpression(expressions.item));
	return { conditions: [{ keyword: word, value }], signature: { keyword: word, value } };
}

/**
 * An expression that gives an empty Text value (a field the item lacks) would match every record,
 * one step from Update Many or Delete: refused. An empty value typed in the form is sent as chosen.
 */
export function emptyFromExpression(item: number): string {
	return `the value is empty for item ${item} (its expression gave nothing), and an empty Text value matches every record; give the item a value, or type an empty value in the form to mean it`;
}

const KNOWN_SHOWN = 20;

async function readRow(row: FilterRow, n: number, ctx: BuilderContext): Promise<ReadRow> {
	const { key: rawKey, type: listedType } = splitKey(row.key);
	const keyType = FILTER_KEY_TYPE[ctx.resource];
	if (rawKey === '' || rawKey === undefined || rawKey === null) {
		throw new ValidationError(`Filter ${n + 1}`, `choose a ${keyType === 'propertyKeyId' ? 'property' : 'field'} to filter on`);
	}
	// The account's keys give names to errors and types to keys from expressions; read lazily.
	const keys = listedType === undefined ? ((await ctx.keys()) ?? []) : undefined;
	const found = keys ? findKey(keys, typeof rawKey === 'number' ? rawKey : String(rawKey), rawKey) : undefined;
	if (keys && !found) {
		const list = LIST_NAMES[ctx.resource];
		const names = keys.map((k) => (keyType === 'propertyKeyId' ? `${k.key} (${k.name})` : String(k.key)));
		// An account can have hundreds of properties: the error names the first few.
		const more = names.length > KNOWN_SHOWN ? `, … ${names.length - KNOWN_SHOWN} more in the Filters' list` : '';
		const known = names.length === 0 ? 'none' : names.slice(0, KNOWN_SHOWN).join(', ') + more;
		fail(
			String(rawKey),
			keyType === 'propertyKeyId'
				? `this account has no ${list.one} property with this ID or name (use one of: ${known})`
				: `${list.many} have no field of this name (use one of: ${known})`,
		);
	}
	const shown = String(found?.name ?? rawKey);
	let key: number | string;
	try {
		key = validateFilterKey(found?.key ?? rawKey, keyType, 'key');
	} catch (error) {
		// validateFilterKey throws only ValidationErrors, worded after "key: ".
		return fail(shown, (error as Error).message.replace(/^key: /, ''));
	}
	const type = listedType ?? (found as FilterKey).dataType;
	// A key from the list is named by its ID until an error needs the account's name for it.
	const conditions = await named(key, shown, ctx, () => conditionsOf(row, n, type, listedType !== undefined, shown, ctx));
	return { key, name: shown, ...conditions };
}

/**
 * Runs `read`; a ValidationError that names the key by its ID is reworded with the property's
 * name as the account lists it (one cached read, only when there is an error to show).
 */
async function named<T>(key: number | string, shown: string, ctx: BuilderContext, read: () => T): Promise<T> {
	let failure: unknown;
	try {
		return read();
	} catch (error) {
		failure = error;
	}
	if (!(failure instanceof ValidationError)) throw failure;
	const name = await nameOf(key, ctx);
	if (name === undefined || name === shown) throw failure;
	const detail = failure.message.slice(failure.parameter.length + 2);
	throw new ValidationError(failure.parameter.replace(`"${shown}"`, `"${name}"`), detail);
}

/** A listed key's name for errors; the read is the cached one, and a failed read keeps the ID. */
async function nameOf(key: number | string, ctx: BuilderContext): Promise<string | undefined> {
	try {
		return (await ctx.keys())?.find((k) => String(k.key) === String(key))?.name;
	} catch {
		return undefined;
	}
}

/**
 * The property-first Filters (as n8n stores them) → the client's filters: one per property, its
 * conditions joined by `join`. Throws a ValidationError naming the property as the account
 * lists it and the value at fault.
 */
export async function filtersFromBuilder(value: unknown, join: unknown, ctx: BuilderContext): Promise<BuiltFilters> {
	const rows = ((value ?? {}) as { filter?: FilterRow[] }).filter ?? [];
	if (join !== 'AND' && join !== 'OR') {
		throw new ValidationError('Conditions on One Property', `must be AND or OR, got ${JSON.stringify(join)}`);
	}
	const read: ReadRow[] = [];
	for (const [n, row] of rows.entries()) read.push(await readRow(row ?? {}, n, ctx));
	const groups = new Map<string, ReadRow[]>();
	for (const row of read) groups.set(String(row.key), [...(groups.get(String(row.key)) ?? []), row]);

	const filters: FilterInput[] = [];
	const signature: unknown[] = [];
	for (const group of groups.values()) {
		const { key, name } = group[0];
		const preset = group.find((r) => r.preset !== undefined)?.preset;
		// A range is two conditions that must both hold. Alone on its property it is sent with AND
		// whatever the setting; beside other conditions joined by OR it cannot be expressed.
		if (preset && join === 'OR' && group.length > 1) {
			const shown = (await nameOf(key, ctx)) ?? name;
			fail(
				shown,
				`"${DATE_PRESETS[preset]}" is a range that needs AND, but Conditions on One Property is OR and "${shown}" has ${group.length} filters; set Conditions on One Property to AND, or keep the range alone on "${shown}"`,
			);
		}
		const conditions = group.flatMap((r) => r.conditions);
		const groupJoin: FilterJoin = group.length === 1 ? 'AND' : join;
		const input: FilterInput = { key, conditions, ...(conditions.length > 1 ? { join: groupJoin } : {}) };
		await named(key, name, ctx, () => validateFilter(input, FILTER_KEY_TYPE[ctx.resource], `Filter "${name}"`));
		filters.push(input);
		signature.push({ key, join: groupJoin, conditions: group.map((r) => r.signature) });
	}
	return { filters, signature };
}
