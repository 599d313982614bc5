import { FILTER_KEY_TYPE, type Resource } from './catalogue';
import { fieldType } from './fields';
import { itemKey, type ItemKey } from './pagination';
import { DEFAULT_PROFILE, type ServiceProfile } from './profile';
import type { Ordering } from './query';
import { forEachProperty } from './records';

/**
 * Sorting records on this side. A list sorted by the service moves a record whenever its value
 * changes, so a scan of several pages can pass a record by (or meet it twice) while the account
 * changes; read in the service's own order and sorted here, every record comes once.
 *
 * In the service's order as the profile describes it (`ordering`): Number values compare as
 * numbers, Text with or without regard to case, Dates as their text; a record without a value goes
 * where `ordering.missing` says; equal values in id order, ascending in both directions (ASSUMED in
 * client/profile.ts: the service's unsorted order is not id order once a record is restored).
 */
export function sortRecords<T>(records: T[], ordering: Ordering, resource: Resource, profile: ServiceProfile = DEFAULT_PROFILE, knownType?: unknown): T[] {
	const { textCase, missing } = profile.ordering;
	const read = records.map((record) => ({ record, ...keyOf(record, ordering, resource, profile) }));
	// One type for the whole key (records that do not say theirs take another's, else what the
	// values are): numbers and texts mixed would make no order at all.
	const dataType = knownType ?? read.find((r) => isDeclared(r.dataType))?.dataType ?? (read.every((r) => isMissing(r.value) || typeof r.value === 'number') ? 'Number' : 'Text');
	const keyed = read.map(({ record, value }) => ({ record, value: sortValue(value, dataType, textCase === 'ignore'), id: itemKey(record) }));
	const sign = ordering.direction === 'desc' ? -1 : 1;
	// A missing value as the lowest (or highest) comes first ascending (or last), and follows the sign.
	const missingFirst = missing === 'first' || (missing === 'lowest' && sign === 1) || (missing === 'highest' && sign === -1);
	keyed.sort((a, b) => {
		if (a.value === undefined || b.value === undefined) return a.value === b.value ? compareIds(a.id, b.id) : (a.value === undefined) === missingFirst ? -1 : 1;
		return sign * (a.value < b.value ? -1 : a.value > b.value ? 1 : 0) || compareIds(a.id, b.id);
	});
	return keyed.map((k) => k.record);
}

/**
 * The first `limit` records of a list in `ordering`, kept while the list is read: at most twice
 * `limit` records are held (a sorted Limit of 5,000 over 100,000 devices holds 10,000, not all),
 * and the result is what sorting the whole list would give. Only once the key's type is known (a
 * record or the field says it) are records let go: a type taken from the values could still change.
 */
export class FirstRecords<T> {
	private held: T[] = [];
	private dataType: unknown;

	constructor(
		private readonly limit: number,
		private readonly ordering: Ordering,
		private readonly resource: Resource,
		private readonly profile: ServiceProfile = DEFAULT_PROFILE,
	) {}

	add(record: T): void {
		this.held.push(record);
		if (this.dataType === undefined) {
			const { dataType } = keyOf(record, this.ordering, this.resource, this.profile);
			if (isDeclared(dataType)) this.dataType = dataType;
		}
		if (this.held.length >= 2 * Math.max(this.limit, 1) && this.dataType !== undefined) this.held = this.sorted();
	}

	/** How many records are held now. */
	get size(): number {
		return this.held.length;
	}

	/** The first `limit` records in order. */
	sorted(): T[] {
		return sortRecords(this.held, this.ordering, this.resource, this.profile, this.dataType).slice(0, this.limit);
	}
}

/** A record without the property `key` (one added to `enabled` only to sort by it). */
export function withoutProperty<T>(record: T, key: number | string): T {
	const props = (record as { properties?: unknown } | null)?.properties;
	if (!Array.isArray(props)) return record;
	return { ...record, properties: props.filter((p) => String((p as { key_id?: unknown } | null)?.key_id) !== String(key)) };
}

/** The value a record is sorted by, and the data type the record or the field gives it. */
function keyOf(record: unknown, ordering: Ordering, resource: Resource, profile: ServiceProfile): { value: unknown; dataType: unknown } {
	if (FILTER_KEY_TYPE[resource] === 'propertyKeyId') return propertyOf(record, ordering.key);
	return { value: (record as Record<string, unknown> | null)?.[String(ordering.key)], dataType: fieldType(resource, String(ordering.key), profile) };
}

/** Ids ascending: numbers as numbers, before any other key (those compared as text). */
function compareIds(a: ItemKey, b: ItemKey): number {
	if (typeof a === 'number' && typeof b === 'number') return a - b;
	if (typeof a === 'number' || typeof b === 'number') return typeof a === 'number' ? -1 : 1;
	return a < b ? -1 : a > b ? 1 : 0;
}

function isDeclared(dataType: unknown): boolean {
	return dataType !== undefined && dataType !== null;
}

function propertyOf(record: unknown, key: number | string): { value: unknown; dataType: unknown } {
	let found: { value: unknown; dataType: unknown } = { value: undefined, dataType: undefined };
	let seen = false;
	forEachProperty(record, (name, value, keyId, dataType) => {
		if (!seen && String(keyId ?? name) === String(key)) {
			seen = true;
			found = { value, dataType };
		}
	});
	return found;
}

/** What a value is compared by: a number for Number values, text otherwise (lower case when case is ignored); undefined when missing. */
function sortValue(value: unknown, dataType: unknown, ignoreCase: boolean): number | string | undefined {
	if (isMissing(value)) return undefined;
	if (dataType === 'Number') {
		const n = typeof value === 'number' ? value : Number(value);
		return Number.isFinite(n) ? n : undefined;
	}
	return ignoreCase ? String(value).toLowerCase() : String(value);
}

function isMissing(value: unknown): boolean {
	return value === null || value === undefined || value === '';
}
