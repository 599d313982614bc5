import { addDays, addMonths, epochDay } from './dates';
import { ValidationError } from './errors';
import { usableInterval } from './rebuild';

/**
 * Failure rates that justify test intervals, pure. DGUV Vorschrift 3 (its implementation rules,
 * Table 1B) lets a company extend a device group's test interval when the share of failed tests
 * stays below 2 %, and calls for shorter intervals when it is higher. These functions count, per
 * device type (designation), department or customer, the tests of the last 12 or 24 months and
 * how many failed, and mark the groups below and above 2 %.
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
 * - a group holds every device of the list (tested in the window or not), its intervals are the
 *   devices' current ones, usable as the rebuilt history takes them (client/rebuild.ts,
 *   `usableInterval`: whole months from 1 to 120);
 * - `below` needs at least MIN_TESTS_FOR_BELOW tests; `above` needs none (see `verdictOf`).
 */

export type FailureRateGroupBy = 'designation' | 'department' | 'customer';
export const FAILURE_RATE_GROUP_BY: readonly FailureRateGroupBy[] = ['designation', 'department', 'customer'];

/** The windows DGUV V3's failure-rate rule is read over. */
export type FailureRateMonths = 12 | 24;
export const FAILURE_RATE_MONTHS: readonly FailureRateMonths[] = [12, 24];

/** The failure rate DGUV V3 Table 1B draws the line at: 2 %, one failed test in 50. */
export const FAILURE_RATE_LIMIT = 0.02;
const ONE_IN = 50;

/**
 * Tests a group needs before "below 2 %" is said. Below 50 tests a single failure already makes
 * 2 % or more (1 in 49 is 2.04 %), so under 50 "below 2 %" could only ever mean "no failure
 * yet". Even at 50 tests without a failure the rate is an observation, not a bound: these
 * figures are evidence to weigh, not a proof.
 */
export const MIN_TESTS_FOR_BELOW = 50;

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
 * - `below`: under 2 % with at least MIN_TESTS_FOR_BELOW tests (evidence for a longer interval);
 * - `above`: over 2 %, however few the tests (evidence for a shorter one);
 * - `at`: exactly 2 %, with at least MIN_TESTS_FOR_BELOW tests;
 * - `tooFewTests`: none of these can be said yet.
 */
export type FailureRateVerdict = 'below' | 'above' | 'at' | 'tooFewTests';
export const FAILURE_RATE_VERDICTS: readonly FailureRateVerdict[] = ['below', 'above', 'at', 'tooFewTests'];

/** Whether a verdict is one of the two 2 % marks. */
export const isMarked = (verdict: FailureRateVerdict): boolean => verdict === 'below' || verdict === 'above';

/**
 * The verdict of `failed` failures in `tests` tests, compared in whole numbers (no rounding).
 * `above` needs no minimum: with few tests a failure is already a finding, and a shorter interval
 * is the safe direction; the tests are shown beside it for the reader to weigh.
 */
export function verdictOf(tests: number, failed: number): FailureRateVerdict {
	if (failed * ONE_IN > tests) return 'above';
	if (tests < MIN_TESTS_FOR_BELOW) return 'tooFewTests';
	return failed * ONE_IN < tests ? 'below' : 'at';
}

