/**
 * The notices' reads ask the service only for the properties a notice reads (`enabled`), and read
 * the same: every field, every device and customer, as a read of every property would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveProfile, type ServiceProfile } from '../../client';
import { noticeCustomerOf, noticeDeviceOf, readNoticeInput, type NoticeCustomer, type NoticeDevice } from '../../client/noticesRead';
import { composeNotices, listedIn } from '../../email/notices';
import { CUSTOMER, DEVICE } from '../../sandbox/properties';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { monthFrom } from '../../nodes/TestEquipmentCloud/actions/email/common';
import { enabledOf, recordingClient as recording } from '../support/recordingClient';

const RATE = 200;
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, ratePerSecond: RATE });
});
afterAll(() => sandbox.stop());

const recordingClient = (profile?: ServiceProfile) => recording(sandbox, RATE, profile);

/** Today's read, every property of every record: what the notices read before `enabled`. */
async function everyProperty(profile?: ServiceProfile): Promise<{ customers: NoticeCustomer[]; devices: NoticeDevice[] }> {
	const { client } = recordingClient(profile);
	const customers = new Map<number, NoticeCustomer>();
	for await (const raw of client.items('customer.list', {}, { pageSize: client.maxPageSize })) {
		const c = noticeCustomerOf(raw, client.profile);
		if (c) customers.set(c.id, c);
	}
	const devices = new Map<number, NoticeDevice>();
	for await (const raw of client.items('device.list', {}, { pageSize: client.maxPageSize })) {
		const d = noticeDeviceOf(raw, client.profile);
		if (d) devices.set(d.id, d);
	}
	return { customers: [...customers.values()], devices: [...devices.values()] };
}

const NOTICE = { locale: 'en' as const, replyTo: 'booking@lab.example.com', companyName: 'Lab service', environment: 'sandbox' as const };
const SETTINGS = { addresses: {}, optOut: [], locales: {}, maxRows: 50 };

/** Reads the notices' input with `profile` and checks it, and the month's e-mails, against a read of every property. */
async function readAndCompare(profile?: ServiceProfile) {
	const { client, seen } = recordingClient(profile);
	const month = monthFrom(sandbox.account.today(), 1);
	const input = await readNoticeInput(client, () => sandbox.account.now(), 'UTC');
	const whole = await everyProperty(profile);
	expect(input.customers).toEqual(whole.customers);
	expect(input.devices).toEqual(whole.devices);
	expect(input.skippedRecords).toBe(0);
	const today = input.today;
	expect(composeNotices(input, month, SETTINGS, NOTICE)).toEqual(composeNotices({ today, ...whole, skippedRecords: 0 }, month, SETTINGS, NOTICE));
	// The reader's own filter (listedIn) sees the same devices too.
	const listed = await readNoticeInput(recordingClient(profile).client, () => sandbox.account.now(), 'UTC', listedIn(month));
	expect(listed.devices).toEqual(whole.devices.filter((d) => listedIn(month)(d, today)));
	return seen;
}

describe('the notices read only the properties a notice reads (enabled)', () => {
	it('ask for exactly the key ids of designation, ID barcode, department, location and next test date, and of the customer name and e-mail; the same notices', async () => {
		const seen = await readAndCompare();
		const devices = enabledOf(seen, '/data/devices/all/');
		const customers = enabledOf(seen, '/data/customers/all/');
		expect(devices.length).toBeGreaterThan(0);
		expect(customers.length).toBeGreaterThan(0);
		const deviceKeys = [DEVICE.designation, DEVICE.idBarcode, DEVICE.department, DEVICE.location, DEVICE.nextTest].sort((a, b) => a - b);
		for (const e of devices) expect(e).toEqual(deviceKeys);
		for (const e of customers) expect(e).toEqual([CUSTOMER.name, CUSTOMER.contactEmail]);
		// The account's property keys, read once for both lists.
		expect(enabledOf(seen, '/data/properties/all/')).toHaveLength(1);
	});

	it('ask for every property that may hold a role: the profile key id and the properties named as the role', async () => {
		// Designation by key id 6 (Manufacturer) and by the name "Designation" (key 1): the first in a record wins, so both are read.
		const seen = await readAndCompare(resolveProfile({ properties: { designation: { keyId: DEVICE.manufacturer } } }));
		const deviceKeys = [DEVICE.designation, DEVICE.idBarcode, DEVICE.department, DEVICE.manufacturer, DEVICE.location, DEVICE.nextTest].sort((a, b) => a - b);
		for (const e of enabledOf(seen, '/data/devices/all/')) expect(e).toEqual(deviceKeys);
	});

	it('read every property of a list when a role it needs has no property in the account (a profile name the account does not have); the same notices', async () => {
		const seen = await readAndCompare(resolveProfile({ properties: { location: { names: ['Standort'] } } }));
		const devices = enabledOf(seen, '/data/devices/all/');
		expect(devices.length).toBeGreaterThan(0);
		for (const e of devices) expect(e).toBeNull();
		// The customers' roles are all there: their list still asks only for them.
		for (const e of enabledOf(seen, '/data/customers/all/')) expect(e).toEqual([CUSTOMER.name, CUSTOMER.contactEmail]);
	});

	it('read every property when the account has no property-key list (not found); the same notices', async () => {
		const seen = await readAndCompare(resolveProfile({ operations: { 'propertyKey.list': { path: '/data/no-such-list/' } } }));
		for (const e of [...enabledOf(seen, '/data/devices/all/'), ...enabledOf(seen, '/data/customers/all/')]) expect(e).toBeNull();
		expect(enabledOf(seen, '/data/no-such-list/')).toHaveLength(1);
	});

	it('read every property when the token may not read the property keys (413); the same notices', async () => {
		sandbox.faults.add({ kind: 'status', status: 413, path: '/data/properties/all/', count: 2 });
		try {
			const seen = await readAndCompare();
			for (const e of [...enabledOf(seen, '/data/devices/all/'), ...enabledOf(seen, '/data/customers/all/')]) expect(e).toBeNull();
		} finally {
			sandbox.faults.clear();
		}
	});
});
