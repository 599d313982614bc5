/** The `npm start` runner's time budget: a run stops before a page once it is spent, as the Lambda does. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../client/dates';
import { createRunner } from '../../lambdas/runner';
import { DEVICE } from '../../sandbox/properties';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { pollerClient } from '../reliability/support';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, size: { devices: 200, customers: 5, testResults: 20 } });
});
afterAll(async () => {
	await sandbox.stop();
});

describe('runner time budget', () => {
	it('a run whose pages come slowly stops for time, incomplete, and announces no Resolved', async () => {
		const lines: string[] = [];
		const runner = createRunner({
			accounts: [{ client: pollerClient(sandbox, sandbox.sandboxToken), environment: 'sandbox' }],
			statePath: join(mkdtempSync(join(tmpdir(), 'tec-budget-')), 'state.json'),
			writeLine: (line) => lines.push(line),
			log: { info: () => undefined, warn: () => undefined, error: () => undefined },
			settings: { pageSize: 5 },
			runBudgetMs: 1000,
		});
		sandbox.faults.add({ kind: 'latency', latencyMs: 400, path: '/data/devices/overdue/' });
		const [overdue] = await runner.cycle();
		sandbox.faults.clear();
		expect(overdue.poller).toBe('overdueDevices');
		expect(overdue.stoppedForTime).toBe(true);
		expect(overdue.complete).toBe(false);
		expect(overdue.pages).toBeGreaterThan(0);
		expect(lines.map((l) => JSON.parse(l) as { 'detail-type': string }).filter((e) => e['detail-type'] === 'Device Overdue Resolved')).toEqual([]);
	}, 30_000);
});

describe('runner schedule', () => {
	it('the due-date history runs hourly on the pollers\' clock (as its schedule on AWS); the period pollers every cycle', async () => {
		let now = sandbox.account.now();
		const runner = createRunner({
			accounts: [{ client: pollerClient(sandbox, sandbox.account.createToken({ label: 'schedule' }).token), environment: 'sandbox' }],
			statePath: join(mkdtempSync(join(tmpdir(), 'tec-schedule-')), 'state.json'),
			writeLine: () => undefined,
			log: { info: () => undefined, warn: () => undefined, error: () => undefined },
			now: () => now,
		});
		try {
			const pollers = async () => (await runner.cycle()).map((r) => r.poller);
			const every = ['overdueDevices', 'dueSoon', 'testResults'];
			expect(await pollers()).toEqual([...every, 'dueDates']);
			now += 59 * 60_000;
			expect(await pollers()).toEqual(every);
			now += 60_000;
			expect(await pollers()).toEqual([...every, 'dueDates']);
			// A clock set back runs it again rather than waiting for the hour it had reached.
			now -= 2 * 60 * 60_000;
			expect(await pollers()).toEqual([...every, 'dueDates']);
		} finally {
			runner.close();
		}
	}, 60_000);
});

describe('runner state', () => {
	it("items expire on the runner's clock, not the machine's: a runner a year behind keeps its coming-due devices", async () => {
		const account = sandbox.account;
		account.clockOffsetMs = -365 * 24 * 3_600_000;
		account.reset({ seed: 7 });
		const runner = createRunner({
			accounts: [{ client: pollerClient(sandbox, account.createToken({ label: 'clock' }).token), environment: 'sandbox' }],
			statePath: join(mkdtempSync(join(tmpdir(), 'tec-clock-')), 'state.json'),
			writeLine: () => undefined,
			log: { info: () => undefined, warn: () => undefined, error: () => undefined },
			now: () => account.now(),
		});
		try {
			await runner.cycle();
			const listed: string[] = [];
			for await (const item of runner.state.list('dueSoon:sandbox')) listed.push(item.key);
			const comingDue = [...account.data.devices.values()].filter((d) => {
				const next = d.values[DEVICE.nextTest];
				return typeof next === 'string' && next >= account.today() && next <= addDays(account.today(), 30);
			});
			expect(comingDue.length).toBeGreaterThan(0);
			expect(listed.sort()).toEqual(comingDue.map((d) => String(d.id)).sort());
		} finally {
			runner.close();
			account.clockOffsetMs = 0;
			account.reset({ seed: 7 });
		}
	}, 30_000);
});

