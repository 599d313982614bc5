import { BOUND_CONFIDENCE, lowerBound, testsNeeded, upperBound } from './binomial';
import { addDays, addMonths, epochDay } from './dates';
import { ValidationError } from './errors';
import { usableInterval } from './rebuild';

/**
 * Failure rates that justify test intervals, pure. DGUV Vorschrift 3 (its implementation rules,
 * Table 1B) lets a company extend a device group's test interval when the share of failed tests
 * stays below 2 %, and calls for shorter intervals when it is higher. These functions count, per
 * device type (designation), department or customer, the tests of the last 12 or 24 months and
 * how many failed, and with the exact one-sided 95 % bounds of the rate (Clopper–Pearson,
 * client/binomial.ts) mark the groups whose rate is below or above 2 % with 95 % confidence.
 *
 * Setting a test interval is the employer's decision, made in its risk assessment (DGUV V3,
 * BetrSichV); these figures are evidence for that decision, not the decision. Every rendering says
 * so (`INTERVAL_DECISION_NOTE`).
 *
 * Rules:
 * - the window is the `months` before `today`: test dates after addMonths(today, −months) and on
 *   or before today (a test dated in the future is outside);
 * - every result is a test: a failed test and its re-test on the same day count as two;
 * - a result of a status this version does not know (`failed: null`) is not a test of the rate,
 *   it is counted as `unknownStatus`; one whose test date is not a day, as `invalidTestDate`;
 * - a result of a device not in the device list (deleted, or not readable) is never in a group,
 *   it is counted as `unknownDevices`; a result id read twice counts once;
 * - a device scrapped in the window (a device entry of the recycle bin, client/profile.ts ASSUMED)
 *   counts as one failed test, as DGUV Information 203-071 counts devices taken out of service,
 *   unless a failed result of it is already counted in the window (the failure that scrapped it).
 *   The bin names a device's designation only: per device type it and its results join that
 *   group; per department or customer it is counted apart (`scrappedNotGrouped`) and its results
 *   stay `unknownDevices`;
 * - a group holds every device of the list (tested in the window or not), its intervals are the
 *   devices' current ones, usable as the rebuilt history takes them (client/rebuild.ts,
 *   `usableInterval`: whole months from 1 to 120);
 * - the verdict is read from the bounds, never from the observed rate alone (see `verdictOf`).
 */

export type FailureRateGroupBy = 'designation' | 'department' | 'customer';
export const FAILURE_RATE_GROUP_BY: readonly FailureRateGroupBy[] = ['designation', 'department', 'customer'];

/** The windows DGUV V3's failure-rate rule is read over. */
export type FailureRateMonths = 12 | 24;
export const FAILURE_RATE_MONTHS: readonly FailureRateMonths[] = [12, 24];

/** The failure rate DGUV V3 Table 1B draws the line at: 2 %, one failed test in 50. */
export const FAILURE_RATE_LIMIT = 0.02;

/** Said wherever the figures are shown. */
export const INTERVAL_DECISION_NOTE =
	"Setting a test interval is the employer's decision, made in its risk assessment (DGUV Vorschrift 3, BetrSichV); these failure rates are evidence for that decision, not the decision.";

/** A test result as the rates read it; `failed` null = a status this version does not know. */
export interface RateTestResult {
	id: number;
	deviceId: number;
	/** YYYY-MM-DD */
	testDate: string;
	failed: boolean | null;
}

/** A device in the recycle bin as the rates read it: what the bin tells of it. */
export interface RateScrappedDevice {
	deviceId: number;
	/** The bin entry's name: the device's designation (ASSUMED). */
	designation: string | null;
	/** The day it was deleted (YYYY-MM-DD). */
	deletedOn: string;
}

/** A device as the rates read it: what it is grouped by, and its current interval. */
export interface RateDevice {
	id: number;
	designation: string | null;
	department: string | null;
	customerId: number | null;
	customerName: string | null;
	testIntervalMonths: number | null;
}

