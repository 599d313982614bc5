import type { ServiceClient } from './client';
import { wholeList } from './complianceSnapshot';
import { todayOf } from './dates';
import { enabledLists, type ListRoles } from './enabledLists';
import { DEFAULT_PROFILE, type ServiceProfile } from './profile';
import { roleValues } from './roles';

/**
 * Reading what a customer re-test notice needs from the service's lists, for any face, as of
 * today (the day in the account's time zone): every customer (name and contact e-mail) and every
 * device (designation, ID barcode, department, location, customer, next test date). Each list is
 * read whole (largest page, overlapping pages; a list that does not end normally throws: no notice
 * from part of a list). A record that cannot be read is skipped and counted, never stops the run.
 * Each list asks only for the properties a notice reads (`enabled`): a device page of the largest
 * size has about half its bytes (5 of the sandbox's 10 properties: 0.85 MB, 0.48 MB), and the
 * bytes are most of what a large account's read costs in CPU (parsing, garbage collection).
 */

export interface NoticeCustomer {
	id: number;
	name: string;
	/** The contact e-mail property as the service holds it (not yet checked). */
	email: string | null;
}

export interface NoticeDevice {
	id: number;
	customerId: number | null;
	designation: string | null;
	idBarcode: string | null;
	department: string | null;
	location: string | null;
	nextTestDate: string | null;
}

export interface NoticeInput {
	today: string;
	customers: NoticeCustomer[];
	devices: NoticeDevice[];
	skippedRecords: number;
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : typeof v === 'number' ? String(v) : null);

function positive(v: unknown): number | null {
	const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : Number.NaN;
	return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/** A customer record as the notices read it; undefined without a usable id. */
export function noticeCustomerOf(raw: unknown, profile: ServiceProfile = DEFAULT_PROFILE): NoticeCustomer | undefined {
	const id = positive((raw as { id?: unknown } | null)?.id);
	if (id === null) return undefined;
	const values = roleValues(raw, profile);
	return { id, name: text(values.customerName) ?? `#${id}`, email: text(values.customerEmail) };
}

/** A device record as the notices read it; undefined without a usable id. */
export function noticeDeviceOf(raw: unknown, profile: ServiceProfile = DEFAULT_PROFILE): NoticeDevice | undefined {
	const r = raw as { id?: unknown; customer_id?: unknown } | null;
	const id = positive(r?.id);
	if (id === null) return undefined;
	const values = roleValues(raw, profile);
	const due = values.nextTestDate;
	return {
		id,
		customerId: positive(r?.customer_id),
		designation: text(values.designation),
		idBarcode: text(values.idBarcode),
		department: text(values.department),
		location: text(values.location),
		nextTestDate: typeof due === 'string' && /^\d{4}-\d{2}-\d{2}/.test(due) ? due.slice(0, 10) : null,
	};
}

/** The roles a notice reads, per list (noticeCustomerOf, noticeDeviceOf): each list's `enabled` (client/enabledLists.ts). */
export const NOTICE_ROLES = {
	customer: ['customerName', 'customerEmail'],
	device: ['designation', 'idBarcode', 'department', 'location', 'nextTestDate'],
} as const satisfies ListRoles;

/**
 * `timeZone`: the account's (the e-mails'), whose day the notice's month is: today by the one rule (client/dates.ts, todayOf).
 * `keep`: the devices the reader needs (email/notices.ts, listedIn), else every one.
 */
export async function readNoticeInput(client: ServiceClient, now: () => number, timeZone: string, keep?: (device: NoticeDevice, today: string) => boolean): Promise<NoticeInput> {
	const WHOLE = wholeList(client);
	const today = todayOf(now(), timeZone);
	let skippedRecords = 0;
	const enabled = await enabledLists(client, NOTICE_ROLES);
	const customers = new Map<number, NoticeCustomer>();
	for await (const page of client.pages('customer.list', { enabled: enabled.customer }, WHOLE)) {
		for (const raw of page) {
			const c = noticeCustomerOf(raw, client.profile);
			if (c) customers.set(c.id, c);
			else skippedRecords++;
		}
	}
	const devices = new Map<number, NoticeDevice>();
	// Page by page (client/client.ts, pages): not 100,000 steps of an async generator, each a promise.
	for await (const page of client.pages('device.list', { enabled: enabled.device }, WHOLE)) {
		for (const raw of page) {
			const d = noticeDeviceOf(raw, client.profile);
			if (!d) skippedRecords++;
			else if (!keep || keep(d, today)) devices.set(d.id, d);
			// A device read again (pages overlap) and no longer kept: as a map of every device would end.
			else devices.delete(d.id);
		}
	}
	return { today, customers: [...customers.values()], devices: [...devices.values()], skippedRecords };
}
