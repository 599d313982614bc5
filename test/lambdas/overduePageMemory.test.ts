import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE, resolveProfile } from '../../client';
import { addDays } from '../../client/dates';
import { DynamoStateStore } from '../../lambdas/adapters/dynamoStateStore';
import { pollOverdueDevices } from '../../lambdas/pollers/overdueDevices';
import { RememberedPages } from '../../lambdas/pollers/pageMemory';
import type { PollerSettings } from '../../lambdas/pollers/context';
import type { StateStore } from '../../lambdas/ports';
import { unreadableRecords } from '../../sandbox/faults';
import { DEVICE } from '../../sandbox/properties';
import { pollerContext, useFreshScenarios, usePollerWorld } from '../support/pollers';

// Pages of 10: the overdue list takes several, so a change lands on one of them.
// Read at the sandbox's raised rate: these tests are of the page memory, not of pacing.
const world = usePollerWorld({ devices: 160, customers: 6, testResults: 0 }, { ratePerSecond: 200 });
const scenario = useFreshScenarios(world);

const sandboxAccount = () => world.sandbox.account;
const overdueIds = () => [...sandboxAccount().data.devices.values()].filter((d) => sandboxAccount().isOverdue(d)).map((d) => d.id).sort((a, b) => a - b);
const ofType = (type: string) => world.aws.events().filter((e) => e['detail-type'] === type);
const deviceIds = (type: string) => ofType(type).map((e) => (e.detail.data.device as { id: number }).id).sort((a, b) => a - b);
const setLastTested = (id: number, day: string) => sandboxAccount().edit('device', { id, properties: { [DEVICE.lastTested]: day } }, 'test');

/** A device's department and time of change, to put both back later (`revert`): its record's text comes back. */
function before(id: number): { was: string; updated: string } {
	const device = sandboxAccount().data.devices.get(id)!;
	return { was: device.values[DEVICE.department] as string, updated: device.updated_time };
}
function revert(id: number, was: string, updated: string): void {
	sandboxAccount().edit('device', { id, properties: { [DEVICE.department]: was } }, 'test');
	sandboxAccount().data.devices.get(id)!.updated_time = updated;
}

function run(settings: Partial<PollerSettings> = {}, metrics: Array<[string, number]> = [], store?: StateStore) {
	const ctx = pollerContext(world, scenario.table(), { settings: { pageSize: 10, ...settings }, store });
	return pollOverdueDevices({ ...ctx, metrics: { count: (name, value = 1) => void metrics.push([name, value]) } });
}

/** The offsets a scan of `n` items reads at pages of 10 (2 re-read at each boundary; a full last page is followed by one more request). */
function pageStarts(n: number): number[] {
	const starts: number[] = [];
	for (let start = 0; ; start += 8) {
		starts.push(start);
		if (n - start < 10) return starts;
	}
}
/** The pages of such a scan with items not read on the page before (a run counts those). */
const pagesWithItems = (n: number) => pageStarts(n).filter((start) => n > start + (start === 0 ? 0 : 2)).length;

