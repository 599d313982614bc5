/** Failure rates per device type, department and customer over 12 or 24 months (pure, property-tested). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
	FAILURE_RATE_GROUP_BY,
	FAILURE_RATE_MONTHS,
	boundsOf,
	lowerBound,
	testsNeeded,
	upperBound,
	addDays,
	addMonths,
	allFailureRates,
	compareGroups,
	failedOf,
	failureRates,
	rateTestResultOf,
	usableInterval,
	verdictOf,
	type FailureRateGroupBy,
	type FailureRateMonths,
	type RateDevice,
	type RateScrappedDevice,
	type RateTestResult,
} from '../../client';

const TODAY = '2026-03-31';
const customers = [
	{ customerId: 1, customerName: 'Acme GmbH' },
	{ customerId: 2, customerName: 'Brightwater Ltd' },
	{ customerId: 3, customerName: null },
	{ customerId: null, customerName: null },
];

const deviceArb = (id: number): fc.Arbitrary<RateDevice> =>
	fc
		.record({
			designation: fc.constantFrom('Drill', 'Kettle', 'Oscilloscope', 'drill', null),
			department: fc.constantFrom('Workshop', 'Office', null),
			customer: fc.constantFrom(...customers),
			interval: fc.constantFrom(6, 12, 24, 0, -3, 600, 1.5, null),
		})
		.map(({ designation, department, customer, interval }) => ({ id, designation, department, ...customer, testIntervalMonths: interval }));

const devicesArb: fc.Arbitrary<RateDevice[]> = fc
	.uniqueArray(fc.integer({ min: 1, max: 40 }), { maxLength: 30 })
	.chain((ids) => (ids.length === 0 ? fc.constant([]) : fc.tuple(...ids.map(deviceArb))));

/** Test dates from 30 months back to a month ahead of TODAY (some outside every window). */
const resultArb = (id: number): fc.Arbitrary<RateTestResult> =>
	fc
		.record({ deviceId: fc.integer({ min: 1, max: 45 }), offset: fc.integer({ min: -920, max: 30 }), failed: fc.constantFrom<boolean | null>(false, false, false, true, null) })
		.map(({ deviceId, offset, failed }) => ({ id, deviceId, testDate: addDays(TODAY, offset), failed }));

const resultsArb: fc.Arbitrary<RateTestResult[]> = fc
	.uniqueArray(fc.integer({ min: 1, max: 100_000 }), { maxLength: 150 })
	.chain((ids) => (ids.length === 0 ? fc.constant([]) : fc.tuple(...ids.map(resultArb))));

const monthsArb = fc.constantFrom(...FAILURE_RATE_MONTHS);
const groupByArb = fc.constantFrom(...FAILURE_RATE_GROUP_BY);

/** In the window, computed apart: strictly after the day `months` back, not after today. */
const inWindow = (r: RateTestResult, months: FailureRateMonths) => r.testDate > addMonths(TODAY, -months) && r.testDate <= TODAY;
const groupIdOf = (d: RateDevice, by: FailureRateGroupBy) => (by === 'customer' ? d.customerId : by === 'designation' ? d.designation : d.department);

