/**
 * The due-date history rebuilt from the account's test results on the history poller's first runs
 * (lambdas/pollers/rebuild.ts), over the sandbox's lists into DynamoDB (dynalite): what it rebuilds,
 * that it resumes where a run's budget ended, what it refuses, and that the live record wins.
 */
import { describe, expect, it } from 'vitest';
import { addDays, addMonths, MAX_INTERVAL_MONTHS, monthBefore, rebuildReach, usableInterval } from '../../client';
import { DynamoStateStore } from '../../lambdas/adapters/dynamoStateStore';
import { pollDueDates, RETENTION_MONTHS } from '../../lambdas/pollers/dueDates';
import { testRecordsReach } from '../../lambdas/pollers/rebuild';
import { NS, type DueHistory, type RebuildState } from '../../lambdas/pollers/state';
import type { StateStore } from '../../lambdas/ports';
import type { Account } from '../../sandbox/account';
import { DEVICE } from '../../sandbox/properties';
import { composeComplianceReport } from '../../email/compliance';
import { reportHistory } from '../../lambdas/email/complianceRun';
import { COMPLIANCE_SETTINGS } from '../support/compliancePreview';
import { newTable, pollerContext, rebuildDone, useFreshScenarios, usePollerWorld } from '../support/pollers';

// Read at the sandbox's raised rate: these tests are of the rebuild, not of pacing.
const world = usePollerWorld({ devices: 60, customers: 4, testResults: 150 }, { ratePerSecond: 200 });
const scenario = useFreshScenarios(world);
const account = (): Account => world.sandbox.account;

async function histories(store: StateStore): Promise<Map<number, DueHistory>> {
	const out = new Map<number, DueHistory>();
	for await (const item of store.list<DueHistory>(NS.dueDates('sandbox'))) out.set(Number(item.key), item.value);
	return out;
}

/** Each listed device's distinct test days from the sandbox's own results, on or after `since`. */
function testDays(since: string): Map<number, string[]> {
	const days = new Map<number, Set<string>>();
	for (const r of account().data.testResults.values()) if (r.test_date >= since && account().data.devices.has(r.device_id)) days.set(r.device_id, (days.get(r.device_id) ?? new Set()).add(r.test_date));
	return new Map([...days].map(([id, set]) => [id, [...set].sort()]));
}

const longestInterval = () => Math.max(0, ...[...account().data.devices.values()].map((d) => usableInterval(d.values[DEVICE.testInterval]) ?? 0));

