import type { ServiceClient } from './client';
import { wholeList } from './complianceSnapshot';
import { todayOf } from './dates';
import { readFailedTestsSince, type FailedTestRead } from './failedTestRead';
import { noticeCustomerOf, noticeDeviceOf } from './noticesRead';
import { roleValue } from './roles';

/**
 * What the node's daily digest reads from the service (the Lambdas read the same from the
 * pollers' state and events): the service's today, every device with its customer's name, and
 * the failed results uploaded since an instant with their steps. The lists are read whole (a
 * list that does not end normally throws: no digest from part of a list); a record that cannot
 * be read is skipped and counted.
 */

export interface DigestDevice {
	id: number;
	designation: string | null;
	idBarcode: string | null;
	department: string | null;
	customerId: number | null;
	customerName: string | null;
	lastTestedDate: string | null;
	nextTestDate: string | null;
}

export interface DigestInput {
	today: string;
	devices: DigestDevice[];
	failedTests: Array<FailedTestRead & { owner: { customerName: string | null; department: string | null } }>;
	skippedRecords: number;
}

export async function readDigestInput(client: ServiceClient, since: number, now: () => number, timeZone: string): Promise<DigestInput> {
	const WHOLE = wholeList(client);
	// Today by the one rule (client/dates.ts, todayOf): the day in the face's time zone.
	const today = todayOf(now(), timeZone);
	let skippedRecords = 0;
	const names = new Map<number, string>();
	for await (const raw of client.items('customer.list', {}, WHOLE)) {
		const c = noticeCustomerOf(raw, client.profile);
		if (c) names.set(c.id, c.name);
		else skippedRecords++;
	}
	const devices = new Map<number, DigestDevice>();
	for await (const raw of client.items('device.list', {}, WHOLE)) {
		const d = noticeDeviceOf(raw, client.profile);
		if (!d) {
			skippedRecords++;
			continue;
		}
		const last = roleValue(raw, 'lastTested', client.profile);
		devices.set(d.id, {
			id: d.id,
			designation: d.designation,
			idBarcode: d.idBarcode,
			department: d.department,
			customerId: d.customerId,
			customerName: d.customerId === null ? null : (names.get(d.customerId) ?? null),
			lastTestedDate: typeof last === 'string' && last !== '' ? last : null,
			nextTestDate: d.nextTestDate,
		});
	}
	// A failed test is routed by its device's customer and department now, as the Lambdas route it.
	const failedTests = (await readFailedTestsSince(client, since)).map((t) => {
		const d = t.deviceId === null ? undefined : devices.get(t.deviceId);
		const customerId = d?.customerId ?? t.customerId;
		const customerName = d ? (d.customerName ?? (customerId === null ? null : (names.get(customerId) ?? null))) : null;
		return { ...t, owner: { customerName, department: d?.department ?? null } };
	});
	return { today, devices: [...devices.values()], failedTests, skippedRecords };
}
