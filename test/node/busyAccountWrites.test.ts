/**
 * The action node's writes, filters and downloads as builders drive them (issue 43, defects 4–8):
 * automatic mapping from a record read raw, an empty filter value under "On Error: Continue", a
 * download link that expires once and twice, and writes whose success answer is cut off. Run by
 * n8n's real engine (n8n-core, the node loaded from dist/) against the sandbox over HTTP.
 */
import { describe, expect, it } from 'vitest';
import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { CUSTOMER_KEYS, DEVICE, DEVICE_KEYS } from '../../sandbox/properties';
import { fileContent } from '../../sandbox/render';
import { getBinaryBuffer, loadPackage, NODE_TYPE } from '../support/n8n';
import { byId, jsonOf, run, settledRequests, useSandbox, valuesOf } from './helpers';

const sandbox = useSandbox({ ratePerSecond: 200 });

const autoMap = (keys: typeof DEVICE_KEYS) => ({
	mappingMode: 'autoMapInputData',
	value: null,
	schema: keys.map((k) => ({ id: String(k.id), displayName: k.name, display: true, required: false, defaultMatch: false })),
});

describe('Device Update with automatic mapping (defect 4)', () => {
	it('Get (raw, Simplify off) → change the Location in properties[] → Update changes the Location', async () => {
		const got = await run(sandbox, { resource: 'device', operation: 'get', deviceId: byId(7), simplify: false }, { typeVersion: 2 });
		const record = got.items[0].json as IDataObject & { properties: IDataObject[] };
		expect(Array.isArray(record.properties)).toBe(true);
		const changed = { ...record, properties: record.properties.map((p) => (Number(p.key_id) === DEVICE.location ? { ...p, value: 'Shelf 3' } : p)) };
		const { items, error } = await run(sandbox, { resource: 'device', operation: 'update', inputMode: 'fields', deviceId: byId(7), fields: autoMap(DEVICE_KEYS), simplify: false }, { typeVersion: 2, inputItems: [{ json: changed }] });
		expect(error).toBeUndefined();
		expect(sandbox.account.data.devices.get(7)!.values[DEVICE.location]).toBe('Shelf 3');
		expect(valuesOf(items[0].json)[DEVICE.location]).toBe('Shelf 3');
	});

	it('nothing to change is refused in Customer Update\'s words, naming the item, and nothing is sent', async () => {
		const before = sandbox.account.data.devices.get(7)!.updated_time;
		const item = [{ json: { unrelated: 'x' } }];
		const device = await run(sandbox, { resource: 'device', operation: 'update', inputMode: 'fields', deviceId: byId(7), fields: autoMap(DEVICE_KEYS) }, { typeVersion: 2, inputItems: item });
		const customer = await run(sandbox, { resource: 'customer', operation: 'update', inputMode: 'fields', customerId: byId(1), fields: autoMap(CUSTOMER_KEYS) }, { typeVersion: 2, inputItems: item });
		// One helper, one wording: the device's form also offers a customer.
		const words = 'Properties: no input field is named like a property, at the top level or under "properties" (map the properties below instead)';
		expect(customer.error).toMatchObject({ name: 'NodeOperationError', message: `${words} (nothing to change for item 0)` });
		expect(device.error).toMatchObject({ name: 'NodeOperationError', message: `${words}, and no customer is chosen (nothing to change for item 0)`, description: customer.error?.description });
		expect(sandbox.account.data.devices.get(7)!.updated_time).toBe(before);
	});
});

