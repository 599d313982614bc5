import { describe, expect, it } from 'vitest';
import { useSandbox, type Item } from '../support/sandbox';
import { PATHS, addMonthsPlain, expectError, ids, props } from './helpers';

/**
 * Spec: overdue devices, device detail (ID Barcode once), create/edit with object or array,
 * multiple_edit without enabled, delete → recycle bin, direct_delete, 412 on deleted items.
 */

const api = useSandbox({ resetEach: true });

const CREATE = '/data/devices/create/';
const EDIT = '/data/devices/edit/';
const MULTI = '/data/devices/multiple_edit/';
const detail = (id: number) => `/device/detail/${id}/`;

async function overdueExpected(today: string): Promise<number[]> {
	const all = await api.all(PATHS.devices);
	return ids(
		all.filter((d) => {
			const p = props(d);
			// The property table's Next test must be last tested + interval (months).
			if (typeof p[3] === 'string' && typeof p[5] === 'number') expect(p[9]).toBe(addMonthsPlain(p[3], p[5]));
			return typeof p[9] === 'string' && p[9] < today;
		}),
	);
}

describe('overdue devices', () => {
	it('lists exactly the devices whose Next test (last tested + interval) is before today', async () => {
		const { today } = await api.admin.state();
		const expected = await overdueExpected(today);
		expect(expected.length).toBeGreaterThan(0);
		const got = await api.all(PATHS.overdue);
		expect(ids(got)).toEqual(expected);
		for (const d of got) {
			expect(d.next_test_date).toBe(props(d)[9]);
			const days = Math.round((Date.parse(`${today}T00:00:00Z`) - Date.parse(`${String(d.next_test_date)}T00:00:00Z`)) / 86_400_000);
			expect(d.days_overdue).toBe(days);
			expect(days).toBeGreaterThan(0);
		}
	});

	it('moving the clock forward makes more devices overdue', async () => {
		const before = await api.all(PATHS.overdue);
		const { today } = await api.admin.advance({ advance_days: 90 });
		try {
			const after = await api.all(PATHS.overdue);
			expect(after.length).toBeGreaterThan(before.length);
			expect(ids(after)).toEqual(await overdueExpected(today));
			for (const id of ids(before)) expect(ids(after)).toContain(id);
		} finally {
			await api.admin.advance({ advance_days: -90 });
		}
	});

	it('editing a device’s last tested date to today removes it from the list (and recomputes Next test)', async () => {
		const { today } = await api.admin.state();
		const [first] = await api.all(PATHS.overdue);
		const edited = await api.call('PUT', EDIT, { body: { id: first.id, properties: { 3: today } } });
		expect(edited.status, edited.text).toBe(200);
		expect(props(edited.body as unknown as Item)[9]).toBe(addMonthsPlain(today, Number(props(first)[5])));
		const after = await api.all(PATHS.overdue);
		expect(ids(after)).not.toContain(first.id);
		expect(after.length).toBeGreaterThan(0);
	});

	it('Next test is computed by the service and cannot be written', async () => {
		expectError(await api.call('PUT', EDIT, { body: { id: 1, properties: { 9: '2030-01-01' } } }), 400, '9');
	});

	it('an interval whose Next test the service could not hold (after 9999-12-31) is a 400 naming the interval; nothing changes', async () => {
		const before = props((await api.get(detail(1))).body as unknown as Item);
		for (const months of [1_000_000, 100_000_000]) {
			expectError(await api.call('PUT', EDIT, { body: { id: 1, properties: { 3: '2026-01-15', 5: months } } }), 400, '5');
			expectError(await api.call('PUT', MULTI, { body: { ids: [1, 2], properties: { 5: months } } }), 400, '5');
			expectError(await api.call('POST', CREATE, { body: { properties: { 1: 'Kettle', 3: '2026-01-15', 5: months } } }), 400, '5');
		}
		expect(props((await api.get(detail(1))).body as unknown as Item)).toEqual(before);
		// The longest interval that still fits is taken.
		const fits = await api.call('PUT', EDIT, { body: { id: 1, properties: { 3: '2026-01-15', 5: (9999 - 2026) * 12 + 11 } } });
		expect(fits.status, fits.text).toBe(200);
		expect(props(fits.body as unknown as Item)[9]).toBe('9999-12-15');
	});
});

