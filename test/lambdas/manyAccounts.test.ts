import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAccounts } from '../../lambdas/accounts';
import { createRunner, stateFileOf, type RunnerAccount } from '../../lambdas/runner';
import type { TecEvent } from '../../lambdas/events/event';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { schemaErrors } from '../support/eventSchemas';
import { pollerClient } from '../reliability/support';

/**
 * Three accounts on one sandbox, polled by one runner: one answering 500s, one slow, one healthy.
 * The healthy account's events come in its cycle, once; nothing of one account is in another's
 * events or state.
 */
const IDS = ['failing', 'slow', 'healthy'] as const;
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

let sandbox: Sandbox;
beforeAll(async () => {
	// The host's clock: the state file's expiry and the accounts' clocks agree.
	sandbox = await startSandbox({ accounts: 3, size: { devices: 60, customers: 4, testResults: 15 } });
});
afterAll(async () => {
	await sandbox.stop();
});

function overdueIds(i: number): number[] {
	const a = sandbox.accounts[i].account;
	return [...a.data.devices.values()].filter((d) => a.isOverdue(d)).map((d) => d.id).sort((x, y) => x - y);
}

/** The account a dedupe key names (`kind:environment:account:…`). */
const keyAccount = (e: TecEvent) => e.detail.metadata.dedupeKey.split(':')[2];

function runnerAccounts(): RunnerAccount[] {
	const settings = parseAccounts(
		IDS.map((id, i) => ({ id, environment: 'sandbox', baseUrl: sandbox.url, tokenEnv: `TOKEN_${i}` })),
		{ source: 'test', defaultRecipients: { default: ['lab@example.com'], customers: {}, departments: {} } },
	);
	return settings.map((a, i) => ({
		// The failing account gives up quickly; the others retry as usual.
		client: pollerClient(sandbox, sandbox.accounts[i].token, i === 0 ? { retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 10 } } : {}),
		environment: a.environment,
		account: a.account,
		partition: a.partition,
	}));
}

