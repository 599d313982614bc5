/**
 * Get Many of every list (paging, Limit, filters, sort, enabled, search), run by n8n's real
 * engine (n8n-core WorkflowExecute, the node loaded from dist/) against the sandbox over HTTP.
 */
import { describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import { DEFAULT_PROFILE } from '../../client';
import { CUSTOMER, DEVICE } from '../../sandbox/properties';
import { expectPaired, jsonOf, run, settledOkRequests, settledRequests, useSandbox, valuesOf } from './helpers';

const sandbox = useSandbox();

describe('Get Many: paging, limit, filters, sort, enabled, search', () => {
	it('Return All reads the largest pages the service accepts (2,450 devices = 3 requests of up to 1000), each record once', async () => {
		sandbox.account.reset({ size: { devices: 2450 } });
		const before = await settledRequests(sandbox);
		const { items, error } = await run(sandbox, { resource: 'device', operation: 'getAll', returnAll: true });
		expect(error).toBeUndefined();
		const ids = items.map((i) => i.json.id);
		expect(ids).toHaveLength(2450);
		expect(new Set(ids).size).toBe(2450);
		expect(ids.slice().sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 2450 }, (_, k) => k + 1));
		expect((await settledRequests(sandbox)) - before).toBe(Math.ceil(2450 / DEFAULT_PROFILE.paging.maxPageSize));
		expect(sandbox.stats.byStatus['429'] ?? 0).toBe(0);
		expectPaired(items);
		sandbox.account.reset({ size: { devices: 240 } });
	});

	it('a Limit larger than one page reads full pages and asks the last one for no more than it needs', async () => {
		sandbox.account.reset({ size: { devices: 2450 } });
		const before = await settledRequests(sandbox);
		const { items, error } = await run(sandbox, { resource: 'device', operation: 'getAll', limit: 1500 });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1500);
		expect(new Set(items.map((i) => i.json.id)).size).toBe(1500);
		expect((await settledRequests(sandbox)) - before).toBe(2);
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
		// Devices never tested (no Last tested) come last in both directions, as missing values do.
		const all = [...sandbox.account.data.devices.values()].map((d) => d.values[DEVICE.lastTested]).filter((v): v is string => typeof v === 'string').sort();
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
			'Protection class': expect.any(String),
		});
		const raw = await run(sandbox, { resource: 'device', operation: 'getAll', limit: 1 });
		expect(Array.isArray(raw.items[0].json.properties)).toBe(true);
	});
});