/**
 * - `below`: the one-sided 95 % upper bound of the rate is under 2 % (evidence for a longer interval);
 * - `above`: the one-sided 95 % lower bound is over 2 % (evidence for a shorter one);
 * - `undecided`: the tests so far are consistent with a rate on either side of 2 %.
 */
export type FailureRateVerdict = 'below' | 'above' | 'undecided';
export const FAILURE_RATE_VERDICTS: readonly FailureRateVerdict[] = ['below', 'above', 'undecided'];

/** Whether a verdict is one of the two 2 % marks. */
export const isMarked = (verdict: FailureRateVerdict): boolean => verdict === 'below' || verdict === 'above';

/**
 * The verdict of `failed` failures in `tests` tests. One failure in 70 tests is 1.4 %, but a rate
 * of up to 6.6 % still gives one failure in 70 tests with 5 % probability: that is not yet
 * evidence of "below 2 %". It takes 149 tests without a failure (236 with one, 313 with two).
 */
export function verdictOf(tests: number, failed: number): FailureRateVerdict {
	if (upperBound(failed, tests) < FAILURE_RATE_LIMIT) return 'below';
	return lowerBound(failed, tests) > FAILURE_RATE_LIMIT ? 'above' : 'undecided';
}

export interface FailureRateBounds {
	/** One-sided 95 % lower bound of the rate (Clopper–Pearson); 0 without a failure. */
	lowerBound95: number;
	/** One-sided 95 % upper bound of the rate (Clopper–Pearson); 1 without a test, or when every test failed. */
	upperBound95: number;
	verdict: FailureRateVerdict;
	/** More tests without a failure that would bring the upper bound under 2 %; 0 for `below`. */
	testsNeeded: number;
}

/**
 * Bounds already solved, by their counts: the monthly report's thousands of groups (customers,
 * departments, types, in two windows) share few pairs of counts, and each pair takes hundreds of
 * binomial sums. Bounded: cleared when full.
 */
const SOLVED = new Map<string, FailureRateBounds>();
const SOLVED_KEPT = 10_000;

/** The bounds, verdict and tests needed of `failed` failures in `tests` tests. */
export function boundsOf(tests: number, failed: number): FailureRateBounds {
	const key = `${tests}:${failed}`;
	const known = SOLVED.get(key);
	if (known) return { ...known };
	const bounds = solvedBounds(tests, failed);
	if (SOLVED.size >= SOLVED_KEPT) SOLVED.clear();
	SOLVED.set(key, bounds);
	return { ...bounds };
}

function solvedBounds(tests: number, failed: number): FailureRateBounds {
	const lowerBound95 = lowerBound(failed, tests);
	const upperBound95 = upperBound(failed, tests);
	const verdict: FailureRateVerdict = upperBound95 < FAILURE_RATE_LIMIT ? 'below' : lowerBound95 > FAILURE_RATE_LIMIT ? 'above' : 'undecided';
	return { lowerBound95, upperBound95, verdict, testsNeeded: verdict === 'below' ? 0 : testsNeeded(failed, tests, FAILURE_RATE_LIMIT) };
}

export interface FailureRateCounts extends FailureRateBounds {
	/** Devices in the group (the device list), tested in the window or not. */
	devices: number;
	/** Devices with at least one test of a known status in the window. */
	devicesTested: number;
	/** Tests of a known status in the window (passed + failed). */
	tests: number;
	failedTests: number;
	/** Results in the window whose status this version does not know (not in `tests`). */
	unknownStatus: number;
	/** failedTests / tests (0 to 1); null without a test. */
	failureRate: number | null;
	/** Devices scrapped in the window (the recycle bin), each a failed test (in `tests` and `failedTests`). */
	scrappedDevices: number;
}

export interface FailureRateGroup extends FailureRateCounts {
	group: FailureRateGroupBy;
	/** The designation or department (its name is its id), or the customer's ID; null = none given. */
	id: number | string | null;
	name: string | null;
	/** The devices' current intervals in months, distinct, ascending. */
	testIntervalsMonths: number[];
	/** Devices of the group without a usable interval. */
	devicesWithoutInterval: number;
}

