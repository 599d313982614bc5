import type { ServiceClient } from './client';
import { dayString } from './dates';
import { serviceTodayOfPage } from './overdue';
import { boundaryOverlap } from './pagination';
import { MAX_LIMIT } from './query';
import { forEachProperty } from './records';
import type { SnapshotDevice } from './compliance';

/**
 * Reading what the compliance snapshot needs from the service's lists, for any face: every device
 * (its customer, department and next test date), the customers' names, and the service's today.
 * Each list is read whole at the largest page size with overlapping pages; a list that does not
 * end normally throws (no figure is computed from part of a list).
 *
 * ASSUMED (the spec shows no "today" of the service): the service's today is the one the overdue
 * list shows (client/overdue.ts); when nothing is overdue, this machine's UTC day stands in.
 */

const NEXT_TEST_NAMES = new Set(['next test', 'next test date']);

/** A device record as the snapshot reads it; undefined when it has no usable id. */
export function snapshotDeviceOf(raw: unknown, customerNames: ReadonlyMap<number, string>): SnapshotDevice | undefined {
	if (!raw || typeof raw !== 'object') return undefined;
	const r = raw as { id?: unknown; customer_id?: unknown };
	const id = Number(r.id);
	if (!Number.isSafeInteger(id) || id <= 0) return undefined;
	let department: string | null = null;
	let next: string | null = null;
	forEachProperty(raw, (key, value) => {
		const name = key.toLowerCase();
		if (name === 'department' && typeof value === 'string' && value.trim() !== '') department = value;
		else if (NEXT_TEST_NAMES.has(name) && typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value)) next = value.slice(0, 10);
	});
	const customerId = Number(r.customer_id);
	const customer = Number.isSafeInteger(customerId) && customerId > 0 ? customerId : null;
	return { id, customerId: customer, customerName: customer === null ? null : (customerNames.get(customer) ?? null), department, nextTestDate: next };
}

const WHOLE = { pageSize: MAX_LIMIT, overlap: boundaryOverlap(MAX_LIMIT), incomplete: 'throw' } as const;

export async function readComplianceSnapshot(client: ServiceClient, now: () => number = Date.now): Promise<{ today: string; devices: SnapshotDevice[] }> {
	let today: string | undefined;
	for await (const page of client.pages('overdueDevice.list', {}, { pageSize: 1, maxItems: 1 })) today = serviceTodayOfPage(page);
	const names = new Map<number, string>();
	for await (const raw of client.items('customer.list', {}, WHOLE)) {
		const id = Number((raw as { id?: unknown } | null)?.id);
		if (!Number.isSafeInteger(id)) continue;
		forEachProperty(raw, (key, value) => {
			if (key.toLowerCase() === 'name' && typeof value === 'string') names.set(id, value);
		});
	}
	const devices = new Map<number, SnapshotDevice>();
	for await (const raw of client.items('device.list', {}, WHOLE)) {
		const device = snapshotDeviceOf(raw, names);
		if (device) devices.set(device.id, device);
	}
	return { today: today ?? dayString(now()), devices: [...devices.values()] };
}
