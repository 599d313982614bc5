/**
 * The monthly compliance report's reads ask the service only for the properties the report reads
 * (`enabled`: the customers' names; each device's department, test interval, designation, ID
 * barcode and next test date), and make the same report, byte for byte, as a read of every property.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monthBefore, readComplianceReportInput, resolveProfile, type ServiceProfile } from '../../client';
import { composeComplianceReport, reportEntries, type ReportDevice } from '../../email/compliance';
import { complianceAttachments, renderComplianceReport } from '../../email/complianceRender';
import { allRecipients } from '../../email/routing';
import { CUSTOMER, DEVICE } from '../../sandbox/properties';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { enabledOf, recordingClient } from '../support/recordingClient';

const RATE = 200;
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, ratePerSecond: RATE });
});
afterAll(() => sandbox.stop());

/** The report of last month as the node makes it (the whole account, one customer's and one department's recipients), read with `enabled` as given (undefined: the reader's own). */
async function report(profile: ServiceProfile | undefined, enabled?: Record<string, never>) {
	const { client, seen } = recordingClient(sandbox, RATE, profile);
	const month = monthBefore(sandbox.account.today().slice(0, 7));
	const read = reportEntries(month);
	const input = await readComplianceReportInput(client, month, sandbox.account.today(), read.keep, enabled);
	for (const e of read.earliest()) input.entries.push(e);
	const devices = new Map<number, ReportDevice>(input.devices.map((d) => [d.id, d]));
	// Routed by a customer's name and a department too: the report of each recipient reads them.
	const customer = String([...sandbox.account.table('customer').values()][0].values[CUSTOMER.name]);
	const department = input.devices.find((d) => d.department !== null)!.department!;
	const recipients = { default: ['quality@lab.example.com'], customers: { [customer]: ['custodian@acme.example'] }, departments: { [department]: ['dept@lab.example.com'] } };
	const context = { settings: { recipients }, timeZone: 'UTC', environment: 'sandbox' as const };
	const reports = allRecipients(recipients).map((to) => {
		const content = composeComplianceReport(context, to, month, { entries: input.entries, devices }, undefined, input.tests, [], input.scrapped);
		expect(content).toBeDefined();
		const rendered = renderComplianceReport(content!, 'en');
		return { to, content, subject: rendered.subject, html: rendered.html, text: rendered.text, files: complianceAttachments(month, rendered) };
	});
	expect(reports).toHaveLength(3);
	return { input, bytes: JSON.stringify(reports), seen };
}

/** With `profile`, the report read as the reader reads it is the report of every property; the requests of the first. */
async function readAndCompare(profile?: ServiceProfile) {
	const asked = await report(profile);
	const whole = await report(profile, {});
	expect(enabledOf(whole.seen, '/data/properties/all/')).toHaveLength(0);
	for (const e of [...enabledOf(whole.seen, '/data/devices/all/'), ...enabledOf(whole.seen, '/data/customers/all/')]) expect(e).toBeNull();
	expect(asked.input.devices).toEqual(whole.input.devices);
	expect(asked.input.devices.length).toBeGreaterThan(0);
	expect(asked.input.devices.some((d) => d.customerName !== null && d.department !== null && d.testIntervalMonths !== null && d.designation !== null && d.idBarcode !== null && d.nextTestDate !== null)).toBe(true);
	expect(asked.bytes).toBe(whole.bytes);
	return asked.seen;
}

describe('the monthly compliance report reads only the properties it reads (enabled)', () => {
	it('asks for exactly the key ids of department, test interval, designation, ID barcode and next test date, and of the customer name; the same report, byte for byte', async () => {
		const seen = await readAndCompare();
		const devices = enabledOf(seen, '/data/devices/all/');
		const customers = enabledOf(seen, '/data/customers/all/');
		expect(devices.length).toBeGreaterThan(0);
		expect(customers.length).toBeGreaterThan(0);
		const deviceKeys = [DEVICE.designation, DEVICE.idBarcode, DEVICE.department, DEVICE.testInterval, DEVICE.nextTest].sort((a, b) => a - b);
		for (const e of devices) expect(e).toEqual(deviceKeys);
		for (const e of customers) expect(e).toEqual([CUSTOMER.name]);
		// The account's property keys, read once for both lists.
		expect(enabledOf(seen, '/data/properties/all/')).toHaveLength(1);
	});

	it('asks for every property that may hold a role (the profile key id and the properties named as the role); the same report', async () => {
		const seen = await readAndCompare(resolveProfile({ properties: { department: { keyId: DEVICE.location } } }));
		const deviceKeys = [DEVICE.designation, DEVICE.idBarcode, DEVICE.department, DEVICE.testInterval, DEVICE.location, DEVICE.nextTest].sort((a, b) => a - b);
		for (const e of enabledOf(seen, '/data/devices/all/')) expect(e).toEqual(deviceKeys);
	});

	it('reads every property when the account has no property-key list (not found) or the token may not read it (413); the same report', async () => {
		let seen = await readAndCompare(resolveProfile({ operations: { 'propertyKey.list': { path: '/data/no-such-list/' } } }));
		for (const e of [...enabledOf(seen, '/data/devices/all/'), ...enabledOf(seen, '/data/customers/all/')]) expect(e).toBeNull();
		sandbox.faults.add({ kind: 'status', status: 413, path: '/data/properties/all/', count: 2 });
		try {
			seen = await readAndCompare();
			for (const e of [...enabledOf(seen, '/data/devices/all/'), ...enabledOf(seen, '/data/customers/all/')]) expect(e).toBeNull();
		} finally {
			sandbox.faults.clear();
		}
	});
});
