/**
 * Error paths through n8n's engine: each failure is wrapped exactly once (NodeApiError with the
 * HTTP code and the service's description, or NodeOperationError for bad parameters), 429s from
 * other traffic are waited out, continueOnFail returns the error per item.
 */
import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_RETRY } from '../../client';
import { DEVICE } from '../../sandbox/properties';
import { withInstantWaits } from '../support/instantWaits';
import { credentialsFor, run, useSandbox, settledRequests } from './helpers';

const sandbox = useSandbox();

const listDevices = { resource: 'device', operation: 'getAll', limit: 3 };

function expectNoToken(value: unknown, token: string) {
	expect(JSON.stringify(value)).not.toContain(token);
}

describe('service errors become one NodeApiError with the service description', () => {
	it('401: invalid token', async () => {
		const token = 'f'.repeat(40);
		const before = await settledRequests(sandbox);
		const { items, error, run: execution } = await run(sandbox, listDevices, { credentials: credentialsFor(sandbox, token) });
		expect(items).toEqual([]);
		expect(execution.status).toBe('error');
		expect(error).toMatchObject({
			name: 'NodeApiError',
			httpCode: '401',
			message: expect.stringContaining('The access token is invalid'),
			description: 'Invalid token: it does not exist or was deleted.',
			context: { itemIndex: 0 },
		});
		// n8n re-sends a request after a 401 only when its helper throws; the client reads the
		// status itself, so the service sees the request once.
		expect((await settledRequests(sandbox)) - before).toBe(1);
		expectNoToken(error, token);
	});

	it('413: the token lacks the scope', async () => {
		const { token } = sandbox.account.createToken({ scopes: ['devices:read'] });
		const ok = await run(sandbox, listDevices, { credentials: credentialsFor(sandbox, token) });
		expect(ok.items).toHaveLength(3);
		const { error } = await run(sandbox, { resource: 'customer', operation: 'getAll' }, { credentials: credentialsFor(sandbox, token) });
		expect(error).toMatchObject({
			name: 'NodeApiError',
			httpCode: '413',
			message: expect.stringContaining('lacks the permission scope'),
			description: expect.stringContaining('"customers:read" scope'),
		});
		expectNoToken(error, token);
	});

	it('400: the service description reaches the user', async () => {
		const { error } = await run(sandbox, {
			resource: 'device',
			operation: 'create',
			propertyValues: { property: [{ key: DEVICE.designation, value: 'Drill' }, { key: DEVICE.lastTested, value: 'yesterday' }] },
		});
		expect(error).toMatchObject({
			name: 'NodeApiError',
			httpCode: '400',
			description: 'body.properties.3: Last tested is a Date; write it as YYYY-MM-DD (got "yesterday").',
		});
	});

	it('404 on Get of an unknown device', async () => {
		const { error } = await run(sandbox, { resource: 'device', operation: 'get', deviceId: { __rl: true, mode: 'id', value: '99999' } });
		expect(error).toMatchObject({ name: 'NodeApiError', httpCode: '404', description: 'Device 99999 does not exist.' });
	});

	it('451: maintenance is a clear error once the retry budget is spent', async () => {
		sandbox.account.maintenance = true;
		const { error } = await run(sandbox, { ...listDevices, options: { maxRetryWait: 0 } });
		expect(error).toMatchObject({
			name: 'NodeApiError',
			httpCode: '451',
			message: 'The service is under maintenance; try again later (HTTP 451)',
			description: 'The service is under maintenance. Please try again later.',
		});
	});

	it('Max Retry Wait is the bound, not a count of attempts: a 30 s outage (503) with Max Retry Wait 120 is waited out', async () => {
		const outage = sandbox.faults.add({ kind: 'status', status: 503, forMs: 30_000 });
		const realNow = Date.now.bind(Date);
		let moved = 0;
		const spy = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + moved);
		try {
			const { result, waits } = await withInstantWaits(
				(ms) => {
					moved += ms;
					sandbox.account.clockOffsetMs += ms;
				},
				// A token of its own: its pacer's slots are on the moved clock.
				async () => await run(sandbox, { ...listDevices, options: { maxRetryWait: 120 } }, { credentials: credentialsFor(sandbox, sandbox.account.createToken().token) }),
			);
			expect(result.error).toBeUndefined();
			expect(result.items).toHaveLength(3);
			expect(outage.hits + 1).toBeGreaterThan(DEFAULT_RETRY.maxAttempts);
			expect(waits.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(30_000);
			expect(Math.max(...waits)).toBeLessThanOrEqual(DEFAULT_RETRY.maxDelayMs);
		} finally {
			spy.mockRestore();
			sandbox.account.clockOffsetMs = 0;
		}
	});

	it('451 that clears while waiting is waited out (maintenance retries)', async () => {
		sandbox.faults.add({ kind: 'status', status: 451, count: 1 });
		const started = Date.now();
		const { items, error } = await run(sandbox, { ...listDevices, options: { maxRetryWait: 15 } });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(3);
		expect(Date.now() - started).toBeGreaterThanOrEqual(4_000); // maintenance waits start at 5-10 s
	}, 30_000);
});

