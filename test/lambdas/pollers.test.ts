import { describe, expect, it } from 'vitest';
import { DEVICE } from '../../sandbox/properties';
import { MASS_EXIT_MIN, isMassExit, pollOverdueDevices } from '../../lambdas/pollers/overdueDevices';
import { pollTestResults } from '../../lambdas/pollers/testResults';
import { DynamoStateStore } from '../../lambdas/adapters/dynamoStateStore';
import { addDays } from '../../client/dates';
import { pollerContext, useFreshScenarios, usePollerWorld } from '../support/pollers';

// Read at the sandbox's raised rate: these tests are of what the pollers announce, not of pacing.
const world = usePollerWorld({ devices: 80, customers: 6, testResults: 60 }, { ratePerSecond: 200 });
const scenario = useFreshScenarios(world);

const overdueIds = () => [...world.sandbox.account.data.devices.values()].filter((d) => world.sandbox.account.isOverdue(d)).map((d) => d.id).sort((a, b) => a - b);
const ofType = (type: string) => world.aws.events().filter((e) => e['detail-type'] === type);
const deviceIds = (type: string) => ofType(type).map((e) => (e.detail.data.device as { id: number }).id).sort((a, b) => a - b);
const setLastTested = (id: number, day: string) => world.sandbox.account.edit('device', { id, properties: { [DEVICE.lastTested]: day } }, 'test');

