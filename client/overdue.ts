import type { ServiceClient } from './client';
import { addDays } from './dates';
import { ServiceError } from './errors';
import { propertyValues } from './records';

/**
 * Whether a device has really left the overdue list. A scan read page by page over offsets can miss
 * a device at a page boundary when devices before the cursor leave the list meanwhile, so "not seen
 * in the scan" is only a candidate; every face confirms it with one targeted read of that device.
 *
 * ASSUMED (the spec shows neither the overdue list's rule nor its fields):
 * - a device is on the overdue list exactly when its Next test date is before the service's today;
 * - the overdue list's records carry `next_test_date` and `days_overdue`, so the service's today is
 *   `next_test_date + days_overdue` (read from the list itself, never from this machine's clock);
 * - `GET /device/detail/{id}/` answers 404 for a device removed for good and 412 for one in the
 *   recycle bin (both have left the list), and carries the device's Next test property.
 * When the service's today is not known (no record carried it), nothing is confirmed as left
 * unless the device is gone or has no Next test date: a late Resolved, never a false one.
 */

const NEXT_TEST_NAMES = ['next test', 'next test date'];
const DAY = /^\d{4}-\d{2}-\d{2}/;

/** The service's today as an overdue record shows it, or undefined. */
export function serviceTodayOf(record: unknown): string | undefined {
	if (!record || typeof record !== 'object') return undefined;
	const r = record as { next_test_date?: unknown; days_overdue?: unknown };
	if (typeof r.next_test_date !== 'string' || !DAY.test(r.next_test_date)) return undefined;
	if (typeof r.days_overdue !== 'number' || !Number.isSafeInteger(r.days_overdue)) return undefined;
	const today = addDays(r.next_test_date.slice(0, 10), r.days_overdue);
	return DAY.test(today) ? today : undefined;
}

/** The later of two days (either may be unknown). */
export function laterDay(a: string | undefined, b: string | undefined): string | undefined {
	return a === undefined ? b : b === undefined || a >= b ? a : b;
}

function nextTestOf(device: unknown): string | null | undefined {
	const props = propertyValues(device);
	if (!props) return undefined;
	for (const [name, value] of Object.entries(props)) {
		if (!NEXT_TEST_NAMES.includes(name.toLowerCase())) continue;
		if (value === null || value === '') return null;
		return typeof value === 'string' && DAY.test(value) ? value.slice(0, 10) : undefined;
	}
	return undefined;
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
	const next = nextTestOf(device);
	if (next === null) return 'left';
	if (next === undefined || serviceToday === undefined) return next === undefined ? 'unknown' : 'overdue';
	return next < serviceToday ? 'overdue' : 'left';
}