export interface FailureRateCounts {
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
	verdict: FailureRateVerdict;
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
	minTests: number;
	groups: FailureRateGroup[];
	totals: FailureRateCounts & {
		/** Results in the window of devices not in the device list (never in a group). */
		unknownDevices: number;
		/** Results whose test date is not a day (in no window). */
		invalidTestDate: number;
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

function keyOf(d: RateDevice, groupBy: FailureRateGroupBy): { id: number | string | null; name: string | null } {
	if (groupBy === 'customer') return { id: d.customerId, name: d.customerName };
	const value = groupBy === 'designation' ? d.designation : d.department;
	return { id: value, name: value };
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
	tested: Set<number>;
}

const tally = (): Tally => ({ tests: 0, failed: 0, unknown: 0, tested: new Set() });

function counts(devices: number, t: Tally): FailureRateCounts {
	return {
		devices,
		devicesTested: t.tested.size,
		tests: t.tests,
		failedTests: t.failed,
		unknownStatus: t.unknown,
		failureRate: t.tests === 0 ? null : t.failed / t.tests,
		verdict: verdictOf(t.tests, t.failed),
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
	const seen = new Set<number>();
	for (const r of results) {
		if (seen.has(r.id)) continue;
		seen.add(r.id);
		if (typeof r.testDate !== 'string' || epochDay(r.testDate) === undefined) invalidTestDate++;
		else out.push(r);
	}
	return { results: out, invalidTestDate };
}

function add(t: Tally, r: RateTestResult): void {
	if (r.failed === null) {
		t.unknown++;
		return;
	}
	t.tests++;
	if (r.failed) t.failed++;
	t.tested.add(r.deviceId);
}

/** The failure rates of the window of `months` ending on `today`, one entry per group. */
export function failureRates(results: readonly RateTestResult[], devices: readonly RateDevice[], today: string, months: FailureRateMonths, groupBy: FailureRateGroupBy): FailureRates {
	validate(today, months, groupBy);
	return ratesOf(readResults(results), devices, today, months, [groupBy])[0];
}

type Group = { id: number | string | null; name: string | null; devices: RateDevice[]; tally: Tally };

/** The devices in groups of one grouping, and each device's group. */
function groupsOf(byId: ReadonlyMap<number, RateDevice>, groupBy: FailureRateGroupBy): { groups: Map<string, Group>; groupOfDevice: Map<number, Group> } {
	const groups = new Map<string, Group>();
	const groupOfDevice = new Map<number, Group>();
	for (const d of byId.values()) {
		const key = keyOf(d, groupBy);
		const k = key.id === null ? '' : `${typeof key.id}:${key.id}`;
		let g = groups.get(k);
		if (!g) groups.set(k, (g = { ...key, devices: [], tally: tally() }));
		else if (g.name === null && key.name !== null) g.name = key.name;
		g.devices.push(d);
		groupOfDevice.set(d.id, g);
	}
	return { groups, groupOfDevice };
}

/** The window's rates in each of `groupings`, from one pass over the results (every device is in one group of each). */
function ratesOf(read: ReadResults, devices: readonly RateDevice[], today: string, months: FailureRateMonths, groupings: readonly FailureRateGroupBy[]): FailureRates[] {
	const { from, to } = failureRateWindow(today, months);
	const byId = new Map<number, RateDevice>();
	for (const d of devices) if (!byId.has(d.id)) byId.set(d.id, d);
	const tables = groupings.map((g) => groupsOf(byId, g));

	const all = tally();
	let unknownDevices = 0;
	for (const r of read.results) {
		const day = r.testDate.slice(0, 10);
		if (day < from || day > to) continue;
		if (!byId.has(r.deviceId)) {
			unknownDevices++;
			continue;
		}
		for (const t of tables) add(t.groupOfDevice.get(r.deviceId)!.tally, r);
		add(all, r);
	}

	return groupings.map((groupBy, i) => {
		const out: FailureRateGroup[] = [...tables[i].groups.values()].map((g) => {
			const intervals = g.devices.map((d) => usableInterval(d.testIntervalMonths));
			const known = [...new Set(intervals.filter((n): n is number => n !== null))].sort((a, b) => a - b);
			return { group: groupBy, id: g.id, name: g.name, ...counts(g.devices.length, g.tally), testIntervalsMonths: known, devicesWithoutInterval: intervals.filter((n) => n === null).length };
		});
		out.sort(compareGroups);
		return { groupBy, months, today, from, to, minTests: MIN_TESTS_FOR_BELOW, groups: out, totals: { ...counts(byId.size, all), unknownDevices, invalidTestDate: read.invalidTestDate } };
	});
}

/** Every window and grouping at once (what the monthly report shows): months → group by → rates. */
export function allFailureRates(results: readonly RateTestResult[], devices: readonly RateDevice[], today: string): Record<FailureRateMonths, Record<FailureRateGroupBy, FailureRates>> {
	// The results checked once for the six tables (each had read and de-duplicated all of them), one pass per window.
	FAILURE_RATE_GROUP_BY.forEach((g) => validate(today, 12, g));
	const read = readResults(results);
	const per = (months: FailureRateMonths) => {
		const tables = ratesOf(read, devices, today, months, FAILURE_RATE_GROUP_BY);
		return Object.fromEntries(FAILURE_RATE_GROUP_BY.map((g, i) => [g, tables[i]])) as Record<FailureRateGroupBy, FailureRates>;
	};
	return { 12: per(12), 24: per(24) };
}