describe('a property with a fixed list of values (Protection class)', () => {
	it('is listed with its values, and every demo device holds one of them', async () => {
		const keys = await api.all(PATHS.propertyKeys);
		const key = keys.find((k) => k.id === 10);
		expect(key).toMatchObject({ name: 'Protection class', data_type: 'Text', resource: 'device', choices: ['I', 'II', 'III'] });
		const values = new Set((await api.all(PATHS.devices)).map((d) => props(d)[10]));
		expect([...values].sort()).toEqual(['I', 'II', 'III']);
	});

	it('takes a listed value; anything else is a 400 naming the property and the allowed values', async () => {
		const edited = await api.call('PUT', EDIT, { body: { id: 1, properties: { 10: 'III' } } });
		expect(edited.status, edited.text).toBe(200);
		expect(props(edited.body as unknown as Item)[10]).toBe('III');
		const refused = await api.call('POST', CREATE, { body: { properties: { 1: 'Hand lamp', 10: 'IV' } } });
		expectError(refused, 400, 'Protection class takes one of "I", "II", "III"; got "IV"');
		expectError(await api.call('PUT', EDIT, { body: { id: 1, properties: { 10: 'ii' } } }), 400, 'Protection class');
		expect(props((await api.get(detail(1))).body as unknown as Item)[10]).toBe('III');
	});
});

describe('device detail', () => {
	it('carries the ID Barcode exactly once (count in the raw JSON)', async () => {
		for (const id of [1, 2, 117]) {
			const a = await api.get(detail(id));
			expect(a.status).toBe(200);
			const barcode = String(props(a.body as unknown as Item)[2]);
			expect(barcode).toMatch(/^TEC-/);
			expect(a.text.split(barcode).length - 1).toBe(1);
			expect(a.text.split('"key_id":2,').length - 1).toBe(1);
			expect(a.text.match(/barcode/gi) ?? []).toHaveLength(1);
			expect((a.body as unknown as Item).id).toBe(id);
		}
	});

	it('an unknown device is 404 with a description; a non-numeric id is 400', async () => {
		expectError(await api.get(detail(999999)), 404);
		expectError(await api.get('/device/detail/abc/'), 400, 'id');
	});
});