export interface FailureRates {
	groupBy: FailureRateGroupBy;
	months: FailureRateMonths;
	today: string;
	/** The first and last days of the window. */
	from: string;
	to: string;
	/** The rate the verdicts compare with: 0.02. */
	limit: number;
	/** The one-sided confidence of the bounds: 0.95. */
	confidence: number;
	groups: FailureRateGroup[];
	totals: FailureRateCounts & {
		/** Results in the window of devices not in the device list (never in a group). */
		unknownDevices: number;
		/** Results whose test date is not a day (in no window). */
		invalidTestDate: number;
		/** Devices scrapped in the window that no group can hold (per department or customer). */
		scrappedNotGrouped: number;
	};
}

function validate(today: string, months: number, groupBy: string): void {
	if (typeof today !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(today) || epochDay(today) === undefined) {
		throw new ValidationError('today', `must be a day YYYY-MM-DD that exists, got ${JSON.stringify(today)}`);
	}
	if (!FAILURE_RATE_MONTHS.includes(months as FailureRateMonths)) throw new ValidationError('months', `must be ${FAILURE_RATE_MONTHS.join(' or ')}, got ${JSON.stringify(months)}`);
	if (!FAILURE_RATE_GROUP_BY.includes(groupBy as FailureRateGroupBy)) throw new ValidationError('groupBy', `must be one of ${FAILURE_RATE_GROUP_BY.join(', ')}, got ${JSON.stringify(groupBy)}`);
}

/** The first and last days of the window of `months` ending on `today`. */
export function failureRateWindow(today: string, months: FailureRateMonths): { from: string; to: string } {
	return { from: addDays(addMonths(today, -months), 1), to: today };
}

/** As client/compliance.ts orders groups: named ones by name, then id; the one without (null) last. */
export function compareGroups(a: { id: unknown; name: string | null }, b: { id: unknown; name: string | null }): number {
	if (a.id === null || b.id === null) return a.id === b.id ? 0 : a.id === null ? 1 : -1;
	return (a.name ?? '').localeCompare(b.name ?? '') || String(a.id).localeCompare(String(b.id));
}

interface Tally {
	tests: number;
	failed: number;
	unknown: number;
	scrapped: number;
	/** Devices with a test of a known status (each device is counted once: by its own results, or as scrapped). */
	tested: number;
}

const tally = (): Tally => ({ tests: 0, failed: 0, unknown: 0, scrapped: 0, tested: 0 });

function counts(devices: number, t: Tally): FailureRateCounts {
	return {
		devices,
		devicesTested: t.tested,
		tests: t.tests,
		failedTests: t.failed,
		unknownStatus: t.unknown,
		failureRate: t.tests === 0 ? null : t.failed / t.tests,
		scrappedDevices: t.scrapped,
		...boundsOf(t.tests, t.failed),
	};
}

/** The results as every window reads them: each id once, its test date a day (the others counted). */
interface ReadResults {
	results: readonly RateTestResult[];
	invalidTestDate: number;
}

function readResults(results: readonly RateTestResult[]): ReadResults {
	const out: RateTestResult[] = [];
	let invalidTestDate = 0;
	// A result id read twice counts once; ids in ascending order cannot repeat (no set of 300,000 ids).
	let ascending = true;
	for (let i = 1; i < results.length && ascending; i++) ascending = results[i].id > results[i - 1].id;
	const seen = ascending ? undefined : new Set<number>();
	for (const r of results) {
		if (seen) {
			if (seen.has(r.id)) continue;
			seen.add(r.id);
		}
		if (typeof r.testDate !== 'string' || epochDay(r.testDate) === undefined) invalidTestDate++;
		else out.push(r);
	}
	return { results: out, invalidTestDate };
}

/** One device's results in a window: tests of a known status, failed ones, and those of a status not known. */
interface DeviceTally {
	tests: number;
	failed: number;
	unknown: number;
}

