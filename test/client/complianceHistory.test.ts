/**
 * Past months' figures from the rebuilt history (client/complianceHistory.ts), pure and
 * property-tested: a month's figures equal counting the generated tests by hand, reading from the
 * reach on changes nothing, and a Month parameter is checked.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
	COMPLIANCE_GROUP_BY,
	ValidationError,
	figuresAsOf,
	historyMonthFigures,
	historyReach,
	monthsUpTo,
	parseMonth,
	rebuildHistory,
	type ComplianceGroupBy,
	type HistoryResult,
	type RebuildDevice,
} from '../../client';

const DAY = 86_400_000;
const BASE = Date.UTC(2024, 0, 1);
const day = (n: number) => new Date(BASE + n * DAY).toISOString().slice(0, 10);

/** Months added the calendar way, the day clamped to the month's last (written here, not taken from the client). */
function plusMonths(d: string, months: number): string {
	const [y, m, dd] = d.split('-').map(Number);
	const index = y * 12 + m - 1 + months;
	const last = new Date(Date.UTC(Math.floor(index / 12), (index % 12) + 1, 0)).getUTCDate();
	return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}-${String(Math.min(dd, last)).padStart(2, '0')}`;
}
const nextMonth = (m: string) => plusMonths(`${m}-01`, 1).slice(0, 7);

const customers = [
	{ customerId: 1, customerName: 'Acme GmbH' },
	{ customerId: 2, customerName: 'Brightwater Ltd' },
	{ customerId: null, customerName: null },
];
const departments = ['Workshop', 'Laboratory', null];

const device = (id: number): fc.Arbitrary<RebuildDevice> =>
	fc
		.record({
			customer: fc.constantFrom(...customers),
			department: fc.constantFrom(...departments),
			// Mostly usable intervals, some absurd ones the rules refuse.
			interval: fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 1, max: 36 }) }, fc.constantFrom(0, -3, 600, 2.5), fc.constant(null)),
			created: fc.option(fc.integer({ min: -200, max: 500 }), { nil: null }),
		})
		.map(({ customer, department, interval, created }) => ({ id, ...customer, department, testIntervalMonths: interval, createdOn: created === null ? null : day(created) }));

const world = fc.integer({ min: 1, max: 12 }).chain((n) =>
	fc.record({
		devices: fc.tuple(...Array.from({ length: n }, (_, i) => device(i + 1))),
		// Device ids up to n + 2: some results belong to devices the account does not list.
		results: fc.array(fc.record({ deviceId: fc.integer({ min: 1, max: n + 2 }), at: fc.integer({ min: -400, max: 900 }) }), { maxLength: 80 }),
		today: fc.integer({ min: 300, max: 850 }).map(day),
		monthsBack: fc.integer({ min: 0, max: 20 }),
		groupBy: fc.constantFrom(...COMPLIANCE_GROUP_BY),
	}),
);

const usable = (v: number | null) => v !== null && Number.isInteger(v) && v >= 1 && v <= 120;

/** The figures of `month` per group id, counted by hand from the tests by the rebuild's rules. */
function byHand(devices: readonly RebuildDevice[], results: readonly HistoryResult[], month: string, today: string, groupBy: ComplianceGroupBy) {
	const asOf = month === today.slice(0, 7) ? today : `${nextMonth(month)}-01`;
	const groups = new Map<string, { due: number; onTime: number; late: number[]; still: number; notYet: number }>();
	for (const d of devices) {
		if (!usable(d.testIntervalMonths)) continue;
		const tests = [...new Set(results.filter((r) => r.deviceId === d.id && r.testDate <= today && (d.createdOn === null || r.testDate >= d.createdOn)).map((r) => r.testDate))].sort();
		tests.forEach((t, k) => {
			const due = plusMonths(t, d.testIntervalMonths!);
			if (due.slice(0, 7) !== month) return;
			const id = groupBy === 'customer' ? d.customerId : groupBy === 'department' ? d.department : 'all';
			const g = groups.get(String(id)) ?? { due: 0, onTime: 0, late: [], still: 0, notYet: 0 };
			groups.set(String(id), g);
			g.due++;
			const next = tests[k + 1];
			if (next !== undefined && next <= asOf) {
				if (next <= due) g.onTime++;
				else g.late.push(Math.round((Date.parse(next) - Date.parse(due)) / DAY));
			} else if (due < asOf) g.still++;
			else g.notYet++;
		});
	}
	return groups;
}

describe('the rebuilt history’s month figures', () => {
	it('equal counting the generated tests by hand, for every group, as of the first of the next month (the current month as of today)', () => {
		fc.assert(
			fc.property(world, ({ devices, results, today, monthsBack, groupBy }) => {
				const tests = results.map((r) => ({ deviceId: r.deviceId, testDate: day(r.at) }));
				const month = monthsUpTo(today, monthsBack + 1)[0];
				const { entries } = rebuildHistory(devices, tests, today);
				const got = historyMonthFigures(entries, month, today, groupBy);
				const want = byHand(devices, tests, month, today, groupBy);
				const named = got.filter((g) => g.due > 0);
				expect(named.map((g) => String(g.group === 'all' ? 'all' : g.id)).sort()).toEqual([...want.keys()].sort());
				for (const g of named) {
					const w = want.get(String(g.group === 'all' ? 'all' : g.id))!;
					const late = [...w.late].sort((a, b) => a - b);
					const counted = w.onTime + late.length + w.still;
					expect(g).toMatchObject({ month, asOf: figuresAsOf(month, today), due: w.due, testedOnTime: w.onTime, testedLate: late.length, stillOverdue: w.still, notYetDue: w.notYet, closedWithoutTest: 0, firstSeenOverdue: 0 });
					expect(g.maxDaysLate).toBe(late.length === 0 ? null : late[late.length - 1]);
					const mid = late.length >> 1;
					expect(g.medianDaysLate).toBe(late.length === 0 ? null : late.length % 2 ? late[mid] : (late[mid - 1] + late[mid]) / 2);
					expect(g.onTimeRate).toBe(counted === 0 ? null : w.onTime / counted);
				}
			}),
			{ numRuns: 300 },
		);
	});

	it('count what they did not use, by rule: results of devices not listed, future tests, tests before creation, same-day tests, devices without an interval', () => {
		fc.assert(
			fc.property(world, ({ devices, results, today }) => {
				const tests = results.map((r) => ({ deviceId: r.deviceId, testDate: day(r.at) }));
				const { skips } = rebuildHistory(devices, tests, today);
				const listed = new Map(devices.map((d) => [d.id, d]));
				const want = { resultsOfUnknownDevices: 0, futureTests: 0, testsBeforeCreated: 0, sameDayTests: 0, devicesWithoutInterval: 0, unreadableResults: 0 };
				const kept = new Map<number, Set<string>>();
				for (const t of tests) {
					const d = listed.get(t.deviceId);
					const days = kept.get(t.deviceId) ?? new Set<string>();
					kept.set(t.deviceId, days);
					if (!d) want.resultsOfUnknownDevices++;
					else if (t.testDate > today) want.futureTests++;
					else if (d.createdOn !== null && t.testDate < d.createdOn) want.testsBeforeCreated++;
					else if (days.has(t.testDate)) want.sameDayTests++;
					else days.add(t.testDate);
				}
				for (const d of devices) if ((kept.get(d.id)?.size ?? 0) > 0 && !usable(d.testIntervalMonths)) want.devicesWithoutInterval++;
				expect(skips).toEqual(want);
			}),
			{ numRuns: 300 },
		);
	});

	it('need no test before the reach: reading from historyReach on gives the same figures for every month from the first on', () => {
		fc.assert(
			fc.property(world, ({ devices, results, today, monthsBack, groupBy }) => {
				const tests = results.map((r) => ({ deviceId: r.deviceId, testDate: day(r.at) }));
				const months = monthsUpTo(today, monthsBack + 1);
				const reach = historyReach(months[0], devices);
				const all = rebuildHistory(devices, tests, today).entries;
				const fromReach = rebuildHistory(devices, tests.filter((t) => t.testDate >= reach), today).entries;
				for (const m of months) expect(historyMonthFigures(fromReach, m, today, groupBy)).toEqual(historyMonthFigures(all, m, today, groupBy));
			}),
			{ numRuns: 200 },
		);
	});

	it('reach back the longest usable interval before the first month (absurd intervals ignored)', () => {
		const d = (testIntervalMonths: number | null) => ({ testIntervalMonths });
		expect(historyReach('2026-03', [d(12), d(24), d(600), d(null)])).toBe('2024-03-01');
		expect(historyReach('2026-03', [])).toBe('2026-03-01');
	});
});

describe('a Month parameter', () => {
	it.each(['2026-13', '2026-00', '', '2026-1', '26-01', 'March', '1969-12', null, 202601])('%j is refused, naming Month and the form', (value) => {
		expect(() => parseMonth(value, '2026-11-27')).toThrow(ValidationError);
		expect(() => parseMonth(value, '2026-11-27')).toThrow(/^Month: must be a month written YYYY-MM/);
	});

	it('after the current month is refused, naming the current month', () => {
		expect(() => parseMonth('2026-12', '2026-11-27')).toThrow(/^Month: must not be after the current month 2026-11/);
		expect(parseMonth(' 2026-11 ', '2026-11-27')).toBe('2026-11');
		expect(parseMonth('2030-01')).toBe('2030-01');
	});

	it('the last 12 months end with the current one', () => {
		expect(monthsUpTo('2026-02-10', 12)).toEqual(['2025-03', '2025-04', '2025-05', '2025-06', '2025-07', '2025-08', '2025-09', '2025-10', '2025-11', '2025-12', '2026-01', '2026-02']);
	});
});
