/**
 * The action node as builders drive it against a large, busy account: a 400 that merely mentions
 * "limit", a sorted Return All while devices are tested, lookups by barcode past the first page of
 * matches, automatic mapping from a record read before, empty filter values from expressions, a
 * Delete whose answer is cut off, a download link that expires, and a create whose answer is cut
 * off. Run by n8n's real engine (n8n-core, the node loaded from dist/) against the sandbox over HTTP.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import { DEFAULT_SIZE } from '../../sandbox/demo';
import { CUSTOMER, CUSTOMER_KEYS, DEVICE, DEVICE_KEYS } from '../../sandbox/properties';
import { fileContent } from '../../sandbox/render';
import { getBinaryBuffer } from '../support/n8n';
import { byId, jsonOf, run, settledRequests, useSandbox, valuesOf } from './helpers';

// The tests count the requests per path: no 429 (a late timer on a loaded machine) may add a retried one.
const sandbox = useSandbox({ ratePerSecond: 200 });

/** The requests the sandbox answered since `from` (its log is not kept: the stats' paths count). */
async function requestsSince(from: number): Promise<number> {
	return (await settledRequests(sandbox)) - from;
}

const barcodeLookup = (value: string) => ({ __rl: true, mode: 'barcode', value });

function addDevice(properties: Record<number, unknown>): number {
	return sandbox.account.create('device', { properties: { [DEVICE.designation]: 'Test lamp', ...properties } }, 'body').id;
}

describe('a 400 that mentions "limit" is not a refused page size', () => {
	it('a Text filter on a Number property ("no limit") fails alone; later reads keep their page size', async () => {
		const refused = await run(sandbox, {
			resource: 'device',
			operation: 'getAll',
			limit: 5,
			filters: { text: [{ key: DEVICE.testInterval, conditions: { condition: [{ keyword: 'equals', value: 'no limit' }] } }] },
		});
		expect(refused.error).toMatchObject({ httpCode: '400' });
		expect(String(refused.error?.description)).toContain('no limit');

		const before = await settledRequests(sandbox);
		const { items, error } = await run(sandbox, { resource: 'device', operation: 'getAll', limit: 5 });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(5);
		// One request for five devices, not one per device.
		expect(await requestsSince(before)).toBe(1);
	});

	it('Return All with the refused filter is one request with the service\'s description; a Return All of 240 devices then takes one request', async () => {
		sandbox.account.reset({ size: { devices: 240 } });
		const noLimit = { text: [{ key: DEVICE.testInterval, conditions: { condition: [{ keyword: 'equals', value: 'no limit' }] } }] };
		const start = await settledRequests(sandbox);
		const refused = await run(sandbox, { resource: 'device', operation: 'getAll', returnAll: true, filters: noLimit });
		expect(refused.error).toMatchObject({ httpCode: '400' });
		expect(String(refused.error?.description)).toMatch(/no limit.*is not a finite number/);
		// Sent once: not again with smaller pages taken from the description's numbers.
		expect(await requestsSince(start)).toBe(1);

		const before = await settledRequests(sandbox);
		const { items, error } = await run(sandbox, { resource: 'device', operation: 'getAll', returnAll: true });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(240);
		// One page of 1000 holds them all: no page size was learned from the filter's 400.
		expect(await requestsSince(before)).toBe(1);
	});

	it.each([
		{ read: 'Return All', parameters: { returnAll: true } },
		{ read: 'Limit 5', parameters: { limit: 5 } },
	])('$read with the value "limit" itself (quoted back by the service) is one refused request, not a refused page size', async ({ parameters }) => {
		const filters = { text: [{ key: DEVICE.testInterval, conditions: { condition: [{ keyword: 'equals', value: 'limit' }] } }] };
		await settledRequests(sandbox);
		const refusedBefore = sandbox.stats.byStatus['400'] ?? 0;
		const refused = await run(sandbox, { resource: 'device', operation: 'getAll', ...parameters, filters });
		expect(refused.error).toMatchObject({ httpCode: '400' });
		expect(String(refused.error?.description)).toContain('"limit" is not a finite number');
		await settledRequests(sandbox);
		expect((sandbox.stats.byStatus['400'] ?? 0) - refusedBefore).toBe(1);
	});
});