describe('overdue devices poller', () => {
	it('first run: one Device Overdue per overdue device and one digest counting them', async () => {
		const expected = overdueIds();
		expect(expected.length).toBeGreaterThan(3);
		const report = await pollOverdueDevices(pollerContext(world, scenario.table()));
		expect(report.complete).toBe(true);
		expect(deviceIds('Device Overdue')).toEqual(expected);
		const digests = ofType('Overdue Devices Digest');
		expect(digests).toHaveLength(1);
		expect(digests[0].detail.data.count).toBe(expected.length);
		expect(world.aws.accepted.every((e) => e.Source === 'test-equipment-cloud' && e.EventBusName === 'tec-test')).toBe(true);
	});

	it('steady state: a second run emits nothing', async () => {
		await pollOverdueDevices(pollerContext(world, scenario.table()));
		world.aws.accepted.length = 0;
		const report = await pollOverdueDevices(pollerContext(world, scenario.table()));
		expect(report.complete).toBe(true);
		expect(world.aws.accepted).toHaveLength(0);
	});

	it('newly overdue and resolved devices between runs', async () => {
		await pollOverdueDevices(pollerContext(world, scenario.table()));
		const [resolvedId] = overdueIds();
		const fresh = [...world.sandbox.account.data.devices.values()].find((d) => !world.sandbox.account.isOverdue(d))!;
		setLastTested(resolvedId, world.sandbox.account.today());
		setLastTested(fresh.id, addDays(world.sandbox.account.today(), -900));
		world.aws.accepted.length = 0;

		await pollOverdueDevices(pollerContext(world, scenario.table()));
		expect(deviceIds('Device Overdue')).toEqual([fresh.id]);
		expect(deviceIds('Device Overdue Resolved')).toEqual([resolvedId]);
		const [digest] = ofType('Overdue Devices Digest');
		expect(digest.detail.data.count).toBe(1);

		// Overdue again later: a new episode, announced again with a new dedupe key.
		setLastTested(resolvedId, addDays(world.sandbox.account.today(), -900));
		world.aws.accepted.length = 0;
		await pollOverdueDevices(pollerContext(world, scenario.table()));
		const again = ofType('Device Overdue');
		expect(again.map((e) => (e.detail.data.device as { id: number }).id)).toEqual([resolvedId]);
		expect(again[0].detail.data.episode).toBe(2);
		expect(again[0].detail.metadata.dedupeKey).toBe(`device-overdue:sandbox:${resolvedId}:2`);
	});

	it('a glitch answering one consistent empty list resolves nothing: the mass exit is confirmed device by device, in the report and metrics', async () => {
		const counted: Record<string, number> = {};
		const ctx = () => ({ ...pollerContext(world, scenario.table()), metrics: { count: (name: string, v = 1) => void (counted[name] = (counted[name] ?? 0) + v) } });
		await pollOverdueDevices(ctx());
		const tracked = overdueIds();
		expect(tracked.length).toBeGreaterThanOrEqual(MASS_EXIT_MIN);
		world.aws.accepted.length = 0;
		world.sandbox.faults.add({ kind: 'emptyList', path: '/data/devices/overdue/', count: 1 });
		const glitch = await pollOverdueDevices(ctx());
		expect(glitch.pages).toBeLessThanOrEqual(1);
		expect(glitch.resolveChecks).toEqual({ candidates: tracked.length, left: 0, stillOverdue: tracked.length, deferred: 0, massExit: true });
		expect(counted.MassExitConfirmed).toBe(tracked.length);
		expect(world.aws.events()).toEqual([]);
		// The next run (the service well again) starts no new episodes.
		await pollOverdueDevices(ctx());
		expect(world.aws.events()).toEqual([]);

		// A list that empties for real still resolves: confirmed, then announced.
		for (const id of tracked) setLastTested(id, world.sandbox.account.today());
		const real = await pollOverdueDevices(ctx());
		expect(real.resolveChecks).toMatchObject({ candidates: tracked.length, left: tracked.length, massExit: true });
		expect(deviceIds('Device Overdue Resolved')).toEqual(tracked);
		expect(isMassExit(MASS_EXIT_MIN - 1, MASS_EXIT_MIN - 1)).toBe(false);
		expect(isMassExit(MASS_EXIT_MIN, 100)).toBe(false);
	});

	it('a run whose time runs out while it confirms resolved devices is incomplete; the next run resolves the rest', async () => {
		const table = scenario.table();
		await pollOverdueDevices(pollerContext(world, table));
		const tracked = overdueIds();
		expect(tracked.length).toBeGreaterThanOrEqual(MASS_EXIT_MIN);
		for (const id of tracked) setLastTested(id, world.sandbox.account.today());
		world.aws.accepted.length = 0;
		// Time for the scan and three confirmations (one budget check before each request).
		let checks = 0;
		const short = await pollOverdueDevices({ ...pollerContext(world, table), remainingMs: () => (++checks <= 1 + 3 * 2 + 1 ? 600_000 : 0) });
		expect(short.resolveChecks?.deferred).toBeGreaterThan(0);
		expect(short.resolveChecks!.left + short.resolveChecks!.deferred).toBe(tracked.length);
		expect(short).toMatchObject({ complete: false, stoppedForTime: true });
		const next = await pollOverdueDevices(pollerContext(world, table));
		expect(next.complete).toBe(true);
		expect(deviceIds('Device Overdue Resolved')).toEqual(tracked);
	});

	it("a listed device that changes hands or due date: its stored record follows (what the digest routes by), with no event", async () => {
		const table = scenario.table();
		await pollOverdueDevices(pollerContext(world, table));
		const [id] = overdueIds();
		world.sandbox.account.edit('device', { id, properties: { [DEVICE.department]: 'Laboratory', [DEVICE.testInterval]: 6 } }, 'test');
		world.aws.accepted.length = 0;
		await pollOverdueDevices(pollerContext(world, table));
		expect(world.aws.events()).toEqual([]);
		const store = new DynamoStateStore(table, world.dynamo, async () => undefined);
		const state = await store.get<{ device: { department: string; nextTestDate: string } }>('overdue:sandbox', String(id));
		const device = world.sandbox.account.get('device', id);
		expect(state?.device).toMatchObject({ department: 'Laboratory', nextTestDate: device.values[DEVICE.nextTest] });
	});

	it('reminders every N days while a device stays overdue; none when N = 0', async () => {
		await pollOverdueDevices(pollerContext(world, scenario.table(), { settings: { reminderDays: 7 } }));
		const before = overdueIds();
		world.sandbox.account.clockOffsetMs += 7 * 86_400_000 + 60_000;
		world.aws.accepted.length = 0;
		await pollOverdueDevices(pollerContext(world, scenario.table(), { settings: { reminderDays: 0 } }));
		expect(ofType('Device Overdue').filter((e) => e.detail.data.reminder !== 0)).toHaveLength(0);

		world.aws.accepted.length = 0;
		await pollOverdueDevices(pollerContext(world, scenario.table(), { settings: { reminderDays: 7 } }));
		const reminders = ofType('Device Overdue').filter((e) => e.detail.data.reminder === 1);
		expect(reminders.map((e) => (e.detail.data.device as { id: number }).id).sort((a, b) => a - b)).toEqual(before);
		expect(reminders[0].detail.metadata.dedupeKey).toMatch(/^device-overdue:sandbox:\d+:1:reminder:1$/);
		// No second reminder until another 7 days pass.
		world.aws.accepted.length = 0;
		await pollOverdueDevices(pollerContext(world, scenario.table(), { settings: { reminderDays: 7 } }));
		expect(ofType('Device Overdue').filter((e) => e.detail.data.reminder !== 0)).toHaveLength(0);
	});

	it('overlapping runs: the lease lets one run work and the other skip', async () => {
		const [a, b] = await Promise.all([
			pollOverdueDevices(pollerContext(world, scenario.table(), { runId: 'run-a' })),
			pollOverdueDevices(pollerContext(world, scenario.table(), { runId: 'run-b' })),
		]);
		expect([a.skipped, b.skipped].filter(Boolean)).toEqual(['leaseHeld']);
		expect(deviceIds('Device Overdue')).toEqual(overdueIds());
		// The lease is released: the next run works.
		expect((await pollOverdueDevices(pollerContext(world, scenario.table()))).skipped).toBeUndefined();
	});

	it('time budget: stops before a page when time runs short, and the next run resumes', async () => {
		let pages = 0;
		const budget = () => (pages++ < 2 ? 600_000 : 500); // two pages, then "500 ms left"
		const first = await pollOverdueDevices(pollerContext(world, scenario.table(), { settings: { pageSize: 5 }, remainingMs: budget }));
		expect(first.complete).toBe(false);
		expect(first.stoppedForTime).toBe(true);
		expect(first.pages).toBe(2);
		expect(ofType('Overdue Devices Digest')).toHaveLength(0);
		const second = await pollOverdueDevices(pollerContext(world, scenario.table(), { settings: { pageSize: 5 } }));
		expect(second.complete).toBe(true);
		expect(deviceIds('Device Overdue')).toEqual(overdueIds()); // each exactly once
		expect(ofType('Overdue Devices Digest')[0].detail.data.count).toBe(overdueIds().length);
	});

	it('a crash between publish and record: the next run re-emits with the same keys, nothing lost', async () => {
		const store = new DynamoStateStore(scenario.table(), world.dynamo, async () => undefined);
		let writes = 0;
		const crashing = Object.create(store) as DynamoStateStore;
		crashing.putMany = async (...args) => {
			// The second write of devices' states (the first run also numbers itself and remembers pages).
			if (args[0].startsWith('overdue:') && ++writes === 2) throw new Error('process killed');
			return store.putMany(...args);
		};
		await expect(pollOverdueDevices(pollerContext(world, scenario.table(), { store: crashing, settings: { pageSize: 5 } }))).rejects.toThrow('process killed');
		const firstKeys = ofType('Device Overdue').map((e) => e.detail.metadata.dedupeKey);
		await pollOverdueDevices(pollerContext(world, scenario.table(), { settings: { pageSize: 5 } }));
		const all = ofType('Device Overdue');
		expect([...new Set(all.map((e) => (e.detail.data.device as { id: number }).id))].sort((a, b) => a - b)).toEqual(overdueIds());
		// Duplicates only for the page whose state write failed, with identical dedupe keys.
		const duplicates = all.length - new Set(all.map((e) => e.detail.metadata.dedupeKey)).size;
		// The second page re-reads one device at its boundary (the scan's overlap): 4 new devices.
		expect(firstKeys.length).toBe(9);
		expect(duplicates).toBe(4);
	});
});

