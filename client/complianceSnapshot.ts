import type { ServiceClient } from './client';
import { todayOf } from './dates';
import { serviceTodayOfPage } from './overdue';
import { boundaryOverlap } from './pagination';
import { DEFAULT_PROFILE, type ServiceProfile } from './profile';
import { roleValue } from './roles';
import type { SnapshotDevice } from './compliance';

/**
 * Reading what the compliance snapshot needs from the service's lists, for any face: every device
 * (its customer, department and next test date), the customers' names, and the service's today.
 * Each list is read whole at the largest page size with overlapping pages; a list that does not
 * end normally throws (no figure is computed from part of a list).
 *
 * ASSUMED (the spec shows no "today" of the service): the service's today is the one the overdue
 * list shows (client/overdue.ts); a rebuild reads it for its cut-off only. Today is `todayOf`
 * (client/dates.ts): the day in the face's time zone.
 */

/** A device record as the snapshot reads it (properties found by the profile's roles); undefined when it has no usable id. */
export function snapshotDeviceOf(raw: unknown, customerNames: ReadonlyMap<number, string>, profile: ServiceProfile = DEFAULT_PROFILE): SnapshotDevice | undefined {
	if (!raw || typeof raw !== 'object') return undefined;
	const r = raw as { id?: unknown; customer_id?: unknown };
	const id = Number(r.id);
	if (!Number.isSafeInteger(id) || id <= 0) return undefined;
	const dept = roleValue(raw, 'department', profile);
	const department = typeof dept === 'string' && dept.trim() !== '' ? dept : null;
	const due = roleValue(raw, 'nextTestDate', profile);
	const next = typeof due === 'string' && /^\d{4}-\d{2}-\d{2}/.test(due) ? due.slice(0, 10) : null;
	const customerId = Number(r.customer_id);
	const customer = Number.isSafeInteger(customerId) && customerId > 0 ? customerId : null;
	return { id, customerId: customer, customerName: customer === null ? null : (customerNames.get(customer) ?? null), department, nextTestDate: next };
}

/** How a whole list is read: the largest page, overlapping pages, an incomplete scan throws. */
export function wholeList(client: ServiceClient) {
	return { pageSize: client.maxPageSize, overlap: boundaryOverlap(client.maxPageSize), incomplete: 'throw' } as const;
}

/** The service's today as one record of the overdue list shows it; undefined when nothing is overdue. */
export async function readServiceDay(client: ServiceClient): Promise<string | undefined> {
	let today: string | undefined;
	for await (const page of client.pages('overdueDevice.list', {}, { pageSize: 1, maxItems: 1 })) today = serviceTodayOfPage(page);
	return today;
}

/** Customer id → name, the whole customer list; `enabled`: the properties asked for (client/enabledLists.ts), else every one. */
export async function readCustomerNames(client: ServiceClient, enabled?: number[]): Promise<Map<number, string>> {
	const names = new Map<number, string>();
	for await (const page of client.pages('customer.list', { enabled }, wholeList(client))) {
		for (const raw of page) {
			const id = Number((raw as { id?: unknown } | null)?.id);
			const name = roleValue(raw, 'customerName', client.profile);
			if (Number.isSafeInteger(id) && typeof name === 'string') names.set(id, name);
		}
	}
	return names;
}

export async function readComplianceSnapshot(client: ServiceClient, now: () => number = Date.now, timeZone = 'UTC'): Promise<{ today: string; devices: SnapshotDevice[] }> {
	const today = todayOf(now(), timeZone);
	const names = await readCustomerNames(client);
	const devices = new Map<number, SnapshotDevice>();
	for await (const raw of client.items('device.list', {}, wholeList(client))) {
		const device = snapshotDeviceOf(raw, names, client.profile);
		if (device) devices.set(device.id, device);
	}
	return { today, devices: [...devices.values()] };
}
