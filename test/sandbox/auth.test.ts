import { describe, expect, it } from 'vitest';
import { ENDPOINTS, endpoint, type OperationId } from '../../client';
import { SCOPES } from '../../sandbox/account';
import { Api, start, useSandbox } from '../support/sandbox';
import { expectError } from './helpers';

/** Spec, Authentication: the header, 401 for invalid tokens, 413 for a missing permission. */

const api = useSandbox({ resetEach: true });

const DEVICES = '/data/devices/all/';

describe('Authentication: invalid tokens answer 401 with a description', () => {
	it('a request without the Authorization header', async () => {
		expectError(await api.get(DEVICES, null), 401, 'Authorization: Token');
	});

	it('a header in another scheme, or an empty token', async () => {
		const { token } = await api.admin.token();
		expectError(await api.call('GET', DEVICES, { token: null, headers: { authorization: `Bearer ${token}` } }), 401);
		expectError(await api.call('GET', DEVICES, { token: null, headers: { authorization: 'Token ' } }), 401);
	});

	it('an unknown token', async () => {
		expectError(await api.get(DEVICES, 'f'.repeat(40)), 401, /invalid token/i);
	});

	it('the sandbox token from startSandbox works with the documented header', async () => {
		const a = await api.get(DEVICES, api.sandbox.sandboxToken);
		expect(a.status).toBe(200);
	});

	it('a deleted token (admin DELETE /_admin/tokens/:id) stops working', async () => {
		const { id, token } = await api.admin.token({ label: 'to delete' });
		expect((await api.get(DEVICES, token)).status).toBe(200);
		expect((await api.admin.call('DELETE', `/tokens/${id}`)).status).toBe(200);
		expectError(await api.get(DEVICES, token), 401);
	});

	it('an expired token: valid until its expiry date on the account clock, then 401', async () => {
		const { now } = await api.admin.state();
		const expiresAt = new Date(Date.parse(now) + 60_000).toISOString();
		const { token } = await api.admin.token({ expires_at: expiresAt });
		expect((await api.get(DEVICES, token)).status).toBe(200);
		await api.admin.advance({ advance_ms: 61_000 });
		try {
			expectError(await api.get(DEVICES, token), 401, /expired/);
		} finally {
			await api.admin.advance({ advance_ms: -61_000 });
		}
	});

	it('a token without an expiry date stays valid when the clock moves on', async () => {
		const { token } = await api.admin.token();
		await api.admin.advance({ advance_days: 3650 });
		try {
			expect((await api.get(DEVICES, token)).status).toBe(200);
		} finally {
			await api.admin.advance({ advance_days: -3650 });
		}
	});

	it('a production token against the sandbox account', async () => {
		const { token } = await api.admin.token({ environment: 'production' });
		expectError(await api.get(DEVICES, token), 401, /production/);
	});

	it('a sandbox token against a production account (and that account accepts its own tokens)', async () => {
		const production = await start({ environment: 'production', size: { devices: 5, customers: 2, testResults: 5 } });
		try {
			const prodApi = new Api(production);
			const { token: sandboxToken } = await prodApi.admin.token({ environment: 'sandbox' });
			expectError(await prodApi.get(DEVICES, sandboxToken), 401, /sandbox/);
			expect((await prodApi.get(DEVICES, production.sandboxToken)).status).toBe(200);
		} finally {
			await production.stop();
		}
	});
});

/**
 * Scope each operation needs (the sandbox's documented choice: read/write per resource; the spec
 * does not name scopes). Each entry: a request that is otherwise valid or harmless.
 */
const OPERATIONS: Array<{ op: OperationId; scope: string | string[]; path?: string; body?: unknown }> = [
	{ op: 'customer.list', scope: 'customers:read' },
	{ op: 'customer.create', scope: 'customers:write', body: { properties: { 101: 'Scope GmbH' } } },
	{ op: 'customer.update', scope: 'customers:write', body: { id: 1, properties: { 103: 'Bonn' } } },
	{ op: 'customer.delete', scope: 'customers:write', path: '/data/customers/delete/2/' },
	{ op: 'device.list', scope: 'devices:read' },
	{ op: 'device.get', scope: 'devices:read', path: '/device/detail/1/' },
	{ op: 'device.create', scope: 'devices:write', body: { properties: { 1: 'Scope drill' } } },
	{ op: 'device.update', scope: 'devices:write', body: { id: 1, properties: { 4: 'IT' } } },
	{ op: 'device.updateMany', scope: 'devices:write', body: { ids: [1, 2], properties: { 4: 'IT' } } },
	{ op: 'device.delete', scope: 'devices:write', path: '/data/devices/delete/3/' },
	{ op: 'overdueDevice.list', scope: 'devices:read' },
	{ op: 'testResult.list', scope: 'test_results:read' },
	{ op: 'testResult.get', scope: 'test_results:read', path: '/tests_performed/detailed/1/' },
	{ op: 'project.list', scope: 'projects:read' },
	{ op: 'subUser.list', scope: 'users:read' },
	{ op: 'recycleBin.list', scope: 'recycle_bin:read' },
	{ op: 'recycleBin.restore', scope: 'recycle_bin:write', path: '/recycle_bin/restore/1/' },
	{ op: 'file.downloadLink', scope: 'files:read', path: '/files/download_link/11/' },
	// Either read scope opens the property table (it describes both devices and customers).
	{ op: 'propertyKey.list', scope: ['devices:read', 'customers:read'] },
];

describe('Permission scopes: a token lacking the scope of a resource/action answers 413', () => {
	it('the suite covers every operation of the catalogue and uses documented scope names only', () => {
		expect(OPERATIONS.map((o) => o.op).sort()).toEqual(Object.keys(ENDPOINTS).sort());
		for (const o of OPERATIONS) for (const s of [o.scope].flat()) expect(SCOPES as readonly string[]).toContain(s);
	});

	for (const o of OPERATIONS) {
		const scopes = [o.scope].flat();
		it(`${o.op} needs ${scopes.join(' or ')}`, async () => {
			const { method, path } = endpoint(o.op);
			const url = o.path ?? path;
			const without = await api.admin.token({ scopes: SCOPES.filter((s) => !scopes.includes(s)) });
			const denied = await api.call(method, url, { token: without.token, body: o.body });
			expectError(denied, 413, scopes[0]);

			for (const scope of scopes) {
				const only = await api.admin.token({ scopes: [scope] });
				const allowed = await api.call(method, url, { token: only.token, body: o.body });
				expect(allowed.status, allowed.text.slice(0, 200)).not.toBe(413);
				expect(allowed.status).not.toBe(401);
				// The restore target may not exist (404); every other call here is valid.
				if (o.op !== 'recycleBin.restore') expect(allowed.status, allowed.text.slice(0, 200)).toBeLessThan(300);
			}
		});
	}

	it('a token with no scopes at all is authenticated (not 401) but denied everything (413)', async () => {
		const { token } = await api.admin.token({ scopes: [] });
		for (const path of ['/data/customers/all/', '/tests_performed/all/', '/users/all/']) {
			expectError(await api.get(path, token), 413);
		}
	});

	it('creating a token with an unknown scope is refused', async () => {
		const a = await api.admin.call('POST', '/tokens', { scopes: ['devices:delete-everything'] });
		expectError(a, 400, 'scopes');
	});
});
