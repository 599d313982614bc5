import type { ServiceClient } from './client';
import { EPOCH_DAY_RANGE, dayOfEpochDay, epochDay } from './dates';
import { ServiceError } from './errors';
import type { ServiceProfile } from './profile';
import { roleValue } from './roles';

/**
 * Whether a device has really left the overdue list. A scan read page by page over offsets can miss
 * a device at a page boundary when devices before the cursor leave the list meanwhile, so "not seen
 * in the scan" is only a candidate; every face confirms it with one targeted read of that device.
 *
 * ASSUMED (the spec shows neither the overdue list's rule nor its fields):
 * - a device is on the overdue list exactly when its Next test date is before the service's today;
 * - the overdue list's records carry the due date and the days overdue (their names: the service
 *   profile's `overdue` keys; read here by their canonical names `next_test_date` and
 *   `days_overdue`), so the service's today is their sum (read from the list itself, never from
 *   this machine's clock);
 * - `GET /device/detail/{id}/` answers 404 for a device removed for good and 412 for one in the
 *   recycle bin (both have left the list), and carries the device's Next test property.
 * When the service's today is not known (no record carried it), nothing is confirmed as left
 * unless the device is gone or has no Next test date: a late Resolved, never a false one.
 */

const DAY = /^\d{4}-\d{2}-\d{2}/;

/** The service's today as an overdue record shows it, in days since 1970-01-01, or undefined. */
export function serviceEpochDayOf(record: unknown): number | undefined {
	if (!record || typeof record !== 'object') return undefined;
	const r = record as { next_test_date?: unknown; days_overdue?: unknown };
	if (typeof r.next_test_date !== 'string' || typeof r.days_overdue !== 'number' || !Number.isSafeInteger(r.days_overdue)) return undefined;
	const next = epochDay(r.next_test_date);
	if (next === undefined) return undefined;
	const today = next + r.days_overdue;
	return today >= EPOCH_DAY_RANGE.first && today <= EPOCH_DAY_RANGE.last ? today : undefined;
}

/** The service's today as an overdue record shows it (YYYY-MM-DD), or undefined. */
export function serviceTodayOf(record: unknown): string | undefined {
	const today = serviceEpochDayOf(record);
	return today === undefined ? undefined : dayOfEpochDay(today);
}

/** The latest service today the records of a page show, or undefined (one date built per page). */
export function serviceTodayOfPage(records: readonly unknown[]): string | undefined {
	let latest: number | undefined;
	for (const record of records) {
		const today = serviceEpochDayOf(record);
		if (today !== undefined && (latest === undefined || today > latest)) latest = today;
	}
	return latest === undefined ? undefined : dayOfEpochDay(latest);
}

/** The later of two days (either may be unknown). */
export function laterDay(a: string | undefined, b: string | undefined): string | undefined {
	return a === undefined ? b : b === undefined || a >= b ? a : b;
}

function nextTestOf(device: unknown, profile: ServiceProfile): string | null | undefined {
	const value = roleValue(device, 'nextTestDate', profile);
	if (value === null || value === '') return null;
	return typeof value === 'string' && DAY.test(value) ? value.slice(0, 10) : undefined;
}

export type OverdueCheck = 'left' | 'overdue' | 'unknown';

/** One targeted read: has this device left the overdue list? */
export async function checkStillOverdue(client: ServiceClient, id: number, serviceToday: string | undefined): Promise<OverdueCheck> {
	let device: unknown;
	try {
		device = await client.call('device.get', { pathParams: { id } });
	} catch (error) {
		if (error instanceof ServiceError && (error.status === 404 || error.status === 412)) return 'left';
		throw error;
	}
	const next = nextTestOf(device, client.profile);
	if (next === null) return 'left';
	if (next === undefined || serviceToday === undefined) return next === undefined ? 'unknown' : 'overdue';
	return next < serviceToday ? 'overdue' : 'left';
}