describe('the overdue poller remembers the pages it read', () => {
	it('a steady run recalls every page: the same devices seen, nothing announced, nothing resolved', async () => {
		const ids = overdueIds();
		expect(ids.length).toBeGreaterThan(30);
		const first = await run();
		expect(first.pagesRecalled).toBeUndefined();
		world.aws.accepted.length = 0;
		const second = await run();
		expect(second).toMatchObject({ complete: true, itemsSeen: first.itemsSeen, pages: first.pages, resolveChecks: { candidates: 0 } });
		expect(second.pagesRecalled).toBe(pagesWithItems(ids.length));
		expect(world.aws.accepted).toEqual([]);
	});

	it('a list of one full page is still one page (a snapshot), recalled or not', async () => {
		const pageSize = overdueIds().length; // the last page is full: one more request checks the end
		const first = await run({ pageSize });
		const steady = await run({ pageSize });
		expect([first.pages, steady.pages, steady.pagesRecalled]).toEqual([1, 1, 1]);
		// A device that left is resolved at once, without a targeted read (the snapshot rule).
		setLastTested(overdueIds()[0], sandboxAccount().today());
		const after = await run({ pageSize });
		expect(after.resolveChecks).toMatchObject({ candidates: 1, left: 1, stillOverdue: 0 });
		expect(after.pages).toBe(1);
	});

	it('a device entering the list: the pages before it are recalled, it is announced, and one that left is resolved', async () => {
		await run();
		const ids = overdueIds();
		const entering = [...sandboxAccount().data.devices.values()].find((d) => !sandboxAccount().isOverdue(d) && d.id > ids[Math.floor(ids.length / 2)])!;
		const leaving = ids[ids.length - 1];
		setLastTested(entering.id, addDays(sandboxAccount().today(), -900));
		setLastTested(leaving, sandboxAccount().today());
		world.aws.accepted.length = 0;
		const report = await run();
		expect(report.complete).toBe(true);
		expect(deviceIds('Device Overdue')).toEqual([entering.id]);
		expect(deviceIds('Device Overdue Resolved')).toEqual([leaving]);
		const before = ids.filter((id) => id < entering.id).length;
		// Every page that ends before the new device is answered as before; from it on, the list shifted.
		expect(report.pagesRecalled).toBe(pageStarts(ids.length).filter((start) => start + 10 <= before).length);
		expect(report.pagesRecalled).toBeGreaterThan(0);
		expect(report.pagesRecalled).toBeLessThan(report.pages);
	});

	it('a record that changed is read from its page, and the stored record follows; so does one that changes back', async () => {
		const table = scenario.table();
		const store = new DynamoStateStore(table, world.dynamo, async () => undefined);
		const stored = async (id: number) => (await store.get<{ device: { department: string } }>('overdue:sandbox', String(id)))?.device.department;
		await run();
		const id = overdueIds()[17]; // on two pages: the end of one, re-read at the start of the next
		const { was, updated } = before(id);
		sandboxAccount().edit('device', { id, properties: { [DEVICE.department]: 'Laboratory' } }, 'test');
		const changed = await run();
		expect(await stored(id)).toBe('Laboratory');
		const index = overdueIds().indexOf(id);
		expect(changed.pagesRecalled).toBe(changed.pages - pageStarts(overdueIds().length).filter((start) => start <= index && index < start + 10).length);
		// Back to the text a run remembered before: the page is read again, not recalled as it was.
		revert(id, was, updated);
		await run();
		expect(await stored(id)).toBe(was);
		expect(world.aws.events().filter((e) => e['detail-type'] === 'Device Overdue')).toHaveLength(overdueIds().length); // the first run's only
	});

	it('a run that dies between writing a record and remembering its page: that page is parsed again, even when its text comes back', async () => {
		const store = new DynamoStateStore(scenario.table(), world.dynamo, async () => undefined);
		const stored = async (id: number) => (await store.get<{ device: { department: string } }>('overdue:sandbox', String(id)))?.device.department;
		await run();
		const id = overdueIds()[3]; // on the first page only
		const { was, updated } = before(id);
		sandboxAccount().edit('device', { id, properties: { [DEVICE.department]: 'Laboratory' } }, 'test');
		const dying = Object.create(store) as DynamoStateStore;
		dying.putMany = async (ns, items) => {
			if (ns.startsWith('overduePages:')) throw new Error('process killed');
			return store.putMany(ns, items);
		};
		await expect(run({}, [], dying)).rejects.toThrow('process killed');
		expect(await stored(id)).toBe('Laboratory');
		// The first run's text again (its time of change too), but the record stored is newer than the page remembered.
		revert(id, was, updated);
		const report = await run();
		expect(await stored(id)).toBe(was);
		expect(report.pagesRecalled).toBe(report.pages - 1);
	});

	it('a reminder that falls due while the list reads alike is sent: such a page is parsed', async () => {
		const ids = overdueIds();
		await run({ reminderDays: 7 });
		// Just short of 7 days, then just past them (a few minutes, so the list's texts stay alike).
		const base = sandboxAccount().clockOffsetMs;
		sandboxAccount().clockOffsetMs = base + 7 * 86_400_000 - 120_000;
		await run({ reminderDays: 7 });
		world.aws.accepted.length = 0;
		sandboxAccount().clockOffsetMs = base + 7 * 86_400_000 + 120_000;
		await run({ reminderDays: 7 });
		expect(deviceIds('Device Overdue')).toEqual(ids);
		expect(ofType('Device Overdue').every((e) => e.detail.data.reminder === 1)).toBe(true);
		world.aws.accepted.length = 0;
		const after = await run({ reminderDays: 7 });
		expect(world.aws.accepted).toEqual([]);
		expect(after.pagesRecalled).toBe(pagesWithItems(ids.length));
	});

	it('a page with a record that cannot be read is parsed every run, and the record reported every run', async () => {
		// Unreadable records at the head of the list: on its first two pages.
		world.sandbox.faults.add({ kind: 'wrongShape', path: '/data/devices/overdue/' });
		const skipped = (metrics: Array<[string, number]>) => metrics.filter(([name]) => name === 'RecordsSkipped').reduce((n, [, v]) => n + v, 0);
		const first: Array<[string, number]> = [];
		const firstReport = await run({}, first);
		const second: Array<[string, number]> = [];
		const report = await run({}, second);
		expect(skipped(first)).toBe(unreadableRecords('overdueDevice').length);
		expect(skipped(second)).toBe(skipped(first));
		expect(report).toMatchObject({ complete: true, itemsSeen: firstReport.itemsSeen, pagesRecalled: pagesWithItems(overdueIds().length + unreadableRecords('overdueDevice').length) - 2 });
		// The two pages with unreadable records: [0, 10) and [8, 18) of the list, whose head they are.
	});

	it("a page's digest covers the service profile: another profile reads every page again", () => {
		const hooks = { usable: () => true, recalled: () => undefined };
		const other = resolveProfile(JSON.stringify({ paging: { maxPageSize: 500 } }));
		const a = new RememberedPages(new Map(), DEFAULT_PROFILE, { run: 1, now: 0 }, hooks);
		const b = new RememberedPages(new Map(), other, { run: 1, now: 0 }, hooks);
		expect(a.digest('[{"id":1}]')).toBe(new RememberedPages(new Map(), DEFAULT_PROFILE, { run: 2, now: 5 }, hooks).digest('[{"id":1}]'));
		expect(a.digest('[{"id":1}]')).not.toBe(b.digest('[{"id":1}]'));
		expect(a.digest('[{"id":1}]')).not.toBe(a.digest('[{"id":2}]'));
	});
});
