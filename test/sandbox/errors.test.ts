import { afterEach, describe, expect, it } from 'vitest';
import { useSandbox, type Item } from '../support/sandbox';
import { PATHS, expectError, props } from './helpers';

/** Spec, Errors and Limits: every status of the error table with a JSON description; faults; versioning. */

const api = useSandbox();
afterEach(async () => {
	await api.admin.clearFaults();
	await api.admin.call('PUT', '/maintenance', { on: false });
	await api.admin.call('PUT', '/license', { state: 'active' });
	await api.admin.call('PUT', '/versioning', { extra_fields: false });
	await api.admin.reset();
});

describe('the error table, status by status', () => {
	it('200 and 201', async () => {
		expect((await api.get(PATHS.devices)).status).toBe(200);
		expect((await api.call('POST', '/data/devices/create/', { body: { properties: { 1: 'Lamp' } } })).status).toBe(201);
	});

	it('400 bad request: incorrect or missing parameters', async () => {
		expectError(await api.get(`${PATHS.devices}?limit=x`), 400, 'limit');
		expectError(await api.call('PUT', '/data/devices/multiple_edit/', { body: {} }), 400, 'ids');
	});

	it('401 invalid token', async () => {
		expectError(await api.get(PATHS.devices, 'not-a-token'), 401);
	});

	it('412 precondition failed (editing a deleted item)', async () => {
		expect((await api.call('DELETE', '/data/devices/delete/30/')).status).toBe(200);
		expectError(await api.call('PUT', '/data/devices/edit/', { body: { id: 30, properties: { 4: 'IT' } } }), 412);
	});

	it('413 permissions error', async () => {
		const { token } = await api.admin.token({ scopes: ['customers:read'] });
		expectError(await api.get(PATHS.devices, token), 413, 'devices:read');
	});

	it('426 and 427 licence expired; 200 again once renewed', async () => {
		expect((await api.admin.call('PUT', '/license', { state: 'expired' })).status).toBe(200);
		expectError(await api.get(PATHS.devices), 426, /licen/i);
		expectError(await api.get(PATHS.testResults), 426);
		expect((await api.admin.call('PUT', '/license', { state: 'expired427' })).status).toBe(200);
		expectError(await api.get(PATHS.devices), 427, /licen/i);
		await api.admin.call('PUT', '/license', { state: 'active' });
		expect((await api.get(PATHS.devices)).status).toBe(200);
	});

	it('429 above 5 requests in one second per token; another token is unaffected', async () => {
		const { token } = await api.admin.token({ label: 'burst' });
		const { token: other } = await api.admin.token({ label: 'bystander' });
		const burst = await Promise.all(Array.from({ length: 7 }, () => api.get(`${PATHS.projects}?limit=1`, token)));
		const statuses = burst.map((a) => a.status).sort();
		expect(statuses.filter((s) => s === 200)).toHaveLength(5);
		expect(statuses.filter((s) => s === 429)).toHaveLength(2);
		const limited = burst.find((a) => a.status === 429)!;
		expectError(limited, 429, /5 requests per second/);
		expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
		expect((await api.get(`${PATHS.projects}?limit=1`, other)).status).toBe(200);
	});

	it('429 also for 6 sequential requests within one second', async () => {
		const { token } = await api.admin.token({ label: 'sequential' });
		const statuses: number[] = [];
		// Six local requests take a few milliseconds, well inside one second.
		for (let i = 0; i < 6; i++) statuses.push((await api.get(`${PATHS.users}?limit=1`, token)).status);
		expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
	});

	it('451 under maintenance (every resource), 200 when it ends', async () => {
		expect((await api.admin.call('PUT', '/maintenance', { on: true })).status).toBe(200);
		expectError(await api.get(PATHS.devices), 451, /maintenance/);
		expectError(await api.get('/device/detail/1/'), 451);
		expectError(await api.call('POST', '/data/devices/create/', { body: { properties: { 1: 'x' } } }), 451);
		await api.admin.call('PUT', '/maintenance', { on: false });
		expect((await api.get(PATHS.devices)).status).toBe(200);
	});

	it('500 unexpected server error (injected)', async () => {
		expect((await api.admin.call('POST', '/faults', { kind: 'status', status: 500 })).status).toBe(201);
		expectError(await api.get(PATHS.devices), 500);
		expectError(await api.get(PATHS.customers), 500);
	});

	it('404 for an unknown endpoint also carries a description', async () => {
		expectError(await api.get('/no/such/endpoint/'), 404);
	});
});