describe('rate limit', () => {
	it('429s from other traffic on the same token are waited out, not surfaced', async () => {
		sandbox.faults.add({ kind: 'status', status: 429, count: 2 });
		const before429 = sandbox.stats.byStatus['429'] ?? 0;
		const { items, error } = await run(sandbox, { resource: 'device', operation: 'getAll', returnAll: true });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(240);
		await settledRequests(sandbox);
		expect((sandbox.stats.byStatus['429'] ?? 0) - before429).toBe(2);
	});

	it('a 429 answered by the real limiter (burst from another client) is waited out too', async () => {
		// Another client on the same token uses up this second's budget right before the node runs.
		await Promise.all(
			Array.from({ length: 5 }, () =>
				fetch(`${sandbox.url}/api/v1/data/devices/all/?limit=1`, { headers: { authorization: `Token ${sandbox.sandboxToken}` } }),
			),
		);
		const { items, error } = await run(sandbox, listDevices);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(3);
	});
});

describe('bad parameters are stopped before any request', () => {
	it('an impossible date in a filter gives NodeOperationError naming the filter, zero requests', async () => {
		const before = await settledRequests(sandbox);
		const { error } = await run(sandbox, {
			resource: 'device',
			operation: 'getAll',
			filters: { date: [{ key: DEVICE.lastTested, conditions: { condition: [{ keyword: 'olderThan', value: '2026-02-30' }] } }] },
		});
		expect(error).toMatchObject({
			name: 'NodeOperationError',
			message: expect.stringMatching(/^Filters › Date Filter 1 \(property 3\): "2026-02-30" is not a calendar date/),
			context: { itemIndex: 0 },
		});
		expect(await settledRequests(sandbox)).toBe(before);
	});

	it('a text value the filter syntax cannot carry, a bad ID, and bad JSON input are caught too', async () => {
		const before = await settledRequests(sandbox);
		const text = await run(sandbox, {
			resource: 'device',
			operation: 'getAll',
			filters: { text: [{ key: DEVICE.designation, conditions: { condition: [{ keyword: 'contains', value: 'a"b' }] } }] },
		});
		expect(text.error).toMatchObject({ name: 'NodeOperationError', message: expect.stringContaining('Text Filter 1') });
		const id = await run(sandbox, { resource: 'device', operation: 'get', deviceId: { __rl: true, mode: 'id', value: '={{ "../1" }}' } });
		expect(id.error).toMatchObject({ name: 'NodeOperationError', message: expect.stringContaining('Device') });
		const json = await run(sandbox, { resource: 'device', operation: 'create', inputMode: 'json', json: '[]' });
		expect(json.error).toMatchObject({ name: 'NodeOperationError', message: expect.stringContaining('JSON') });
		expect(await settledRequests(sandbox)).toBe(before);
	});
});

describe('continueOnFail', () => {
	it.each([
		['onError: continueRegularOutput', { onError: 'continueRegularOutput' as const }],
		['legacy continueOnFail', { continueOnFail: true }],
	])('returns the error per item and goes on with the next items (%s)', async (_label, nodeSettings) => {
		const { items, error } = await run(
			sandbox,
			{ resource: 'device', operation: 'get', deviceId: { __rl: true, mode: 'id', value: '={{ $json.id }}' } },
			{
				nodeSettings,
				inputItems: [{ json: { id: 1 } }, { json: { id: 99999 } }, { json: { id: 'a/b' } }, { json: { id: 2 } }],
			},
		);
		expect(error).toBeUndefined();
		expect(items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }, { item: 3 }]);
		expect(items[0].json).toMatchObject({ id: 1 });
		expect(items[1].json).toEqual({
			error: 'The requested item does not exist (it may have been deleted) (HTTP 404)',
			description: 'Device 99999 does not exist.',
			httpCode: '404',
		});
		expect(items[2].json).toMatchObject({ error: expect.stringContaining('Device: must be an identifier') });
		expect(items[3].json).toMatchObject({ id: 2 });
	});

	it('without it, the first failing item stops the node with that item index', async () => {
		const { error, items } = await run(
			sandbox,
			{ resource: 'device', operation: 'get', deviceId: { __rl: true, mode: 'id', value: '={{ $json.id }}' } },
			{ inputItems: [{ json: { id: 1 } }, { json: { id: 99999 } }] },
		);
		expect(items).toEqual([]);
		expect(error).toMatchObject({ name: 'NodeApiError', httpCode: '404', context: { itemIndex: 1 } });
	});
});

describe('credential problems', () => {
	it('a plain-http base URL that is not local is refused before any request', async () => {
		const { error } = await run(sandbox, listDevices, {
			credentials: credentialsFor(sandbox, sandbox.sandboxToken, { sandboxBaseUrl: 'http://tec.example.com' }),
		});
		expect(error).toMatchObject({ name: 'NodeOperationError', message: expect.stringContaining('Sandbox Base URL (credential): must use https') });
	});

	it('Environment = Production uses the Production Base URL', async () => {
		const { items, error } = await run(sandbox, listDevices, {
			credentials: credentialsFor(sandbox, sandbox.sandboxToken, { environment: 'production', sandboxBaseUrl: '', productionBaseUrl: `${sandbox.url}/api/v1/` }),
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(3);
	});
});
