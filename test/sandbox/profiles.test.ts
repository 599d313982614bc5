import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE, ENDPOINTS, type OperationId, type ServiceClient, type ServiceProfile } from '../../client';
import { connectService } from '../../lambdas/adapters/undiciService';
import type { Sandbox } from '../../sandbox/server';
import { profileArbitrary, VARIANTS, variantFile } from '../support/profiles';
import { start } from '../support/sandbox';

/** The sandbox serves a profile's layout, and the client reads it back unchanged (issue 24). */

const SIZE = { devices: 14, customers: 4, testResults: 18 };
const LISTS = (Object.keys(ENDPOINTS) as OperationId[]).filter((op) => ENDPOINTS[op].kind === 'list');

/** A client with a token of its own (each list read gets its own 5 requests per second). */
async function clientOf(sandbox: Sandbox, profile?: ServiceProfile): Promise<ServiceClient> {
	const res = await fetch(`${sandbox.adminUrl}/tokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"label":"profile test"}' });
	const { token } = (await res.json()) as { token: string };
	return connectService({ baseUrl: sandbox.url, token, environment: 'sandbox', profile });
}

/** Property names are the account's own data: compared without them (the roles are checked apart). */
function withoutPropertyNames(value: unknown): unknown {
	return JSON.parse(JSON.stringify(value), (key, v) => (key === 'properties' && Array.isArray(v) ? v.map(({ name: _name, ...rest }) => rest) : v));
}

async function everything(sandbox: Sandbox, profile?: ServiceProfile): Promise<Record<string, unknown>> {
	const out: Record<string, unknown> = {};
	await Promise.all(
		LISTS.map(async (op) => {
			const client = await clientOf(sandbox, profile);
			const items: unknown[] = [];
			const outcome = await (async () => {
				const pages = client.pages(op, {}, { pageSize: Math.min(7, client.maxPageSize), overlap: 1 });
				for (;;) {
					const next = await pages.next();
					if (next.done) return next.value;
					items.push(...next.value);
				}
			})();
			out[op] = { outcome, items: op === 'propertyKey.list' ? items.map((k) => ({ ...(k as object), name: undefined })) : withoutPropertyNames(items) };
		}),
	);
	const client = await clientOf(sandbox, profile);
	out['testResult.get'] = await client.call('testResult.get', { pathParams: { id: 3 } });
	out['device.get'] = withoutPropertyNames(await client.call('device.get', { pathParams: { id: 2 } }));
	out.filtered = await client.items('testResult.list', { filters: [{ key: 'status', conditions: [{ keyword: 'equals', value: 'failed' }] }], ordering: { key: 'test_date', direction: 'desc' } }).next();
	return out;
}

describe('the sandbox serves a profile', () => {
	let reference: Record<string, unknown>;
	beforeAll(async () => {
		const sandbox = await start({ size: SIZE });
		reference = await everything(sandbox);
		await sandbox.stop();
		expect((reference['testResult.list'] as { items: unknown[] }).items).toHaveLength(SIZE.testResults);
		expect((reference['device.list'] as { items: unknown[] }).items).toHaveLength(SIZE.devices);
	});

	it('property: any profile the schema accepts is served, and read back by the client unchanged', async () => {
		await fc.assert(
			fc.asyncProperty(profileArbitrary(), async ({ input, profile }) => {
				const sandbox = await start({ size: SIZE, profile: input });
				try {
					expect(await everything(sandbox, profile)).toEqual(reference);
					// The account's role properties carry the profile's names.
					const names = new Set<string>();
					for await (const k of (await clientOf(sandbox, profile)).items('propertyKey.list', {}, { pageSize: Math.min(50, profile.paging.maxPageSize) })) names.add((k as { name: string }).name);
					expect(names).toContain(profile.properties.nextTestDate.names[0]);
					expect(names).toContain(profile.properties.idBarcode.names[0]);
				} finally {
					await sandbox.stop();
				}
			}),
			{ numRuns: 12 },
		);
	});

	for (const [name, profile] of Object.entries(VARIANTS)) {
		describe(`variant ${name}`, () => {
			let sandbox: Sandbox;
			beforeAll(async () => {
				sandbox = await start({ size: SIZE, profile });
			});
			afterAll(() => sandbox.stop());

			it('answers at its own paths with its own paging and names; the default paths answer 404', async () => {
				const auth = { authorization: `Token ${sandbox.sandboxToken}` };
				const p = profile.paging;
				const url = `${sandbox.url}/api/v1${profile.operations['testResult.list'].path}?${p.pageParam}=2&${p.pageSizeParam}=5`;
				const body = (await (await fetch(url, { headers: auth })).json()) as Record<string, unknown>;
				const items = body[p.itemsKey ?? ''] as Array<Record<string, unknown>>;
				expect(items).toHaveLength(5);
				expect(body[p.countKey ?? '']).toBe(SIZE.testResults);
				expect(String(body[p.nextKey ?? ''])).toContain(`${p.pageParam}=3`);
				for (const [canonical, field] of Object.entries(profile.fields.testResult)) {
					expect(items[0]).toHaveProperty(field.name);
					if (field.name !== canonical) expect(items[0]).not.toHaveProperty(canonical);
				}
				const moved = LISTS.filter((op) => profile.operations[op].path !== DEFAULT_PROFILE.operations[op].path);
				expect(moved.length).toBeGreaterThan(0);
				for (const op of moved) expect((await fetch(`${sandbox.url}/api/v1${DEFAULT_PROFILE.operations[op].path}`, { headers: auth })).status, op).toBe(404);
				const tooLarge = await fetch(`${sandbox.url}/api/v1${profile.operations['device.list'].path}?${p.pageSizeParam}=${p.maxPageSize + 1}`, { headers: auth });
				expect(tooLarge.status).toBe(400);
				expect(((await tooLarge.json()) as { description: string }).description).toContain(`${p.pageSizeParam}: must be a whole number from 1 to ${p.maxPageSize}`);
			});
		});
	}

	it('npm run sandbox -- --profile FILE serves the file\'s layout; a bad profile exits 2 naming the key', async () => {
		const ROOT = resolve(__dirname, '../..');
		const child = spawn(process.execPath, ['--import', 'tsx', 'sandbox/cli.ts', '--port', '0', '--quiet', '--profile', variantFile('page-numbers')], { cwd: ROOT });
		try {
			const first = JSON.parse(await new Promise<string>((done) => createInterface({ input: child.stdout }).once('line', done))) as { url: string; sandboxToken: string };
			const res = await fetch(`${first.url}/api/v1/devices/overdue/?page=1&page_size=3`, { headers: { authorization: `Token ${first.sandboxToken}` } });
			expect(res.status).toBe(200);
			expect(((await res.json()) as { results: unknown[] }).results).toHaveLength(3);
		} finally {
			child.kill('SIGTERM');
		}
		const bad = spawn(process.execPath, ['--import', 'tsx', 'sandbox/cli.ts', '--port', '0', '--profile', resolve(ROOT, 'package.json')], { cwd: ROOT });
		let stderr = '';
		bad.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
		const code = await new Promise<number | null>((done) => bad.once('exit', done));
		expect(code).toBe(2);
		expect(stderr).toMatch(/service profile: version: must be 1 \(the profile version this release reads\), got "0\.1\.0" \(in .*package\.json\)/);
	});
});
