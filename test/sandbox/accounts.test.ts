import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../sandbox/server';
import { start } from '../support/sandbox';

/** Several accounts in one sandbox: own data, own tokens, own clock and faults, own 5 requests per second per token. */

const API = '/api/v1';
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await start({ accounts: 3, size: { devices: 30, customers: 3, testResults: 10 } });
});
afterAll(async () => {
	await sandbox.stop();
});

async function get(path: string, token: string): Promise<{ status: number; body: { count?: number; results?: Array<{ id: number; properties: Array<{ key_id: number; value: unknown }> }>; description?: string } }> {
	const res = await fetch(`${sandbox.url}${API}${path}`, { headers: { authorization: `Token ${token}` } });
	return { status: res.status, body: (await res.json()) as never };
}

const designations = async (token: string) => {
	const page = await get('/data/devices/all/?limit=100', token);
	expect(page.status).toBe(200);
	return page.body.results!.map((d) => JSON.stringify(d.properties));
};

describe('a sandbox of several accounts', () => {
	it('serves each account its own data by its token; the first is the single-account sandbox', async () => {
		expect(sandbox.accounts.map((a) => a.id)).toEqual(['account-1', 'account-2', 'account-3']);
		expect(sandbox.accounts[0].token).toBe(sandbox.sandboxToken);
		expect(sandbox.accounts[0].account).toBe(sandbox.account);
		const [a, b, c] = await Promise.all(sandbox.accounts.map((x) => designations(x.token)));
		expect(new Set([a.join(), b.join(), c.join()]).size).toBe(3);
		// A change in one account is not seen in another.
		const before = (await get('/data/devices/all/?limit=1', sandbox.accounts[2].token)).body.count;
		sandbox.accounts[1].account.reset({ size: { devices: 5 } });
		expect((await get('/data/devices/all/?limit=1', sandbox.accounts[1].token)).body.count).toBe(5);
		expect((await get('/data/devices/all/?limit=1', sandbox.accounts[2].token)).body.count).toBe(before);
		sandbox.accounts[1].account.reset({ size: { devices: 30 } });
	});

	it('a token of one account is unknown to the others', async () => {
		const extra = sandbox.accounts[1].account.createToken({ label: 'second of account-2' }).token;
		expect((await get('/data/devices/all/?limit=1', extra)).status).toBe(200);
		sandbox.accounts[1].account.deleteToken(2);
		const gone = await get('/data/devices/all/?limit=1', extra);
		expect(gone.status).toBe(401);
	});

	it('faults are per account: one account answering 500s leaves the others alone', async () => {
		sandbox.accounts[0].faults.add({ kind: 'status', status: 500 });
		try {
			expect((await get('/project/viewset/?limit=1', sandbox.accounts[0].token)).status).toBe(500);
			expect((await get('/project/viewset/?limit=1', sandbox.accounts[1].token)).status).toBe(200);
		} finally {
			sandbox.accounts[0].faults.clear();
		}
	});

	it('each token has its own 5 requests per second: a burst on one account does not throttle another', async () => {
		const one = sandbox.accounts[0].account.createToken({ label: 'burst' });
		const two = sandbox.accounts[2].account.createToken({ label: 'bystander' });
		// Token ids repeat across accounts (each account counts from 1): the budget is still the token's own.
		expect(one.id).toBe(two.id);
		const burst = await Promise.all(Array.from({ length: 7 }, () => get('/project/viewset/?limit=1', one.token)));
		expect(burst.filter((a) => a.status === 429)).toHaveLength(2);
		const other = await Promise.all(Array.from({ length: 5 }, () => get('/project/viewset/?limit=1', two.token)));
		expect(other.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
	});

	it('each account has the admin controls under /_admin/accounts/<id>', async () => {
		const admin = `${sandbox.url}/_admin/accounts/account-3`;
		const put = await fetch(`${admin}/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kind: 'status', status: 503 }) });
		expect(put.status).toBeLessThan(300);
		try {
			expect((await get('/project/viewset/?limit=1', sandbox.accounts[2].token)).status).toBe(503);
			expect((await get('/project/viewset/?limit=1', sandbox.accounts[1].token)).status).toBe(200);
			const state = (await (await fetch(admin)).json()) as { counts: { devices: number } };
			expect(state.counts.devices).toBe(sandbox.accounts[2].account.data.devices.size);
		} finally {
			sandbox.accounts[2].faults.clear();
		}
	});

	it('refuses a count of accounts out of range, naming it', async () => {
		await expect(start({ accounts: 0 })).rejects.toThrow('accounts: expected a whole number from 1 to 1000, got 0');
	});

	it('npm run sandbox -- --accounts N lists each account and its token on the first line', async () => {
		const child = spawn(process.execPath, ['--import', 'tsx', 'sandbox/cli.ts', '--port', '0', '--quiet', '--accounts', '2'], { cwd: resolve(__dirname, '../..') });
		try {
			const line = await new Promise<string>((done) => createInterface({ input: child.stdout }).once('line', done));
			const first = JSON.parse(line) as { url: string; accounts: Array<{ id: string; token: string }> };
			expect(first.accounts.map((a) => a.id)).toEqual(['account-1', 'account-2']);
			const res = await fetch(`${first.url}${API}/data/devices/all/?limit=1`, { headers: { authorization: `Token ${first.accounts[1].token}` } });
			expect(res.status).toBe(200);
		} finally {
			child.kill('SIGTERM');
		}
	}, 30_000);
});