describe('Return All with a sort gives each record once while the list changes', () => {
	afterEach(() => {
		sandbox.live.configure({ on: false });
		sandbox.account.reset({ size: DEFAULT_SIZE });
	});

	// Next test soonest first: a device made overdue jumps to the front, one tested to the back.
	// Last tested newest first: a device tested during the read jumps to the front.
	it.each([
		{ name: 'Next test', key: DEVICE.nextTest, direction: 'asc' as const },
		{ name: 'Last tested', key: DEVICE.lastTested, direction: 'desc' as const },
	])('sorted by $name ($direction) while devices are tested and made overdue: every device once, in order', async ({ key, direction }) => {
		sandbox.account.reset({ size: { devices: 2600 } });
		const expected = [...sandbox.account.data.devices.keys()].sort((a, b) => a - b);
		sandbox.live.configure({ on: true, seed: 7, changes_per_page: 15, weights: { test: 1, makeOverdue: 1, create: 0, delete: 0, upload: 0, move: 0, interval: 0 } });
		const { items, error } = await run(sandbox, {
			resource: 'device',
			operation: 'getAll',
			returnAll: true,
			options: { sort: { rule: { key, direction } } },
		});
		expect(error).toBeUndefined();
		expect(sandbox.live.changes.length).toBeGreaterThanOrEqual(30);
		expectEachOnceInOrder(items, expected, key, direction);
	});
});

/** Every id of `expected` once, in the order asked for by the values the records carry (a device without one comes last). */
function expectEachOnceInOrder(items: Array<{ json: IDataObject }>, expected: number[], key: number, direction: 'asc' | 'desc') {
	const ids = jsonOf(items).map((d) => Number(d.id));
	expect(new Set(ids).size).toBe(ids.length);
	expect([...ids].sort((a, b) => a - b)).toEqual(expected);
	const values = jsonOf(items).map((d) => valuesOf(d)[key] as string | null);
	const dated = values.filter((v) => v !== null && v !== '');
	const ascending = [...dated].sort();
	expect(dated).toEqual(direction === 'asc' ? ascending : ascending.reverse());
	expect(values.slice(0, dated.length)).toEqual(dated);
}

describe('a sorted Limit up to 1000 when the service answers pages of at most 100', () => {
	// Its own sandbox: the page size the node learns here is kept per base URL for the process.
	const small = useSandbox({ ratePerSecond: 200, maxPageSize: 100 });
	afterEach(() => small.live.configure({ on: false }));

	it('Limit 900 sorted by Next test while devices are tested and made overdue: every device once, in order, on the run that meets the refused size and on the next', async () => {
		for (const when of ['the size is refused during the read', 'the size was learned']) {
			small.account.reset({ size: { devices: 900 } });
			const expected = [...small.account.data.devices.keys()].sort((a, b) => a - b);
			const refusedBefore = small.stats.byStatus['400'] ?? 0;
			small.live.configure({ on: true, seed: 7, changes_per_page: 15, weights: { test: 1, makeOverdue: 1, create: 0, delete: 0, upload: 0, move: 0, interval: 0 } });
			const { items, error } = await run(small, {
				resource: 'device',
				operation: 'getAll',
				limit: 900,
				options: { sort: { rule: { key: DEVICE.nextTest, direction: 'asc' } } },
			});
			small.live.configure({ on: false });
			expect(error, when).toBeUndefined();
			expect(small.live.changes.length, when).toBeGreaterThanOrEqual(30);
			await settledRequests(small);
			// The first run meets the refusal (1000 asked, 100 answered); the second asks 100 at once.
			expect((small.stats.byStatus['400'] ?? 0) - refusedBefore, when).toBe(when === 'the size was learned' ? 0 : 1);
			expectEachOnceInOrder(items, expected, DEVICE.nextTest, 'asc');
		}
	});
});