describe('an empty filter value under "On Error: Continue" (defect 5)', () => {
	const byDept = { resource: 'device', operation: 'getAll', returnAll: true, filters: { filter: [{ key: `${DEVICE.department}|Text`, textCondition: 'contains', textValue: '={{ $json.dept }}' }] } };

	it('the item without a value gives one error item, paired with it; the other item its devices, not every device', async () => {
		const workshop = [...sandbox.account.data.devices.values()].filter((d) => String(d.values[DEVICE.department] ?? '').includes('Workshop')).length;
		expect(workshop).toBeGreaterThan(0);
		expect(workshop).toBeLessThan(sandbox.account.data.devices.size);
		const { outputs, error } = await run(sandbox, byDept, { typeVersion: 3, inputItems: [{ json: { dept: 'Workshop' } }, { json: {} }], nodeSettings: { onError: 'continueErrorOutput' } });
		expect(error).toBeUndefined();
		const [found, failed] = outputs;
		expect(found).toHaveLength(workshop);
		for (const item of found) expect(item.pairedItem).toEqual({ item: 0 });
		expect(failed).toHaveLength(1);
		expect(failed[0].pairedItem).toEqual({ item: 1 });
		expect(String(failed[0].json.error)).toMatch(/Filter "Department".*empty.*item 1/);
	});

	it('"Continue (using regular output)": the same, the error item last', async () => {
		const { items, error } = await run(sandbox, byDept, { typeVersion: 3, inputItems: [{ json: {} }, { json: { dept: 'Workshop' } }], nodeSettings: { onError: 'continueRegularOutput' } });
		expect(error).toBeUndefined();
		const errors = items.filter((item) => 'error' in item.json);
		expect(errors).toHaveLength(1);
		expect(errors[0].pairedItem).toEqual({ item: 0 });
		expect(items.length).toBeLessThan(sandbox.account.data.devices.size);
		for (const item of items.filter((x) => !('error' in x.json))) expect(item.pairedItem).toEqual({ item: 1 });
	});

	it('the Value fields say how to match an empty value on purpose', async () => {
		const { nodeTypes, packageName } = await loadPackage();
		const values = (version: number, path: string[]) => {
			const found: INodeProperties[] = [];
			const walk = (list: Array<INodeProperties | { values?: INodeProperties[]; options?: unknown }>, depth: number) => {
				for (const p of list as Array<INodeProperties & { values?: INodeProperties[] }>) {
					if (depth === path.length - 1 && p.name === path[depth]) found.push(p);
					else if (depth < path.length - 1 && p.name === path[depth]) walk((p.options ?? p.values ?? []) as INodeProperties[], depth + 1);
					else if (Array.isArray(p.values)) walk(p.values, depth);
				}
			};
			walk(nodeTypes.getByNameAndVersion(`${packageName}.${NODE_TYPE}`, version).description.properties, 0);
			return found;
		};
		const texts = [...values(3, ['filters', 'filter', 'textValue']), ...values(3, ['filters', 'filter', 'value']), ...values(1, ['filters', 'text', 'conditions', 'condition', 'value'])];
		expect(texts.length).toBeGreaterThanOrEqual(3);
		for (const p of texts) expect(p.description).toMatch(/empty.*refused.*leave.*empty in the form/i);
	});
});