/**
 * A window's results counted per device: what every grouping of that window sums (the results are
 * walked once, not once per grouping). Listed devices by their place in the list (typed arrays, no
 * object per device); the others (the recycle bin's, unknown ones) by id.
 */
interface WindowResults {
	from: string;
	to: string;
	invalidTestDate: number;
	tests: Int32Array;
	failed: Int32Array;
	unknown: Int32Array;
	others: Map<number, DeviceTally>;
}

/** The windows of `months` ending on `today`, each with its results counted per device, in one pass over the results. */
function windowResults(read: ReadResults, today: string, months: readonly FailureRateMonths[], listed: ListedDevices): WindowResults[] {
	const n = listed.list.length;
	const windows = months.map((m) => ({ ...failureRateWindow(today, m), invalidTestDate: read.invalidTestDate, tests: new Int32Array(n), failed: new Int32Array(n), unknown: new Int32Array(n), others: new Map<number, DeviceTally>() }));
	for (const r of read.results) {
		const day = r.testDate.length === 10 ? r.testDate : r.testDate.slice(0, 10);
		const slot = listed.slotOf.get(r.deviceId);
		for (const w of windows) {
			if (day < w.from || day > w.to) continue;
			if (slot !== undefined) {
				if (r.failed === null) w.unknown[slot]++;
				else {
					w.tests[slot]++;
					if (r.failed) w.failed[slot]++;
				}
				continue;
			}
			let d = w.others.get(r.deviceId);
			if (!d) w.others.set(r.deviceId, (d = { tests: 0, failed: 0, unknown: 0 }));
			if (r.failed === null) d.unknown++;
			else {
				d.tests++;
				if (r.failed) d.failed++;
			}
		}
	}
	return windows;
}

/** The failure rates of the window of `months` ending on `today`, one entry per group. */
export function failureRates(
	results: readonly RateTestResult[],
	devices: readonly RateDevice[],
	today: string,
	months: FailureRateMonths,
	groupBy: FailureRateGroupBy,
	scrapped: readonly RateScrappedDevice[] = [],
): FailureRates {
	validate(today, months, groupBy);
	const listed = devicesById(devices);
	return ratesOf(windowResults(readResults(results), today, [months], listed)[0], listed, today, months, groupBy, scrapped);
}

/** Adds a device's tally of the window to a group's (and the totals'). */
function addDevice(t: Tally, tests: number, failed: number, unknown: number): void {
	t.tests += tests;
	t.failed += failed;
	t.unknown += unknown;
	if (tests > 0) t.tested++;
}

/** The devices, each id once (the first read), and each one's place in the list. */
interface ListedDevices {
	list: RateDevice[];
	slotOf: Map<number, number>;
}

/** The devices by id, the first of an id read twice (made once for every window and grouping). */
function devicesById(devices: readonly RateDevice[]): ListedDevices {
	const slotOf = new Map<number, number>();
	const list: RateDevice[] = [];
	for (const d of devices) {
		if (slotOf.has(d.id)) continue;
		slotOf.set(d.id, list.length);
		list.push(d);
	}
	return { list, slotOf };
}

