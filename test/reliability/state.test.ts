/**
 * Local state you can trust: the `npm start` state file under ordinary faults. A failed write
 * (the temporary file cannot be written) never leaves a lease behind; a runner killed with
 * SIGKILL in the middle of a run is recovered from by the next start (its lock is stale, its
 * leases are dropped); a second runner on the same file refuses to start naming the first one's
 * pid; a file of the wrong shape is refused naming the file and what is wrong.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileStateStore } from '../../lambdas/adapters/fileStateStore';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { NO_BACKFILL, ROOT, START, makeOverdue, spawnRunner, waitFor, type RunnerChild } from './support';

const exec = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'tec-state-'));
let sandbox: Sandbox;
let n = 0;
const fresh = () => join(work, `state-${++n}.json`);
const used = new Set<number>();
const observed: string[] = [];

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, size: { devices: 60, customers: 4, testResults: 20 } });
});
afterAll(async () => {
	await sandbox.stop();
	console.info(`state-store faults (observed):\n| Fault | Outcome |\n|---|---|\n${observed.join('\n')}`);
});

const env = () => ({ TEC_BASE_URL: sandbox.url, TEC_TOKEN: sandbox.sandboxToken });
const once = (state: string) =>
	exec(process.execPath, [...START, '--once', '--state', state], { cwd: ROOT, env: { ...process.env, ...NO_BACKFILL, ...env() } }).then(
		(r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
		(e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
	);
const overdueEvent = (r: RunnerChild | { stdout: string }, id: number) =>
	('events' in r ? r.events() : r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { 'detail-type': string; detail: { data: Record<string, unknown> } })).some(
		(e) => e['detail-type'] === 'Device Overdue' && (e.detail.data.device as { id: number }).id === id,
	);
async function stopChild(r: RunnerChild): Promise<void> {
	if (r.child.exitCode === null) r.child.kill('SIGKILL');
	await r.exited();
}

describe('a failed write never leaves a lease behind', () => {
	it('in the store: a lease whose write failed is not held; a release whose write failed is released', async () => {
		const path = fresh();
		const store = new FileStateStore(path);
		const tmp = `${path}.${process.pid}.tmp`;
		mkdirSync(tmp); // the atomic write's temporary file cannot be created
		await expect(store.acquireLease('overdueDevices:sandbox', 'run-1', Date.now(), 900_000)).rejects.toThrow(/EISDIR|illegal operation on a directory/);
		rmSync(tmp, { recursive: true });
		expect(await store.acquireLease('overdueDevices:sandbox', 'run-2', Date.now(), 900_000), 'the failed run left no lease').toBe(true);
		mkdirSync(tmp);
		await expect(store.releaseLease('overdueDevices:sandbox', 'run-2')).rejects.toThrow();
		rmSync(tmp, { recursive: true });
		expect(await store.acquireLease('overdueDevices:sandbox', 'run-3', Date.now(), 900_000), 'a failed release left no lease').toBe(true);
		await store.putMany('x', [{ key: 'a', value: 1 }]);
		expect(JSON.parse(readFileSync(path, 'utf8')).lease).toEqual({ 'overdueDevices:sandbox': { v: { owner: 'run-3', until: expect.any(Number) } } });
	});

	it('in the runner: cycles fail while the file cannot be written, and the first cycle after the fault delivers', async () => {
		const state = fresh();
		const r = spawnRunner(['--interval', '1', '--state', state], env());
		try {
			mkdirSync(`${state}.${r.child.pid}.tmp`);
			const failed = await waitFor(() => r.logs().filter((l) => l.message === 'A poll run failed; the next cycle retries it').length >= 4, 30_000, 'two failed cycles');
			expect(failed).toBe(true);
			const id = makeOverdue(sandbox, used);
			const cleared = Date.now();
			rmSync(`${state}.${r.child.pid}.tmp`, { recursive: true });
			await waitFor(() => overdueEvent(r, id), 15_000, `Device Overdue for ${id} after the fault`);
			const ms = Date.now() - cleared;
			expect(r.logs().filter((l) => l.message === 'Another run holds the lease; skipping this run'), 'runs skipped for a lease').toEqual([]);
			observed.push(`| failed state write (runner, --interval 1) | runs failed while the file could not be written; the fact was delivered ${ms} ms after the fault cleared; 0 runs skipped for a lease |`);
		} finally {
			await stopChild(r);
		}
	}, 60_000);
});

describe('SIGKILL in the middle of a run', () => {
	it('the next start takes over the stale lock, drops the dead run\'s leases and announces a newly overdue device', async () => {
		const state = fresh();
		sandbox.faults.add({ kind: 'latency', latencyMs: 1500 });
		const r = spawnRunner(['--interval', '1', '--state', state], env());
		try {
			// A run is under way once its lease is in the file.
			await waitFor(() => existsSync(state) && Object.keys((JSON.parse(readFileSync(state, 'utf8')) as { lease?: object }).lease ?? {}).length > 0, 30_000, 'a lease in the file');
			r.child.kill('SIGKILL');
			await r.exited();
		} finally {
			sandbox.faults.clear();
		}
		expect(Object.keys(JSON.parse(readFileSync(state, 'utf8')).lease)).not.toEqual([]);
		expect(JSON.parse(readFileSync(`${state}.lock`, 'utf8')).pid).toBe(r.child.pid);
		const id = makeOverdue(sandbox, used);
		const started = Date.now();
		const next = await once(state);
		const ms = Date.now() - started;
		expect(next.code, next.stderr).toBe(0);
		expect(next.stderr).toContain('Took over the state file from a runner that stopped without releasing it');
		expect(next.stderr).not.toContain('Another run holds the lease');
		expect(overdueEvent(next, id)).toBe(true);
		expect(existsSync(`${state}.lock`), 'the lock is released on exit').toBe(false);
		observed.push(`| SIGKILL during a run (lease and lock left in place) | next \`npm start --once\` took over at once, announced the new device, exit 0 (${ms} ms incl. process start) |`);
	}, 60_000);
});

describe('two runners on one state file', () => {
	it('the second refuses to start, naming the first one\'s pid; after the first stops, it starts', async () => {
		const state = fresh();
		const first = spawnRunner(['--interval', '30', '--state', state], env());
		try {
			await waitFor(() => first.logs().some((l) => l.message === 'Poll run'), 30_000, 'the first runner\'s cycle');
			const second = await once(state);
			expect(second.code).toBe(1);
			expect(second.stderr).toMatch(new RegExp(`The state file .*state-\\d+\\.json is in use by another process \\(pid ${first.child.pid}, lock .*\\): two runners on one state file would announce events twice`));
			expect(second.stdout).toBe('');
			first.child.kill('SIGTERM');
			expect(await first.exited()).toBe(0);
			expect(existsSync(`${state}.lock`)).toBe(false);
			const third = await once(state);
			expect(third.code, third.stderr).toBe(0);
			observed.push(`| two \`npm start\` on one file | the second exits 1: "is in use by another process (pid ${first.child.pid}, …)"; after the first stops, a new start runs |`);
		} finally {
			await stopChild(first);
		}
	}, 60_000);
});

describe('a state file of the wrong shape is refused, naming the file and what is wrong', () => {
	const device = { overdue: true, episode: 1, since: 1_700_000_000_000, reminders: 0, digestPending: false, device: { id: 5 } };
	const CASES: Array<[string, string, RegExp]> = [
		['[]', '[]', /holds an array, where an object of namespaces .* was expected/],
		['null', 'null', /holds null, where an object of namespaces/],
		['a string', '"state"', /holds string "state", where an object of namespaces/],
		['a namespace that is an array', '{"overdue:sandbox":[]}', /holds an array under "overdue:sandbox", where an object of stored items was expected/],
		['a garbage watermark', '{"cursor:sandbox":{"testResults":{"v":{"watermark":"garbage"}}}}', /bad stored value at "cursor:sandbox" › "testResults": v\.watermark: expected a calendar date written YYYY-MM-DD/],
		['a watermark that is no calendar day', '{"cursor:sandbox":{"testResults":{"v":{"watermark":"2026-02-30"}}}}', /v\.watermark: expected a calendar date/],
		['a bad stored time', JSON.stringify({ 'overdue:sandbox': { 5: { v: { ...device, since: 'yesterday' } } } }), /bad stored value at "overdue:sandbox" › "5": v\.since: /],
		['an item without its envelope', JSON.stringify({ 'overdue:sandbox': { 5: device } }), /has "overdue:sandbox" › "5" of the wrong shape|bad stored value at "overdue:sandbox" › "5"/],
		['a bad expiry', JSON.stringify({ 'results:sandbox': { 7: { v: { testDate: '2026-01-01' }, expiresAt: 'never' } } }), /"results:sandbox" › "7" of the wrong shape \(expiresAt: /],
		['a key that is no id', JSON.stringify({ 'results:sandbox': { abc: { v: { testDate: '2026-01-01' } } } }), /has the key "results:sandbox" › "abc", where an item id/],
		['a due-soon stage that is no whole number', '{"dueSoon:sandbox":{"12":{"v":{"due":"2026-03-01","stage":"soon"}}}}', /bad stored value at "dueSoon:sandbox" › "12": v\.stage: /],
		['a due-soon key that is no id', '{"dueSoon:sandbox":{"x":{"v":{"due":"2026-03-01","stage":7}}}}', /has the key "dueSoon:sandbox" › "x", where an item id/],
		['a due-soon clock that is no day', '{"dueSoonClock:sandbox":{"today":{"v":{"day":"tomorrow"}}}}', /v\.day: expected a calendar date/],
		['pending evidence without its count of attempts', '{"failedEvidence:sandbox":{"9":{"v":{"recorded":{}}}}}', /bad stored value at "failedEvidence:sandbox" › "9": v\.recorded\.[a-zA-Z]+: /],
		['a lease without owner', '{"lease":{"overdueDevices:sandbox":{"v":{"until":5}}}}', /bad stored value at "lease" › "overdueDevices:sandbox": v\.owner: /],
		['not JSON', '{"overdue:sandbox":', /is not readable JSON/],
	];
	it.each(CASES)('%s', (_name, content, message) => {
		const path = fresh();
		writeFileSync(path, content);
		expect(() => new FileStateStore(path)).toThrow(message);
		expect(() => new FileStateStore(path)).toThrow(`The state file ${path} `);
		expect(() => new FileStateStore(path)).toThrow(/; fix it or move it away to start afresh$/);
		expect(readFileSync(path, 'utf8'), 'the file is left as it was').toBe(content);
	});

	it('a valid file with fields a newer version added is accepted', () => {
		const path = fresh();
		writeFileSync(path, JSON.stringify({ 'overdue:sandbox': { 5: { v: { ...device, confirmedAt: 1 } } }, 'comingDue:sandbox': { x: { v: [1] } } }));
		expect(() => new FileStateStore(path)).not.toThrow();
	});

	it('`npm start --once` refuses such a file with exit code 1 and leaves it alone', async () => {
		const path = fresh();
		writeFileSync(path, '[]');
		const out = await once(path);
		expect(out.code).toBe(1);
		expect(out.stderr).toContain(`The state file ${path} holds an array`);
		expect(readFileSync(path, 'utf8')).toBe('[]');
		expect(existsSync(`${path}.lock`), 'no lock left behind').toBe(false);
		observed.push(`| state file \`[]\`, \`null\`, garbage watermark, bad stored time, … (${CASES.length} shapes) | refused naming the file and the fault; \`npm start --once\` exits 1 |`);
	}, 30_000);
});

describe('`npm start --once` exits non-zero when a poll run failed', () => {
	it('licence expired (426): exit 1 and the cause on stderr; a good run: exit 0', async () => {
		const state = fresh();
		sandbox.account.license = 'expired';
		try {
			const out = await once(state);
			expect(out.code).toBe(1);
			expect(out.stderr).toContain('A poll run failed (--once): exit code 1');
			expect(out.stderr).toMatch(/licence has expired/);
		} finally {
			sandbox.account.license = 'active';
		}
		const good = await once(state);
		expect(good.code, good.stderr).toBe(0);
		// Two whole runs of npm start, the first of a history that rebuilds its past from the results.
	}, 60_000);
});
