/**
 * The node and the trigger with a Service Profile in the credential, in n8n's engine, against the
 * sandbox serving each variant layout over HTTP (issue 24); and the credential test refusing a
 * profile that cannot be used, naming the key.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import { DEVICE } from '../../sandbox/properties';
import { testCredential } from '../support/n8n';
import { VARIANTS } from '../support/profiles';
import { DAY_MS, ids, overdueNow, Poller, setOverdue, startWorld, type World } from '../support/trigger';
import { credentialsFor, run } from './helpers';

const SIZE = { devices: 420, customers: 12, testResults: 450 };

for (const [name, profile] of Object.entries(VARIANTS)) {
	describe(`variant ${name}: every face of the node takes the profile`, () => {
		const world = {} as World;
		const serviceProfile = JSON.stringify(profile);
		const extra: IDataObject = { serviceProfile };
		beforeAll(async () => {
			Object.assign(world, await startWorld(SIZE, { profile }));
		});
		afterAll(() => world.stop());
		beforeEach(() => {
			world.sandbox.account.clockOffsetMs = 0;
			world.sandbox.account.reset({ size: SIZE });
		});
		const credential = (more: IDataObject = {}) => ({ accessToken: world.sandbox.sandboxToken, environment: 'sandbox', sandboxBaseUrl: world.sandbox.url, ...extra, ...more });

		it('the credential test passes with the profile and fails without it (the default path is not there)', async () => {
			expect(await testCredential(credential())).toMatchObject({ status: 'OK' });
			const without = await testCredential(credential({ serviceProfile: '' }));
			// Without it the default layout is assumed: a path or a paging parameter the service does not know.
			expect(without.status).toBe('Error');
			expect(without.message).toMatch(/HTTP (404|400)/);
		});

		it('Get Many with Return All reads every device and every test result (canonical field names), in pages no larger than the profile allows', async () => {
			const devices = await run(world.sandbox, { resource: 'device', operation: 'getAll', returnAll: true }, { credentials: credentialsFor(world.sandbox, undefined, extra) });
			expect(devices.error).toBeUndefined();
			expect(new Set(devices.items.map((i) => i.json.id)).size).toBe(SIZE.devices);
			const results = await run(world.sandbox, { resource: 'testResult', operation: 'getAll', returnAll: true }, { credentials: credentialsFor(world.sandbox, undefined, extra) });
			expect(results.error).toBeUndefined();
			expect(results.items).toHaveLength(world.sandbox.account.data.testResults.size);
			expect(results.items[0].json).toMatchObject({ test_date: expect.any(String), status: expect.any(String), synced_time: expect.any(String) });
		});

		it('Get by barcode finds the device through the property holding the ID barcode role', async () => {
			const barcode = String(world.sandbox.account.data.devices.get(42)!.values[DEVICE.idBarcode]);
			const got = await run(
				world.sandbox,
				{ resource: 'device', operation: 'get', deviceId: { __rl: true, mode: 'barcode', value: barcode } },
				{ typeVersion: 2, credentials: credentialsFor(world.sandbox, undefined, extra) },
			);
			expect(got.error).toBeUndefined();
			expect(got.items.map((i) => i.json.id)).toEqual([42]);
		});

		it("the trigger's Device Overdue and New Test Result emit what the sandbox did", async () => {
			const overdue = new Poller(world, { event: 'deviceOverdue' }, extra);
			const results = new Poller(world, { event: 'testResultNew' }, extra);
			expect(await overdue.poll()).toEqual([]);
			expect(await results.poll()).toEqual([]);
			const before = overdueNow(world.sandbox);
			const [id] = [...world.sandbox.account.data.devices.keys()].filter((d) => !before.has(d));
			setOverdue(world.sandbox, id, true);
			world.advance(DAY_MS);
			const uploaded = world.sandbox.account.syncTestResult({ device_id: 3, status: 'failed', test_date: world.today() });
			const entered = [...overdueNow(world.sandbox)].filter((d) => !before.has(d)).sort((a, b) => a - b);
			expect(entered).toContain(id);
			const emitted = await overdue.poll();
			expect(ids(emitted)).toEqual(entered);
			expect(emitted.find((e) => e.id === id)).toMatchObject({ id, next_test_date: expect.any(String), days_overdue: expect.any(Number) });
			const fresh = await results.poll();
			expect(ids(fresh)).toEqual([uploaded.id]);
			expect(fresh[0]).toMatchObject({ id: uploaded.id, status: 'failed', test_date: uploaded.test_date });
		});
	});
}

describe('the credential test checks the Service Profile before any request', () => {
	const world = {} as World;
	beforeAll(async () => {
		Object.assign(world, await startWorld({ devices: 10 }));
	});
	afterAll(() => world.stop());

	const cases: Array<[string, string | IDataObject, RegExp]> = [
		['a wrong key', '{"paging": {"pageSize": 50}}', /service profile: paging\.pageSize: is not a key of the service profile; allowed here: style, limitParam/],
		['text that is not JSON', '{"paging": ', /service profile: is not JSON/],
		['a path with a scheme', { operations: { 'device.list': { path: 'https://elsewhere.example/x/' } } }, /service profile: operations\.device\.list\.path: must be a path under \/api\/v1/],
		['one property for two roles', { properties: { department: { names: ['Designation'] } } }, /properties\.department\.names: "Designation" already names the role properties\.designation/],
	];
	for (const [what, serviceProfile, message] of cases) {
		it(`${what}: the test fails naming the key, and nothing is sent`, async () => {
			const before = world.sandbox.stats.requests;
			const result = await testCredential({ accessToken: world.sandbox.sandboxToken, environment: 'sandbox', sandboxBaseUrl: world.sandbox.url, serviceProfile });
			expect(result.status).toBe('Error');
			expect(result.message).toMatch(message);
			expect(world.sandbox.stats.requests).toBe(before);
		});
	}
});