describe('many accounts in one runner', () => {
	it('a failing and a slow account neither stop nor mix with the healthy one; its events come once, in its cycle', async () => {
		const lines: TecEvent[] = [];
		const statePath = join(mkdtempSync(join(tmpdir(), 'tec-accounts-')), 'runner.json');
		const runner = createRunner({ accounts: runnerAccounts(), statePath, writeLine: (l) => lines.push(JSON.parse(l) as TecEvent), log: silent, now: () => sandbox.account.now() });
		sandbox.accounts[0].faults.add({ kind: 'status', status: 500 });
		sandbox.accounts[1].faults.add({ kind: 'latency', latencyMs: 150 });
		try {
			const reports = await runner.cycle();

			// The failing account's three pollers failed and are named; the others completed.
			expect([...runner.failed].sort()).toEqual(['failing/pollDueDates', 'failing/pollDueSoon', 'failing/pollOverdueDevices', 'failing/pollTestResults']);
			expect(reports.filter((r) => r.account === 'healthy').map((r) => [r.poller, r.complete])).toEqual([['overdueDevices', true], ['dueSoon', true], ['testResults', true], ['dueDates', true]]);
			expect(reports.filter((r) => r.account === 'slow').every((r) => r.complete)).toBe(true);

			// Every event names its account, in its metadata and its dedupe key, and fits the published schema.
			for (const e of lines) {
				expect(schemaErrors(e)).toEqual([]);
				expect(e.detail.metadata.account).toBe(keyAccount(e));
			}
			const of = (id: string) => lines.filter((e) => e.detail.metadata.account === id);
			expect(of('failing')).toEqual([]);
			// Each account's Device Overdue events are exactly its own overdue devices, each once.
			for (const [i, id] of [[1, 'slow'], [2, 'healthy']] as const) {
				const announced = of(id).filter((e) => e['detail-type'] === 'Device Overdue').map((e) => (e.detail.data as { device: { id: number; designation: string | null } }).device);
				expect(announced.map((d) => d.id).sort((x, y) => x - y)).toEqual(overdueIds(i));
				// The data is the account's own (device ids repeat across accounts, their contents do not).
				for (const d of announced) expect(d.designation).toBe(sandbox.accounts[i].account.data.devices.get(d.id)?.values[1] ?? null);
			}
			// The healthy account did not wait for the slow one: its events were all out before the slow account's last.
			const lastOf = (id: string) => lines.map((e) => e.detail.metadata.account).lastIndexOf(id);
			expect(lastOf('healthy')).toBeLessThan(lastOf('slow'));

			// State: each account in a file of its own, every namespace scoped by its account.
			for (const id of IDS) {
				const file = stateFileOf(statePath, id);
				if (id === 'failing') continue;
				const namespaces = Object.keys(JSON.parse(readFileSync(file, 'utf8')) as object).filter((n) => n !== 'lease');
				expect(namespaces.length).toBeGreaterThan(3);
				for (const ns of namespaces) expect(ns.endsWith(`:sandbox:${id}`), ns).toBe(true);
			}
			expect(existsSync(statePath)).toBe(false);

			const firstKeys = new Set(lines.map((e) => e.detail.metadata.dedupeKey));
			// The next cycle (faults gone) announces the failing account's devices, of the others only a
			// test result uploaded in between (the same device id in both: its own result each).
			sandbox.accounts[0].faults.clear();
			sandbox.accounts[1].faults.clear();
			const uploaded = [1, 2].map((i) => sandbox.accounts[i].account.syncTestResult({ device_id: 1, status: 'passed' }).id);
			for (const a of sandbox.accounts) a.account.clockOffsetMs += 10 * 60_000;
			lines.length = 0;
			await runner.cycle();
			expect(runner.failed).toEqual([]);
			const others = lines.filter((e) => e.detail.metadata.account !== 'failing');
			// Exactly once: no fact of the first cycle comes again.
			expect(others.filter((e) => firstKeys.has(e.detail.metadata.dedupeKey))).toEqual([]);
			expect(others.filter((e) => e['detail-type'] === 'Test Result Recorded').map((e) => [e.detail.metadata.account, (e.detail.data as { testResult: { id: number } }).testResult.id])).toEqual(
				expect.arrayContaining([
					['slow', uploaded[0]],
					['healthy', uploaded[1]],
				]),
			);
			for (const e of lines) expect(e.detail.metadata.account).toBe(keyAccount(e));
			expect(lines.filter((e) => e['detail-type'] === 'Device Overdue').map((e) => (e.detail.data as { device: { id: number } }).device.id).sort((x, y) => x - y)).toEqual(overdueIds(0));
		} finally {
			for (const a of sandbox.accounts) {
				a.faults.clear();
				a.account.clockOffsetMs = 0;
			}
			runner.close();
		}
	}, 120_000);

	it("one account's bad token stops only that account", async () => {
		const lines: TecEvent[] = [];
		const logged: string[] = [];
		const bad = 'f'.repeat(40);
		const log = { info: () => undefined, warn: () => undefined, error: (m: string, x?: Record<string, unknown>) => void logged.push(JSON.stringify({ m, ...x })) };
		const runner = createRunner({
			accounts: [
				{ client: pollerClient(sandbox, bad), environment: 'sandbox', account: 'revoked', partition: 'revoked' },
				{ client: pollerClient(sandbox, sandbox.accounts[2].token), environment: 'sandbox', account: 'healthy', partition: 'healthy' },
			],
			statePath: join(mkdtempSync(join(tmpdir(), 'tec-accounts-')), 'runner.json'),
			writeLine: (l) => lines.push(JSON.parse(l) as TecEvent),
			log,
			now: () => sandbox.account.now(),
		});
		try {
			await runner.cycle();
			expect([...runner.failed].sort()).toEqual(['revoked/pollDueDates', 'revoked/pollDueSoon', 'revoked/pollOverdueDevices', 'revoked/pollTestResults']);
			expect(logged.every((l) => JSON.parse(l).account === 'revoked')).toBe(true);
			expect(logged.join('\n')).not.toContain(bad);
			const announced = lines.filter((e) => e['detail-type'] === 'Device Overdue');
			expect(announced.every((e) => e.detail.metadata.account === 'healthy')).toBe(true);
			expect(announced.map((e) => (e.detail.data as { device: { id: number } }).device.id).sort((x, y) => x - y)).toEqual(overdueIds(2));
		} finally {
			runner.close();
		}
	}, 60_000);

	it('an existing single-account setup adds accounts without announcing anything again: its account becomes `default`', async () => {
		const statePath = join(mkdtempSync(join(tmpdir(), 'tec-accounts-')), 'runner.json');
		const lines: TecEvent[] = [];
		const options = { statePath, writeLine: (l: string) => lines.push(JSON.parse(l) as TecEvent), log: silent, now: () => sandbox.account.now() };
		const single = createRunner({ ...options, accounts: [{ client: pollerClient(sandbox, sandbox.accounts[0].token), environment: 'sandbox' }] });
		await single.cycle();
		single.close();
		expect(lines.filter((e) => e['detail-type'] === 'Device Overdue')).toHaveLength(overdueIds(0).length);
		expect(lines.every((e) => e.detail.metadata.account === undefined && !e.detail.metadata.dedupeKey.includes('default'))).toBe(true);

		lines.length = 0;
		const [def, added] = parseAccounts(
			[
				{ id: 'default', environment: 'sandbox', baseUrl: sandbox.url, tokenEnv: 'A' },
				{ id: 'site-b', environment: 'sandbox', baseUrl: sandbox.url, tokenEnv: 'B' },
			],
			{ source: 'test', defaultRecipients: { default: ['lab@example.com'], customers: {}, departments: {} } },
		);
		const several = createRunner({
			...options,
			accounts: [
				{ client: pollerClient(sandbox, sandbox.accounts[0].token), environment: 'sandbox', account: def.account, partition: def.partition },
				{ client: pollerClient(sandbox, sandbox.accounts[1].token), environment: 'sandbox', account: added.account, partition: added.partition },
			],
		});
		try {
			await several.cycle();
			// `default` read the state the single account left: nothing again; the new account announces its own.
			expect(lines.filter((e) => e.detail.metadata.account === 'default' && e['detail-type'] === 'Device Overdue')).toEqual([]);
			expect(lines.filter((e) => e.detail.metadata.account === 'site-b' && e['detail-type'] === 'Device Overdue')).toHaveLength(overdueIds(1).length);
		} finally {
			several.close();
		}
	}, 60_000);
});
