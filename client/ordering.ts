import { FILTER_KEY_TYPE, type Resource } from './catalogue';
import { fieldType } from './fields';
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
 * where `ordering.missing` says; equal values keep the order they were read in.
 */
export function sortRecords<T>(records: T[], ordering: Ordering, resource: Resource, profile: ServiceProfile = DEFAULT_PROFILE): T[] {
	const byProperty = FILTER_KEY_TYPE[resource] === 'propertyKeyId';
	const declared = byProperty ? undefined : fieldType(resource, String(ordering.key), profile);
	const { textCase, missing } = profile.ordering;
	const read = records.map((record) => ({ record, ...(byProperty ? propertyOf(record, ordering.key) : { value: (record as Record<string, unknown> | null)?.[String(ordering.key)], dataType: declared }) }));
	// One type for the whole key (records that do not say theirs take another's, else what the
	// values are): numbers and texts mixed would make no order at all.
	const dataType = read.find((r) => r.dataType !== undefined && r.dataType !== null)?.dataType ?? (read.every((r) => isMissing(r.value) || typeof r.value === 'number') ? 'Number' : 'Text');
	const keyed = read.map(({ record, value }) => ({ record, value: sortValue(value, dataType, textCase === 'ignore') }));
	const sign = ordering.direction === 'desc' ? -1 : 1;
	// A missing value as the lowest (or highest) comes first ascending (or last), and follows the sign.
	const missingFirst = missing === 'first' || (missing === 'lowest' && sign === 1) || (missing === 'highest' && sign === -1);
	keyed.sort((a, b) => {
		if (a.value === undefined || b.value === undefined) return a.value === b.value ? 0 : (a.value === undefined) === missingFirst ? -1 : 1;
		return sign * (a.value < b.value ? -1 : a.value > b.value ? 1 : 0);
	});
	return keyed.map((k) => k.record);
}

/** A record without the property `key` (one added to `enabled` only to sort by it). */
export function withoutProperty<T>(record: T, key: number | string): T {
	const props = (record as { properties?: unknown } | null)?.properties;
	if (!Array.isArray(props)) return record;
	return { ...record, properties: props.filter((p) => String((p as { key_id?: unknown } | null)?.key_id) !== String(key)) };
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
