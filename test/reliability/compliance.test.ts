import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMPLIANCE_GROUP_BY, addDays, addMonths, dayMs, daysBetween, median, monthBefore, monthDays, monthFigures, type ComplianceGroupBy, type MonthFigures } from '../../client';
import { FileStateStore } from '../../lambdas/adapters/fileStateStore';
import { createLocalMail } from '../../lambdas/email/local';
import { pollDueDates } from '../../lambdas/pollers/dueDates';
import { NS, dueEntries, type DueHistory } from '../../lambdas/pollers/state';
import { pollTestResults } from '../../lambdas/pollers/testResults';
import { silentLog } from '../../lambdas/ports';
import type { Account } from '../../sandbox/account';
import { CUSTOMER, DEVICE } from '../../sandbox/properties';
import { putLive } from '../support/live';
import { pollerContext, usePollerWorld } from '../support/pollers';
import { soaked } from '../support/soak';

/**
 * The compliance figures over simulated months (issue 27): the sandbox's clock moved day by day
 * through its admin API, devices tested early, on time, late or never, deleted, their due dates
 * moved, moved to another customer before their due date, while live mode tests, creates and
 * deletes devices as lists are read. Each day the test-results and due-date pollers run on the
 * state file of `npm start`; the ground truth is taken from the sandbox's own record (its devices
 * and the results uploaded since the look before) after the day's planned changes and after each
 * run. Every month's figures, per group, equal the truth's; the report e-mail of the last month
 * (March, when Europe/Berlin goes to summer time) goes out on the first at the digest hour, local
 * time, with the truth's figures.
 * TEC_COMPLIANCE_MONTHS chooses how many months end with that March (`npm run soak` runs 13, test/support/soak.ts);
 * TEC_COMPLIANCE_SEED replays another seed of live mode (27 unless given).
 */
const MONTHS = Number(process.env.TEC_COMPLIANCE_MONTHS ?? soaked(2, 13));
const LIVE_SEED = Number(process.env.TEC_COMPLIANCE_SEED ?? 27);
const LAST = '2027-03';
const FIRST = monthBefore(LAST, MONTHS - 1);
// Read at the sandbox's raised rate: these tests are of the report, not of pacing.
const world = usePollerWorld({ devices: 240, customers: 6 }, { ratePerSecond: 200 });
/**
 * Live mode changes the account on one day in this many (every day over two months): it deletes a
 * device about every day it runs, and over a year of every day it would delete most of the 240,
 * leaving none that lived throughout for the rebuilt-equals-recorded comparison.
 */
const LIVE_EVERY_DAYS = Math.max(1, Math.ceil(MONTHS / 2));

interface TruthEntry {
	deviceId: number;
	due: string;
	openedOn: string;
	customerId: number | null;
	customerName: string | null;
	department: string | null;
	outcome: 'open' | 'tested' | 'deleted' | 'moved';
	testedOn?: string;
	closedOn?: string;
}

/** The ground truth, from the sandbox's own record after each simulated day. */
class Truth {
	readonly entries: TruthEntry[] = [];
	private readonly open = new Map<number, TruthEntry>();
	private readonly results = new Set<number>();

	/**
	 * The due dates met before the watch began (issue 31: the history's first run rebuilds them from
	 * the results): after a test on day t the device is due on t + its interval, met by its next test.
	 * Those due on or after `from` and closed by `today` (a test on the first day, before the first look, too), counted as the rebuild's rules say.
	 */
	seedPast(account: Account, from: string, today: string): void {
		const days = new Map<number, Set<string>>();
		for (const r of account.data.testResults.values()) {
			this.results.add(r.id);
			if (r.test_date <= today) days.set(r.device_id, (days.get(r.device_id) ?? new Set()).add(r.test_date));
		}
		for (const [id, set] of days) {
			const d = account.data.devices.get(id);
			const interval = d?.values[DEVICE.testInterval];
			if (!d || typeof interval !== 'number') continue;
			const tests = [...set].sort();
			for (let i = 0; i + 1 < tests.length; i++) {
				const due = addMonths(tests[i], interval);
				if (due < from) continue;
				const customerName = d.customer_id === undefined ? null : ((account.data.customers.get(d.customer_id)?.values[CUSTOMER.name] as string | undefined) ?? null);
				this.entries.push({ deviceId: id, due, openedOn: tests[i], customerId: d.customer_id ?? null, customerName, department: (d.values[DEVICE.department] as string | null) ?? null, outcome: 'tested', testedOn: tests[i + 1], closedOn: tests[i + 1] });
			}
		}
	}