describe('the rebuild of the due-date history', () => {
	it('on the first run: every due date met by a later test within the retention, from the results alone, marked rebuilt', async () => {
		const store = new DynamoStateStore(scenario.table(), world.dynamo);
		const report = await pollDueDates(pollerContext(world, scenario.table(), { store, settings: { pageSize: 50 } }));
		const today = account().today();
		// The history's reach, or the interval recommendations' previous tests where those lie earlier: for the
		// longest possible interval (an interval lengthened later still finds its earlier tests), 24 + 151 months back.
		const since = [rebuildReach(today, RETENTION_MONTHS, longestInterval()), testRecordsReach(today)].sort()[0];
		expect(since).toBe(addMonths(`${monthBefore(today.slice(0, 7), 24)}-01`, -(Math.ceil(MAX_INTERVAL_MONTHS * 1.25) + 1)));
		expect(report.complete).toBe(true);
		expect(report.rebuild).toMatchObject({ since, done: true, resultsRead: [...account().data.testResults.values()].filter((r) => r.test_date >= since).length });
		const keepFrom = `${monthBefore(today.slice(0, 7), RETENTION_MONTHS)}-01`;
		const stored = await histories(store);
		let checked = 0;
		for (const [id, days] of testDays(since)) {
			const interval = usableInterval(account().data.devices.get(id)!.values[DEVICE.testInterval]);
			if (interval === null) continue;
			const tested = stored.get(id)!.entries.filter((e) => e.outcome === 'tested');
			// The due date after each test but the last, met by the next one (kept while it ended within the retention).
			const want = days.slice(0, -1).map((t, i) => ({ due: addMonths(t, interval), testedOn: days[i + 1] })).filter((w) => w.testedOn >= keepFrom || w.due >= keepFrom);
			expect(tested.map((e) => ({ due: e.due, testedOn: e.testedOn })), `device ${id}`).toEqual(want);
			expect(tested.every((e) => e.rebuilt === true && e.openedOn < e.testedOn!)).toBe(true);
			checked += want.length;
		}
		expect(checked).toBeGreaterThan(10);
		// Done once: the next run reads no result again.
		const again = await pollDueDates(pollerContext(world, scenario.table(), { store, settings: { pageSize: 50 } }));
		expect(again.rebuild).toBeUndefined();
		expect(await histories(store)).toEqual(stored);
	});

	it('a run whose budget ends resumes after the last result id read; the history equals one whole run', async () => {
		const whole = new DynamoStateStore(scenario.table(), world.dynamo);
		expect((await pollDueDates(pollerContext(world, scenario.table(), { store: whole, settings: { pageSize: 20 } }))).rebuild?.done).toBe(true);

		// The same account, a second table: the budget runs out after two pages of results each run.
		const table = await newTable(world.dynamo);
		const store = new DynamoStateStore(table, world.dynamo);
		let pages = 0;
		const counting: StateStore = {
			list: (ns) => store.list(ns),
			get: (ns, key) => store.get(ns, key),
			putMany: async (ns, items) => {
				if (ns === NS.tests('sandbox')) pages++;
				await store.putMany(ns, items);
			},
			acquireLease: (...a) => store.acquireLease(...a),
			releaseLease: (...a) => store.releaseLease(...a),
		};
		const runs: Array<{ resultsRead: number; done: boolean }> = [];
		for (let run = 0; run < 20 && !runs.at(-1)?.done; run++) {
			const stopAt = pages + 2;
			const report = await pollDueDates(pollerContext(world, table, { store: counting, settings: { pageSize: 20 }, remainingMs: () => (pages >= stopAt ? 0 : 600_000) }));
			runs.push(report.rebuild!);
			const state = (await store.get<RebuildState>(NS.rebuild('sandbox'), 'rebuild'))!;
			expect(state.resultsRead).toBe(report.rebuild!.resultsRead);
		}
		expect(runs.length).toBeGreaterThan(2);
		expect(runs.at(-1)!.done).toBe(true);
		// Each run read on from where the one before stopped: no result twice, none missed.
		expect(runs.at(-1)!.resultsRead).toBe((await whole.get<RebuildState>(NS.rebuild('sandbox'), 'rebuild'))!.resultsRead);
		expect(await histories(store)).toEqual(await histories(whole));
	});

	it('refuses by rule and counts: results of a device removed for good, a test dated after today, a second result on a day, an absurd interval', async () => {
		const a = account();
		const today = a.today();
		const withResults = [...new Set([...a.data.testResults.values()].map((r) => r.device_id))];
		const [gone, twice, absurd, zero] = withResults;
		a.delete('device', gone, true);
		a.syncTestResult({ device_id: twice, test_date: today });
		a.syncTestResult({ device_id: twice, test_date: today });
		a.syncTestResult({ device_id: twice, test_date: '2099-01-01' });
		a.edit('device', { id: absurd, properties: { [DEVICE.testInterval]: 600 } }, 't');
		a.edit('device', { id: zero, properties: { [DEVICE.testInterval]: 0 } }, 't');
		const store = new DynamoStateStore(scenario.table(), world.dynamo);
		const report = await pollDueDates(pollerContext(world, scenario.table(), { store, settings: { pageSize: 50 } }));
		expect(report.complete).toBe(true);

		// The same counts, by hand from the sandbox's record.
		const since = report.rebuild!.since;
		const want = { devicesWithoutInterval: 0, futureTests: 0, testsBeforeCreated: 0, sameDayTests: 0, resultsOfUnknownDevices: 0 };
		const byDevice = new Map<number, string[]>();
		for (const r of a.data.testResults.values()) if (r.test_date >= since) byDevice.set(r.device_id, [...(byDevice.get(r.device_id) ?? []), r.test_date]);
		for (const [id, days] of byDevice) {
			const d = a.data.devices.get(id);
			if (!d) {
				want.resultsOfUnknownDevices += days.length;
				continue;
			}
			const created = d.created_time.slice(0, 10);
			const kept = new Set<string>();
			for (const day of days) {
				if (day > today) want.futureTests++;
				else if (day < created) want.testsBeforeCreated++;
				else if (kept.has(day)) want.sameDayTests++;
				else kept.add(day);
			}
			if (kept.size > 0 && usableInterval(d.values[DEVICE.testInterval]) === null) want.devicesWithoutInterval++;
		}
		expect(report.rebuild!.skipped).toEqual(want);
		expect(want.resultsOfUnknownDevices).toBeGreaterThan(0);
		expect(want.futureTests).toBeGreaterThan(0);
		expect(want.sameDayTests).toBeGreaterThan(0);
		expect(want.devicesWithoutInterval).toBeGreaterThanOrEqual(2);
		// No due date from an absurd interval, none from the future.
		const stored = await histories(store);
		for (const id of [absurd, zero]) expect(stored.get(id)!.entries.filter((e) => e.rebuilt)).toEqual([]);
		expect([...stored.values()].flatMap((h) => h.entries).filter((e) => e.rebuilt && (e.openedOn > today || (e.testedOn ?? '') > today))).toEqual([]);
	});

	it('where the history recorded a due date while watching, its record wins; the rebuild adds only what came before the watch', async () => {
		const store = new DynamoStateStore(scenario.table(), world.dynamo);
		const ctx = () => pollerContext(world, scenario.table(), { store, settings: { pageSize: 50 } });
		// An installation from before the rebuild existed: its history watched for 40 days.
		await rebuildDone(store, account().today());
		expect((await pollDueDates(ctx())).rebuild).toBeUndefined();
		const watchedFrom = account().today();
		for (let day = 0; day < 4; day++) {
			account().clockOffsetMs += 10 * 86_400_000;
			const overdue = [...account().data.devices.values()].filter((d) => account().isOverdue(d)).slice(0, 3);
			for (const d of overdue) account().syncTestResult({ device_id: d.id, test_date: account().today() });
			await pollDueDates(ctx());
		}
		const live = await histories(store);
		// The upgrade: the rebuild has not run for this installation.
		await store.putMany<RebuildState>(NS.rebuild('sandbox'), [{ key: 'rebuild', value: { since: '2000-01-01', startedOn: account().today(), afterId: 0, resultsRead: 0 } }]);
		expect((await pollDueDates(ctx())).rebuild?.done).toBe(true);
		const merged = await histories(store);
		let added = 0;
		for (const [id, h] of live) {
			const after = merged.get(id)!;
			for (const e of h.entries) {
				const same = after.entries.find((x) => x.due === e.due)!;
				expect({ ...same, openedOn: e.openedOn, firstSeenOverdue: e.firstSeenOverdue, rebuilt: undefined }, `device ${id} due ${e.due}`).toEqual({ ...e, rebuilt: undefined });
				expect(same.openedOn <= e.openedOn).toBe(true);
			}
			for (const e of after.entries.filter((x) => !h.entries.some((y) => y.due === x.due))) {
				expect(e.rebuilt).toBe(true);
				expect(e.openedOn < watchedFrom).toBe(true);
				added++;
			}
		}
		expect(added).toBeGreaterThan(0);
	});
});