describe('failure rates (properties)', () => {
	it('totals are the sums of the groups; each device is in exactly one group', () => {
		fc.assert(
			fc.property(resultsArb, devicesArb, monthsArb, groupByArb, (results, devices, months, by) => {
				const f = failureRates(results, devices, TODAY, months, by);
				const sum = (k: 'devices' | 'devicesTested' | 'tests' | 'failedTests' | 'unknownStatus') => f.groups.reduce((n, g) => n + g[k], 0);
				for (const k of ['devices', 'devicesTested', 'tests', 'failedTests', 'unknownStatus'] as const) expect(sum(k), k).toBe(f.totals[k]);
				expect(f.totals.devices).toBe(devices.length);
				expect(new Set(f.groups.map((g) => `${typeof g.id}:${g.id}`)).size).toBe(f.groups.length);
			}),
		);
	});

	it('each group counts exactly the results of its devices in the window (counted apart here)', () => {
		fc.assert(
			fc.property(resultsArb, devicesArb, monthsArb, groupByArb, (results, devices, months, by) => {
				const f = failureRates(results, devices, TODAY, months, by);
				const known = new Map(devices.map((d) => [d.id, d]));
				for (const g of f.groups) {
					const mine = results.filter((r) => inWindow(r, months) && known.has(r.deviceId) && groupIdOf(known.get(r.deviceId)!, by) === g.id);
					const counted = mine.filter((r) => r.failed !== null);
					expect(g.tests).toBe(counted.length);
					expect(g.failedTests).toBe(counted.filter((r) => r.failed).length);
					expect(g.unknownStatus).toBe(mine.length - counted.length);
					expect(g.devicesTested).toBe(new Set(counted.map((r) => r.deviceId)).size);
					expect(g.devices).toBe(devices.filter((d) => groupIdOf(d, by) === g.id).length);
				}
				expect(f.totals.unknownDevices).toBe(results.filter((r) => inWindow(r, months) && !known.has(r.deviceId)).length);
			}),
		);
	});

	it('the rate is failed / tests in [0, 1], null exactly when there is no test; bounds, verdict and tests needed are those of its counts', () => {
		fc.assert(
			fc.property(resultsArb, devicesArb, monthsArb, groupByArb, (results, devices, months, by) => {
				const f = failureRates(results, devices, TODAY, months, by);
				for (const g of [...f.groups, f.totals]) {
					if (g.tests === 0) expect(g.failureRate).toBeNull();
					else {
						expect(g.failureRate).toBeGreaterThanOrEqual(0);
						expect(g.failureRate).toBeLessThanOrEqual(1);
						expect(g.failureRate).toBe(g.failedTests / g.tests);
					}
					expect(g).toMatchObject(boundsOf(g.tests, g.failedTests));
				}
			}),
		);
	});

	it('a test outside the window (before it, or after today) changes nothing', () => {
		fc.assert(
			fc.property(resultsArb, devicesArb, monthsArb, groupByArb, fc.integer({ min: 1, max: 45 }), fc.boolean(), fc.integer({ min: 0, max: 400 }), fc.boolean(), (results, devices, months, by, deviceId, before, days, failed) => {
				const testDate = before ? addDays(addMonths(TODAY, -months), -days) : addDays(TODAY, 1 + days);
				const extra = { id: 200_000, deviceId, testDate, failed };
				expect(failureRates([...results, extra], devices, TODAY, months, by)).toEqual(failureRates(results, devices, TODAY, months, by));
			}),
		);
	});

	it('the order of the inputs changes nothing; groups come in the compliance figures’ order, the group without last', () => {
		fc.assert(
			fc.property(resultsArb, devicesArb, monthsArb, groupByArb, fc.integer(), (results, devices, months, by, seed) => {
				const shuffle = <T>(xs: T[]) => xs.map((x, i) => ({ x, k: Math.sin(seed + i * 7919) })).sort((a, b) => a.k - b.k).map((e) => e.x);
				const f = failureRates(results, devices, TODAY, months, by);
				expect(failureRates(shuffle(results), shuffle(devices), TODAY, months, by)).toEqual(f);
				for (let i = 1; i < f.groups.length; i++) expect(compareGroups(f.groups[i - 1], f.groups[i])).toBeLessThan(0);
				if (f.groups.some((g) => g.id === null)) expect(f.groups[f.groups.length - 1].id).toBeNull();
			}),
		);
	});

	it('a failed test and its re-test on the same day are two tests; one result read twice is one', () => {
		fc.assert(
			fc.property(resultsArb, devicesArb, monthsArb, groupByArb, (results, devices, months, by) => {
				const base = failureRates(results, devices, TODAY, months, by);
				const inside = results.find((r) => inWindow(r, months) && r.failed !== null && devices.some((d) => d.id === r.deviceId));
				expect(failureRates([...results, ...results], devices, TODAY, months, by)).toEqual(base);
				if (!inside) return;
				const retest = { ...inside, id: 300_000, failed: false };
				expect(failureRates([...results, retest], devices, TODAY, months, by).totals.tests).toBe(base.totals.tests + 1);
			}),
		);
	});

	it('a device that leaves the list takes its results out of every group into unknownDevices', () => {
		fc.assert(
			fc.property(resultsArb, devicesArb.filter((d) => d.length > 0), monthsArb, groupByArb, (results, devices, months, by) => {
				const [gone, ...rest] = devices;
				const before = failureRates(results, devices, TODAY, months, by);
				const after = failureRates(results, rest, TODAY, months, by);
				const its = results.filter((r) => r.deviceId === gone.id && inWindow(r, months)).length;
				expect(after.totals.unknownDevices).toBe(before.totals.unknownDevices + its);
				expect(after.totals.tests + after.totals.unknownStatus).toBe(before.totals.tests + before.totals.unknownStatus - its);
			}),
		);
	});

	it('intervals: distinct and ascending, only usable ones; the rest counted as without interval', () => {
		fc.assert(
			fc.property(devicesArb, groupByArb, (devices, by) => {
				for (const g of failureRates([], devices, TODAY, 12, by).groups) {
					const mine = devices.filter((d) => groupIdOf(d, by) === g.id);
					expect(g.testIntervalsMonths).toEqual([...new Set(mine.map((d) => d.testIntervalMonths).filter((n): n is number => n !== null && Number.isInteger(n) && n >= 1 && n <= 120))].sort((a, b) => a - b));
					expect(g.devicesWithoutInterval).toBe(mine.filter((d) => usableInterval(d.testIntervalMonths) === null).length);
				}
			}),
		);
	});

	it('verdicts from the exact bounds: below when the upper bound is under 2 %, above when the lower bound is over 2 %, else undecided', () => {
		fc.assert(
			fc.property(fc.integer({ min: 0, max: 5000 }).chain((tests) => fc.tuple(fc.constant(tests), fc.integer({ min: 0, max: Math.min(tests, 300) }))), ([tests, failed]) => {
				const v = verdictOf(tests, failed);
				const upper = upperBound(failed, tests);
				const lower = lowerBound(failed, tests);
				expect(v).toBe(upper < 0.02 ? 'below' : lower > 0.02 ? 'above' : 'undecided');
				expect(boundsOf(tests, failed)).toEqual({ lowerBound95: lower, upperBound95: upper, verdict: v, testsNeeded: v === 'below' ? 0 : testsNeeded(failed, tests) });
			}),
		);
		// The cases: 1 in 70 reads 1.4 % but its upper bound is 6.6 %; none in 50, 5.8 %.
		expect(boundsOf(70, 1)).toMatchObject({ verdict: 'undecided', testsNeeded: 236 - 70 });
		expect(boundsOf(50, 0)).toMatchObject({ verdict: 'undecided', testsNeeded: 99 });
		expect(boundsOf(50, 1).upperBound95).toBeGreaterThan(0.02);
		expect(boundsOf(149, 0)).toMatchObject({ verdict: 'below', testsNeeded: 0 });
		expect(boundsOf(236, 1).verdict).toBe('below');
		expect(boundsOf(313, 2).verdict).toBe('below');
		// One failure in a handful of tests is not yet evidence of more than 2 %; 3 in 10 is.
		expect(boundsOf(10, 1).verdict).toBe('undecided');
		expect(boundsOf(10, 3).verdict).toBe('above');
		expect(boundsOf(0, 0)).toEqual({ lowerBound95: 0, upperBound95: 1, verdict: 'undecided', testsNeeded: 149 });
	});
});

