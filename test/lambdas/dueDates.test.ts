/**
 * The due-date history (lambdas/pollers/dueDates.ts): moved on by the pure transition (property-
 * tested), and by the poller over the sandbox's lists into DynamoDB (dynalite).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, addMonths, figuresAsOf, monthDays, monthFigures } from '../../client';
import { DynamoStateStore } from '../../lambdas/adapters/dynamoStateStore';
import { advanceHistory, pollDueDates, type SeenDevice } from '../../lambdas/pollers/dueDates';
import { pollTestResults } from '../../lambdas/pollers/testResults';
import { readKeptBin, readScrappedBin } from '../../lambdas/pollers/scrappedBin';
import { NS, dueEntries, stateSchemas, type DueHistory } from '../../lambdas/pollers/state';
import { CUSTOMER, DEVICE } from '../../sandbox/properties';
import { pollerContext, rebuildDone, useFreshScenarios, usePollerWorld } from '../support/pollers';

// Read at the sandbox's raised rate: these tests are of the history, not of pacing.
const world = usePollerWorld({ devices: 60, customers: 4, testResults: 20 }, { ratePerSecond: 200 });
const scenario = useFreshScenarios(world);
const account = () => world.sandbox.account;

describe('advanceHistory', () => {
	const observation = fc.record({
		days: fc.integer({ min: 0, max: 20 }),
		present: fc.boolean(),
		due: fc.option(fc.integer({ min: -400, max: 400 }), { nil: null }),
		tested: fc.option(fc.integer({ min: -30, max: 0 }), { nil: null }),
		customerId: fc.constantFrom(1, 2, null),
		department: fc.constantFrom('Workshop', 'Laboratory', null),
		result: fc.option(fc.integer({ min: -30, max: 0 }), { nil: null }),
	});

	it('property: one open entry at most, the device’s current due date; every closed one says how and when; the stored shape holds', () => {
		fc.assert(
			fc.property(fc.array(observation, { minLength: 1, maxLength: 40 }), (observations) => {
				let history: DueHistory | undefined;
				let today = '2026-01-01';
				let lastTested: string | null = null;
				for (const o of observations) {
					today = addDays(today, o.days);
					if (o.tested !== null) lastTested = [lastTested ?? '', addDays(today, o.tested)].sort()[1];
					const seen: SeenDevice | undefined = o.present
						? { id: 7, customerId: o.customerId, customerName: o.customerId === null ? null : `Customer ${o.customerId}`, department: o.department, designation: 'Kettle', nextTestDate: o.due === null ? null : addDays(today, o.due), lastTestedDate: lastTested, testIntervalMonths: 12, createdOn: '2025-01-01' }
						: undefined;
					const before = history;
					history = advanceHistory(history, seen, today, o.result === null ? undefined : addDays(today, o.result));
					if (!history) {
						expect(before).toBeUndefined();
						expect(o.present).toBe(false);
						continue;
					}
					expect(stateSchemas().DueHistory.safeParse(history).success).toBe(true);
					const open = history.entries.filter((e) => e.outcome === 'open');
					expect(open.length).toBeLessThanOrEqual(1);
					if (seen) expect(open[0]?.due ?? null).toBe(seen.nextTestDate);
					else expect(open).toEqual([]);
					for (const e of history.entries) {
						if (e.outcome !== 'open') expect(e.closedOn! >= e.openedOn).toBe(true);
						if (e.outcome === 'tested') expect(e.testedOn).toMatch(/^\d{4}-\d{2}-\d{2}$/);
						expect(e.firstSeenOverdue).toBe(e.due < e.openedOn);
					}
					// Seeing the same again changes nothing (no write).
					if (seen) expect(advanceHistory(history, seen, today, o.result === null ? undefined : addDays(today, o.result))).toBe(history);
				}
			}),
			{ numRuns: 400 },
		);
	});
});

describe('advanceHistory: edges', () => {
	const seen = (due: string | null, lastTestedDate: string | null = null): SeenDevice => ({ id: 9, customerId: null, customerName: null, department: null, designation: 'Kettle', nextTestDate: due, lastTestedDate, testIntervalMonths: 12, createdOn: '2019-01-01' });

	it('a due date in the far past opens first seen overdue and stays open however old; closed entries go after 27 months', () => {
		let h = advanceHistory(undefined, seen('2019-03-01'), '2026-11-25')!;
		expect(h.entries).toEqual([expect.objectContaining({ due: '2019-03-01', openedOn: '2026-11-25', firstSeenOverdue: true, outcome: 'open' })]);
		h = advanceHistory(h, seen('2027-11-25', '2026-11-25'), '2026-11-25')!;
		expect(h.entries.map((e) => [e.due, e.outcome, e.testedOn])).toEqual([
			['2019-03-01', 'tested', '2026-11-25'],
			['2027-11-25', 'open', undefined],
		]);
		// 27 months after it ended, the tested entry is dropped; the open one stays.
		expect(advanceHistory(h, seen('2027-11-25', '2026-11-25'), '2029-02-01')!.entries.map((e) => e.due)).toEqual(['2019-03-01', '2027-11-25']);
		expect(advanceHistory(h, seen('2027-11-25', '2026-11-25'), '2029-03-01')!.entries.map((e) => e.due)).toEqual(['2027-11-25']);
	});

	it('a device without a due date keeps no entry; given one later, it opens then', () => {
		const h = advanceHistory(undefined, seen(null), '2026-11-25')!;
		expect(h.entries).toEqual([]);
		expect(h.device.nextTestDate).toBeNull();
		expect(advanceHistory(h, seen('2027-01-10'), '2026-12-01')!.entries).toEqual([expect.objectContaining({ due: '2027-01-10', openedOn: '2026-12-01', firstSeenOverdue: false })]);
	});
});

/** The device as a scan would list it, from its stored history. */
function seenOf(h: DueHistory, due: string): SeenDevice {
	const d = h.device;
	return { id: 2, customerId: d.customerId, customerName: d.customerName, department: d.department, designation: d.designation, nextTestDate: due, lastTestedDate: d.lastTestedDate, testIntervalMonths: d.testIntervalMonths ?? null, createdOn: d.createdOn ?? null };
}

