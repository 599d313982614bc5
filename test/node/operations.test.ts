/**
 * Every resource × operation of the node, run by n8n's real engine (n8n-core WorkflowExecute,
 * the node loaded from dist/ by n8n's package loader) against the sandbox over HTTP.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import type { Sandbox } from '../../sandbox/server';
import { CUSTOMER, DEVICE } from '../../sandbox/properties';
import { fileContent } from '../../sandbox/render';
import { getBinaryBuffer } from '../support/n8n';
import { run, sandboxForTests, settledOkRequests, settledRequests, valuesOf } from './helpers';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await sandboxForTests();
});
afterAll(async () => sandbox.stop());
beforeEach(() => {
	sandbox.account.reset();
	sandbox.faults.clear();
	sandbox.account.maintenance = false;
});

const byId = (id: string | number) => ({ __rl: true, mode: 'id', value: String(id) });
const jsonOf = (items: Array<{ json: IDataObject }>) => items.map((i) => i.json);

function expectPaired(items: Array<{ pairedItem?: unknown }>, item = 0) {
	expect(items.length).toBeGreaterThan(0);
	for (const it of items) expect(it.pairedItem).toEqual({ item });
}

describe('Get Many: paging, limit, filters, sort, enabled, search', () => {
	it('Return All streams every page (450 devices = 5 pages of 100), each record once', async () => {
		sandbox.account.reset({ size: { devices: 450 } });
		const before = await settledRequests(sandbox);
		const { items, error } = await run(sandbox, { resource: 'device', operation: 'getAll', returnAll: true });
		expect(error).toBeUndefined();
		const ids = items.map((i) => i.json.id);
		expect(ids).toHaveLength(450);
		expect(new Set(ids).size).toBe(450);
		expect(ids.slice().sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 450 }, (_, k) => k + 1));
		expect((await settledRequests(sandbox)) - before).toBe(5);
		expect(sandbox.stats.byStatus['429'] ?? 0).toBe(0);
		expectPaired(items);
		sandbox.account.reset({ size: { devices: 240 } });
	});

	it('Limit returns that many records (default 50) in one request', async () => {
		const before = await settledOkRequests(sandbox);
		const seven = await run(sandbox, { resource: 'device', operation: 'getAll', limit: 7 });
		expect(seven.items).toHaveLength(7);
		const dflt = await run(sandbox, { resource: 'customer', operation: 'getAll', returnAll: false });
		expect(dflt.items).toHaveLength(12); // fewer than the default 50
		const devices = await run(sandbox, { resource: 'device', operation: 'getAll' });
		expect(devices.items).toHaveLength(50);
		expect((await settledOkRequests(sandbox)) - before).toBe(3);
	});

	it('pairs every output item with its input item (two inputs → two lists)', async () => {
		const { items } = await run(
			sandbox,
			{ resource: 'device', operation: 'getAll', limit: 2 },
			{ inputItems: [{ json: { a: 1 } }, { json: { a: 2 } }] },
		);
		expect(items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 0 }, { item: 1 }, { item: 1 }]);
	});

	it('Text filter with OR conditions', async () => {
		const { items, error } = await run(sandbox, {
			resource: 'device',
			operation: 'getAll',
			returnAll: true,
			filters: {
				text: [
					{
						key: DEVICE.department,
						join: 'OR',
						conditions: { condition: [{ keyword: 'equals', value: 'Workshop' }, { keyword: 'startsWith', value: 'Lab' }] },
					},
				],
			},
		});
		expect(error).toBeUndefined();
		const expected = [...sandbox.account.data.devices.values()].filter((d) => {
			const dep = String(d.values[DEVICE.department]).toLowerCase();
			return dep === 'workshop' || dep.startsWith('lab');
		});
		expect(expected.length).toBeGreaterThan(0);
		expect(items.map((i) => i.json.id).sort()).toEqual(expected.map((d) => d.id).sort());
		for (const i of items) expect(String(valuesOf(i.json)[DEVICE.department])).toMatch(/^(Workshop|Lab)/i);
	});

	it('Number and Date filters combined, Date with AND conditions', async () => {
		const { items, error } = await run(sandbox, {
			resource: 'device',
			operation: 'getAll',
			returnAll: true,
			filters: {
				number: [{ key: DEVICE.testInterval, conditions: { condition: [{ keyword: 'greaterThanOrEquals', value: 12 }] } }],
				date: [
					{
						key: DEVICE.lastTested,
						join: 'AND',
						conditions: {
							condition: [
								{ keyword: 'newerOrSame', value: '2020-01-01' },
								{ keyword: 'olderThan', value: `${sandbox.account.today()}T12:00:00Z` }, // cut to the day
							],
						},
					},
				],
			},
		});
		expect(error).toBeUndefined();
		const today = sandbox.account.today();
		const expected = [...sandbox.account.data.devices.values()].filter(
			(d) => Number(d.values[DEVICE.testInterval]) >= 12 && String(d.values[DEVICE.lastTested]) < today,
		);
		expect(expected.length).toBeGreaterThan(10);
		expect(items.map((i) => i.json.id).sort()).toEqual(expected.map((d) => d.id).sort());
	});

	it('field-name filters on test results, projects and sub-users', async () => {
		const failed = await run(sandbox, {
			resource: 'testResult',
			operation: 'getAll',
			returnAll: true,
			filters: { text: [{ key: 'status', conditions: { condition: [{ keyword: 'equals', value: 'failed' }] } }] },
		});
		const expectedFailed = [...sandbox.account.data.testResults.values()].filter((r) => r.status === 'failed');
		expect(failed.items).toHaveLength(expectedFailed.length);
		expect(failed.items.every((i) => i.json.status === 'failed')).toBe(true);

		const cutoff = sandbox.account.data.projects.map((p) => p.updated_time.slice(0, 10)).sort()[3];
		const projects = await run(sandbox, {
			resource: 'project',
			operation: 'getAll',
			filters: { date: [{ key: 'updated_time', conditions: { condition: [{ keyword: 'newerOrSame', value: cutoff }] } }] },
		});
		expect(projects.error).toBeUndefined();
		expect(projects.items.length).toBe(sandbox.account.data.projects.filter((p) => p.updated_time.slice(0, 10) >= cutoff).length);

		const testers = await run(sandbox, {
			resource: 'subUser',
			operation: 'getAll',
			filters: { text: [{ key: 'role', conditions: { condition: [{ keyword: 'equals', value: 'tester' }] } }] },
		});
		expect(jsonOf(testers.items).map((u) => u.username)).toEqual(['j.smith', 'm.rossi', 'k.nowak']);

		const byNumber = await run(sandbox, {
			resource: 'testResult',
			operation: 'getAll',
			filters: { number: [{ key: 'device_id', conditions: { condition: [{ keyword: 'lessThanOrEquals', value: 3 }] } }] },
		});
		expect(byNumber.items.length).toBeGreaterThan(0);
		expect(byNumber.items.every((i) => Number(i.json.device_id) <= 3)).toBe(true);
	});

	it('sorts ascending and descending by property key or field name', async () => {
		const sortBy = async (resource: string, key: number | string, direction: string) =>
			(await run(sandbox, { resource, operation: 'getAll', limit: 30, options: { sort: { rule: { key, direction } } } })).items;
		const asc = await sortBy('device', DEVICE.lastTested, 'asc');
		const desc = await sortBy('device', DEVICE.lastTested, 'desc');
		const dates = (items: Array<{ json: IDataObject }>) => items.map((i) => String(valuesOf(i.json)[DEVICE.lastTested]));
		expect(dates(asc)).toEqual(dates(asc).slice().sort());
		expect(dates(desc)).toEqual(dates(desc).slice().sort().reverse());
		const all = [...sandbox.account.data.devices.values()].map((d) => String(d.values[DEVICE.lastTested])).sort();
		expect(dates(asc)[0]).toBe(all[0]);
		expect(dates(desc)[0]).toBe(all[all.length - 1]);

		const results = await sortBy('testResult', 'test_date', 'desc');
		const testDates = results.map((i) => String(i.json.test_date));
		expect(testDates).toEqual(testDates.slice().sort().reverse());
	});

	it('Properties to Return (enabled) and Search', async () => {
		const { items } = await run(sandbox, {
			resource: 'device',
			operation: 'getAll',
			limit: 5,
			options: { enabled: [DEVICE.designation, DEVICE.idBarcode] },
		});
		expect(items).toHaveLength(5);
		for (const i of items) expect(Object.keys(valuesOf(i.json)).map(Number)).toEqual([DEVICE.designation, DEVICE.idBarcode]);

		const search = await run(sandbox, { resource: 'device', operation: 'getAll', options: { search: 'TEC-000042' } });
		expect(jsonOf(search.items).map((d) => d.id)).toEqual([42]);

		const customers = await run(sandbox, { resource: 'customer', operation: 'getAll', options: { enabled: [CUSTOMER.name] } });
		for (const i of customers.items) expect(Object.keys(valuesOf(i.json))).toEqual([String(CUSTOMER.name)]);
	});

	it('Simplify flattens the properties list into {name: value}; default keeps the service shape', async () => {
		const { items } = await run(sandbox, { resource: 'device', operation: 'getAll', limit: 1, options: { simplify: true } });
		expect(items[0].json.properties).toEqual({
			Designation: expect.any(String),
			'ID Barcode': 'TEC-000001',
			'Last tested': expect.any(String),
			Department: expect.any(String),
			'Test interval (months)': expect.any(Number),
			Manufacturer: expect.any(String),
			'Serial number': expect.any(String),
			Location: expect.any(String),
			'Next test': expect.any(String),
		});
		const raw = await run(sandbox, { resource: 'device', operation: 'getAll', limit: 1 });
		expect(Array.isArray(raw.items[0].json.properties)).toBe(true);
	});
});

describe('customers', () => {
	it('create from form fields, and several from JSON (an array)', async () => {
		const one = await run(sandbox, {
			resource: 'customer',
			operation: 'create',
			propertyValues: { property: [{ key: CUSTOMER.name, value: 'Node Test GmbH' }, { key: CUSTOMER.city, value: 'Berlin' }] },
		});
		expect(one.error).toBeUndefined();
		expect(one.items).toHaveLength(1);
		const id = Number(one.items[0].json.id);
		expect(sandbox.account.data.customers.get(id)?.values).toMatchObject({ [CUSTOMER.name]: 'Node Test GmbH', [CUSTOMER.city]: 'Berlin' });

		const many = await run(sandbox, {
			resource: 'customer',
			operation: 'create',
			inputMode: 'json',
			json: JSON.stringify([{ properties: { [CUSTOMER.name]: 'A' } }, { properties: { [CUSTOMER.name]: 'B' } }]),
		});
		expect(many.error).toBeUndefined();
		expect(many.items.map((i) => valuesOf(i.json)[CUSTOMER.name])).toEqual(['A', 'B']);
		expectPaired(many.items);
	});

	it('update from form fields (resource locator by ID) and from JSON', async () => {
		const { items, error } = await run(sandbox, {
			resource: 'customer',
			operation: 'update',
			customerId: byId(3),
			propertyValues: { property: [{ key: CUSTOMER.city, value: 'Hamburg' }] },
			options: { simplify: true },
		});
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({ id: 3, properties: { City: 'Hamburg' } });
		expect(sandbox.account.data.customers.get(3)?.values[CUSTOMER.city]).toBe('Hamburg');

		const fromJson = await run(sandbox, {
			resource: 'customer',
			operation: 'update',
			inputMode: 'json',
			json: { id: 4, properties: { [CUSTOMER.city]: 'Köln' } },
		});
		expect(fromJson.error).toBeUndefined();
		expect(sandbox.account.data.customers.get(4)?.values[CUSTOMER.city]).toBe('Köln');
	});

	it('delete moves to the recycle bin by default; restore brings it back', async () => {
		const del = await run(sandbox, { resource: 'customer', operation: 'delete', customerId: byId(5) });
		expect(del.error).toBeUndefined();
		expect(del.items[0].json).toMatchObject({ id: 5, deleted: true, direct_delete: false });
		const binId = del.items[0].json.recycle_bin_id;
		expect(sandbox.account.data.customers.has(5)).toBe(false);

		const bin = await run(sandbox, { resource: 'recycleBin', operation: 'getAll', returnAll: true });
		expect(jsonOf(bin.items)).toContainEqual(expect.objectContaining({ id: binId, resource: 'customer', item_id: 5 }));

		const restored = await run(sandbox, { resource: 'recycleBin', operation: 'restore', entryId: String(binId) });
		expect(restored.error).toBeUndefined();
		expect(restored.items[0].json).toMatchObject({ restored: true, resource: 'customer', item: { id: 5 } });
		expect(sandbox.account.data.customers.has(5)).toBe(true);
	});
});

describe('devices', () => {
	it('get by resource locator (ID mode and list mode)', async () => {
		const byIdMode = await run(sandbox, { resource: 'device', operation: 'get', deviceId: byId(7) });
		expect(byIdMode.error).toBeUndefined();
		expect(byIdMode.items).toHaveLength(1);
		expect(byIdMode.items[0].json).toMatchObject({ id: 7 });
		expect(valuesOf(byIdMode.items[0].json)[DEVICE.idBarcode]).toBe('TEC-000007');

		const listMode = await run(sandbox, {
			resource: 'device',
			operation: 'get',
			deviceId: { __rl: true, mode: 'list', value: '8', cachedResultName: 'x' },
			options: { simplify: true },
		});
		expect(listMode.items[0].json).toMatchObject({ id: 8, properties: { 'ID Barcode': 'TEC-000008' } });
	});

	it('create from form fields with a customer, and from JSON', async () => {
		const { items, error } = await run(sandbox, {
			resource: 'device',
			operation: 'create',
			customerId: '2',
			propertyValues: {
				property: [
					{ key: DEVICE.designation, value: 'Angle grinder' },
					{ key: DEVICE.lastTested, value: '2026-01-15' },
					{ key: DEVICE.testInterval, value: '12' },
				],
			},
		});
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({ customer_id: 2 });
		const created = sandbox.account.data.devices.get(Number(items[0].json.id));
		expect(created?.values).toMatchObject({ [DEVICE.designation]: 'Angle grinder', [DEVICE.testInterval]: 12, [DEVICE.nextTest]: '2027-01-15' });

		const fromJson = await run(sandbox, {
			resource: 'device',
			operation: 'create',
			inputMode: 'json',
			json: JSON.stringify({ customer_id: 1, properties: { [DEVICE.designation]: 'Kettle' } }),
		});
		expect(fromJson.error).toBeUndefined();
		expect(valuesOf(fromJson.items[0].json)[DEVICE.designation]).toBe('Kettle');
	});

	it('update one device, and Update Many (multiple edit, without "enabled")', async () => {
		const one = await run(sandbox, {
			resource: 'device',
			operation: 'update',
			deviceId: byId(10),
			customerId: '3',
			propertyValues: { property: [{ key: DEVICE.location, value: 'Hall 9' }] },
		});
		expect(one.error).toBeUndefined();
		expect(sandbox.account.data.devices.get(10)).toMatchObject({ customer_id: 3, values: { [DEVICE.location]: 'Hall 9' } });

		const many = await run(sandbox, {
			resource: 'device',
			operation: 'updateMany',
			deviceIds: '11, 12,13',
			propertyValues: { property: [{ key: DEVICE.department, value: 'Quality' }] },
		});
		expect(many.error).toBeUndefined();
		expect(many.items.map((i) => i.json.id)).toEqual([11, 12, 13]);
		for (const id of [11, 12, 13]) expect(sandbox.account.data.devices.get(id)?.values[DEVICE.department]).toBe('Quality');
		expectPaired(many.items);
	});

	it('delete: recycle bin by default, "Delete Permanently" bypasses it', async () => {
		const soft = await run(sandbox, { resource: 'device', operation: 'delete', deviceId: byId(20) });
		expect(soft.items[0].json).toMatchObject({ id: 20, direct_delete: false, recycle_bin_id: expect.any(Number) });
		expect(sandbox.account.binEntryFor('device', 20)).toBeDefined();

		const hard = await run(sandbox, { resource: 'device', operation: 'delete', deviceId: byId(21), deletePermanently: true });
		expect(hard.items[0].json).toMatchObject({ id: 21, direct_delete: true, recycle_bin_id: null });
		expect(sandbox.account.data.devices.has(21)).toBe(false);
		expect(sandbox.account.binEntryFor('device', 21)).toBeUndefined();

		const bin = await run(sandbox, { resource: 'recycleBin', operation: 'getAll' });
		expect(jsonOf(bin.items).map((e) => e.item_id)).toEqual([20]);
		const restore = await run(sandbox, { resource: 'recycleBin', operation: 'restore', entryId: String(soft.items[0].json.recycle_bin_id) });
		expect(restore.error).toBeUndefined();
		expect(sandbox.account.data.devices.has(20)).toBe(true);
	});

	it('overdue devices: Get Many returns exactly the overdue ones', async () => {
		const { items, error } = await run(sandbox, { resource: 'overdueDevice', operation: 'getAll', returnAll: true });
		expect(error).toBeUndefined();
		const expected = [...sandbox.account.data.devices.values()].filter((d) => sandbox.account.isOverdue(d));
		expect(expected.length).toBeGreaterThan(0);
		expect(items).toHaveLength(expected.length);
		for (const i of items) expect(Number(i.json.days_overdue)).toBeGreaterThan(0);
	});
});

describe('test results and files', () => {
	it('get one test result with its performed steps and measured limits', async () => {
		const { items, error } = await run(sandbox, { resource: 'testResult', operation: 'get', testResultId: byId(12) });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		const detail = items[0].json as IDataObject & { steps: IDataObject[]; files: IDataObject[] };
		expect(detail.id).toBe(12);
		expect(detail.steps.length).toBeGreaterThan(0);
		expect(detail.steps.some((s) => (s.measurements as IDataObject[]).some((m) => 'high_limit' in m || 'low_limit' in m))).toBe(true);
		expect(detail.files).toHaveLength(2);
	});

	it('downloads a file as n8n binary data with file name and MIME type', async () => {
		for (const [fileId, name, mime] of [
			[121, 'test-report-12.pdf', 'application/pdf'],
			[122, 'measurements-12.csv', 'text/csv'],
		] as const) {
			const { items, error } = await run(sandbox, {
				resource: 'file',
				operation: 'download',
				fileId: String(fileId),
				binaryPropertyName: 'report',
			});
			expect(error).toBeUndefined();
			expect(items).toHaveLength(1);
			const binary = items[0].binary!.report;
			expect(binary).toMatchObject({ fileName: name, mimeType: mime });
			const bytes = await getBinaryBuffer(binary);
			expect(bytes.equals(fileContent(sandbox.account, fileId))).toBe(true);
			expect(items[0].json).toMatchObject({ fileId: String(fileId), fileName: name, mimeType: mime, fileSize: bytes.length });
			expect(items[0].pairedItem).toEqual({ item: 0 });
		}
	});

	it('projects and sub-users: Get Many', async () => {
		const projects = await run(sandbox, { resource: 'project', operation: 'getAll', returnAll: true });
		expect(projects.items).toHaveLength(sandbox.account.data.projects.length);
		const users = await run(sandbox, { resource: 'subUser', operation: 'getAll', returnAll: true });
		expect(jsonOf(users.items).map((u) => u.username)).toEqual(sandbox.account.data.users.map((u) => u.username));
	});
});
