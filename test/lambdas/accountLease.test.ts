import { describe, expect, it } from 'vitest';
import { DynamoStateStore } from '../../lambdas/adapters/dynamoStateStore';
import { connectService } from '../../lambdas/adapters/undiciService';
import { accountLeaseName, type PollerContext } from '../../lambdas/pollers/context';
import { pollDueSoon } from '../../lambdas/pollers/dueSoon';
import { pollOverdueDevices } from '../../lambdas/pollers/overdueDevices';
import { pollerContext, useFreshScenarios, usePollerWorld } from '../support/pollers';

// Small pages: each run makes several requests, so two runs at once would interleave them.
const world = usePollerWorld({ devices: 400, customers: 6, testResults: 20 });
const scenario = useFreshScenarios(world);

/** A poller's context on the world, on the wall clock, with every answer's time recorded under `run`. */
function timedContext(run: string, answers: Array<{ run: string; at: number }>, accountLeaseWaitMs: number | undefined): PollerContext {
	const ctx = pollerContext(world, scenario.table(), { runId: run, settings: { pageSize: 50, accountLeaseWaitMs } });
	const client = connectService({ baseUrl: world.sandbox.url, token: world.sandbox.sandboxToken, environment: 'sandbox', onEvent: (e) => void (e.type === 'response' && answers.push({ run, at: Date.now() })) });
	return { ...ctx, client, now: Date.now };
}

/** Whether the answers of the two runs interleave in time. */
function overlapped(answers: Array<{ run: string; at: number }>): boolean {
	const span = (run: string) => {
		const times = answers.filter((a) => a.run === run).map((a) => a.at);
		return [Math.min(...times), Math.max(...times)];
	};
	const [a0, a1] = span('overdue');
	const [b0, b1] = span('dueSoon');
	return a0 <= b1 && b0 <= a1;
}

describe("the account's lease (AWS: one account's pollers never run at once)", () => {
	it('two pollers of one account started together: the second waits for the first, both complete, their requests never overlap', async () => {
		const answers: Array<{ run: string; at: number }> = [];
		const [overdue, dueSoon] = await Promise.all([pollOverdueDevices(timedContext('overdue', answers, 60_000)), pollDueSoon(timedContext('dueSoon', answers, 60_000))]);
		expect(overdue.complete && dueSoon.complete).toBe(true);
		expect([overdue.skipped, dueSoon.skipped]).toEqual([undefined, undefined]);
		expect(overdue.pages).toBeGreaterThanOrEqual(2);
		expect(overlapped(answers)).toBe(false);
		// Exactly one of them waited, and the lease is free again.
		expect([overdue.accountWaitMs, dueSoon.accountWaitMs].filter((w) => w !== undefined && w > 0)).toHaveLength(1);
		expect(await new DynamoStateStore(scenario.table(), world.dynamo).acquireLease(accountLeaseName({ environment: 'sandbox' }), 'probe', Date.now(), 1000)).toBe(true);
	});

	it('without the account lease (npm start runs them one after another itself) the same two runs do overlap', async () => {
		const answers: Array<{ run: string; at: number }> = [];
		await Promise.all([pollOverdueDevices(timedContext('overdue', answers, undefined)), pollDueSoon(timedContext('dueSoon', answers, undefined))]);
		expect(overlapped(answers)).toBe(true);
	});

	it('a run that finds the lease held past its bound skips to the next tick without a request', async () => {
		const store = new DynamoStateStore(scenario.table(), world.dynamo);
		expect(await store.acquireLease(accountLeaseName({ environment: 'sandbox' }), 'a long run', Date.now(), 60_000)).toBe(true);
		const answers: Array<{ run: string; at: number }> = [];
		const started = Date.now();
		const report = await pollDueSoon(timedContext('dueSoon', answers, 2500));
		expect(report.skipped).toBe('accountBusy');
		expect(report.complete).toBe(false);
		expect(report.accountWaitMs).toBeGreaterThan(0);
		expect(report.accountWaitMs).toBeLessThanOrEqual(2500);
		expect(Date.now() - started).toBeLessThan(10_000);
		expect(answers).toHaveLength(0);
		// The holder's lease is untouched: the skipping run released nothing of it.
		expect(await store.acquireLease(accountLeaseName({ environment: 'sandbox' }), 'another', Date.now(), 1000)).toBe(false);
	});

	it('the wait never reaches into the last two safety margins of the invocation', async () => {
		const store = new DynamoStateStore(scenario.table(), world.dynamo);
		await store.acquireLease(accountLeaseName({ environment: 'sandbox' }), 'a long run', Date.now(), 60_000);
		const ctx = { ...timedContext('dueSoon', [], 120_000), remainingMs: () => 2 * 1000 + 1500 }; // safetyMs is 1000 in these tests
		const report = await pollDueSoon(ctx);
		expect(report.skipped).toBe('accountBusy');
		expect(report.accountWaitMs).toBeLessThanOrEqual(1500);
	});
});