describe('create and edit: one JSON object or an array', () => {
	it('POST create with one object → 201 and one object', async () => {
		const a = await api.call('POST', CREATE, { body: { customer_id: 2, properties: { 1: 'Bench grinder', 4: 'Workshop', 5: 12, 3: '2026-01-10' } } });
		expect(a.status, a.text).toBe(201);
		expect(Array.isArray(a.body)).toBe(false);
		const d = a.body as unknown as Item;
		expect(props(d)).toMatchObject({ 1: 'Bench grinder', 4: 'Workshop', 5: 12, 3: '2026-01-10', 9: '2027-01-10' });
		expect(d.customer_id).toBe(2);
		const again = await api.get(detail(d.id));
		expect(props(again.body as unknown as Item)[1]).toBe('Bench grinder');
	});

	it('POST create with an array → 201 and an array, in order', async () => {
		const a = await api.call('POST', CREATE, { body: [{ properties: { 1: 'Kettle A' } }, { properties: [{ key_id: 1, value: 'Kettle B' }, { key_id: 5, value: '6' }] }] });
		expect(a.status, a.text).toBe(201);
		const items = a.body as unknown as Item[];
		expect(Array.isArray(items)).toBe(true);
		expect(items.map((d) => props(d)[1])).toEqual(['Kettle A', 'Kettle B']);
		expect(props(items[1])[5]).toBe(6);
		expect(new Set(items.map((d) => d.id)).size).toBe(2);
	});

	it('customers: object and array create → 201; edit with object and array', async () => {
		const one = await api.call('POST', '/data/customers/create/', { body: { properties: { 101: 'Acme Ltd', 103: 'Leeds' } } });
		expect(one.status).toBe(201);
		expect(props(one.body as unknown as Item)[101]).toBe('Acme Ltd');
		const many = await api.call('POST', '/data/customers/create/', { body: [{ properties: { 101: 'B AG' } }, { properties: { 101: 'C Ltd' } }] });
		expect(many.status).toBe(201);
		expect((many.body as unknown as Item[]).length).toBe(2);
		const id = (one.body as unknown as Item).id;
		const edit = await api.call('PUT', '/data/customers/edit/', { body: { id, properties: { 103: 'York' } } });
		expect(edit.status).toBe(200);
		expect(props(edit.body as unknown as Item)).toMatchObject({ 101: 'Acme Ltd', 103: 'York' });
		const editMany = await api.call('PUT', '/data/customers/edit/', { body: [{ id, properties: { 104: '2024-02-29' } }, { id: 1, properties: { 103: 'Graz' } }] });
		expect(editMany.status).toBe(200);
		expect((editMany.body as unknown as Item[]).map((c) => c.id)).toEqual([id, 1]);
	});

	it('PUT edit with one object → object (other properties kept); with an array → array', async () => {
		const before = props((await api.get(detail(4))).body as unknown as Item);
		const one = await api.call('PUT', EDIT, { body: { id: 4, properties: { 4: 'IT' } } });
		expect(one.status).toBe(200);
		expect(Array.isArray(one.body)).toBe(false);
		expect(props(one.body as unknown as Item)).toEqual({ ...before, 4: 'IT' });
		const many = await api.call('PUT', EDIT, { body: [{ id: 4, properties: { 8: 'Hall 9' } }, { id: 5, properties: { 8: 'Hall 9' } }] });
		expect(many.status).toBe(200);
		const items = many.body as unknown as Item[];
		expect(items.map((d) => [d.id, props(d)[8]])).toEqual([[4, 'Hall 9'], [5, 'Hall 9']]);
	});

	it('PUT multiple_edit without enabled applies every given property to every device', async () => {
		const a = await api.call('PUT', MULTI, { body: { ids: [1, 2, 3], properties: { 4: 'Laboratory', 8: 'Hall 7' } } });
		expect(a.status, a.text).toBe(200);
		for (const id of [1, 2, 3]) expect(props((await api.get(detail(id))).body as unknown as Item)).toMatchObject({ 4: 'Laboratory', 8: 'Hall 7' });
	});

	it('PUT multiple_edit with enabled applies only the enabled properties', async () => {
		const before = props((await api.get(detail(6))).body as unknown as Item);
		const a = await api.call('PUT', MULTI, { body: { ids: [6, 7], enabled: [4], properties: { 4: 'Kitchen', 8: 'Nowhere' } } });
		expect(a.status, a.text).toBe(200);
		const after = props((await api.get(detail(6))).body as unknown as Item);
		expect(after[4]).toBe('Kitchen');
		expect(after[8]).toBe(before[8]);
	});

	const refusals: Array<{ what: string; method: string; path: string; body?: unknown; raw?: string; names: string }> = [
		{ what: 'unknown property key', method: 'POST', path: CREATE, body: { properties: { 1: 'X', 999: 'y' } }, names: '999' },
		{ what: 'customer key on a device', method: 'POST', path: CREATE, body: { properties: { 1: 'X', 101: 'y' } }, names: '101' },
		{ what: 'wrong data type: Date', method: 'POST', path: CREATE, body: { properties: { 1: 'X', 3: 'yesterday' } }, names: '3' },
		{ what: 'wrong data type: bad calendar date', method: 'PUT', path: EDIT, body: { id: 1, properties: { 3: '2026-02-30' } }, names: '3' },
		{ what: 'wrong data type: Number', method: 'PUT', path: EDIT, body: { id: 1, properties: { 5: 'twelve' } }, names: '5' },
		{ what: 'wrong data type: Text', method: 'PUT', path: EDIT, body: { id: 1, properties: { 4: { nested: true } } }, names: '4' },
		{ what: 'wrong type in an array item', method: 'POST', path: CREATE, body: [{ properties: { 1: 'ok' } }, { properties: { 1: 'X', 5: 'x' } }], names: 'body[1]' },
		{ what: 'missing designation', method: 'POST', path: CREATE, body: { properties: { 4: 'IT' } }, names: '1' },
		{ what: 'edit without id', method: 'PUT', path: EDIT, body: { properties: { 4: 'IT' } }, names: 'id' },
		{ what: 'multiple_edit without ids', method: 'PUT', path: MULTI, body: { properties: { 4: 'IT' } }, names: 'ids' },
		{ what: 'multiple_edit bad type', method: 'PUT', path: MULTI, body: { ids: [1], properties: { 3: 'soon' } }, names: '3' },
		{ what: 'malformed JSON body', method: 'POST', path: CREATE, raw: '{"properties": {"1": "X"', names: 'JSON' },
		{ what: 'malformed JSON body (edit)', method: 'PUT', path: EDIT, raw: "{id: 1, properties: {4: 'IT'}}", names: 'JSON' },
		{ what: 'a JSON value that is not an object or array', method: 'POST', path: CREATE, raw: '"device"', names: 'body' },
		{ what: 'an empty array', method: 'POST', path: CREATE, body: [], names: 'body' },
	];
	for (const r of refusals) {
		it(`refused with 400: ${r.what}`, async () => {
			const a = await api.call(r.method, r.path, { body: r.body, rawBody: r.raw });
			expectError(a, 400, r.names);
		});
	}

	it('a refused array creates nothing (all or nothing)', async () => {
		const before = (await api.ok(PATHS.devices)).count;
		expectError(await api.call('POST', CREATE, { body: [{ properties: { 1: 'ok' } }, { properties: { 1: 'X', 5: 'x' } }] }), 400, 'body[1]');
		expect((await api.ok(PATHS.devices)).count).toBe(before);
		const customers = (await api.ok(PATHS.customers)).count;
		expectError(await api.call('POST', '/data/customers/create/', { body: [{ properties: { 101: 'ok' } }, { properties: { 103: 'no name' } }] }), 400, 'body[1]');
		expect((await api.ok(PATHS.customers)).count).toBe(customers);
	});

	it('a refused edit array changes nothing (all or nothing)', async () => {
		const before = props((await api.get(detail(1))).body as unknown as Item);
		expectError(await api.call('PUT', EDIT, { body: [{ id: 1, properties: { 4: 'Changed' } }, { id: 2, properties: { 5: 'x' } }] }), 400, 'body[1]');
		expect(props((await api.get(detail(1))).body as unknown as Item)).toEqual(before);
	});
});

