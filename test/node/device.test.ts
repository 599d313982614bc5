/**
 * Device: create, get, update, update many, delete.
 * Run by n8n's real engine (n8n-core, the node loaded from dist/) against the sandbox over HTTP.
 */
import { describe, expect, it } from 'vitest';
import { DEVICE } from '../../sandbox/properties';
import { byId, expectPaired, jsonOf, run, useSandbox, valuesOf } from './helpers';

const sandbox = useSandbox();

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
		// Beside the demo's own scrapped devices, device 20 only.
		const demo = new Set(sandbox.account.data.recycleBin.map((e) => e.id));
		expect(jsonOf(bin.items).filter((e) => !demo.has(e.id as number)).map((e) => e.item_id)).toEqual([20]);
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
