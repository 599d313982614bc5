import { ValidationError } from './errors';
import type { FilterKeyType } from './catalogue';

/**
 * The spec's filter language: `<key>=<keyword>"<value>"`, several conditions on one key as
 * `<keyword>AND"<v>"\<keyword>AND"<v>"` (OR likewise). One model, three functions:
 * validate (client side, before any request), encode, and parse (the sandbox's side).
 */

export type DataType = 'Number' | 'Text' | 'Date';
export const DATA_TYPES: readonly DataType[] = ['Number', 'Text', 'Date'];

/** The 18 keywords and the data types each applies to (spec, Filter expressions). */
export const KEYWORD_DATA_TYPES = {
	equals: ['Number', 'Text'],
	notEquals: ['Number', 'Text'],
	sameDate: ['Date'],
	notSameDate: ['Date'],
	startsWith: ['Text'],
	notStartsWith: ['Text'],
	endsWith: ['Text'],
	notEndsWith: ['Text'],
	contains: ['Text'],
	notContains: ['Text'],
	greaterThan: ['Number'],
	greaterThanOrEquals: ['Number'],
	lessThan: ['Number'],
	lessThanOrEquals: ['Number'],
	newer: ['Date'],
	newerOrSame: ['Date'],
	olderThan: ['Date'],
	olderOrSame: ['Date'],
} as const satisfies Record<string, readonly DataType[]>;

export type FilterKeyword = keyof typeof KEYWORD_DATA_TYPES;
export const FILTER_KEYWORDS = Object.keys(KEYWORD_DATA_TYPES) as FilterKeyword[];
export type FilterJoin = 'AND' | 'OR';

export interface FilterCondition {
	keyword: FilterKeyword;
	/** Always text on the wire: Number values are decimal numbers, Date values YYYY-MM-DD. */
	value: string;
}

export interface Filter {
	/** A property key id (customers, devices, overdue devices) or a field name (the other lists). */
	key: number | string;
	conditions: FilterCondition[];
	/** How the conditions combine; present exactly when there is more than one condition. */
	join?: FilterJoin;
}

/** What callers may pass in: values may be numbers, the join may be left out (AND). */
export interface FilterInput {
	key: number | string;
	conditions: Array<{ keyword: string; value: string | number }>;
	join?: string;
	/** The key's data type when known (from the property table): keywords must apply to it. */
	dataType?: DataType;
}

export function keywordsFor(dataType: DataType): FilterKeyword[] {
	return FILTER_KEYWORDS.filter((k) => (KEYWORD_DATA_TYPES[k] as readonly DataType[]).includes(dataType));
}

export function isFilterKeyword(word: string): word is FilterKeyword {
	return Object.prototype.hasOwnProperty.call(KEYWORD_DATA_TYPES, word);
}

const NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Query parameters with their own meaning; a field of that name could not be filtered. */
export const RESERVED_PARAMETERS: ReadonlySet<string> = new Set([
	'enabled',
	'ordering',
	'search',
	'limit',
	'offset',
	'direct_delete',
]);

export function isCalendarDate(text: string): boolean {
	const m = DATE.exec(text);
	if (!m) return false;
	const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
	if (mo < 1 || mo > 12 || d < 1) return false;
	const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
	return d <= days;
}

export function isDecimalNumber(text: string): boolean {
	return NUMBER.test(text) && Number.isFinite(Number(text));
}

/** Validates a filter key for a list whose filters use `keyType`; returns the key as the model holds it. */
export function validateFilterKey(key: unknown, keyType: FilterKeyType, parameter = 'filters'): number | string {
	if (keyType === 'propertyKeyId') {
		const n = typeof key === 'string' && /^\d+$/.test(key.trim()) ? Number(key.trim()) : key;
		if (typeof n !== 'number' || !Number.isSafeInteger(n) || n <= 0) {
			throw new ValidationError(parameter, `the property key id must be a positive whole number (for example 12), got ${JSON.stringify(key)}`);
		}
		return n;
	}
	const name = typeof key === 'string' ? key.trim() : '';
	if (!FIELD_NAME.test(name) || RESERVED_PARAMETERS.has(name)) {
		throw new ValidationError(
			parameter,
			`the field name must be letters, digits or "_" starting with a letter (for example updated_time) and not one of ${[...RESERVED_PARAMETERS].join(', ')}; got ${JSON.stringify(key)}`,
		);
	}
	return name;
}