	observe(account: Account, today: string): void {
		const tested = new Map<number, string>();
		for (const r of account.data.testResults.values()) {
			if (this.results.has(r.id)) continue;
			this.results.add(r.id);
			if ((tested.get(r.device_id) ?? '') < r.test_date) tested.set(r.device_id, r.test_date);
		}
		for (const d of account.data.devices.values()) {
			const due = (d.values[DEVICE.nextTest] as string | null) ?? null;
			const group = {
				customerId: d.customer_id ?? null,
				customerName: d.customer_id === undefined ? null : ((account.data.customers.get(d.customer_id)?.values[CUSTOMER.name] as string | undefined) ?? null),
				department: (d.values[DEVICE.department] as string | null) ?? null,
			};
			const e = this.open.get(d.id);
			if (e && e.due === due) {
				if (today <= e.due) Object.assign(e, group);
				continue;
			}
			if (e) {
				const on = tested.get(d.id);
				Object.assign(e, on ? { outcome: 'tested', testedOn: on, closedOn: today } : { outcome: 'moved', closedOn: today });
				this.open.delete(d.id);
			}
			if (due !== null) {
				const entry: TruthEntry = { deviceId: d.id, due, openedOn: today, ...group, outcome: 'open' };
				this.entries.push(entry);
				this.open.set(d.id, entry);
			}
		}
		for (const [id, e] of this.open) {
			if (account.data.devices.has(id)) continue;
			// Tested, then deleted the same day: the due date was met by that test.
			const on = tested.get(id);
			Object.assign(e, on ? { outcome: 'tested', testedOn: on, closedOn: today } : { outcome: 'deleted', closedOn: today });
			this.open.delete(id);
		}
	}

	/** A month's figures per group, counted here without the product's code. */
	figures(month: string, asOf: string, groupBy: ComplianceGroupBy): Map<string, Omit<MonthFigures, 'group' | 'id' | 'name' | 'month' | 'firstSeenOverdue'>> {
		const { first, last } = monthDays(month);
		const out = new Map<string, { due: number; onTime: number; late: number[]; still: number; without: number; notYet: number }>();
		for (const e of this.entries) {
			if (e.due < first || e.due > last || e.openedOn > asOf) continue;
			const key = groupBy === 'all' ? 'all' : String(groupBy === 'customer' ? e.customerId : e.department);
			const g = out.get(key) ?? { due: 0, onTime: 0, late: [], still: 0, without: 0, notYet: 0 };
			out.set(key, g);
			g.due++;
			if (e.outcome === 'tested' && e.testedOn! <= asOf) {
				if (e.testedOn! <= e.due) g.onTime++;
				else g.late.push(daysBetween(e.due, e.testedOn!));
			} else if (e.outcome !== 'open' && e.outcome !== 'tested' && e.closedOn! <= asOf) g.without++;
			else if (e.due < asOf) g.still++;
			else g.notYet++;
		}
		const figures = new Map<string, Omit<MonthFigures, 'group' | 'id' | 'name' | 'month' | 'firstSeenOverdue'>>();
		for (const [key, g] of out) {
			const counted = g.onTime + g.late.length + g.still;
			figures.set(key, {
				due: g.due,
				testedOnTime: g.onTime,
				testedLate: g.late.length,
				medianDaysLate: median(g.late),
				maxDaysLate: g.late.length ? Math.max(...g.late) : null,
				stillOverdue: g.still,
				closedWithoutTest: g.without,
				notYetDue: g.notYet,
				onTimeRate: counted === 0 ? null : g.onTime / counted,
			});
		}
		return figures;
	}
}

type Fate = 'early' | 'onTime' | 'late' | 'never' | 'deleted' | 'moved' | 'customerMoved';
const FATES: Fate[] = ['early', 'onTime', 'late', 'never', 'deleted', 'moved', 'customerMoved'];

