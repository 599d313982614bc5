/**
 * Customer: create, update, delete.
 * Run by n8n's real engine (n8n-core, the node loaded from dist/) against the sandbox over HTTP.
 */
import { describe, expect, it } from 'vitest';
import { CUSTOMER } from '../../sandbox/properties';
import { byId, expectPaired, jsonOf, run, useSandbox, valuesOf } from './helpers';

const sandbox = useSandbox();

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