describe('two tests whose due dates fall on one day (month ends clamp)', () => {
	it('rebuilt, merged with a recorded history, and in the report’s 12 months: one due date, ended by the next test after the later one, as recorded day by day', async () => {
		const a = account();
		// The next leap year whose 27 February is ahead: y, and the year after it, n.
		let y = Number(a.today().slice(0, 4));
		while (y % 4 !== 0 || `${y}-02-27` <= a.today()) y++;
		const n = y + 1;
		const goTo = (day: string) => {
			a.clockOffsetMs += Date.parse(`${day}T12:00:00Z`) - a.now();
		};
		// Device 1 is tested on 28 and 29 February of a leap year (12 months: both due 28 February the next year), then 5 days late; device 2 gives the report's month a due date.
		const [clamped, other] = [1, 2];
		for (const id of [clamped, other]) a.edit('device', { id, properties: { [DEVICE.testInterval]: 12 } }, 't');
		const store = async () => {
			const table = await newTable(world.dynamo);
			return { table, store: new DynamoStateStore(table, world.dynamo) };
		};
		const recorded = { table: scenario.table(), store: new DynamoStateStore(scenario.table(), world.dynamo) };
		const merged = await store();
		const poll = async (s: { table: string; store: StateStore }) => expect((await pollDueDates(pollerContext(world, s.table, { store: s.store, settings: { pageSize: 50 } }))).complete).toBe(true);

		// Recorded: watched day by day from the day before the first test (nothing changes on the days between).
		goTo(`${y}-02-27`);
		await rebuildDone(recorded.store, a.today());
		await poll(recorded);
		for (const [day, id] of [
			[`${y}-02-28`, clamped],
			[`${y}-02-29`, clamped],
			[`${y}-03-15`, other],
			[`${n}-02-28`, undefined],
			[`${n}-03-05`, clamped],
		] as const) {
			goTo(day);
			if (id !== undefined) a.syncTestResult({ device_id: id, test_date: day });
			await poll(recorded);
		}
		// Merged: an installation that began watching after that due date ended, then rebuilt the past.
		goTo(`${n}-03-10`);
		await rebuildDone(merged.store, a.today());
		await poll(merged);
		goTo(`${n}-04-01`);
		await poll(recorded);
		await merged.store.putMany<RebuildState>(NS.rebuild('sandbox'), [{ key: 'rebuild', value: { since: '2000-01-01', startedOn: a.today(), afterId: 0, resultsRead: 0 } }]);
		await poll(merged);
		// Rebuilt: a fresh installation's first run.
		const rebuilt = await store();
		await poll(rebuilt);

		const deps = { settings: COMPLIANCE_SETTINGS, timeZone: 'UTC', environment: 'sandbox' as const };
		for (const [name, s] of Object.entries({ recorded, merged, rebuilt })) {
			const all = await histories(s.store);
			const entries = all.get(clamped)!.entries.filter((e) => e.due >= `${y}-03-01`);
			expect(
				entries.map((e) => [e.due, e.openedOn, e.outcome, e.testedOn ?? null]),
				name,
			).toEqual([
				[`${n}-02-28`, `${y}-02-28`, 'tested', `${n}-03-05`],
				[`${n + 1}-03-05`, `${n}-03-05`, 'open', null],
			]);
			// The report of March the next year: its 12 months show February with one due date, tested late (not one on time and one late).
			const mine = [...all].filter(([id]) => id === clamped || id === other).map(([id, value]) => ({ key: String(id), value }));
			const report = composeComplianceReport(deps, 'manager@example.com', `${n}-03`, reportHistory(mine))!;
			expect(report.trend.find((t) => t.month === `${n}-02`), name).toMatchObject({ due: 1, onTimeRate: 0 });
			const february = composeComplianceReport(deps, 'manager@example.com', `${n}-02`, reportHistory(mine), `${n}-04-01`)!;
			expect(february.all, name).toMatchObject({ due: 1, testedOnTime: 0, testedLate: 1, maxDaysLate: 5 });
		}
	});
});