function ratesOf(window: WindowResults, listed: ListedDevices, today: string, months: FailureRateMonths, groupBy: FailureRateGroupBy, scrapped: readonly RateScrappedDevice[]): FailureRates {
	const { from, to } = window;
	// Scrapped in the window and not back in the list (restored); deleted twice, the later one.
	const bin = new Map<number, RateScrappedDevice>();
	for (const b of scrapped) {
		if (listed.slotOf.has(b.deviceId) || typeof b.deletedOn !== 'string' || epochDay(b.deletedOn) === undefined) continue;
		const day = b.deletedOn.slice(0, 10);
		if (day < from || day > to) continue;
		const had = bin.get(b.deviceId);
		if (!had || had.deletedOn < day) bin.set(b.deviceId, { ...b, deletedOn: day });
	}

	type Group = { id: number | string | null; name: string | null; devices: RateDevice[]; tally: Tally };
	// By the group's id itself (a number and a text of the same digits are two groups): no key text made per device.
	const groups = new Map<number | string | null, Group>();
	const all = tally();
	// Each listed device joins its group with its window's tally (no map of device to group).
	for (let k = 0; k < listed.list.length; k++) {
		const d = listed.list[k];
		const id = groupBy === 'customer' ? d.customerId : groupBy === 'designation' ? d.designation : d.department;
		const name = groupBy === 'customer' ? d.customerName : id;
		let g = groups.get(id);
		if (!g) groups.set(id, (g = { id, name: name as string | null, devices: [], tally: tally() }));
		else if (g.name === null && name !== null) g.name = name as string | null;
		g.devices.push(d);
		const tests = window.tests[k];
		const failed = window.failed[k];
		const unknown = window.unknown[k];
		addDevice(g.tally, tests, failed, unknown);
		addDevice(all, tests, failed, unknown);
	}
	let scrappedNotGrouped = 0;
	// A scrapped device's group (per device type only), by its id.
	const binGroup = new Map<number, Group>();
	for (const b of bin.values()) {
		if (groupBy !== 'designation') {
			scrappedNotGrouped++;
			continue;
		}
		const k = b.designation;
		let g = groups.get(k);
		if (!g) groups.set(k, (g = { id: b.designation, name: b.designation, devices: [], tally: tally() }));
		binGroup.set(b.deviceId, g);
	}

	let unknownDevices = 0;
	window.others.forEach((d, deviceId) => {
		const g = binGroup.get(deviceId);
		if (!g) {
			unknownDevices += d.tests + d.unknown;
			return;
		}
		addDevice(g.tally, d.tests, d.failed, d.unknown);
		addDevice(all, d.tests, d.failed, d.unknown);
	});
	for (const b of bin.values()) {
		const g = binGroup.get(b.deviceId);
		if (!g) continue;
		// Counted as tested already when its own results in the window had a known status.
		const own = window.others.get(b.deviceId);
		const tested = (own?.tests ?? 0) > 0;
		const failedIn = (own?.failed ?? 0) > 0;
		for (const t of [g.tally, all]) {
			t.scrapped++;
			if (!tested) t.tested++;
			if (failedIn) continue;
			t.tests++;
			t.failed++;
		}
	}

	const out: FailureRateGroup[] = [...groups.values()].map((g) => {
		// One walk over the group's devices (no array of intervals made and filtered twice).
		const known = new Set<number>();
		let without = 0;
		for (const d of g.devices) {
			const n = usableInterval(d.testIntervalMonths);
			if (n === null) without++;
			else known.add(n);
		}
		return { group: groupBy, id: g.id, name: g.name, ...counts(g.devices.length, g.tally), testIntervalsMonths: [...known].sort((a, b) => a - b), devicesWithoutInterval: without };
	});
	out.sort(compareGroups);
	return { groupBy, months, today, from, to, limit: FAILURE_RATE_LIMIT, confidence: BOUND_CONFIDENCE, groups: out, totals: { ...counts(listed.list.length, all), unknownDevices, invalidTestDate: window.invalidTestDate, scrappedNotGrouped } };
}

/** Every window and grouping at once (what the monthly report shows): months → group by → rates. */
export function allFailureRates(
	results: readonly RateTestResult[],
	devices: readonly RateDevice[],
	today: string,
	scrapped: readonly RateScrappedDevice[] = [],
): Record<FailureRateMonths, Record<FailureRateGroupBy, FailureRates>> {
	// The results checked and de-duplicated once for the six tables (each did it on its own before).
	FAILURE_RATE_GROUP_BY.forEach((g) => validate(today, 12, g));
	const listed = devicesById(devices);
	const [w12, w24] = windowResults(readResults(results), today, [12, 24], listed);
	const per = (window: WindowResults, months: FailureRateMonths) =>
		Object.fromEntries(FAILURE_RATE_GROUP_BY.map((g) => [g, ratesOf(window, listed, today, months, g, scrapped)])) as Record<FailureRateGroupBy, FailureRates>;
	return { 12: per(w12, 12), 24: per(w24, 24) };
}