describe('Delete whose first answer is cut off, then Restore from its output (defect 6)', () => {
	const restoreFrom = async (deleted: Array<{ json: IDataObject }>) =>
		await run(sandbox, { resource: 'recycleBin', operation: 'restore', entryId: '={{ $json.recycle_bin_id }}' }, { inputItems: deleted.map((item) => ({ json: item.json })) });

	for (const resource of ['device', 'customer'] as const) {
		it(`${resource}: the output has a plain delete's shape and types, and a Restore chained on it brings the ${resource} back`, async () => {
			const ids = [...(resource === 'device' ? sandbox.account.data.devices : sandbox.account.data.customers).keys()].slice(-2);
			const locator = resource === 'device' ? 'deviceId' : 'customerId';
			const plain = await run(sandbox, { resource, operation: 'delete', [locator]: byId(ids[0]) });
			sandbox.faults.add({ kind: 'truncate', path: `/data/${resource === 'device' ? 'devices' : 'customers'}/delete/`, count: 1 });
			const retried = await run(sandbox, { resource, operation: 'delete', [locator]: byId(ids[1]) });
			expect([plain.error, retried.error]).toEqual([undefined, undefined]);
			const [a, b] = [plain.items[0].json, retried.items[0].json];
			for (const key of Object.keys(a)) expect([key, typeof b[key]]).toEqual([key, typeof a[key]]);
			expect(b).toMatchObject({ id: ids[1], deleted: true, direct_delete: false, recycle_bin_id: sandbox.account.binEntryFor(resource, ids[1])!.id });

			const restored = await restoreFrom(retried.items);
			expect(restored.error).toBeUndefined();
			const records = resource === 'device' ? sandbox.account.data.devices : sandbox.account.data.customers;
			expect(records.has(ids[1])).toBe(true);
		});
	}

	for (const resource of ['device', 'customer'] as const) {
		for (const fault of [{ kind: 'status', status: 503 }, { kind: 'drop' }] as const) {
			it(`${resource} that does not exist, first attempt ${fault.kind === 'drop' ? 'dropped' : 'answered 503'}: still the 404 error, no "deleted" item and no hint`, async () => {
				const locator = resource === 'device' ? 'deviceId' : 'customerId';
				sandbox.faults.add({ ...fault, path: `/data/${resource === 'device' ? 'devices' : 'customers'}/delete/`, count: 1 });
				const result = await run(sandbox, { resource, operation: 'delete', [locator]: byId(987654) });
				expect(result.items).toEqual([]);
				expect(result.error?.message).toContain('404');
				// The bin was read: the earlier attempt surely did nothing.
				expect(result.error?.message).not.toMatch(/may have been accepted/);
				expect(result.run.data.resultData.runData['Test Equipment Cloud']?.[0]?.hints ?? []).toEqual([]);
			});
		}
	}

	for (const resource of ['device', 'customer'] as const) {
		it(`${resource} still in the account, first attempt answered 503, the repeat 412 with no recycle bin entry: the 412 error, no "deleted" item and no hint`, async () => {
			const records = resource === 'device' ? sandbox.account.data.devices : sandbox.account.data.customers;
			const id = [...records.keys()][0];
			const path = `/data/${resource === 'device' ? 'devices' : 'customers'}/delete/`;
			sandbox.faults.add({ kind: 'status', status: 503, path, count: 1 });
			sandbox.faults.add({ kind: 'status', status: 412, path, skip: 1, count: 1 });
			const result = await run(sandbox, { resource, operation: 'delete', [resource === 'device' ? 'deviceId' : 'customerId']: byId(id) });
			expect(records.has(id)).toBe(true);
			expect(result.items).toEqual([]);
			expect(result.error?.message).toContain('412');
			expect(result.run.data.resultData.runData['Test Equipment Cloud']?.[0]?.hints ?? []).toEqual([]);
		});
	}

	for (const fault of [{ kind: 'status', status: 503 }, { kind: 'drop' }] as const) {
		// A dropped first attempt may have deleted it; a 503 answered whole did nothing: a plain 404.
		it(`deleted permanently, an ID that does not exist, first attempt ${fault.kind === 'drop' ? 'dropped: the 404 error saying the earlier attempt may have deleted it' : 'answered 503: the plain 404 error'}, no "deleted" item`, async () => {
			sandbox.faults.add({ ...fault, path: '/data/devices/delete/', count: 1 });
			const result = await run(sandbox, { resource: 'device', operation: 'delete', deviceId: byId(987654), deletePermanently: true });
			expect(result.items).toEqual([]);
			expect(result.error?.message).toContain('404');
			if (fault.kind === 'drop') {
				expect(result.error?.message).toMatch(/^Device Delete may have been accepted/);
				expect(String(result.error?.description)).toMatch(/earlier attempt may have deleted it, or the ID does not exist/);
			} else {
				expect(result.error?.message).not.toMatch(/may have been accepted/);
			}
		});
	}

	it('deleted permanently: the same shape as a plain permanent delete', async () => {
		const ids = [...sandbox.account.data.devices.keys()].slice(-2);
		const plain = await run(sandbox, { resource: 'device', operation: 'delete', deviceId: byId(ids[0]), deletePermanently: true });
		sandbox.faults.add({ kind: 'truncate', path: '/data/devices/delete/', count: 1 });
		const retried = await run(sandbox, { resource: 'device', operation: 'delete', deviceId: byId(ids[1]), deletePermanently: true });
		expect([plain.error, retried.error]).toEqual([undefined, undefined]);
		const [a, b] = [plain.items[0].json, retried.items[0].json];
		for (const key of Object.keys(a)) expect([key, typeof b[key]]).toEqual([key, typeof a[key]]);
		expect(b).toMatchObject({ id: ids[1], deleted: true, direct_delete: true });
		expect(sandbox.account.data.devices.has(ids[1])).toBe(false);
	});
});

