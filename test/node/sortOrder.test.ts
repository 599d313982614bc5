/**
 * A sort done on this side (Return All with a sort: read in the service's own order, sorted after
 * the last page) gives the order the service gives, as the service profile describes it
 * (`ordering.textCase`, `ordering.missing`). Run by n8n's real engine against the sandbox serving
 * each order over HTTP: the service's order is a Limit of one page, sorted by the service.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import type { ServiceProfileInput } from '../../client';
import { DEVICE } from '../../sandbox/properties';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { credentialsFor, run, useSandbox } from './helpers';

const ORDERS: Record<string, ServiceProfileInput['ordering']> = {
	default: {},
	'case respected, missing first': { textCase: 'respect', missing: 'first' },
	'missing lowest': { missing: 'lowest' },
	'missing highest': { missing: 'highest' },
};

const DEVICES = 300;

/** Designations in mixed case, some empty; test intervals with gaps. */
function mixValues(sandbox: Sandbox): void {
	const words = ['alpha', 'Beta', 'beta', 'ALPHA', 'gamma', 'Gamma', '', 'delta'];
	for (const [id, device] of sandbox.account.data.devices) {
		device.values[DEVICE.designation] = words[id % words.length] === '' ? null : `${words[id % words.length]} ${id % 3}`;
		device.values[DEVICE.testInterval] = id % 5 === 0 ? null : (id * 7) % 13;
	}
}

for (const [name, ordering] of Object.entries(ORDERS)) {
	describe(`service order: ${name}`, () => {
		const profile: ServiceProfileInput = { version: 1, ordering };
		const sandbox = {} as Sandbox;
		beforeAll(async () => {
			Object.assign(sandbox, await startSandbox({ port: 0, profile }));
			sandbox.account.reset({ size: { devices: DEVICES } });
			mixValues(sandbox);
		});
		afterAll(async () => sandbox.stop());
		const credentials = () => credentialsFor(sandbox, undefined, { serviceProfile: JSON.stringify(profile) });

		for (const key of [DEVICE.designation, DEVICE.testInterval]) {
			for (const direction of ['asc', 'desc']) {
				it(`property ${key} ${direction}: Return All sorted here is the service's order`, async () => {
					const sort = { sort: { rule: { key, direction } } };
					const served = await run(sandbox, { resource: 'device', operation: 'getAll', limit: DEVICES, options: sort }, { credentials: credentials() });
					const here = await run(sandbox, { resource: 'device', operation: 'getAll', returnAll: true, options: sort }, { credentials: credentials() });
					expect(served.error).toBeUndefined();
					expect(here.error).toBeUndefined();
					const values = (items: Array<{ json: IDataObject }>) => items.map((i) => `${String(i.json.id)}`);
					expect(values(here.items)).toEqual(values(served.items));
				});
			}
		}
	});
}

describe('a sorted Limit above the largest page', () => {
	// Pages of at most 100: a Limit of 120 is sorted here, keeping its first records while reading.
	const profile: ServiceProfileInput = { version: 1, paging: { maxPageSize: 100 } };
	const sandbox = {} as Sandbox;
	beforeAll(async () => {
		Object.assign(sandbox, await startSandbox({ port: 0, profile }));
		sandbox.account.reset({ size: { devices: DEVICES } });
		mixValues(sandbox);
	});
	afterAll(async () => sandbox.stop());
	const credentials = () => credentialsFor(sandbox, undefined, { serviceProfile: JSON.stringify(profile) });

	for (const key of [DEVICE.designation, DEVICE.testInterval]) {
		for (const direction of ['asc', 'desc']) {
			it(`property ${key} ${direction}: Limit 120 gives the first 120 of Return All in order`, async () => {
				const sort = { sort: { rule: { key, direction } } };
				const all = await run(sandbox, { resource: 'device', operation: 'getAll', returnAll: true, options: sort }, { credentials: credentials() });
				const first = await run(sandbox, { resource: 'device', operation: 'getAll', limit: 120, options: sort }, { credentials: credentials() });
				expect(all.error).toBeUndefined();
				expect(first.error).toBeUndefined();
				const ids = (items: Array<{ json: IDataObject }>) => items.map((i) => String(i.json.id));
				expect(ids(first.items)).toEqual(ids(all.items).slice(0, 120));
			});
		}
	}
});

describe('a sort key the account does not have', () => {
	// The service refuses an unknown ordering key (a Limit one page holds is sorted there); a read
	// sorted here must refuse it too, not keep the read order and report success.
	const sandbox = {} as Sandbox;
	beforeAll(async () => {
		Object.assign(sandbox, await startSandbox({ port: 0, ratePerSecond: 200 }));
		sandbox.account.reset({ size: { devices: 30 } });
	});
	afterAll(async () => sandbox.stop());

	const cases = [
		{ resource: 'device', key: 99, parameter: 'Property Name or ID' },
		{ resource: 'customer', key: 99, parameter: 'Property Name or ID' },
		{ resource: 'testResult', key: 'nosuchfield', parameter: 'Field Name or ID' },
		{ resource: 'project', key: 'nosuch', parameter: 'Field Name or ID' },
	];
	for (const { resource, key, parameter } of cases) {
		for (const read of [{ returnAll: true }, { limit: 1500 }]) {
			it(`${resource} sorted by ${key}, ${JSON.stringify(read)}: an error naming Sort › ${parameter}, the key and the item, and no list read`, async () => {
				// The property keys (one read per execution) are not a list read of the records.
				const lists = () => Object.entries(sandbox.stats.byPath).filter(([path]) => !path.includes('/properties/')).reduce((n, [, c]) => n + c, 0);
				const before = lists();
				const { error, items } = await run(sandbox, { resource, operation: 'getAll', ...read, options: { sort: { rule: { key, direction: 'asc' } } } });
				expect(items).toEqual([]);
				expect(error?.message).toMatch(new RegExp(`Sort › ${parameter}.*${key}.*item 0`));
				expect(lists() - before).toBe(0);
			});
		}
	}
});

describe('ties on the sort field', () => {
	const sandbox = useSandbox({ ratePerSecond: 200 });

	it('after a device is restored (no longer in id order unsorted), Return All sorted by Department gives the ids Limit 1000 gives', async () => {
		// Taken out and put back, as a restore from the recycle bin does: the unsorted order puts it last.
		const devices = sandbox.account.data.devices;
		const d = devices.get(3)!;
		devices.delete(3);
		devices.set(3, d);
		const sort = { sort: { rule: { key: DEVICE.department, direction: 'asc' } } };
		const served = await run(sandbox, { resource: 'device', operation: 'getAll', limit: 1000, options: sort });
		const here = await run(sandbox, { resource: 'device', operation: 'getAll', returnAll: true, options: sort });
		expect(served.error).toBeUndefined();
		expect(here.error).toBeUndefined();
		expect(served.items.length).toBeGreaterThan(200);
		const ids = (items: Array<{ json: IDataObject }>) => items.map((i) => String(i.json.id));
		expect(ids(here.items)).toEqual(ids(served.items));
	});
});