describe('delete, recycle bin, restore, direct_delete', () => {
	// The entries these tests put in the bin: the demo's own (its scrapped devices) are left out.
	const binIds = async () => {
		const demo = new Set(api.sandbox.account.data.recycleBin.map((e) => e.id));
		return (await api.all(PATHS.bin)).filter((e) => !demo.has(e.id)).map((e) => [e.resource, e.item_id]);
	};

	it('delete moves a device to the recycle bin; restore brings it back unchanged', async () => {
		const original = await api.get(detail(20));
		const del = await api.call('DELETE', '/data/devices/delete/20/');
		expect(del.status, del.text).toBe(200);
		const entries = await api.all(PATHS.bin);
		const entry = entries.find((e) => e.resource === 'device' && e.item_id === 20);
		expect(entry).toBeDefined();
		expect(entry!.name).toBe(props(original.body as unknown as Item)[1]);
		expect(ids(await api.all(PATHS.devices))).not.toContain(20);
		expectError(await api.get(detail(20)), 412);

		const restored = await api.call('POST', `/recycle_bin/restore/${entry!.id}/`);
		expect(restored.status, restored.text).toBe(200);
		expect(await binIds()).toEqual([]);
		const back = await api.get(detail(20));
		expect(back.status).toBe(200);
		expect((back.body as unknown as Item).properties).toEqual((original.body as unknown as Item).properties);
		expect(ids(await api.all(PATHS.devices))).toContain(20);
		// Restoring twice: the entry is gone.
		expectError(await api.call('POST', `/recycle_bin/restore/${entry!.id}/`), 404);
	});

	it('customers go to the recycle bin too', async () => {
		expect((await api.call('DELETE', '/data/customers/delete/3/')).status).toBe(200);
		expect(await binIds()).toEqual([['customer', 3]]);
		expect(ids(await api.all(PATHS.customers))).not.toContain(3);
	});

	for (const flag of ['direct_delete', 'direct_delete=true']) {
		it(`?${flag} removes completely: not in the bin, detail 404`, async () => {
			const del = await api.call('DELETE', `/data/devices/delete/21/?${flag}`);
			expect(del.status, del.text).toBe(200);
			expect(await binIds()).toEqual([]);
			expectError(await api.get(detail(21)), 404);
			expect(ids(await api.all(PATHS.devices))).not.toContain(21);
			expectError(await api.call('DELETE', '/data/devices/delete/21/'), 404);
		});
	}

	it('direct_delete of a binned item purges it from the bin', async () => {
		expect((await api.call('DELETE', '/data/devices/delete/22/')).status).toBe(200);
		expect((await api.call('DELETE', '/data/devices/delete/23/')).status).toBe(200);
		expect(await binIds()).toEqual([['device', 22], ['device', 23]]);
		// Deleting a binned item again without direct_delete is a failed precondition.
		expectError(await api.call('DELETE', '/data/devices/delete/22/'), 412);
		expect((await api.call('DELETE', '/data/devices/delete/22/?direct_delete')).status).toBe(200);
		expect(await binIds()).toEqual([['device', 23]]);
		expectError(await api.get(detail(22)), 404);
	});

	it('editing a deleted (binned) device → 412 with a description; also via multiple_edit', async () => {
		expect((await api.call('DELETE', '/data/devices/delete/24/')).status).toBe(200);
		expectError(await api.call('PUT', EDIT, { body: { id: 24, properties: { 4: 'IT' } } }), 412, '24');
		expectError(await api.call('PUT', MULTI, { body: { ids: [1, 24], properties: { 4: 'IT' } } }), 412, '24');
		// Nothing was applied to device 1 either.
		expect(props((await api.get(detail(1))).body as unknown as Item)[4]).not.toBe('IT');
	});

	it('restoring when the id is taken again is not possible (the bin keeps the item)', async () => {
		expectError(await api.call('POST', '/recycle_bin/restore/424242/'), 404);
	});
});