describe('lookup by barcode in a large account', () => {
	it('finds the exact barcode past the first 100 devices that contain it', async () => {
		for (let n = 100; n < 220; n++) addDevice({ [DEVICE.idBarcode]: `LAB-${n}` });
		const id = addDevice({ [DEVICE.idBarcode]: 'LAB-1' });
		const { items, error } = await run(sandbox, { resource: 'device', operation: 'get', deviceId: barcodeLookup('LAB-1') });
		expect(error).toBeUndefined();
		expect(jsonOf(items).map((d) => d.id)).toEqual([id]);
	});

	it('a barcode scanned in lower case finds its device (barcodes compare without regard to case)', async () => {
		const tec42 = [...sandbox.account.data.devices.values()].find((d) => d.values[DEVICE.idBarcode] === 'TEC-000042')!;
		for (let n = 100; n < 220; n++) addDevice({ [DEVICE.idBarcode]: `LAB-${n}` });
		const id = addDevice({ [DEVICE.idBarcode]: 'LAB-1' });
		for (const [scanned, expected] of [['tec-000042', tec42.id], ['lab-1', id], [' Lab-1 ', id]] as const) {
			const { items, error } = await run(sandbox, { resource: 'device', operation: 'get', deviceId: barcodeLookup(scanned) });
			expect(error, scanned).toBeUndefined();
			expect(jsonOf(items).map((d) => d.id)).toEqual([expected]);
		}
	});

	it('two devices sharing a barcode, one past the first 100 matches, are the "several devices" error', async () => {
		const first = addDevice({ [DEVICE.idBarcode]: 'DUP-7' });
		for (let n = 0; n < 120; n++) addDevice({ [DEVICE.idBarcode]: `DUP-7${n}` });
		const second = addDevice({ [DEVICE.idBarcode]: 'DUP-7' });
		const { error } = await run(sandbox, { resource: 'device', operation: 'get', deviceId: barcodeLookup('DUP-7') });
		expect(error).toMatchObject({ message: 'Device: 2 devices have the barcode "DUP-7"' });
		expect(String(error?.description)).toContain(`${first}, ${second}`);
	});
});

describe('Device Update with automatic mapping', () => {
	// The mapper lists every property of the account, the computed Next test among them.
	const autoMap = { mappingMode: 'autoMapInputData', value: null, schema: DEVICE_KEYS.map((k) => ({ id: String(k.id), displayName: k.name, display: true, required: false, defaultMatch: false })) };

	it('Get (simplified) → change properties.Location → Update changes the Location', async () => {
		const got = await run(sandbox, { resource: 'device', operation: 'get', deviceId: byId(7) }, { typeVersion: 2 });
		const record = got.items[0].json as IDataObject & { properties: IDataObject };
		const changed = { ...record, properties: { ...record.properties, Location: 'Shelf 12' } };
		const { error } = await run(sandbox, { resource: 'device', operation: 'update', inputMode: 'fields', deviceId: byId(7), fields: autoMap }, { typeVersion: 2, inputItems: [{ json: changed }] });
		expect(error).toBeUndefined();
		expect(sandbox.account.data.devices.get(7)!.values[DEVICE.location]).toBe('Shelf 12');
	});

	it.each([true, false])('Get (simplify %s) → the device is tested elsewhere → change properties.Location → Update changes the Location, not refused for the computed Next test', async (simplify) => {
		const got = await run(sandbox, { resource: 'device', operation: 'get', deviceId: byId(7), simplify }, { typeVersion: 2 });
		const record = got.items[0].json as IDataObject & { properties: IDataObject };
		// Tested between the Get and the Update: Last tested and the computed Next test change.
		const dev = sandbox.account.data.devices.get(7)!;
		dev.values[DEVICE.lastTested] = '2026-11-28';
		dev.values[DEVICE.nextTest] = '2027-11-28';
		const properties = Array.isArray(record.properties)
			? (record.properties as IDataObject[]).map((p) => (Number(p.key_id) === DEVICE.location ? { ...p, value: 'Shelf 3' } : p))
			: { ...record.properties, Location: 'Shelf 3' };
		const { error } = await run(sandbox, { resource: 'device', operation: 'update', inputMode: 'fields', deviceId: byId(7), fields: autoMap }, { typeVersion: 2, inputItems: [{ json: { ...record, properties } }] });
		expect(error).toBeUndefined();
		expect(sandbox.account.data.devices.get(7)!.values[DEVICE.location]).toBe('Shelf 3');
	});

	it('Get → Update with nothing changed is refused, and the device is untouched', async () => {
		const got = await run(sandbox, { resource: 'device', operation: 'get', deviceId: byId(7) }, { typeVersion: 2 });
		const before = sandbox.account.data.devices.get(7)!.updated_time;
		const { error } = await run(sandbox, { resource: 'device', operation: 'update', inputMode: 'fields', deviceId: byId(7), fields: autoMap }, { typeVersion: 2, inputItems: [{ json: got.items[0].json }] });
		expect(error).toMatchObject({ name: 'NodeOperationError', message: expect.stringContaining("the device's current values") });
		expect(sandbox.account.data.devices.get(7)!.updated_time).toBe(before);
	});

	it('an item with no mapped property and no customer is refused, like Customer Update; the device is untouched', async () => {
		const before = sandbox.account.data.devices.get(7)!.updated_time;
		const { error } = await run(sandbox, { resource: 'device', operation: 'update', inputMode: 'fields', deviceId: byId(7), fields: autoMap }, { typeVersion: 2, inputItems: [{ json: { unrelated: 'x' } }] });
		expect(error).toMatchObject({ name: 'NodeOperationError', message: expect.stringContaining('Properties: no input field is named like a property') });
		expect(sandbox.account.data.devices.get(7)!.updated_time).toBe(before);
	});
});