describe('the rebuild’s cut-off for future results', () => {
	it('is the later of the UTC day and the service’s today: where the service’s day runs ahead of this machine’s UTC date, a result dated the service’s today is not refused as future', async () => {
		const a = account();
		// 01:00 at the service on its new day; this machine's clock says 23:00 UTC of the day before.
		a.clockOffsetMs += Date.parse(`${addDays(a.today(), 1)}T01:00:00Z`) - a.now();
		const serviceToday = a.today();
		const since = rebuildReach(serviceToday, RETENTION_MONTHS, longestInterval());
		const [id] = [...testDays(since)].filter(([d]) => usableInterval(a.data.devices.get(d)!.values[DEVICE.testInterval]) !== null).map(([d]) => d);
		a.syncTestResult({ device_id: id, test_date: serviceToday });
		const store = new DynamoStateStore(scenario.table(), world.dynamo);
		const ctx = pollerContext(world, scenario.table(), { store, settings: { pageSize: 50 } });
		ctx.now = () => a.now() - 2 * 3_600_000;
		const report = await pollDueDates(ctx);
		expect(report.rebuild).toMatchObject({ done: true, skipped: expect.objectContaining({ futureTests: [...a.data.testResults.values()].filter((r) => r.test_date > serviceToday).length }) });
		// The due date before it was met by that test (rebuilt: it came before the history watched).
		const entries = (await histories(store)).get(id)!.entries;
		expect(entries.filter((e) => e.testedOn === serviceToday)).toEqual([expect.objectContaining({ outcome: 'tested', rebuilt: true })]);
	});
});