describe('fault injection', () => {
	it('latency delays the answer', async () => {
		await api.admin.call('POST', '/faults', { kind: 'latency', latencyMs: 150 });
		const t0 = performance.now();
		expect((await api.get(`${PATHS.users}?limit=1`)).status).toBe(200);
		expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
	});

	it('truncated bodies are not valid JSON and shorter than the real one', async () => {
		const real = await api.get(`${PATHS.projects}?limit=3`);
		await api.admin.call('POST', '/faults', { kind: 'truncate' });
		const cut = await api.get(`${PATHS.projects}?limit=3`);
		expect(cut.status).toBe(200);
		expect(cut.body).toBeUndefined();
		expect(cut.text.length).toBeLessThan(real.text.length);
		expect(real.text.startsWith(cut.text)).toBe(true);
	});

	it('non-JSON bodies (an HTML gateway page)', async () => {
		await api.admin.call('POST', '/faults', { kind: 'nonJson' });
		const a = await api.get(PATHS.projects);
		expect(a.headers.get('content-type')).toMatch(/text\/html/);
		expect(a.body).toBeUndefined();
		expect(a.text).toMatch(/<html>/);
	});

	it('dropped connections make the request fail at the network level', async () => {
		await api.admin.call('POST', '/faults', { kind: 'drop', count: 1 });
		await expect(api.get(PATHS.projects)).rejects.toThrow();
		expect((await api.get(PATHS.projects)).status).toBe(200);
	});

	it('a path-limited fault strikes only requests under that path', async () => {
		await api.admin.call('POST', '/faults', { kind: 'status', status: 503, path: '/data/customers/' });
		expectError(await api.get(PATHS.customers), 503);
		expect((await api.get(PATHS.devices)).status).toBe(200);
		expect((await api.get(PATHS.projects)).status).toBe(200);
	});

	it('a count-limited fault stops after that many hits', async () => {
		await api.admin.call('POST', '/faults', { kind: 'status', status: 500, count: 2 });
		const statuses: number[] = [];
		for (let i = 0; i < 4; i++) statuses.push((await api.get(`${PATHS.users}?limit=1`)).status);
		expect(statuses).toEqual([500, 500, 200, 200]);
	});

	it('a share of responses: about that fraction, deterministic from the seed', async () => {
		await api.admin.call('POST', '/faults', { kind: 'status', status: 502, share: 0.5 });
		let hit = 0;
		for (let i = 0; i < 40; i++) if ((await api.get(`${PATHS.users}?limit=1`)).status === 502) hit++;
		expect(hit).toBeGreaterThan(5);
		expect(hit).toBeLessThan(35);
	});

	it('bad fault definitions are refused', async () => {
		expectError(await api.admin.call('POST', '/faults', { kind: 'meteor' }), 400, 'kind');
		expectError(await api.admin.call('POST', '/faults', { kind: 'status', status: 200 }), 400, 'status');
		expectError(await api.admin.call('POST', '/faults', { kind: 'status', status: 500, share: 2 }), 400, 'share');
	});
});

describe('versioning drill: unknown fields and enum values', () => {
	it('PUT /_admin/versioning {extra_fields: true} adds fields and enum values clients must tolerate', async () => {
		const plain = await api.ok(`${PATHS.devices}?limit=5`);
		expect(Object.keys(plain.results[0]).sort()).toEqual(['created_time', 'customer_id', 'id', 'properties', 'updated_time']);
		expect((await api.admin.call('PUT', '/versioning', { extra_fields: true })).status).toBe(200);

		const extra = await api.ok(`${PATHS.devices}?limit=5`);
		const device = extra.results[0];
		expect(device).toHaveProperty('revision');
		expect(device).toHaveProperty('sync_channel');
		expect(device.properties[0]).toHaveProperty('visible');
		expect(device.properties.map((p) => p.data_type)).toContain('Boolean');
		// The known properties keep their values.
		expect(props(device)[1]).toBe(props(plain.results[0])[1]);

		const results = await api.all(PATHS.testResults);
		const statuses = new Set(results.map((r) => r.status));
		expect([...statuses].some((s) => s !== 'passed' && s !== 'failed')).toBe(true);

		const detail = (await api.get('/device/detail/1/')).body as unknown as Item;
		expect(detail).toHaveProperty('revision');

		await api.admin.call('PUT', '/versioning', { extra_fields: false });
		const back = await api.ok(`${PATHS.devices}?limit=5`);
		expect(back.results[0]).not.toHaveProperty('revision');
	});
});