describe('Customer Update with automatic mapping', () => {
	const autoMap = { mappingMode: 'autoMapInputData', value: null, schema: CUSTOMER_KEYS.map((k) => ({ id: String(k.id), displayName: k.name, display: true, required: false, defaultMatch: false })) };

	it('Get Many (simplified) → change properties.City → Update changes the City', async () => {
		const got = await run(sandbox, { resource: 'customer', operation: 'getAll', limit: 1 }, { typeVersion: 2 });
		const record = got.items[0].json as IDataObject & { properties: IDataObject };
		const id = Number(record.id);
		const changed = { ...record, properties: { ...record.properties, City: 'Kiel' } };
		const { error } = await run(sandbox, { resource: 'customer', operation: 'update', inputMode: 'fields', customerId: byId(id), fields: autoMap }, { typeVersion: 2, inputItems: [{ json: changed }] });
		expect(error).toBeUndefined();
		expect(sandbox.account.data.customers.get(id)!.values[CUSTOMER.city]).toBe('Kiel');
	});

	it('Get Many (raw) → change the City in properties[] → Update changes the City', async () => {
		const got = await run(sandbox, { resource: 'customer', operation: 'getAll', limit: 1, simplify: false }, { typeVersion: 2 });
		const record = got.items[0].json as IDataObject & { properties: IDataObject[] };
		const id = Number(record.id);
		const changed = { ...record, properties: record.properties.map((p) => (Number(p.key_id) === CUSTOMER.city ? { ...p, value: 'Kiel' } : p)) };
		const { error } = await run(sandbox, { resource: 'customer', operation: 'update', inputMode: 'fields', customerId: byId(id), fields: autoMap }, { typeVersion: 2, inputItems: [{ json: changed }] });
		expect(error).toBeUndefined();
		expect(sandbox.account.data.customers.get(id)!.values[CUSTOMER.city]).toBe('Kiel');
	});

	it.each([
		['raw', false, (record: IDataObject) => ({ ...record, properties: (record.properties as IDataObject[]).map((p) => (Number(p.key_id) === CUSTOMER.city ? { ...p, value: '' } : p)) })],
		['simplified', true, (record: IDataObject) => ({ ...record, properties: { ...(record.properties as IDataObject), City: null } })],
	])('Get Many (%s) → clear the City under properties → Update clears the City (not sent as read and reported done)', async (_name, simplify, clear) => {
		const got = await run(sandbox, { resource: 'customer', operation: 'getAll', limit: 1, simplify }, { typeVersion: 2 });
		const record = got.items[0].json as IDataObject;
		const id = Number(record.id);
		sandbox.account.data.customers.get(id)!.values[CUSTOMER.city] = 'Lyon';
		const { error } = await run(sandbox, { resource: 'customer', operation: 'update', inputMode: 'fields', customerId: byId(id), fields: autoMap }, { typeVersion: 2, inputItems: [{ json: clear({ ...record }) }] });
		expect(error).toBeUndefined();
		expect(sandbox.account.data.customers.get(id)!.values[CUSTOMER.city] ?? null).toBeNull();
	});
});