describe('PutEvents failures', () => {
	it('entries failing with a retryable code are re-sent until accepted', async () => {
		const tries = new Map<string, number>();
		world.aws.failEntry = (entry) => {
			const key = JSON.parse(entry.Detail).metadata.dedupeKey as string;
			const n = (tries.get(key) ?? 0) + 1;
			tries.set(key, n);
			return n === 1 && key.endsWith(':1') ? 'ThrottlingException' : undefined;
		};
		const report = await pollOverdueDevices(pollerContext(world, scenario.table()));
		expect(report.complete).toBe(true);
		expect(deviceIds('Device Overdue')).toEqual(overdueIds());
		expect([...tries.values()].some((n) => n === 2)).toBe(true);
	});

	it('a throttled PutEvents call is retried as a whole', async () => {
		world.aws.failCall = (call) => (call <= 2 ? { status: 400, type: 'ThrottlingException' } : undefined);
		const report = await pollOverdueDevices(pollerContext(world, scenario.table()));
		expect(report.complete).toBe(true);
		expect(deviceIds('Device Overdue')).toEqual(overdueIds());
	});

	it('a permanent failure fails the run and records nothing for that page; the next run delivers it', async () => {
		const victim = overdueIds()[0];
		world.aws.failEntry = (entry) => (JSON.parse(entry.Detail).data.device?.id === victim ? 'MalformedDetail' : undefined);
		await expect(pollOverdueDevices(pollerContext(world, scenario.table()))).rejects.toThrow(/could not be published: device-overdue:sandbox:\d+:1/);
		expect(deviceIds('Device Overdue')).not.toContain(victim);
		world.aws.failEntry = () => undefined;
		await pollOverdueDevices(pollerContext(world, scenario.table()));
		expect(deviceIds('Device Overdue')).toContain(victim);
		expect(new Set(deviceIds('Device Overdue'))).toEqual(new Set(overdueIds()));
	});
});