/** Checks one condition's value against the data types its keyword (and the key) allow. */
function validateValue(keyword: FilterKeyword, raw: string | number, dataType: DataType | undefined, where: string): string {
	const allowed = dataType ? [dataType] : (KEYWORD_DATA_TYPES[keyword] as readonly DataType[]);
	if (typeof raw === 'number') {
		if (!Number.isFinite(raw)) throw new ValidationError(where, `${raw} is not a finite number`);
		if (!allowed.includes('Number') && !allowed.includes('Text')) {
			throw new ValidationError(where, `"${keyword}" compares dates: write the value as YYYY-MM-DD, got the number ${raw}`);
		}
		return String(Object.is(raw, -0) ? 0 : raw);
	}
	if (typeof raw !== 'string') throw new ValidationError(where, `the value must be text, got ${typeof raw}`);
	if (raw.includes('"') || raw.includes('\\')) {
		throw new ValidationError(
			where,
			'the value contains a double quote (") or a backslash (\\), which the service\'s filter syntax cannot express (values are written in quotes and conditions are separated by a backslash); remove them or use "contains" with a part of the text',
		);
	}
	if (UNPAIRED_SURROGATE.test(raw)) {
		// URL encoding turns it into U+FFFD: the service would be asked about other text.
		throw new ValidationError(where, 'the value contains an unpaired UTF-16 surrogate (broken text), which cannot be sent in a URL');
	}
	if (allowed.length === 1 && allowed[0] === 'Date' && !isCalendarDate(raw)) {
		throw new ValidationError(where, `"${raw}" is not a calendar date written YYYY-MM-DD (for example 2026-02-28)`);
	}
	if (allowed.length === 1 && allowed[0] === 'Number' && !isDecimalNumber(raw)) {
		throw new ValidationError(where, `"${raw}" is not a finite number (for example 42 or -3.5)`);
	}
	return raw;
}

/**
 * Validates a filter and returns it in canonical form (values as text, `join` only with
 * several conditions). Throws a ValidationError naming `parameter` and what would be valid.
 */
export function validateFilter(input: FilterInput, keyType: FilterKeyType, parameter = 'filters'): Filter {
	const key = validateFilterKey(input.key, keyType, parameter);
	const label = `${parameter} (${keyType === 'propertyKeyId' ? 'property' : 'field'} ${key})`;
	if (input.dataType !== undefined && !DATA_TYPES.includes(input.dataType)) {
		throw new ValidationError(label, `unknown data type "${String(input.dataType)}"; expected one of ${DATA_TYPES.join(', ')}`);
	}
	if (!Array.isArray(input.conditions) || input.conditions.length === 0) {
		throw new ValidationError(label, 'needs at least one condition (a keyword and a value)');
	}
	const conditions = input.conditions.map((c, i): FilterCondition => {
		const where = input.conditions.length > 1 ? `${label}, condition ${i + 1}` : label;
		const keyword = c?.keyword;
		if (typeof keyword !== 'string' || !isFilterKeyword(keyword)) {
			throw new ValidationError(where, `unknown keyword ${JSON.stringify(keyword)}; expected one of ${FILTER_KEYWORDS.join(', ')}`);
		}
		const types = KEYWORD_DATA_TYPES[keyword] as readonly DataType[];
		if (input.dataType && !types.includes(input.dataType)) {
			throw new ValidationError(
				where,
				`"${keyword}" does not apply to ${input.dataType} values; for ${input.dataType} use one of ${keywordsFor(input.dataType).join(', ')}`,
			);
		}
		return { keyword, value: validateValue(keyword, c.value, input.dataType, where) };
	});
	if (conditions.length === 1) return { key, conditions };
	const join = input.join === undefined ? 'AND' : input.join;
	if (join !== 'AND' && join !== 'OR') {
		throw new ValidationError(label, `the join must be AND or OR, got ${JSON.stringify(input.join)}`);
	}
	return { key, conditions, join };
}

/** Encodes a (validated) filter as one query parameter: [name, value] before URL encoding. */
export function encodeFilter(filter: Filter): [string, string] {
	const op = filter.conditions.length > 1 ? (filter.join ?? 'AND') : '';
	const value = filter.conditions.map((c) => `${c.keyword}${op}"${c.value}"`).join('\\');
	return [String(filter.key), value];
}

const CONDITION = /^([A-Za-z]+)"([^"\\]*)"$/;

/**
 * Parses one filter query parameter (the sandbox's side). `dataType`, when known, is enforced
 * as validation does. Errors name the parameter as it appeared in the request.
 */
export function parseFilter(name: string, raw: string, keyType: FilterKeyType, dataType?: DataType): Filter {
	const key = validateFilterKey(name, keyType, name);
	const parts = raw.split('\\');
	let join: FilterJoin | undefined;
	const conditions = parts.map((part, i): FilterInput['conditions'][number] => {
		const where = parts.length > 1 ? `${name} (condition ${i + 1})` : name;
		const m = CONDITION.exec(part);
		if (!m) {
			throw new ValidationError(
				where,
				`malformed filter ${JSON.stringify(part.length > 60 ? `${part.slice(0, 60)}…` : part)}; expected <keyword>"<value>", several joined as <keyword>AND"<value>"\\<keyword>AND"<value>"`,
			);
		}
		let keyword = m[1];
		const op = /(AND|OR)$/.exec(keyword);
		if (op && isFilterKeyword(keyword.slice(0, -op[1].length))) {
			keyword = keyword.slice(0, -op[1].length);
			const thisJoin = op[1] as FilterJoin;
			if (parts.length > 1) {
				if (join !== undefined && join !== thisJoin) {
					throw new ValidationError(where, 'mixes AND and OR; use one operator for all conditions of a filter');
				}
				join = thisJoin;
			}
		} else if (parts.length > 1) {
			throw new ValidationError(where, `several conditions need AND or OR after the keyword, as in ${keyword}AND"${m[2]}"`);
		}
		return { keyword, value: m[2] };
	});
	return validateFilter({ key, conditions, join, dataType }, keyType, name);
}
