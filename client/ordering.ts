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
 * ASSUMED (the spec says only "<field> ascending, -<field> descending"): Number values compare as
 * numbers, Text without regard to case, Dates by day (their text); a record without a value comes
 * last in both directions; equal values keep the order they were read in.
 */
export function sortRecords<T>(records: T[], ordering: Ordering, resource: Resource, profile: ServiceProfile = DEFAULT_PROFILE): T[] {
	const byProperty = FILTER_KEY_TYPE[resource] === 'propertyKeyId';
	const declared = byProperty ? undefined : fieldType(resource, String(ordering.key), profile);
	const keyed = records.map((record) => {
		const { value, dataType } = byProperty ? propertyOf(record, ordering.key) : { value: (record as Record<string, unknown> | null)?.[String(ordering.key)], dataType: declared };
		return { record, value: sortValue(value, dataType) };
	});
	const sign = ordering.direction === 'desc' ? -1 : 1;
	keyed.sort((a, b) => {
		if (a.value === undefined || b.value === undefined) return a.value === b.value ? 0 : a.value === undefined ? 1 : -1;
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

/** What a value is compared by: a number for Number values, lower-case text otherwise; undefined when missing. */
function sortValue(value: unknown, dataType: unknown): number | string | undefined {
	if (value === null || value === undefined || value === '') return undefined;
	if (dataType === 'Number' || (dataType === undefined && typeof value === 'number')) {
		const n = typeof value === 'number' ? value : Number(value);
		return Number.isFinite(n) ? n : undefined;
	}
	return String(value).toLowerCase();
}