describe('a download link that expires before it is fetched (defect 7)', () => {
	const linkRequests = async () => (await settledRequests(sandbox), sandbox.stats.byPath['/api/v1/files/download_link/121/'] ?? 0);

	for (const kind of ['drop', 'truncate'] as const) {
		it(`a link request whose answer is ${kind === 'drop' ? 'lost' : 'cut off'} on every attempt: a plain failure, not a write that "may have been accepted"`, async () => {
			sandbox.faults.add({ kind, path: '/files/download_link/' });
			const { outputs } = await run(sandbox, { resource: 'file', operation: 'download', fileId: '121', options: { maxRetryWait: 2 } }, { nodeSettings: { onError: 'continueErrorOutput' } });
			const json = outputs[1][0].json as { error: string; details?: IDataObject };
			expect(`${json.error} ${JSON.stringify(json.details ?? {})}`).not.toMatch(/may have been accepted|may be done twice|make it twice/);
			expect(json.details?.mayHaveBeenApplied).toBeUndefined();
		});
	}

	it('expired once (410): a fresh link is generated and the file fetched', async () => {
		const before = await linkRequests();
		sandbox.account.lateLinkFetches = { lateByMs: 5 * 60_000 + 1000, count: 1 };
		const { items, error } = await run(sandbox, { resource: 'file', operation: 'download', fileId: '121', binaryPropertyName: 'report' });
		expect(error).toBeUndefined();
		expect((await linkRequests()) - before).toBe(2);
		expect((await getBinaryBuffer(items[0].binary!.report)).equals(fileContent(sandbox.account, 121))).toBe(true);
	});

	it('expired twice: a clear error that a fresh link expired too, after exactly two links', async () => {
		const before = await linkRequests();
		sandbox.account.lateLinkFetches = { lateByMs: 5 * 60_000 + 1000, count: 2 };
		const { error } = await run(sandbox, { resource: 'file', operation: 'download', fileId: '121' });
		expect((await linkRequests()) - before).toBe(2);
		expect(error).toMatchObject({ name: 'NodeApiError', httpCode: '410' });
		expect(String(error?.message)).toMatch(/fresh link.*expired too/i);
		expect(String(error?.message)).toMatch(/5 minutes/);
	});

	it('Build Failed-Test E-mails with the test report attached: a report link that expired once is generated again', async () => {
		const deviceId = [...sandbox.account.data.devices.keys()][3];
		const bad = sandbox.account.syncTestResult({ device_id: deviceId, status: 'failed' });
		sandbox.account.lateLinkFetches = { lateByMs: 5 * 60_000 + 1000, count: 1 };
		const { items, error } = await run(sandbox, { resource: 'email', operation: 'failedTest', to: 'ops@lab.example.com', recipients: '{}', language: 'en', options: { attachReport: true } }, { inputItems: [{ json: { id: bad.id, status: 'failed', device_id: deviceId } }] });
		expect(error).toBeUndefined();
		expect(sandbox.account.lateLinkFetches).toBeUndefined();
		const pdf = items[0].binary!.attachment_0;
		expect((await getBinaryBuffer(pdf)).toString('latin1')).toMatch(/^%PDF-1\.4/);
	});

	it('the sandbox\'s admin knob makes the next link fetches late on the account clock', async () => {
		const put = await fetch(`${sandbox.adminUrl}/links`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ late_by_ms: 301_000, count: 1 }) });
		expect(put.status).toBe(200);
		expect(await put.json()).toEqual({ late_by_ms: 301_000, count: 1 });
		const { error } = await run(sandbox, { resource: 'file', operation: 'download', fileId: '121' });
		expect(error).toBeUndefined();
		expect(sandbox.account.lateLinkFetches).toBeUndefined();
		const bad = await fetch(`${sandbox.adminUrl}/links`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ late_by_ms: -1 }) });
		expect(bad.status).toBe(400);
	});
});

