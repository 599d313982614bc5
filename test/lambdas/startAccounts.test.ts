import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TecEvent } from '../../lambdas/events/event';
import { stateFileOf } from '../../lambdas/runner';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { schemaErrors } from '../support/eventSchemas';

/** `npm start -- --accounts FILE` on a sandbox of three accounts, stopped in the middle of one account's run. */
const START = ['--import', 'tsx', join(__dirname, '..', '..', 'bin', 'start.ts')];
const cwd = join(__dirname, '..', '..');
const IDS = ['site-a', 'site-b', 'slow'];

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ accounts: 3, size: { devices: 80, customers: 4, testResults: 10 } });
});
afterAll(async () => {
	await sandbox.stop();
});

function setup() {
	const dir = mkdtempSync(join(tmpdir(), 'tec-start-accounts-'));
	const file = join(dir, 'accounts.json');
	writeFileSync(file, JSON.stringify(IDS.map((id, i) => ({ id, environment: 'sandbox', baseUrl: sandbox.url, tokenEnv: `TEC_TOKEN_${i}` }))));
	// Without the first run's backfill of measured values (tested in test/lambdas/measurementBackfill.test.ts).
	const env: Record<string, string> = { ...(process.env as Record<string, string>), TEC_BASE_URL: '', TEC_TOKEN: '', BACKFILL_SHARE: '0' };
	sandbox.accounts.forEach((a, i) => (env[`TEC_TOKEN_${i}`] = a.token));
	return { dir, file, env, state: join(dir, 'runner.json') };
}

/** Runs `npm start --once`; `stopWhen` kills it (SIGKILL, no clean-up) as soon as it holds. */
function runStart(args: string[], env: Record<string, string>, stopWhen?: () => boolean): Promise<{ events: TecEvent[]; stderr: string; code: number | null }> {
	const child = spawn(process.execPath, [...START, '--once', ...args], { cwd, env });
	const events: TecEvent[] = [];
	let stderr = '';
	createInterface({ input: child.stdout }).on('line', (l) => events.push(JSON.parse(l) as TecEvent));
	child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
	const watcher = stopWhen
		? setInterval(() => {
				if (stopWhen()) child.kill('SIGKILL');
			}, 50)
		: undefined;
	return new Promise((done) =>
		child.once('close', (code) => {
			clearInterval(watcher);
			done({ events, stderr, code });
		}),
	);
}

const overdueOf = (events: TecEvent[], account: string) =>
	events.filter((e) => e.detail.metadata.account === account && e['detail-type'] === 'Device Overdue').map((e) => (e.detail.data as { device: { id: number } }).device.id);

function overdueIds(i: number): number[] {
	const a = sandbox.accounts[i].account;
	return [...a.data.devices.values()].filter((d) => a.isOverdue(d)).map((d) => d.id).sort((x, y) => x - y);
}

describe('npm start -- --accounts FILE', () => {
	it('polls every account; killed in the middle of one account\'s run, the others lose nothing and the next start repeats nothing of theirs', async () => {
		const { file, env, state, dir } = setup();
		const args = ['--accounts', file, '--state', state, '--outbox', join(dir, 'outbox')];
		// The slow account's every request waits 2 s: the others finish their three pollers first.
		sandbox.accounts[2].faults.add({ kind: 'latency', latencyMs: 2000 });
		const othersDone = () => ['site-a', 'site-b'].every((id) => existsSync(stateFileOf(state, id)) && readFileSync(stateFileOf(state, id), 'utf8').includes(`"cursor:sandbox:${id}"`));
		const first = await runStart(args, env, othersDone);
		sandbox.accounts[2].faults.clear();
		expect(first.code).toBeNull();
		expect(overdueOf(first.events, 'slow')).toEqual([]);
		for (const [i, id] of [[0, 'site-a'], [1, 'site-b']] as const) expect(overdueOf(first.events, id).sort((x, y) => x - y)).toEqual(overdueIds(i));

		const second = await runStart(args, env);
		expect(second.code, second.stderr).toBe(0);
		for (const e of [...first.events, ...second.events]) {
			expect(schemaErrors(e)).toEqual([]);
			expect(e.detail.metadata.dedupeKey.split(':')[2]).toBe(e.detail.metadata.account);
		}
		// The accounts that had finished: nothing again (their state was on disk); the stopped one: everything.
		const firstKeys = new Set(first.events.map((e) => e.detail.metadata.dedupeKey));
		expect(second.events.filter((e) => firstKeys.has(e.detail.metadata.dedupeKey))).toEqual([]);
		expect(second.events.filter((e) => e.detail.metadata.account !== 'slow' && e['detail-type'] === 'Device Overdue')).toEqual([]);
		expect(overdueOf(second.events, 'slow').sort((x, y) => x - y)).toEqual(overdueIds(2));
		// The tokens never reach the logs.
		for (const a of sandbox.accounts) expect(first.stderr + second.stderr).not.toContain(a.token);
	}, 120_000);

	it('refuses a bad list before it starts, naming the account and the key', async () => {
		const { file, env, dir } = setup();
		writeFileSync(file, JSON.stringify([{ id: 'site a', environment: 'sandbox', baseUrl: sandbox.url, tokenEnv: 'TEC_TOKEN_0' }, { id: 'b', environment: 'sandbox', baseUrl: sandbox.url, tokenEnv: 'TEC_TOKEN_MISSING' }]));
		const bad = await runStart(['--accounts', file, '--state', join(dir, 'r.json')], env);
		expect(bad.code).toBe(1);
		expect(bad.stderr).toContain('accounts[0] \\"site a\\": id: only letters, digits and \\"-\\"');
		writeFileSync(file, JSON.stringify([{ id: 'a', environment: 'sandbox', baseUrl: sandbox.url, tokenEnv: 'TEC_TOKEN_0' }, { id: 'b', environment: 'sandbox', baseUrl: sandbox.url, tokenEnv: 'TEC_TOKEN_MISSING' }]));
		const missing = await runStart(['--accounts', file, '--state', join(dir, 'r.json')], env);
		expect(missing.code).toBe(1);
		expect(missing.stderr).toContain('account \\"b\\": tokenEnv: the environment variable TEC_TOKEN_MISSING is not set');
		expect(missing.events).toEqual([]);
	}, 60_000);
});