async function admin(path: string, body: unknown): Promise<unknown> {
	const response = await fetch(`${world.sandbox.adminUrl}${path}`, { method: path === '/clock' ? 'PUT' : 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
	if (!response.ok) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
	return await response.json();
}

describe('compliance over simulated months', () => {
	it(`${MONTHS} months to ${LAST} (Europe/Berlin goes to summer time): every figure equals the sandbox's record; the report goes out on the first at the digest hour`, async () => {
		const { sandbox } = world;
		const account = sandbox.account;
		await admin('/clock', { now: `${FIRST}-01T09:00:00Z` });
		account.reset({ seed: 2700 + MONTHS });
		// The state file of npm start (the DynamoDB store runs the same poller in test/lambdas/dueDates.test.ts).
		const dir = mkdtempSync(join(tmpdir(), 'tec-compliance-months-'));
		// On the sandbox's clock: items expire (TTL) in simulated time, as they would in real time.
		const store = new FileStateStore(join(dir, 'state.json'), () => account.now());
		const truth = new Truth();
		const start = account.today();
		truth.seedPast(account, start, start);
		const withoutResult = (): number[] => {
			const days = new Map<number, Set<string>>();
			for (const r of account.data.testResults.values()) days.set(r.device_id, (days.get(r.device_id) ?? new Set()).add(r.test_date));
			return [...account.data.devices.values()].filter((d) => typeof d.values[DEVICE.lastTested] === 'string' && !days.get(d.id)?.has(d.values[DEVICE.lastTested] as string)).map((d) => d.id);
		};
		const lastTestedWithoutResult = new Set(withoutResult());
		const originalIds = new Set(account.data.devices.keys());
		const end = `${monthBefore(LAST, -1)}-01`;

		// The plan: a fate for every device due in the simulated months, in turn (by id), so each
		// fate has its share whichever devices the demo makes due.
		const plan = new Map<number, { due: string; fate: Fate; day: string | null }>();
		for (const d of account.data.devices.values()) {
			const due = d.values[DEVICE.nextTest] as string | null;
			if (!due || due < start || due >= end) continue;
			const fate = FATES[plan.size % FATES.length];
			const day = { early: addDays(due, -(1 + (d.id % 20))), onTime: due, late: addDays(due, 1 + (d.id % 9)), never: null, deleted: addDays(due, d.id % 2 ? 5 : -5), moved: addDays(due, -10), customerMoved: addDays(due, -3) }[fate];
			plan.set(d.id, { due, fate, day });
		}
		const done = new Map<Fate, number>(FATES.map((f) => [f, 0]));
		const customerMoved = new Set<number>();
		const intervalChanged = new Set<number>();

		// Live mode tests overdue devices, creates and deletes some while the pollers read.
		await putLive(sandbox, { on: true, seed: LIVE_SEED, changes_per_page: 1, weights: { test: 0.5, makeOverdue: 0, create: 1, delete: 1, upload: 0 } });
		const poll = async () => {
			// Tokens of their own per simulated day: the figures are tested here, the rate limit elsewhere.
			const ctx = () => pollerContext(world, '', { store, token: account.createToken().token, settings: { pageSize: 100 } });
			expect((await pollTestResults(ctx())).complete).toBe(true);
			const report = await pollDueDates(ctx());
			expect(report.complete, `due-date history on ${account.today()}`).toBe(true);
		};

		for (let today = start; today < end; today = addDays(today, 1)) {
			if (today !== start) await admin('/clock', { advance_days: 1 });
			expect(account.today()).toBe(today);
			for (const [id, p] of plan) {
				const d = account.data.devices.get(id);
				if (p.day !== today || !d || d.values[DEVICE.nextTest] !== p.due) continue;
				if (p.fate === 'deleted') account.delete('device', id, id % 4 === 1);
				else if (p.fate === 'moved') {
					account.edit('device', { id, properties: { [DEVICE.testInterval]: Number(d.values[DEVICE.testInterval]) + 6 } }, 'moved');
					intervalChanged.add(id);
				} else if (p.fate === 'customerMoved') {
					d.customer_id = ((d.customer_id ?? 0) % 6) + 1;
					customerMoved.add(id);
					plan.set(id, { ...p, fate: 'onTime', day: p.due });
				} else await admin('/test-results', { device_id: id, test_date: today });
				done.set(p.fate, done.get(p.fate)! + 1);
			}
			// The truth sees the day's planned changes as made, not only after a run: a device moved to
			// another customer and deleted by live mode in the same run was the new customer's when it went.
			truth.observe(account, today);
			// Two runs a day (the stack runs it hourly): a quiet one that reads the day's planned
			// changes, then one while live mode changes the account, which is quiet on the first of a
			// month and on the last day (a change the scan read past is seen by the next run, and the
			// figures are compared as of these days).
			await putLive(sandbox, { changes_per_page: 0 });
			await poll();
			truth.observe(account, today);
			const liveDay = daysBetween(start, today) % LIVE_EVERY_DAYS === 0;
			await putLive(sandbox, { changes_per_page: !liveDay || today.endsWith('-01') || today === addDays(end, -1) ? 0 : 1 });
			await poll();
			truth.observe(account, today);
		}

		// The first night of April: a quiet run before the report (the stack's hourly runs do this).
		await admin('/clock', { now: `${end}T04:00:00Z` });
		await putLive(sandbox, { changes_per_page: 0 });
		await poll();
		truth.observe(account, end);

		// Every month, every grouping, as of the first of the next month and as of the end.
		const histories: Array<{ key: string; value: DueHistory }> = [];
		for await (const item of store.list<DueHistory>(NS.dueDates('sandbox'))) histories.push(item);
		const entries = dueEntries(histories);
		const last = addDays(end, -1);
		let compared = 0;
		for (let m = FIRST; m <= LAST; m = monthBefore(m, -1)) {
			for (const asOf of [`${monthBefore(m, -1)}-01`, last]) {
				for (const groupBy of COMPLIANCE_GROUP_BY) {
					const want = truth.figures(m, asOf, groupBy);
					const got = monthFigures(entries, m, asOf, groupBy).filter((g) => g.due > 0);
					expect(new Map(got.map((g) => [groupBy === 'all' ? 'all' : String(g.id), (({ group: _g, id: _i, name: _n, month: _m, firstSeenOverdue: _f, ...rest }) => rest)(g)])), `${m} as of ${asOf} by ${groupBy}`).toEqual(want);
					compared += got.length;
				}
			}
		}
		// The months exercised what they claim: every fate, late tests, ends without a test, live changes.
		for (const fate of FATES.filter((f) => f !== 'never')) expect(done.get(fate), fate).toBeGreaterThan(0);
		expect([...plan.values()].some((p) => p.fate === 'never')).toBe(true);
		const months: MonthFigures[] = [];
		for (let m = FIRST; m <= LAST; m = monthBefore(m, -1)) months.push(monthFigures(entries, m, `${monthBefore(m, -1)}-01`, 'all')[0]);
		for (const field of ['testedOnTime', 'testedLate', 'closedWithoutTest', 'stillOverdue'] as const) expect(months.reduce((n, f) => n + f[field], 0), field).toBeGreaterThan(0);
		expect(sandbox.live.changes.length).toBeGreaterThan(0);
		expect(compared).toBeGreaterThan(MONTHS * 10);

		// Rebuilt equals recorded (issue 31): the history rebuilt from nothing at the end, from the
		// account's test results alone (a fresh state, the due-date history's first run), gives every
		// month's figures the live record gave, for the account and per customer and department.
		// Except where the rules say otherwise (client/rebuild.ts):
		// - a device deleted since: the account no longer says its interval, so a rebuild from nothing
		//   cannot know its due dates (its results are counted as results of devices it does not know);
		// - a device whose interval changed: the rebuild uses the current interval throughout;
		// - a device whose Last tested is no result's date (live mode creates devices with a Last tested,
		//   or tested before the account's results begin): no result, no rebuilt due date from it;
		// - a device moved to another customer: counted where it is now (per customer only; the
		//   account's figures include it).
		const fresh = new FileStateStore(join(dir, 'rebuilt.json'), () => account.now());
		const rebuild = await pollDueDates(pollerContext(world, '', { store: fresh, token: account.createToken().token, settings: { pageSize: 100 } }));
		expect(rebuild.complete).toBe(true);
		expect(rebuild.rebuild).toMatchObject({ done: true });
		const rebuiltHistories: Array<{ key: string; value: DueHistory }> = [];
		for await (const item of fresh.list<DueHistory>(NS.dueDates('sandbox'))) rebuiltHistories.push(item);
		const rebuiltEntries = dueEntries(rebuiltHistories);
		const excluded = new Set<number>([...intervalChanged, ...lastTestedWithoutResult, ...withoutResult()]);
		for (const e of entries) if (!account.data.devices.has(e.deviceId) || !originalIds.has(e.deviceId)) excluded.add(e.deviceId);
		const kept = (list: typeof entries, group: ComplianceGroupBy) => list.filter((e) => !excluded.has(e.deviceId) && (group === 'all' || !customerMoved.has(e.deviceId)));
		let rebuiltCompared = 0;
		for (let m = FIRST; m <= LAST; m = monthBefore(m, -1)) {
			for (const asOf of [`${monthBefore(m, -1)}-01`, last]) {
				for (const groupBy of COMPLIANCE_GROUP_BY) {
					const recorded = monthFigures(kept(entries, groupBy), m, asOf, groupBy).map(({ firstSeenOverdue: _f, ...rest }) => rest);
					const rebuiltFigures = monthFigures(kept(rebuiltEntries, groupBy), m, asOf, groupBy).map(({ firstSeenOverdue: _f, ...rest }) => rest);
					expect(rebuiltFigures, `rebuilt: ${m} as of ${asOf} by ${groupBy}`).toEqual(recorded);
					rebuiltCompared += recorded.reduce((n, g) => n + g.due, 0);
				}
			}
		}
		// Live mode deletes and creates devices all along: over a long run (the soak's 13 months) few of
		// the first devices remain to compare, over two months most do.
		expect(rebuiltCompared).toBeGreaterThan(0);
		expect(rebuiltEntries.filter((e) => e.rebuilt).length).toBeGreaterThan(0);
		// The exceptions are few among the devices the account had throughout (live mode's own devices and deletions aside).
		const throughout = [...originalIds].filter((id) => account.data.devices.has(id));
		expect(throughout.filter((id) => excluded.has(id)).length).toBeLessThan(throughout.length / 4);

		// The report of March: on 1 April at 07:00 in Berlin (05:00 UTC in summer time), not before.
		writeFileSync(join(dir, 'email.json'), JSON.stringify({ mailFrom: 'alerts@lab.example.com', timeZone: 'Europe/Berlin', digestHour: 7, recipients: { default: ['quality@example.com'] } }));
		let now = Date.parse(`${end}T04:59:00Z`);
		const mail = createLocalMail({ environment: 'sandbox', outboxDir: join(dir, 'outbox'), statePath: join(dir, 'mail.json'), configPath: join(dir, 'email.json'), log: silentLog, now: () => now, view: store });
		const reports = () => (existsSync(join(dir, 'outbox')) ? readdirSync(join(dir, 'outbox')).filter((f) => f.startsWith('compliance')) : []);
		await mail.afterCycle();
		expect(reports()).toEqual([]);
		now = Date.parse(`${end}T05:00:00Z`);
		await mail.afterCycle();
		expect(reports()).toEqual([`compliance_${LAST}`]);
		now += 3_600_000;
		await mail.afterCycle();
		expect(reports()).toEqual([`compliance_${LAST}`]);
		const sent = JSON.parse(readFileSync(join(dir, 'outbox', `compliance_${LAST}`, 'quality@example.com.json'), 'utf8')).content;
		const { group: _g, id: _i, name: _n, month: _m, firstSeenOverdue: _f, ...reported } = sent.all as MonthFigures;
		expect(reported).toEqual(truth.figures(LAST, end, 'all').get('all'));
		expect(sent.asOf).toBe(end);
		expect(dayMs(end)).toBeGreaterThan(0);
	}, 300_000);
});