describe('failure rates (rules at the edges)', () => {
	const devices: RateDevice[] = [{ id: 1, designation: 'Drill', department: 'Workshop', customerId: 1, customerName: 'Acme GmbH', testIntervalMonths: 12 }];
	const at = (testDate: string, id = 1): RateTestResult => ({ id, deviceId: 1, testDate, failed: false });

	it.each(FAILURE_RATE_MONTHS)('the %i-month window: after the day that many months back, up to today', (months) => {
		const start = addMonths(TODAY, -months);
		const f = (date: string) => failureRates([at(date)], devices, TODAY, months, 'designation').totals.tests;
		expect(f(start)).toBe(0);
		expect(f(addDays(start, 1))).toBe(1);
		expect(f(TODAY)).toBe(1);
		expect(f(addDays(TODAY, 1))).toBe(0);
		expect(failureRates([], devices, TODAY, months, 'designation')).toMatchObject({ from: addDays(start, 1), to: TODAY, limit: 0.02, confidence: 0.95 });
	});

	it('a result whose test date is not a day is counted as such, in no group', () => {
		const f = failureRates([at('2026-02-30'), at('yesterday', 2), at(TODAY, 3)], devices, TODAY, 12, 'customer');
		expect(f.totals).toMatchObject({ tests: 1, invalidTestDate: 2 });
	});

	it('a group without any test: rate null, bounds 0 to 1, undecided, 149 tests needed, its devices still counted', () => {
		const [g] = failureRates([], devices, TODAY, 24, 'department').groups;
		expect(g).toMatchObject({ group: 'department', id: 'Workshop', name: 'Workshop', devices: 1, devicesTested: 0, tests: 0, failureRate: null, lowerBound95: 0, upperBound95: 1, verdict: 'undecided', testsNeeded: 149, testIntervalsMonths: [12] });
	});

	it('bad input is refused naming the parameter and what is valid', () => {
		expect(() => failureRates([], devices, '2026-13-01', 12, 'designation')).toThrow(/today: must be a day YYYY-MM-DD/);
		expect(() => failureRates([], devices, TODAY, 6 as FailureRateMonths, 'designation')).toThrow(/months: must be 12 or 24, got 6/);
		expect(() => failureRates([], devices, TODAY, 12, 'project' as FailureRateGroupBy)).toThrow(/groupBy: must be one of designation, department, customer/);
	});

	it('all windows and groupings at once are the single ones', () => {
		const results = [at('2025-01-10'), at('2025-12-01', 2)];
		const all = allFailureRates(results, devices, TODAY);
		for (const months of FAILURE_RATE_MONTHS) for (const by of FAILURE_RATE_GROUP_BY) expect(all[months][by]).toEqual(failureRates(results, devices, TODAY, months, by));
		expect(all[24].designation.totals.tests).toBe(2);
		expect(all[12].designation.totals.tests).toBe(1);
	});

	it('all windows and groupings at once are the single ones, whatever the results (repeated ids, unknown devices, dates outside or not days)', () => {
		const device = fc.record({ id: fc.integer({ min: 1, max: 8 }), designation: fc.constantFrom('Drill', 'Saw', null), department: fc.constantFrom('Lab', null), customerId: fc.constantFrom(1, 2, null), customerName: fc.constantFrom('Acme', null), testIntervalMonths: fc.constantFrom(12, 24, null) });
		const result = fc.record({ id: fc.integer({ min: 1, max: 30 }), deviceId: fc.integer({ min: 1, max: 10 }), testDate: fc.constantFrom('2024-02-01', '2025-01-10', '2025-06-30', '2026-03-31', '2026-04-01', '2026-02-31', 'soon'), failed: fc.constantFrom(true, false, null) });
		fc.assert(
			fc.property(fc.array(device, { maxLength: 10 }), fc.array(result, { maxLength: 40 }), (ds, rs) => {
				const all = allFailureRates(rs, ds, TODAY);
				for (const months of FAILURE_RATE_MONTHS) for (const by of FAILURE_RATE_GROUP_BY) expect(all[months][by]).toEqual(failureRates(rs, ds, TODAY, months, by));
			}),
		);
	});

	it('records: status failed / passed in any case, other statuses unknown; unreadable records none', () => {
		expect([failedOf('FAILED'), failedOf(' passed '), failedOf('aborted'), failedOf(undefined)]).toEqual([true, false, null, null]);
		expect(rateTestResultOf({ id: 5, device_id: '7', test_date: '2026-01-02T10:00:00Z', status: 'failed' })).toEqual({ id: 5, deviceId: 7, testDate: '2026-01-02', failed: true });
		for (const bad of [null, { id: 5, device_id: 7, status: 'failed' }, { id: 0, device_id: 7, test_date: '2026-01-02' }, { id: 5, test_date: '2026-01-02' }, { id: 5, device_id: 7, test_date: '2026-02-31' }]) {
			expect(rateTestResultOf(bad)).toBeUndefined();
		}
		expect([usableInterval(12), usableInterval('24'), usableInterval(0), usableInterval(-6), usableInterval(600), usableInterval(1.5), usableInterval(null)]).toEqual([12, 24, null, null, null, null, null]);
	});
});