describe('the due-date history poller', () => {
	const history = async (store: DynamoStateStore, id: number) => (await store.get<DueHistory>(NS.dueDates('sandbox'), String(id)))!;
	const device = (id: number) => account().get('device', id);
	const setLastTested = (id: number, day: string) => account().edit('device', { id, properties: { [DEVICE.lastTested]: day } }, 't');

	it('opens each due date, closes it by a test (days late), a moved date or a deletion, and keeps the customer of the due date', async () => {
		const store = new DynamoStateStore(scenario.table(), world.dynamo);
		// The history as it records while watching (the rebuild of the past: test/lambdas/rebuild.test.ts).
		await rebuildDone(store, account().today());
		const ctx = pollerContext(world, scenario.table(), { store, settings: { pageSize: 7 } });
		const today = account().today();
		// Device 1 due in 10 days, 2 due 5 days ago (first seen overdue), 3 due in 20 days, 4 due in 3 days, 5 without a due date.
		for (const [id, due] of [
			[1, 10],
			[2, -5],
			[3, 20],
			[4, 3],
		] as const) {
			account().edit('device', { id, properties: { [DEVICE.testInterval]: 12 } }, 't');
			setLastTested(id, addMonths(addDays(today, due), -12));
		}
		account().edit('device', { id: 5, properties: { [DEVICE.testInterval]: null } }, 't');
		const due = (id: number) => device(id).values[DEVICE.nextTest] as string;
		const first = { 1: due(1), 2: due(2), 3: due(3), 4: due(4) };
		const gauges: Record<string, number> = {};
		ctx.metrics = { count: () => undefined, gauge: (name, value) => void (gauges[name] = value) };
		expect((await pollDueDates(ctx)).complete).toBe(true);
		// The dashboard's figures: the snapshot of the sandbox's own devices.
		const devices = [...account().data.devices.values()].map((d) => d.values[DEVICE.nextTest] as string | null);
		expect(gauges).toMatchObject({
			OverdueDevices: devices.filter((d) => d !== null && d < today).length,
			DueWithin30Days: devices.filter((d) => d !== null && d >= today && d <= addDays(today, 30)).length,
		});
		expect((await history(store, 2)).entries).toEqual([expect.objectContaining({ due: first[2], openedOn: today, firstSeenOverdue: true, outcome: 'open' })]);
		expect((await history(store, 5)).entries).toEqual([]);
		expect((await history(store, 5)).device.nextTestDate).toBeNull();

		// Two days on: 1 tested early, 2 tested (7 days late), 3 moves to customer 2, 4's interval changes, 6 deleted.
		account().clockOffsetMs += 2 * 86_400_000;
		const day2 = account().today();
		account().syncTestResult({ device_id: 1, test_date: day2 });
		account().syncTestResult({ device_id: 2, test_date: day2 });
		account().data.devices.get(3)!.customer_id = 2;
		account().edit('device', { id: 4, properties: { [DEVICE.testInterval]: 24 } }, 't');
		account().delete('device', 6, false);
		expect((await pollDueDates(ctx)).complete).toBe(true);

		expect((await history(store, 1)).entries).toEqual([
			expect.objectContaining({ due: first[1], outcome: 'tested', testedOn: day2, closedOn: day2 }),
			expect.objectContaining({ due: due(1), openedOn: day2, outcome: 'open', firstSeenOverdue: false }),
		]);
		expect((await history(store, 2)).entries[0]).toMatchObject({ outcome: 'tested', testedOn: day2 });
		expect((await history(store, 3)).entries).toEqual([expect.objectContaining({ due: first[3], customerId: 2, customerName: account().data.customers.get(2)!.values[CUSTOMER.name] })]);
		expect((await history(store, 4)).entries.map((e) => [e.due, e.outcome])).toEqual([
			[first[4], 'moved'],
			[due(4), 'open'],
		]);
		const deleted = await history(store, 6);
		expect(deleted.device.deletedOn).toBe(day2);
		expect(deleted.entries.every((e) => e.outcome !== 'open')).toBe(true);

		// After its due date the device's customer no longer changes where the due date counts.
		account().clockOffsetMs += 25 * 86_400_000;
		account().data.devices.get(3)!.customer_id = 3;
		expect((await pollDueDates(ctx)).complete).toBe(true);
		expect((await history(store, 3)).entries[0]).toMatchObject({ due: first[3], customerId: 2, outcome: 'open' });
	});

	it('a device moved to another customer before its due date, then deleted: closed without a test where it was last held (issue 27)', async () => {
		const store = new DynamoStateStore(scenario.table(), world.dynamo);
		// The history as it records while watching (the rebuild of the past: test/lambdas/rebuild.test.ts).
		await rebuildDone(store, account().today());
		const ctx = pollerContext(world, scenario.table(), { store, settings: { pageSize: 7 } });
		const today = account().today();
		account().edit('device', { id: 2, properties: { [DEVICE.testInterval]: 12 } }, 't');
		setLastTested(2, addMonths(addDays(today, 5), -12));
		const due = device(2).values[DEVICE.nextTest] as string;
		const from = device(2).customer_id ?? 1;
		const to = (from % 4) + 1;
		expect((await pollDueDates(ctx)).complete).toBe(true);
		// Three days before its due date it changes hands and a run sees it; the next day it is deleted.
		account().clockOffsetMs += 2 * 86_400_000;
		account().data.devices.get(2)!.customer_id = to;
		expect((await pollDueDates(ctx)).complete).toBe(true);
		account().clockOffsetMs += 86_400_000;
		account().delete('device', 2, false);
		expect((await pollDueDates(ctx)).complete).toBe(true);
		const entries = dueEntries([{ key: '2', value: await history(store, 2) }]);
		expect(entries).toEqual([expect.objectContaining({ due, customerId: to, outcome: 'deleted', closedOn: account().today() })]);
		const byCustomer = monthFigures(entries, due.slice(0, 7), addDays(due, 1), 'customer');
		expect(byCustomer.map((g) => [g.id, g.due, g.closedWithoutTest])).toEqual([[to, 1, 1]]);
	});

	it('a device deleted and restored from the recycle bin before its due date keeps one due date: its month shows 1 due, none ended without a test', async () => {
		const store = new DynamoStateStore(scenario.table(), world.dynamo);
		await rebuildDone(store, account().today());
		const ctx = pollerContext(world, scenario.table(), { store, settings: { pageSize: 7 } });
		const today = account().today();
		account().edit('device', { id: 2, properties: { [DEVICE.testInterval]: 12 } }, 't');
		setLastTested(2, addMonths(addDays(today, 10), -12));
		const due = device(2).values[DEVICE.nextTest] as string;
		expect((await pollDueDates(ctx)).complete).toBe(true);
		account().clockOffsetMs += 86_400_000;
		const { recycle_bin_id: bin } = account().delete('device', 2, false);
		expect((await pollDueDates(ctx)).complete).toBe(true);
		expect((await history(store, 2)).device.deletedOn).toBe(account().today());
		account().clockOffsetMs += 2 * 86_400_000;
		account().restore(bin!);
		expect((await pollDueDates(ctx)).complete).toBe(true);
		const restored = await history(store, 2);
		expect(restored.device.deletedOn).toBeUndefined();
		expect(restored.entries).toEqual([expect.objectContaining({ due, openedOn: today, outcome: 'open' })]);
		const [month] = monthFigures(dueEntries([{ key: '2', value: restored }]), due.slice(0, 7), addDays(due, -1), 'all');
		expect(month).toMatchObject({ due: 1, closedWithoutTest: 0, notYetDue: 1 });
		// Seen again unchanged: nothing to write.
		expect(advanceHistory(restored, seenOf(restored, due), account().today())).toBe(restored);
	});

	it('the dashboard counts last month as of the 1st of this month, as the report and n8n do: a due date on the month’s last day, untested, is overdue', async () => {
		const store = new DynamoStateStore(scenario.table(), world.dynamo);
		const ctx = pollerContext(world, scenario.table(), { store, settings: { pageSize: 20 } });
		const gauges: Record<string, number> = {};
		ctx.metrics = { count: () => undefined, gauge: (name, value) => void (gauges[name] = value) };
		const month = account().today().slice(0, 7);
		const last = monthDays(month).last;
		const goTo = (day: string) => void (account().clockOffsetMs += Date.parse(`${day}T12:00:00Z`) - account().now());
		goTo(addDays(last, -2));
		await rebuildDone(store, account().today());
		// Device 3 due on the month's last day and never tested; device 4 due the day before, tested on it (on time).
		for (const [id, due] of [
			[3, last],
			[4, addDays(last, -1)],
		] as const) {
			account().edit('device', { id, properties: { [DEVICE.testInterval]: 12 } }, 't');
			setLastTested(id, addMonths(due, -12));
		}
		expect((await pollDueDates(ctx)).complete).toBe(true);
		goTo(addDays(last, -1));
		account().syncTestResult({ device_id: 4, test_date: account().today() });
		expect((await pollDueDates(ctx)).complete).toBe(true);
		goTo(addDays(last, 2));
		expect((await pollDueDates(ctx)).complete).toBe(true);
		const all = [];
		for await (const item of store.list<DueHistory>(NS.dueDates('sandbox'))) all.push(item);
		const entries = dueEntries(all);
		const rate = (asOf: string) => Math.round(monthFigures(entries, month, asOf, 'all')[0].onTimeRate! * 1000) / 10;
		// As of the last day, device 3 was not yet due; as of the 1st it is overdue: the figures differ.
		expect(rate(figuresAsOf(month, account().today()))).not.toBe(rate(last));
		expect(figuresAsOf(month, account().today())).toBe(addDays(last, 1));
		expect(gauges.OnTimeRateLastMonth).toBe(rate(addDays(last, 1)));
	});

	it('a test date the test-results poller read closes the due date when Last tested did not move on; an incomplete scan writes nothing', async () => {
		const store = new DynamoStateStore(scenario.table(), world.dynamo);
		// The history as it records while watching (the rebuild of the past: test/lambdas/rebuild.test.ts).
		await rebuildDone(store, account().today());
		const ctx = pollerContext(world, scenario.table(), { store });
		expect((await pollTestResults(ctx)).complete).toBe(true);
		expect((await pollDueDates(ctx)).complete).toBe(true);
		const before = (await history(store, 8)).entries[0];
		// A result uploaded and its date moved by the interval (Last tested edited back to what it was).
		account().clockOffsetMs += 86_400_000;
		const last = device(8).values[DEVICE.lastTested] as string;
		const testDay = account().today();
		account().syncTestResult({ device_id: 8, test_date: testDay });
		setLastTested(8, last);
		account().edit('device', { id: 8, properties: { [DEVICE.testInterval]: device(8).values[DEVICE.testInterval] === 6 ? 12 : 6 } }, 't');
		account().clockOffsetMs += 11 * 60_000;
		expect((await pollTestResults(ctx)).complete).toBe(true);
		expect(await store.get(NS.latestResult('sandbox'), '8')).toEqual({ testDate: testDay });
		// The device list answers oddly: nothing is written.
		world.sandbox.faults.add({ kind: 'emptyPage', path: '/data/devices/all/', count: 1 });
		expect((await pollDueDates(ctx)).complete).toBe(false);
		expect((await history(store, 8)).entries).toEqual([before]);
		world.sandbox.faults.clear();
		expect((await pollDueDates(ctx)).complete).toBe(true);
		expect((await history(store, 8)).entries[0]).toMatchObject({ due: before.due, outcome: 'tested', testedOn: testDay });

		// A clock set back dates nothing before the latest day a run has seen.
		const latest = account().today();
		account().clockOffsetMs -= 5 * 86_400_000;
		account().edit('device', { id: 9, properties: { [DEVICE.testInterval]: device(9).values[DEVICE.testInterval] === 6 ? 12 : 6 } }, 't');
		expect((await pollDueDates(ctx)).complete).toBe(true);
		expect((await history(store, 9)).entries.map((e) => [e.outcome, e.closedOn ?? e.openedOn])).toEqual([
			['moved', latest],
			['open', latest],
		]);
	});

	it('the recycle bin that cannot be kept (the state table refuses it) or read fails nothing else: the histories are written, the run completes, the report reads the bin as not read, and the next run tries again', async () => {
		const store = new DynamoStateStore(scenario.table(), world.dynamo);
		await rebuildDone(store, account().today());
		const refusing = Object.create(store) as DynamoStateStore;
		let refused = 0;
		refusing.putMany = async (ns, items) => {
			if (ns.startsWith('scrapped')) {
				refused++;
				throw new Error('ValidationException: Item size has exceeded the maximum allowed size');
			}
			return store.putMany(ns, items);
		};
		const report = await pollDueDates(pollerContext(world, scenario.table(), { store: refusing }));
		expect(refused).toBeGreaterThan(0);
		expect(report.complete).toBe(true);
		expect(await history(store, 1)).toBeDefined();
		expect(await readScrappedBin(store, 'sandbox')).toBeNull();
		// The bin's list fails: the same.
		world.sandbox.faults.add({ kind: 'status', status: 503, path: '/recycle_bin/' });
		expect((await pollDueDates(pollerContext(world, scenario.table(), { store }))).complete).toBe(true);
		expect(await readScrappedBin(store, 'sandbox')).toBeNull();
		world.sandbox.faults.clear();
		// The next run of the day reads and keeps it.
		expect((await pollDueDates(pollerContext(world, scenario.table(), { store }))).complete).toBe(true);
		expect(await readScrappedBin(store, 'sandbox')).toEqual(expect.any(Array));
	});

	it('why the bin is not read is kept for the report: a failed read (503) or none yet is not the token’s doing; a 413 is; a failure the day after a 413 replaces it; a whole bin kept earlier outlasts a later failure', async () => {
		const store = new DynamoStateStore(scenario.table(), world.dynamo);
		await rebuildDone(store, account().today());
		expect(await readKeptBin(store, 'sandbox')).toEqual({ devices: null, notRead: 'failed' });
		world.sandbox.faults.add({ kind: 'status', status: 503, path: '/recycle_bin/' });
		expect((await pollDueDates(pollerContext(world, scenario.table(), { store }))).complete).toBe(true);
		expect(await readKeptBin(store, 'sandbox')).toEqual({ devices: null, notRead: 'failed' });
		world.sandbox.faults.clear();
		world.sandbox.faults.add({ kind: 'status', status: 413, path: '/recycle_bin/' });
		expect((await pollDueDates(pollerContext(world, scenario.table(), { store }))).complete).toBe(true);
		expect(await readKeptBin(store, 'sandbox')).toEqual({ devices: null, notRead: 'forbidden' });
		// Forbidden yesterday (read once a day), failed today: the latest attempt's reason, and the run after it tries again.
		account().clockOffsetMs += 86_400_000;
		world.sandbox.faults.clear();
		world.sandbox.faults.add({ kind: 'status', status: 503, path: '/recycle_bin/' });
		expect((await pollDueDates(pollerContext(world, scenario.table(), { store }))).complete).toBe(true);
		expect(await readKeptBin(store, 'sandbox')).toEqual({ devices: null, notRead: 'failed' });
		world.sandbox.faults.clear();
		expect((await pollDueDates(pollerContext(world, scenario.table(), { store }))).complete).toBe(true);
		const kept = await readKeptBin(store, 'sandbox');
		expect(kept).toEqual({ devices: expect.any(Array) });
		// A failure after a whole bin was kept: that bin stays what the report counts.
		world.sandbox.faults.add({ kind: 'status', status: 503, path: '/recycle_bin/' });
		account().delete('device', [...account().table('device').keys()][0], false);
		const refusedBefore = world.sandbox.stats.byStatus[503] ?? 0;
		expect((await pollDueDates(pollerContext(world, scenario.table(), { store }))).complete).toBe(true);
		// The device gone made the run read the bin again, and that read failed.
		expect(world.sandbox.stats.byStatus[503]).toBeGreaterThan(refusedBefore);
		expect(await readKeptBin(store, 'sandbox')).toEqual(kept);
	}, 90_000);
});