describe('an empty filter value from an expression', () => {
	it('version 3: "Department contains {{ $json.dept }}" on an item without dept is refused, naming the property and the item', async () => {
		const lists = async () => (await settledRequests(sandbox), sandbox.stats.byPath['/api/v1/data/devices/all/'] ?? 0);
		const before = await lists();
		const { error } = await run(
			sandbox,
			{ resource: 'device', operation: 'getAll', returnAll: true, filters: { filter: [{ key: `${DEVICE.department}|Text`, textCondition: 'contains', textValue: '={{ $json.dept }}' }] } },
			{ typeVersion: 3, inputItems: [{ json: { dept: 'Workshop' } }, { json: {} }] },
		);
		expect(error).toMatchObject({ name: 'NodeOperationError', message: expect.stringMatching(/Filter "Department".*empty.*item 1/) });
		// The first item's list was read; the second read none.
		expect((await lists()) - before).toBe(1);
	});

	it('version 1: the same in the type-first Filters', async () => {
		const { error } = await run(
			sandbox,
			{ resource: 'device', operation: 'getAll', returnAll: true, filters: { text: [{ key: DEVICE.department, conditions: { condition: [{ keyword: 'contains', value: '={{ $json.dept }}' }] } }] } },
			{ inputItems: [{ json: {} }] },
		);
		expect(error).toMatchObject({ name: 'NodeOperationError', message: expect.stringMatching(/Text Filter 1.*empty.*item 0/) });
	});

	it('Search "{{ $json.barcode }}" on an item without barcode is refused, naming Search and the item (an empty search lists every record)', async () => {
		const { error } = await run(sandbox, { resource: 'device', operation: 'getAll', returnAll: true, options: { search: '={{ $json.barcode }}' } }, { inputItems: [{ json: {} }] });
		expect(error).toMatchObject({ name: 'NodeOperationError', message: expect.stringMatching(/Search.*empty.*item 0/) });
	});

	it('an empty value typed in the form is the user\'s choice and is sent', async () => {
		const { items, error } = await run(
			sandbox,
			{ resource: 'device', operation: 'getAll', returnAll: true, filters: { filter: [{ key: `${DEVICE.department}|Text`, textCondition: 'contains', textValue: '' }] } },
			{ typeVersion: 3 },
		);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(sandbox.account.data.devices.size);
	});
});