describe('a write whose success answer is cut off (defect 8)', () => {
	const createDrill = (barcode: string) => ({
		resource: 'device',
		operation: 'create',
		inputMode: 'fields',
		propertyValues: { property: [{ key: DEVICE.designation, value: 'Drill' }, { key: DEVICE.idBarcode, value: barcode }] },
	});
	const withBarcode = (barcode: string) => [...sandbox.account.data.devices.values()].filter((d) => d.values[DEVICE.idBarcode] === barcode);

	it('Device Create: the error item says it may have been applied, names the operation and says to look for the barcode; the device exists', async () => {
		sandbox.faults.add({ kind: 'truncate', path: '/data/devices/create/', count: 1 });
		const { outputs, error } = await run(sandbox, createDrill('CUT-81'), { nodeSettings: { onError: 'continueErrorOutput' } });
		expect(error).toBeUndefined();
		expect(withBarcode('CUT-81')).toHaveLength(1);
		expect(outputs[1]).toHaveLength(1);
		const failed = outputs[1][0];
		expect(failed.pairedItem).toEqual({ item: 0 });
		const json = failed.json as { error: string; details: IDataObject };
		expect(json.error).toMatch(/^Device Create may have been accepted/);
		expect(json.details).toMatchObject({ mayHaveBeenApplied: true, httpCode: 201 });
		expect(String(json.details.description)).toMatch(/before running this item again.*look for it: find the device by its ID Barcode/i);
	});

	it('Device Create without "Continue": the workflow error says the same, once', async () => {
		sandbox.faults.add({ kind: 'truncate', path: '/data/devices/create/', count: 1 });
		const { error } = await run(sandbox, createDrill('CUT-82'));
		expect(withBarcode('CUT-82')).toHaveLength(1);
		expect(error).toMatchObject({ name: 'NodeApiError', message: expect.stringMatching(/^Device Create may have been accepted/) });
		expect(String(error?.description)).toMatch(/ID Barcode/);
		expect(String(error?.description)).not.toMatch(/Device Create may have been accepted/);
	});

	it('version 1 under "Continue (using regular output)": the flat error item carries mayHaveBeenApplied too', async () => {
		sandbox.faults.add({ kind: 'truncate', path: '/data/customers/create/', count: 1 });
		const customers = sandbox.account.data.customers.size;
		const { items, error } = await run(
			sandbox,
			{ resource: 'customer', operation: 'create', inputMode: 'fields', propertyValues: { property: [{ key: CUSTOMER_KEYS[0].id, value: 'Cut Answer GmbH' }] } },
			{ nodeSettings: { onError: 'continueRegularOutput' } },
		);
		expect(error).toBeUndefined();
		expect(sandbox.account.data.customers.size).toBe(customers + 1);
		expect(jsonOf(items)).toEqual([expect.objectContaining({ error: expect.stringMatching(/^Customer Create may have been accepted/), mayHaveBeenApplied: true, httpCode: '201' })]);
		expect(String(items[0].json.description)).toMatch(/Customer › Get Many/);
	});

	const cutThen503 = (path: string) => {
		sandbox.faults.add({ kind: 'truncate', path, count: 1 });
		sandbox.faults.add({ kind: 'status', status: 503, path, skip: 1 });
	};
	const mayHaveBeenApplied = (failed: { json: IDataObject }, what: string) => {
		const json = failed.json as { error: string; details: IDataObject };
		expect(json.error).toMatch(new RegExp(`^${what} may have been accepted: an earlier attempt's answer was lost or cut off, and the last attempt failed \\(.*503`));
		expect(json.details).toMatchObject({ mayHaveBeenApplied: true });
		expect(String(json.details.description)).toMatch(/before running this item again/i);
	};

	it('Device Update cut off, its repeats answered 503 until Max Retry Wait ends: the error says it may have been accepted; the Location is changed', async () => {
		cutThen503('/data/devices/edit/');
		const { outputs, error } = await run(
			sandbox,
			{ resource: 'device', operation: 'update', deviceId: byId(2), fields: { mappingMode: 'defineBelow', value: { [DEVICE.location]: 'Shelf 9' } }, options: { maxRetryWait: 2 } },
			{ typeVersion: 3, nodeSettings: { onError: 'continueErrorOutput' } },
		);
		expect(error).toBeUndefined();
		expect(sandbox.account.data.devices.get(2)!.values[DEVICE.location]).toBe('Shelf 9');
		expect(outputs[1]).toHaveLength(1);
		mayHaveBeenApplied(outputs[1][0], 'Device Update');
	});

	it('Device Delete cut off, its repeats answered 503 until Max Retry Wait ends: the error says it may have been accepted; the device is deleted', async () => {
		const id = [...sandbox.account.data.devices.keys()].at(-1)!;
		cutThen503('/data/devices/delete/');
		const { outputs, error } = await run(sandbox, { resource: 'device', operation: 'delete', deviceId: byId(id), options: { maxRetryWait: 2 } }, { nodeSettings: { onError: 'continueErrorOutput' } });
		expect(error).toBeUndefined();
		expect(sandbox.account.data.devices.has(id)).toBe(false);
		expect(outputs[1]).toHaveLength(1);
		mayHaveBeenApplied(outputs[1][0], 'Device Delete');
	});

	it('Device Update and Delete answered 503 on every attempt (an outage longer than Max Retry Wait): a plain failure, nothing lost or cut off, nothing applied', async () => {
		const id = [...sandbox.account.data.devices.keys()].at(-1)!;
		for (const [path, parameters] of [
			['/data/devices/edit/', { resource: 'device', operation: 'update', deviceId: byId(2), fields: { mappingMode: 'defineBelow', value: { [DEVICE.location]: 'Shelf 9' } }, options: { maxRetryWait: 2 } }],
			['/data/devices/delete/', { resource: 'device', operation: 'delete', deviceId: byId(id), options: { maxRetryWait: 2 } }],
		] as const) {
			sandbox.faults.clear();
			sandbox.faults.add({ kind: 'status', status: 503, path });
			const { outputs } = await run(sandbox, parameters, { typeVersion: 3, nodeSettings: { onError: 'continueErrorOutput' } });
			const json = outputs[1][0].json as { error: string; details?: IDataObject };
			expect(json.error).toMatch(/HTTP 503/);
			expect(json.error).not.toMatch(/may have been (accepted|applied)/);
			expect(json.details?.mayHaveBeenApplied).toBeUndefined();
		}
		sandbox.faults.clear();
		expect(sandbox.account.data.devices.get(2)!.values[DEVICE.location]).not.toBe('Shelf 9');
		expect(sandbox.account.data.devices.has(id)).toBe(true);
	});

	it('a refused write (404) is a plain failure, without mayHaveBeenApplied', async () => {
		const { outputs } = await run(
			sandbox,
			{ resource: 'device', operation: 'update', inputMode: 'fields', deviceId: byId(999_999), propertyValues: { property: [{ key: DEVICE.location, value: 'x' }] } },
			{ nodeSettings: { onError: 'continueErrorOutput' } },
		);
		const json = outputs[1][0].json as { error: string; details?: IDataObject };
		expect(json.error).not.toMatch(/may have been (accepted|applied)/);
		expect(json.details?.mayHaveBeenApplied).toBeUndefined();
	});

	it('a repeat refused after an uncertain first attempt (503, then 404 or 400) is a plain failure: the same request refused could not have been applied the first time', async () => {
		// A device that does not exist (the service's 404), and a repeat the service refuses as a bad request.
		for (const [deviceId, refusal] of [[999_999, undefined], [2, 400]] as const) {
			sandbox.faults.add({ kind: 'status', status: 503, path: '/data/devices/edit/', count: 1 });
			if (refusal) sandbox.faults.add({ kind: 'status', status: refusal, path: '/data/devices/edit/', skip: 1, count: 1 });
			const { outputs } = await run(
				sandbox,
				{ resource: 'device', operation: 'update', inputMode: 'fields', deviceId: byId(deviceId), propertyValues: { property: [{ key: DEVICE.location, value: 'x' }] } },
				{ nodeSettings: { onError: 'continueErrorOutput' } },
			);
			const json = outputs[1][0].json as { error: string; details?: IDataObject };
			expect(json.error).toMatch(/HTTP 4\d\d/);
			expect(json.error).not.toMatch(/may have been (accepted|applied)/);
			expect(json.details?.mayHaveBeenApplied).toBeUndefined();
		}
	});
});