describe('test results poller', () => {
	it('first run records the window without announcing history; steady state emits nothing', async () => {
		const first = await pollTestResults(pollerContext(world, scenario.table()));
		expect(first.complete).toBe(true);
		expect(world.aws.accepted).toHaveLength(0);
		await pollTestResults(pollerContext(world, scenario.table()));
		expect(world.aws.accepted).toHaveLength(0);
	});

	it('first run on a busy account: every upload of the settle window is remembered, none announced later', async () => {
		// 250 uploads a minute before the first run (more than one page of the first run's reads).
		const account = world.sandbox.account;
		const at = new Date(account.now() - 60_000).toISOString();
		for (let i = 0; i < 250; i++) account.syncTestResult({ device_id: 1 + (i % 20), status: i % 7 === 0 ? 'failed' : 'passed', test_date: account.today(), synced_time: at });
		await pollTestResults(pollerContext(world, scenario.table(), { settings: { pageSize: 100 } }));
		expect(world.aws.accepted).toHaveLength(0);
		const fresh = account.syncTestResult({ device_id: 2, status: 'passed', test_date: account.today() });
		await pollTestResults(pollerContext(world, scenario.table(), { settings: { pageSize: 100 } }));
		expect(ofType('Test Result Recorded').map((e) => (e.detail.data.testResult as { id: number }).id)).toEqual([fresh.id]);
	});

	it('a new result and a late-synced one (dated days ago, uploaded now) are each announced once', async () => {
		await pollTestResults(pollerContext(world, scenario.table()));
		const today = world.sandbox.account.today();
		const fresh = world.sandbox.account.syncTestResult({ device_id: 3, status: 'failed', test_date: today });
		const late = world.sandbox.account.syncTestResult({ device_id: 4, status: 'passed', test_date: addDays(today, -5) });
		const tooLate = world.sandbox.account.syncTestResult({ device_id: 5, status: 'passed', test_date: addDays(today, -30) });
		await pollTestResults(pollerContext(world, scenario.table()));
		const events = ofType('Test Result Recorded');
		const ids = events.map((e) => (e.detail.data.testResult as { id: number }).id).sort((a, b) => a - b);
		// Followed by upload time: a result dated on any day is new when it is uploaded.
		expect(ids).toEqual([fresh.id, late.id, tooLate.id]);
		const failed = events.find((e) => (e.detail.data.testResult as { id: number }).id === fresh.id)!;
		expect(failed.detail.data.testResult).toMatchObject({ status: 'failed', passed: false });
		expect(failed.detail.data.device).toMatchObject({ id: 3 });
		expect(failed.detail.metadata.dedupeKey).toBe(`test-result-recorded:sandbox:${fresh.id}`);
		world.aws.accepted.length = 0;
		await pollTestResults(pollerContext(world, scenario.table()));
		expect(world.aws.accepted).toHaveLength(0);
	});

	it('a result synced "in the future" does not blind the poller: the cursor never moves past now, later uploads are announced', async () => {
		await pollTestResults(pollerContext(world, scenario.table()));
		const account = world.sandbox.account;
		const ahead = account.syncTestResult({ device_id: 3, status: 'passed', synced_time: new Date(account.now() + 30 * 86_400_000).toISOString() });
		await pollTestResults(pollerContext(world, scenario.table()));
		const next = account.syncTestResult({ device_id: 4, status: 'passed' });
		await pollTestResults(pollerContext(world, scenario.table()));
		const ids = ofType('Test Result Recorded').map((e) => (e.detail.data.testResult as { id: number }).id);
		expect(ids).toEqual([ahead.id, next.id]);
	});

	it('unknown status values pass through with passed = null', async () => {
		await pollTestResults(pollerContext(world, scenario.table()));
		world.sandbox.account.extraFields = true;
		try {
			for (let i = 0; i < 5; i++) world.sandbox.account.syncTestResult({ device_id: 1 + i, status: 'passed' });
			await pollTestResults(pollerContext(world, scenario.table()));
			const statuses = ofType('Test Result Recorded').map((e) => e.detail.data.testResult as { status: string; passed: boolean | null });
			expect(statuses).toHaveLength(5);
			expect(statuses.some((s) => s.status === 'passed_with_remarks' && s.passed === null)).toBe(true);
		} finally {
			world.sandbox.account.extraFields = false;
		}
	});

	it('a failed run does not move the watermark; the next run announces what was missed', async () => {
		await pollTestResults(pollerContext(world, scenario.table()));
		const r = world.sandbox.account.syncTestResult({ device_id: 7, status: 'failed' });
		world.aws.failCall = () => ({ status: 500, type: 'InternalFailure' });
		await expect(pollTestResults(pollerContext(world, scenario.table()))).rejects.toThrow();
		world.aws.failCall = () => undefined;
		await pollTestResults(pollerContext(world, scenario.table()));
		expect(ofType('Test Result Recorded').map((e) => (e.detail.data.testResult as { id: number }).id)).toEqual([r.id]);
	});
});