describe('retried and cut-off answers', () => {
	it('Delete whose answer is cut off: the repeat finds it in the recycle bin, and the output has the same shape', async () => {
		const plain = await run(sandbox, { resource: 'device', operation: 'delete', deviceId: byId(3) });
		sandbox.faults.add({ kind: 'truncate', path: '/data/devices/delete/', count: 1 });
		const retried = await run(sandbox, { resource: 'device', operation: 'delete', deviceId: byId(4) });
		expect(plain.error).toBeUndefined();
		expect(retried.error).toBeUndefined();
		const [a, b] = [plain.items[0].json, retried.items[0].json];
		expect(typeof b.id).toBe(typeof a.id);
		expect(b.id).toBe(4);
		const entry = sandbox.account.binEntryFor('device', 4)!;
		expect(b).toMatchObject({ id: 4, deleted: true, direct_delete: false, recycle_bin_id: entry.id });
		for (const key of Object.keys(a)) expect(b).toHaveProperty(key);
		// A following Restore has what it needs.
		const restored = await run(sandbox, { resource: 'recycleBin', operation: 'restore', entryId: String(b.recycle_bin_id) });
		expect(restored.error).toBeUndefined();
		expect(sandbox.account.data.devices.has(4)).toBe(true);
	});

	it('Delete whose answer is cut off and whose recycle bin entry cannot be read: the same shape (recycle_bin_id null), and a hint says where to find the entry', async () => {
		sandbox.faults.add({ kind: 'truncate', path: '/data/devices/delete/', count: 1 });
		sandbox.faults.add({ kind: 'status', status: 403, path: '/recycle_bin/all/', count: 1 });
		const retried = await run(sandbox, { resource: 'device', operation: 'delete', deviceId: byId(5) });
		expect(retried.error).toBeUndefined();
		expect(retried.items[0].json).toMatchObject({ id: 5, deleted: true, direct_delete: false, recycle_bin_id: null, already_deleted: true });
		const hints = retried.run.data.resultData.runData['Test Equipment Cloud'][0].hints ?? [];
		expect(hints.map((h) => h.message).join('\n')).toContain('Device 5 was deleted, but its recycle bin entry could not be read');
		// What the hint says finds the entry a Restore takes.
		const found = await run(sandbox, {
			resource: 'recycleBin',
			operation: 'getAll',
			returnAll: true,
			filters: { number: [{ key: 'item_id', conditions: { condition: [{ keyword: 'equals', value: 5 }] } }] },
		});
		expect(found.error).toBeUndefined();
		expect(found.items.map((item) => item.json.id)).toEqual([sandbox.account.binEntryFor('device', 5)!.id]);
	});

	it('a download link that expires before it is fetched is generated again once', async () => {
		const account = sandbox.account;
		const createLink = account.createLink.bind(account);
		let links = 0;
		account.createLink = (fileId: number) => {
			const link = createLink(fileId);
			// The first link outlives its 5 minutes before it is fetched (slow retries in between).
			if (++links === 1) account.clockOffsetMs += 5 * 60_000 + 1000;
			return link;
		};
		try {
			const { items, error } = await run(sandbox, { resource: 'file', operation: 'download', fileId: '121', binaryPropertyName: 'report' });
			expect(error).toBeUndefined();
			expect(links).toBe(2);
			const bytes = await getBinaryBuffer(items[0].binary!.report);
			expect(bytes.equals(fileContent(account, 121))).toBe(true);
		} finally {
			account.createLink = createLink;
			account.clockOffsetMs = 0;
		}
	});

	it('a create whose 201 answer is cut off says the device may have been created and what to check', async () => {
		const devices = sandbox.account.data.devices.size;
		sandbox.faults.add({ kind: 'truncate', path: '/data/devices/create/', count: 1 });
		const { outputs, error } = await run(
			sandbox,
			{ resource: 'device', operation: 'create', inputMode: 'fields', propertyValues: { property: [{ key: DEVICE.designation, value: 'Drill' }, { key: DEVICE.idBarcode, value: 'NEW-1' }] } },
			{ nodeSettings: { onError: 'continueErrorOutput' } },
		);
		expect(error).toBeUndefined();
		// It was created, once.
		expect(sandbox.account.data.devices.size).toBe(devices + 1);
		const failed = outputs[1][0].json as { error: string; details?: IDataObject };
		expect(failed.error).toMatch(/may have been (accepted|created)/);
		expect(String(failed.details?.description)).toMatch(/before running this item again.*look for it/i);
	});

	it('a create that gets no answer within the timeout says the device may have been created and what to check', async () => {
		sandbox.faults.add({ kind: 'latency', latencyMs: 1500, path: '/data/devices/create/', count: 1 });
		const { outputs, error } = await run(
			sandbox,
			{ resource: 'device', operation: 'create', inputMode: 'fields', propertyValues: { property: [{ key: DEVICE.designation, value: 'Drill' }, { key: DEVICE.idBarcode, value: 'NEW-2' }] }, options: { timeout: 1 } },
			{ nodeSettings: { onError: 'continueErrorOutput' } },
		);
		expect(error).toBeUndefined();
		const failed = outputs[1][0].json as { error: string; details?: IDataObject };
		expect(failed.error).toMatch(/No response from the service for POST/);
		expect(String(failed.details?.description)).toMatch(/may have been made.*before running this item again.*look for it/i);
	});
});