describe('scrapped devices (DGUV Information 203-071: a device taken out of service counts as failed)', () => {
	const devices: RateDevice[] = [{ id: 1, designation: 'Drill', department: 'Workshop', customerId: 1, customerName: 'Acme GmbH', testIntervalMonths: 12 }];
	const result = (id: number, deviceId: number, testDate: string, failed: boolean | null): RateTestResult => ({ id, deviceId, testDate, failed });
	const scrapped = (deviceId: number, deletedOn: string, designation: string | null = 'Drill'): RateScrappedDevice => ({ deviceId, designation, deletedOn });

	it('one scrapped after a passed test: a failed test of its designation’s group, its results counted there too', () => {
		const results = [result(1, 1, '2026-01-10', false), result(2, 9, '2025-12-01', false), result(3, 9, '2026-02-01', false)];
		const r = failureRates(results, devices, TODAY, 12, 'designation', [scrapped(9, '2026-03-01')]);
		expect(r.groups).toHaveLength(1);
		expect(r.groups[0]).toMatchObject({ id: 'Drill', devices: 1, devicesTested: 2, tests: 4, failedTests: 1, scrappedDevices: 1, failureRate: 0.25 });
		expect(r.totals).toMatchObject({ tests: 4, failedTests: 1, scrappedDevices: 1, scrappedNotGrouped: 0, unknownDevices: 0 });
	});

	it('one whose failed test is already counted in the window is not counted twice', () => {
		const results = [result(2, 9, '2026-02-01', true)];
		const r = failureRates(results, devices, TODAY, 12, 'designation', [scrapped(9, '2026-02-02')]);
		expect(r.groups[0]).toMatchObject({ tests: 1, failedTests: 1, scrappedDevices: 1 });
	});

	it('outside the window, still in the device list (restored) or without a day: not counted; a new designation makes its own group', () => {
		const r = failureRates([], devices, TODAY, 12, 'designation', [scrapped(9, '2025-03-31'), scrapped(1, '2026-03-01'), scrapped(10, 'soon'), scrapped(11, '2026-03-02', 'Kettle'), scrapped(12, '2026-03-03', null)]);
		expect(r.groups.map((g) => [g.id, g.tests, g.failedTests, g.scrappedDevices])).toEqual([
			['Drill', 0, 0, 0],
			['Kettle', 1, 1, 1],
			[null, 1, 1, 1],
		]);
		expect(r.totals).toMatchObject({ scrappedDevices: 2, scrappedNotGrouped: 0 });
	});

	it('per department or customer the recycle bin cannot place them: counted apart, not in a group, their results unknown devices', () => {
		const results = [result(2, 9, '2026-02-01', false)];
		for (const by of ['department', 'customer'] as const) {
			const r = failureRates(results, devices, TODAY, 12, by, [scrapped(9, '2026-03-01')]);
			expect(r.groups[0]).toMatchObject({ tests: 0, failedTests: 0, scrappedDevices: 0 });
			expect(r.totals).toMatchObject({ tests: 0, failedTests: 0, scrappedDevices: 0, scrappedNotGrouped: 1, unknownDevices: 1 });
		}
	});

	it('never fewer failed tests than without them, and the same figures when none was scrapped (property)', () => {
		fc.assert(
			fc.property(devicesArb, resultsArb, fc.array(fc.record({ deviceId: fc.integer({ min: 1, max: 60 }), offset: fc.integer({ min: -800, max: 10 }), designation: fc.constantFrom('Drill', 'Kettle', null) }), { maxLength: 20 }), monthsArb, groupByArb, (devs, results, bin, months, by) => {
				const without = failureRates(results, devs, TODAY, months, by);
				expect(failureRates(results, devs, TODAY, months, by, [])).toEqual(without);
				const withBin = failureRates(results, devs, TODAY, months, by, bin.map((b) => scrapped(b.deviceId, addDays(TODAY, b.offset), b.designation)));
				expect(withBin.totals.failedTests).toBeGreaterThanOrEqual(without.totals.failedTests);
				expect(withBin.totals.failedTests - without.totals.failedTests).toBeLessThanOrEqual(withBin.totals.scrappedDevices + withBin.totals.tests - without.totals.tests);
				expect(withBin.groups.reduce((n, g) => n + g.scrappedDevices, 0)).toBe(withBin.totals.scrappedDevices);
			}),
		);
	});
});
