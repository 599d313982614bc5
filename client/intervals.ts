import { binomialCdf, lowerBound, upperBound } from './binomial';
import { addMonths, epochDay } from './dates';
import { confidencePercent, exactPercent, percentBeside } from './percent';
import { ValidationError } from './errors';
import { normalName } from './names';
import { compareGroups, INTERVAL_DECISION_NOTE, type RateDevice, type RateTestResult } from './failureRates';
import { MAX_INTERVAL_MONTHS, usableInterval } from './rebuild';

/**
 * Interval recommendations per group by NCSLI RP-1 method A3, the interval test, pure. A group is
 * a device type (designation), or a device type within a department, with one current interval:
 * the test judges one interval, so the devices of a type with 6 and 12 months are two groups.
 *
 * The test (as ISG describes method A3: "binomial confidence limits from an observed reliability;
 * if the reliability target falls outside the confidence limits, the interval is said to have
 * failed the test"): n results near the current interval, f of them failed, observed reliability
 * 1 − f/n; its two-sided limits at the change confidence C are the exact Clopper–Pearson bounds of
 * the failure rate, each one-sided at (1 + C) / 2 (client/binomial.ts). A target above the upper
 * limit says the interval is too long (shorten), one below the lower limit that it could be
 * longer (lengthen), else keep.
 *
 * The new interval by RP-1's A3 adjustment (as Sandia's suncal implements method A3 "as described
 * in NCSLI RP-1"): n results used, f failed, x = n − f in tolerance, R0 = x/n, R* the target, C
 * the change confidence, I0 the current interval, X binomial with n trials and probability R*.
 * The rejection confidence of the current interval is Q = 1 − 2 · P(X ≤ x) when R0 < R* (evidence
 * that the interval is too long), Q = 1 − 2 · P(X ≥ x) when R0 > R* (too short), clipped at 0 (the
 * two tails sum to 1 + P(X = x): at most one is positive). The interval changes when Q > C, the
 * same decision as the limits' (Clopper–Pearson duality); a Q within 1e-12 of C is a tie, C itself. To shorten, I0 · 10^((R0 − R*) · Q); to lengthen,
 * I0 · 10^((R0 − R*) / (1 − Q)) (suncal takes Q = P(X ≤ x) − 1 there, never positive; this is the
 * two-sided Q of the same decision; Q = 1 as a double gives no finite interval: the doubling bound).
 * Whole months, rounded down (with a 1e-9 tolerance); then at most ×2 and at least ÷2 (rounded up); then within the
 * minimum and maximum, which win over the ×2/÷2 bound (the maximum is DGUV V3's). A minimum above
 * the current interval never lengthens it where the test would shorten or keep it (the interval is
 * kept); a lengthening is lifted to the minimum, within ×2. The maximum wins over everything.
 *
 * A result counts when the device was tested near its current interval: the days since its
 * previous test (of any status) are from 0.75 to 1.25 times the days of one interval from that
 * test. Results dated before the period (`from`) only serve as that previous test: neither used
 * nor excluded; results before previousTestsFrom(from, the devices' longest interval) are not
 * read at all, on both faces. A test found much earlier says little about the interval and overstates its reliability,
 * one found much later understates it. Several results of a device on one day are one test,
 * failed when any of them failed (a passed re-test after a repair does not undo the failure).
 *
 * Never applied to the service: setting a test interval is the employer's decision in its risk
 * assessment; every recommendation's reason says so.
 */

export type IntervalGroupBy = 'designation' | 'designationDepartment';
export const INTERVAL_GROUP_BY: readonly IntervalGroupBy[] = ['designation', 'designationDepartment'];

/** The environments of DGUV V3 Table 1B (portable equipment), by their maximum interval. */
export type DguvEnvironment = 'office' | 'workshop' | 'constructionSite';
export const DGUV_ENVIRONMENTS: readonly DguvEnvironment[] = ['office', 'workshop', 'constructionSite'];

/**
 * DGUV V3 Table 1B's maximum intervals of portable electrical equipment: two years in offices or
 * under similar conditions, one year on construction sites, in production facilities and
 * workshops or under similar conditions.
 */
export const DGUV_MAX_MONTHS: Readonly<Record<DguvEnvironment, number>> = { office: 24, workshop: 12, constructionSite: 12 };

/** The share of one interval a test may lie from it and still count: 0.75 to 1.25 intervals. */
export const INTERVAL_WINDOW = { from: 0.75, to: 1.25 } as const;

/**
 * How many months before a period's first day its first tests' previous tests lie at most: a
 * counted test is at most 1.25 intervals after the previous one (a month more for the months'
 * lengths). Both faces read (and keep) results that far back, and no further back count.
 */
export function previousTestMonths(longestIntervalMonths: number): number {
	return Math.ceil(Math.max(0, Math.min(longestIntervalMonths, MAX_INTERVAL_MONTHS)) * INTERVAL_WINDOW.to) + 1;
}

/** The longest usable interval among the devices (0 without one). */
export function longestInterval(devices: Iterable<{ testIntervalMonths?: unknown }>): number {
	let longest = 0;
	for (const d of devices) longest = Math.max(longest, usableInterval(d.testIntervalMonths) ?? 0);
	return longest;
}

/**
 * The first test date read for a period from `from`: far enough back for the period's first test
 * of each device to have its previous one (previousTestMonths of the longest interval). The rule
 * of both faces: n8n's reads start there; the pollers keep their test records at least that long.
 */
export function previousTestsFrom(from: string, longestIntervalMonths: number): string {
	return addMonths(from, -previousTestMonths(longestIntervalMonths));
}

/** The largest change: at most twice or half the current interval. */
export const MAX_CHANGE_FACTOR = 2;

export interface DepartmentIntervalLimits {
	environment?: DguvEnvironment;
	/** Shortest interval to recommend; the settings' minimum when not given. */
	minMonths?: number;
	/** Longest interval to recommend; the environment's DGUV V3 maximum when not given. */
	maxMonths?: number;
}

export interface IntervalSettings {
	/** The share of tests that should pass at the end of an interval: 0.98 (DGUV's 2 % failures). */
	reliabilityTarget: number;
	/** The two-sided confidence of the limits the test compares the target with: 0.5. */
	confidence: number;
	/** The environment of a department without its own limits. */
	defaultEnvironment: DguvEnvironment;
	/** Shortest interval to recommend, where a department does not say otherwise. */
	minMonths: number;
	/** Per department name. */
	departments: Readonly<Record<string, DepartmentIntervalLimits>>;
}

export const DEFAULT_INTERVAL_SETTINGS: IntervalSettings = { reliabilityTarget: 0.98, confidence: 0.5, defaultEnvironment: 'workshop', minMonths: 1, departments: {} };

/** The settings as a face takes them (the e-mail settings' `intervals`): every part optional. */
export type IntervalSettingsInput = Partial<IntervalSettings>;

/** The settings given, the defaults (DEFAULT_INTERVAL_SETTINGS) for the parts not given. */
export function withIntervalDefaults(input: IntervalSettingsInput | undefined): IntervalSettings {
	if (input === undefined) return DEFAULT_INTERVAL_SETTINGS;
	const out = { ...DEFAULT_INTERVAL_SETTINGS };
	for (const key of Object.keys(out) as Array<keyof IntervalSettings>) if (input[key] !== undefined) (out as Record<string, unknown>)[key] = input[key];
	return out;
}

/** The department rows whose name (matched as the routing matches names) is no device's department, in the settings' order. */
export function unmatchedDepartments(departments: IntervalSettings['departments'], devices: Iterable<{ department: string | null }>): string[] {
	const names = Object.keys(departments);
	if (names.length === 0) return [];
	const seen = new Set<string>();
	for (const d of devices) if (d.department !== null) seen.add(normalName(d.department));
	return names.filter((n) => !seen.has(normalName(n)));
}

/** `consistent`: the target lies within the limits; `tooLong`: above them; `tooShort`: below them. */
export type IntervalTest = 'consistent' | 'tooLong' | 'tooShort';
export type IntervalChange = 'lengthen' | 'shorten' | 'keep';
/** What set the recommended interval. */
export type IntervalLimitedBy = 'none' | 'model' | 'doubling' | 'halving' | 'minimum' | 'maximum';

export interface IntervalExclusions {
	/** Results of the period with no earlier test of the device among those read (before the period too). */
	noPreviousTest: number;
	/** Results whose time since the previous test is outside 0.75 to 1.25 intervals. */
	outsideWindow: number;
	/** Results of a status this version does not know (not a test of the reliability). */
	unknownStatus: number;
	/** Further results of a device on a day that already had one (one test, failed if any failed). */
	sameDay: number;
}

export interface IntervalRecommendation {
	group: IntervalGroupBy;
	designation: string | null;
	/** The department; null for the grouping by device type alone, or for devices without one. */
	department: string | null;
	currentIntervalMonths: number;
	recommendedIntervalMonths: number;
	change: IntervalChange;
	intervalTest: IntervalTest;
	limitedBy: IntervalLimitedBy;
	/** current · the A3 factor before rounding and bounds; null when kept, or when Q = 1 leaves it unbounded (limitedBy 'doubling'). */
	modelIntervalMonths: number | null;
	devices: number;
	resultsUsed: number;
	failedUsed: number;
	resultsExcluded: number;
	excluded: IntervalExclusions;
	/** (resultsUsed − failedUsed) / resultsUsed; null without a result used. */
	observedReliability: number | null;
	/** The two-sided limits at `confidence` (each one-sided at (1 + confidence) / 2). */
	reliabilityLowerLimit: number;
	reliabilityUpperLimit: number;
	/** One-sided 95 % bounds, as the failure rates give them, for a risk assessment that asks for 95 %. */
	reliabilityLowerBound95: number;
	reliabilityUpperBound95: number;
	reliabilityTarget: number;
	confidence: number;
	/** RP-1's rejection confidence Q of the current interval (0 to 1): the test changes it when Q is above `confidence`. */
	rejectionConfidence: number;
	minMonths: number;
	maxMonths: number;
	/** The environments whose DGUV V3 maxima apply to the group's devices, as set per department. */
	environments: DguvEnvironment[];
	reason: string;
}

export interface IntervalRecommendations {
	groupBy: IntervalGroupBy;
	today: string;
	/** The period's first day; results from previousTestsFrom(from, …) before it only as previous tests. */
	from: string;
	settings: IntervalSettings;
	groups: IntervalRecommendation[];
	/** The settings' department rows that match no device's department (they set nothing). */
	unmatchedDepartments: string[];
	totals: {
		devicesWithoutInterval: number;
		resultsOfDevicesWithoutInterval: number;
		unknownDevices: number;
		futureTests: number;
		invalidTestDate: number;
	};
}

const isWholeMonths = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= MAX_INTERVAL_MONTHS;

/** A setting the method cannot use, and what would be valid. */
export interface IntervalSettingProblem {
	setting: string;
	message: string;
}

function monthsProblem(setting: string, n: unknown, optional: boolean): IntervalSettingProblem | undefined {
	if ((optional && n === undefined) || isWholeMonths(n)) return undefined;
	return { setting, message: `must be a whole number of months from 1 to ${MAX_INTERVAL_MONTHS}, got ${JSON.stringify(n)}` };
}

function checkMonths(name: string, n: unknown, optional: boolean): void {
	const p = monthsProblem(name, n, optional);
	if (p) throw new ValidationError(p.setting, p.message);
}

/** The first setting the method cannot use (each face names it in its own words), or undefined. */
export function intervalSettingsProblem(s: IntervalSettings): IntervalSettingProblem | undefined {
	if (!(typeof s.reliabilityTarget === 'number' && s.reliabilityTarget > 0.5 && s.reliabilityTarget < 1)) {
		return { setting: 'reliabilityTarget', message: `must be a share above 0.5 and below 1 (0.98 for 98 %), got ${JSON.stringify(s.reliabilityTarget)}` };
	}
	if (!(typeof s.confidence === 'number' && s.confidence >= 0 && s.confidence <= 0.99)) {
		return { setting: 'confidence', message: `must be a share from 0 to 0.99 (0.5 for 50 %), got ${JSON.stringify(s.confidence)}` };
	}
	if (!DGUV_ENVIRONMENTS.includes(s.defaultEnvironment)) return { setting: 'defaultEnvironment', message: `must be one of ${DGUV_ENVIRONMENTS.join(', ')}, got ${JSON.stringify(s.defaultEnvironment)}` };
	const min = monthsProblem('minMonths', s.minMonths, false);
	if (min) return min;
	// The minimum of every department without its own: above the environment's maximum the
	// maximum would win unseen, so the setting is refused rather than replaced.
	const envMax = DGUV_MAX_MONTHS[s.defaultEnvironment];
	if (s.minMonths > envMax) {
		return { setting: 'minMonths', message: `must be at most ${envMax} months, the DGUV V3 maximum of the environment ${s.defaultEnvironment} (set a department's own limits for a longer one), got ${s.minMonths}` };
	}
	const byNormal = new Map<string, string>();
	for (const name of Object.keys(s.departments)) {
		// As the e-mail routing refuses one: a row without a name limits no department.
		if (normalName(name) === '') return { setting: 'departments', message: `a department name is empty (${JSON.stringify(name)}); name the department as the service holds it` };
		const other = byNormal.get(normalName(name));
		if (other !== undefined) return { setting: 'departments', message: `${JSON.stringify(other)} and ${JSON.stringify(name)} name the same department (names match whatever their case and spacing); keep one` };
		byNormal.set(normalName(name), name);
	}
	for (const [name, d] of Object.entries(s.departments)) {
		if (d.environment !== undefined && !DGUV_ENVIRONMENTS.includes(d.environment)) {
			return { setting: `departments[${name}].environment`, message: `must be one of ${DGUV_ENVIRONMENTS.join(', ')}, got ${JSON.stringify(d.environment)}` };
		}
		const p = monthsProblem(`departments[${name}].minMonths`, d.minMonths, true) ?? monthsProblem(`departments[${name}].maxMonths`, d.maxMonths, true);
		if (p) return p;
		const lo = d.minMonths ?? s.minMonths;
		const hi = d.maxMonths ?? DGUV_MAX_MONTHS[d.environment ?? s.defaultEnvironment];
		if (lo > hi) return { setting: `departments[${name}]`, message: `its minimum (${lo} months) must not exceed its maximum (${hi} months)` };
	}
	return undefined;
}

/** Refuses settings the method cannot use, naming the setting and what would be valid. */
export function validateIntervalSettings(s: IntervalSettings): void {
	const p = intervalSettingsProblem(s);
	if (p) throw new ValidationError(p.setting, p.message);
}

const normalised = new WeakMap<object, Map<string, DepartmentIntervalLimits>>();

/** The department rows by their normal name, made once per settings object (not per group). */
function byNormalName(departments: IntervalSettings['departments']): Map<string, DepartmentIntervalLimits> {
	let m = normalised.get(departments);
	if (m === undefined) normalised.set(departments, (m = new Map(Object.entries(departments).map(([k, v]) => [normalName(k), v]))));
	return m;
}

/** A department's limits and environment, as set (or the defaults). */
export function departmentLimits(department: string | null, s: IntervalSettings): { environment: DguvEnvironment; minMonths: number; maxMonths: number } {
	// Matched as the e-mail routing matches names: "verwaltung " sets the limits of "Verwaltung".
	const d = (department === null ? undefined : byNormalName(s.departments).get(normalName(department))) ?? {};
	const environment = d.environment ?? s.defaultEnvironment;
	return { environment, minMonths: d.minMonths ?? s.minMonths, maxMonths: d.maxMonths ?? DGUV_MAX_MONTHS[environment] };
}

export interface IntervalTestOutcome {
	intervalTest: IntervalTest;
	observedReliability: number | null;
	reliabilityLowerLimit: number;
	reliabilityUpperLimit: number;
	/** RP-1's rejection confidence Q of the current interval (0 to 1; rejectionConfidence). */
	rejectionConfidence: number;
	/** I0 · the A3 factor before rounding and bounds; null when kept, or when Q = 1 leaves it unbounded (then 'doubling'). */
	modelIntervalMonths: number | null;
	recommendedIntervalMonths: number;
	limitedBy: IntervalLimitedBy;
}

/**
 * RP-1's rejection confidence of the current interval: `failed` of `tests` results failed, the
 * target `target`. With x = tests − failed in tolerance and X binomial (tests, target):
 * 1 − 2 · P(X ≤ x) below the target, 1 − 2 · P(X ≥ x) above it, at least 0 (0 at the target and
 * without a result). The upper tail is summed as P(F ≤ failed) of the failures F (tests, 1 − target),
 * never as 1 minus a sum near 1.
 */
export function rejectionConfidence(tests: number, failed: number, target: number): number {
	if (!Number.isSafeInteger(tests) || tests < 0) throw new ValidationError('tests', `must be a whole number of at least 0, got ${tests}`);
	if (!Number.isSafeInteger(failed) || failed < 0 || failed > tests) throw new ValidationError('failed', `must be a whole number from 0 to tests (${tests}), got ${failed}`);
	if (!(typeof target === 'number' && target > 0 && target < 1)) throw new ValidationError('target', `must be a share above 0 and below 1 (0.98 for 98 %), got ${target}`);
	if (tests === 0) return 0;
	const passed = tests - failed;
	const observed = passed / tests;
	if (observed < target) return Math.max(0, 1 - 2 * binomialCdf(passed, tests, target));
	if (observed > target) return Math.max(0, 1 - 2 * binomialCdf(failed, tests, 1 - target));
	return 0;
}

/**
 * RP-1's A3 factor of the interval, unbounded: 10^((R0 − R*) · Q) to shorten (R0 < R*),
 * 10^((R0 − R*) / (1 − Q)) to lengthen (R0 > R*; Infinity when Q = 1), 1 at the target.
 */
export function a3AdjustmentFactor(observedReliability: number, target: number, rejection: number): number {
	if (observedReliability < target) return 10 ** ((observedReliability - target) * rejection);
	if (observedReliability > target) return rejection >= 1 ? Infinity : 10 ** ((observedReliability - target) / (1 - rejection));
	return 1;
}

/**
 * The interval test of `failed` failures in `tests` results near `currentMonths`, and the interval
 * it recommends within [minMonths, maxMonths] (the maximum wins when they conflict).
 */
export function intervalTest(tests: number, failed: number, currentMonths: number, s: Pick<IntervalSettings, 'reliabilityTarget' | 'confidence'>, minMonths = 1, maxMonths = MAX_INTERVAL_MONTHS): IntervalTestOutcome {
	checkMonths('currentMonths', currentMonths, false);
	const oneSided = (1 + s.confidence) / 2;
	const upperRate = upperBound(failed, tests, oneSided);
	const lowerRate = lowerBound(failed, tests, oneSided);
	const observedReliability = tests === 0 ? null : (tests - failed) / tests; // x/n, as Q and the direction read it (1 − f/n rounds an ulp off an equal target)
	// The decision is Q > C (the limits' own, by duality); a Q within 1e-12 of C is C, an exact tie
	// rounded in floating point (2 of 2 failed, target 0.9: Q = 1 − 2 · 0.01 = 0.98 = C keeps).
	const q = rejectionConfidence(tests, failed, s.reliabilityTarget);
	const rejection = Math.abs(q - s.confidence) <= 1e-12 ? s.confidence : q;
	const test: IntervalTest = !(rejection > s.confidence) ? 'consistent' : (tests - failed) / tests < s.reliabilityTarget ? 'tooLong' : 'tooShort';
	// The test's direction is the factor's: tooLong only below the target, tooShort only above it.
	const factor = test === 'consistent' || observedReliability === null ? null : a3AdjustmentFactor(observedReliability, s.reliabilityTarget, rejection);
	const model = factor === null || !Number.isFinite(factor) ? null : currentMonths * factor;
	let months = currentMonths;
	let limitedBy: IntervalLimitedBy = 'none';
	if (factor !== null) {
		months = model === null ? Infinity : Math.floor(model + 1e-9);
		limitedBy = 'model';
		if (months > currentMonths * MAX_CHANGE_FACTOR) [months, limitedBy] = [currentMonths * MAX_CHANGE_FACTOR, 'doubling'];
		const half = Math.ceil(currentMonths / MAX_CHANGE_FACTOR);
		if (months < half) [months, limitedBy] = [half, 'halving'];
	}
	const max = Math.min(maxMonths, MAX_INTERVAL_MONTHS);
	const min = Math.min(minMonths, max);
	// A minimum stops a shortening, or holds the current interval when it is itself above it: it
	// never lengthens an interval the test would shorten or keep. A lengthening (the test says the
	// interval can be longer) it lifts to the minimum, within the ×2 bound.
	if (months < min && (test === 'tooShort' || months <= currentMonths)) [months, limitedBy] = [Math.min(min, test === 'tooShort' ? currentMonths * MAX_CHANGE_FACTOR : currentMonths), 'minimum'];
	if (months > max) [months, limitedBy] = [max, 'maximum'];
	// At an exact tie the bisected limits can fall an ulp beyond the target: a kept interval's limits
	// hold the target (by duality only rounding moves them).
	const kept = test === 'consistent' && tests > 0;
	const lowerLimit = kept ? Math.min(1 - upperRate, s.reliabilityTarget) : 1 - upperRate;
	const upperLimit = kept ? Math.max(1 - lowerRate, s.reliabilityTarget) : 1 - lowerRate;
	return { intervalTest: test, observedReliability, reliabilityLowerLimit: lowerLimit, reliabilityUpperLimit: upperLimit, rejectionConfidence: rejection, modelIntervalMonths: model, recommendedIntervalMonths: months, limitedBy };
}


/**
 * Whether a type's maximum is the shortest of several departments' (their environments differ, or
 * one sets its own): the reason says so rather than read as one environment's DGUV V3 maximum.
 */
export const maximumOfSeveral = (r: Pick<IntervalRecommendation, 'group' | 'environments' | 'maxMonths'>): boolean =>
	r.group === 'designation' && (r.environments.length > 1 || r.maxMonths !== DGUV_MAX_MONTHS[r.environments[0]]);

/** The reason in words, for a risk assessment to quote. */
export function reasonOf(r: Omit<IntervalRecommendation, 'reason'>): string {
	// Each figure beside the target it is read against: never shown equal to it when it is not.
	const pct = (share: number) => `${percentBeside(share, r.reliabilityTarget)} %`;
	const who = `Device type ${r.designation === null ? '(none)' : `"${r.designation}"`}${r.group === 'designationDepartment' ? ` in department ${r.department === null ? '(none)' : `"${r.department}"`}` : ''}, current interval ${r.currentIntervalMonths} months`;
	const counted = `${r.resultsUsed} test${r.resultsUsed === 1 ? '' : 's'} near the interval (0.75 to 1.25 intervals after the previous one), ${r.failedUsed} failed`;
	const limits = `${confidencePercent(r.confidence)} % confidence limits ${pct(r.reliabilityLowerLimit)} to ${pct(r.reliabilityUpperLimit)}`;
	const observed = r.observedReliability === null ? `${counted}; no observed reliability` : `${counted}: observed reliability ${pct(r.observedReliability)}, ${limits}, one-sided 95 % lower bound ${pct(r.reliabilityLowerBound95)}`;
	const target = `target ${exactPercent(r.reliabilityTarget)} %`;
	const rejection = `rejection confidence ${percentBeside(r.rejectionConfidence, r.confidence)} % ${r.intervalTest === 'consistent' ? 'not above' : 'above'} the change confidence ${confidencePercent(r.confidence)} %`;
	const verdict =
		r.intervalTest === 'tooShort'
			? `The ${target} lies below the limits, ${rejection}: by NCSLI RP-1 method A3 (the interval test) the interval can be longer`
			: r.intervalTest === 'tooLong'
				? `The ${target} lies above the limits, ${rejection}: by NCSLI RP-1 method A3 (the interval test) the interval should be shorter`
				: `The ${target} lies within the limits, ${rejection}: by NCSLI RP-1 method A3 (the interval test) the results give no reason to change the interval`;
	const how: Record<IntervalLimitedBy, string> = {
		none: '',
		model: r.intervalTest === 'tooShort' ? ' (NCSLI RP-1 method A3: current × 10^((R0 − R*)/(1 − Q)), whole months rounded down)' : ' (NCSLI RP-1 method A3: current × 10^((R0 − R*)·Q), whole months rounded down)',
		doubling: ' (the model allows more; at most twice the current interval)',
		halving: ' (the model asks for less; at least half the current interval)',
		minimum:
			r.minMonths <= r.recommendedIntervalMonths
				? ` (the minimum set for the group, ${r.minMonths} months)`
				: r.recommendedIntervalMonths > r.currentIntervalMonths
					? ` (the minimum set for the group, ${r.minMonths} months, is more than twice the current interval: a change is at most twice it)`
					: ` (the minimum set for the group, ${r.minMonths} months, is above the current interval: a minimum never lengthens it)`,
		maximum:
			maximumOfSeveral(r)
				? ` (the maximum for the group: ${r.maxMonths} months, the shortest of its departments’ maxima: DGUV V3 Table 1B for ${r.environments.join(', ')} unless set otherwise)`
				: ` (the maximum for the group: ${r.maxMonths} months, DGUV V3 Table 1B for ${r.environments.join(', ')} unless set otherwise)`,
	};
	const recommended =
		r.change === 'keep' ? `Recommended: keep ${r.currentIntervalMonths} months${how[r.limitedBy]}` : `Recommended: ${r.recommendedIntervalMonths} months${how[r.limitedBy]}`;
	const caution =
		r.change === 'lengthen' && r.reliabilityLowerBound95 < r.reliabilityTarget
			? ` With 95 % confidence the reliability is only shown to be at least ${pct(r.reliabilityLowerBound95)}, below the target.`
			: '';
	const e = r.excluded;
	const excluded = ` Not counted: ${e.noPreviousTest} without an earlier test read, ${e.outsideWindow} outside the window, ${e.unknownStatus} of an unknown status, ${e.sameDay} further results on the same day.`;
	return `${who}: ${observed}. ${verdict}. ${recommended}.${caution}${excluded} A recommendation, not applied to the service: ${INTERVAL_DECISION_NOTE}`;
}

/** The counts of one device's results, as a group adds them up (six per device, in this order). */
const TESTS = 0;
const FAILED = 1;
const NO_PREVIOUS = 2;
const OUTSIDE = 3;
const UNKNOWN = 4;
const SAME_DAY = 5;
const COUNTS = 6;

/**
 * What every grouping of the same results and devices counts alike: each device's results near
 * its interval (a device's counts do not depend on the group it is in). The monthly report groups
 * the same records twice (by type, by type within department) and counts them once.
 */
export interface IntervalDeviceCounts {
	/** The devices with a usable interval (the first of an id listed twice), in the list's order. */
	devices: RateDevice[];
	intervals: Uint8Array;
	/** COUNTS per device, by its place in `devices`. */
	counts: Int32Array;
	totals: IntervalRecommendations['totals'];
}

/** The devices' counts of the results of the period (`from` to `today`); results before `from` only as previous tests. */
export function intervalDeviceCounts(results: readonly RateTestResult[], devices: readonly RateDevice[], today: string, from: string): IntervalDeviceCounts {
	const totals = { devicesWithoutInterval: 0, resultsOfDevicesWithoutInterval: 0, unknownDevices: 0, futureTests: 0, invalidTestDate: 0 };
	const slotOf = new Map<number, number>();
	const without = new Set<number>();
	const usable: RateDevice[] = [];
	const intervalList: number[] = [];
	for (const d of devices) {
		if (slotOf.has(d.id) || without.has(d.id)) continue;
		const interval = usableInterval(d.testIntervalMonths);
		if (interval === null) {
			totals.devicesWithoutInterval++;
			without.add(d.id);
			continue;
		}
		slotOf.set(d.id, usable.length);
		usable.push(d);
		intervalList.push(interval);
	}
	const intervals = Uint8Array.from(intervalList);
	const counts = new Int32Array(usable.length * COUNTS);

	// Per device: its test days, each failed if any of its results failed (null: no known status).
	// Held as one row per result in typed arrays and ordered by device and day (a map of days per
	// device cost 100,000 maps and 300,000 objects on a large account).
	const slot = new Uint32Array(results.length);
	const dayNumber = new Float64Array(results.length);
	const status = new Uint8Array(results.length); // 0: unknown, 1: passed, 2: failed
	const dayText = new Map<number, string>();
	const epochOf = new Map<string, number | undefined>();
	// A result id read twice counts once (the first); ids in ascending order cannot repeat.
	let ascending = true;
	for (let i = 1; i < results.length && ascending; i++) ascending = results[i].id > results[i - 1].id;
	const seen = ascending ? undefined : new Set<number>();
	let rows = 0;
	for (const r of results) {
		if (seen) {
			if (seen.has(r.id)) continue;
			seen.add(r.id);
		}
		let epoch: number | undefined;
		if (typeof r.testDate === 'string') {
			epoch = epochOf.get(r.testDate);
			if (epoch === undefined && !epochOf.has(r.testDate)) epochOf.set(r.testDate, (epoch = epochDay(r.testDate)));
		}
		if (epoch === undefined) {
			totals.invalidTestDate++;
			continue;
		}
		let day = dayText.get(epoch);
		if (day === undefined) dayText.set(epoch, (day = r.testDate.slice(0, 10)));
		const at = slotOf.get(r.deviceId);
		if (at === undefined) {
			if (day >= from) totals[without.has(r.deviceId) ? 'resultsOfDevicesWithoutInterval' : 'unknownDevices']++;
			continue;
		}
		if (day > today) {
			totals.futureTests++;
			continue;
		}
		slot[rows] = at;
		dayNumber[rows] = epoch;
		status[rows] = r.failed === true ? 2 : r.failed === false ? 1 : 0;
		rows++;
	}
	const order = byDeviceAndDay(slot, dayNumber, rows, usable.length);

	// Due days by the previous test's day and the interval (a number: no key text per result).
	const dueDays = new Map<number, number>();
	for (let at = 0; at < rows; ) {
		const device = slot[order[at]];
		const interval = intervals[device];
		const c = device * COUNTS;
		let previous: number | undefined;
		while (at < rows && slot[order[at]] === device) {
			// One test day: its results, failed when any failed, else passed when any passed.
			const epoch = dayNumber[order[at]];
			let results = 0;
			let worst = 0;
			for (; at < rows && slot[order[at]] === device && dayNumber[order[at]] === epoch; at++, results++) worst = Math.max(worst, status[order[at]]);
			const before = previous;
			previous = epoch;
			const day = dayText.get(epoch)!;
			// Before the period: only the next one's previous test.
			if (day < from) continue;
			counts[c + SAME_DAY] += results - 1;
			if (worst === 0) {
				counts[c + UNKNOWN]++;
				continue;
			}
			if (before === undefined) {
				counts[c + NO_PREVIOUS]++;
				continue;
			}
			const key = before * 256 + interval;
			let due = dueDays.get(key);
			if (due === undefined) dueDays.set(key, (due = epochDay(addMonths(dayText.get(before)!, interval))!));
			const share = (epoch - before) / (due - before);
			if (share < INTERVAL_WINDOW.from || share > INTERVAL_WINDOW.to) {
				counts[c + OUTSIDE]++;
				continue;
			}
			counts[c + TESTS]++;
			if (worst === 2) counts[c + FAILED]++;
		}
	}
	return { devices: usable, intervals, counts, totals };
}

/**
 * The rows 0…rows−1 in order of device, then day, ties as they came: counted out per device,
 * then each device's few rows sorted by day. A comparison sort of 300,000 rows took most of the
 * recommendations' time on a large account.
 */
function byDeviceAndDay(slot: Uint32Array, dayNumber: Float64Array, rows: number, devices: number): Uint32Array {
	const start = new Uint32Array(devices + 1);
	for (let i = 0; i < rows; i++) start[slot[i] + 1]++;
	for (let k = 0; k < devices; k++) start[k + 1] += start[k];
	const order = new Uint32Array(rows);
	const next = start.slice(0, devices);
	for (let i = 0; i < rows; i++) order[next[slot[i]]++] = i;
	for (let k = 0; k < devices; k++) {
		for (let i = start[k] + 1; i < start[k + 1]; i++) {
			const row = order[i];
			let j = i;
			for (; j > start[k] && dayNumber[order[j - 1]] > dayNumber[row]; j--) order[j] = order[j - 1];
			order[j] = row;
		}
	}
	return order;
}

interface Acc {
	designation: string | null;
	department: string | null;
	interval: number;
	devices: RateDevice[];
	tests: number;
	failed: number;
	excluded: IntervalExclusions;
}

/**
 * The recommendations for every group, from the results of the period (`from` to `today`) and the
 * device list; results before `from` only as previous tests. `counted`: the devices' counts of
 * the same results, devices, today and from (intervalDeviceCounts), when another grouping made them.
 */
export function intervalRecommendations(
	results: readonly RateTestResult[],
	devices: readonly RateDevice[],
	today: string,
	from: string,
	groupBy: IntervalGroupBy,
	settings: IntervalSettings = DEFAULT_INTERVAL_SETTINGS,
	counted?: IntervalDeviceCounts,
): IntervalRecommendations {
	if (typeof today !== 'string' || epochDay(today) === undefined) throw new ValidationError('today', `must be a day YYYY-MM-DD that exists, got ${JSON.stringify(today)}`);
	if (!INTERVAL_GROUP_BY.includes(groupBy)) throw new ValidationError('groupBy', `must be one of ${INTERVAL_GROUP_BY.join(', ')}, got ${JSON.stringify(groupBy)}`);
	validateIntervalSettings(settings);
	const { devices: usable, intervals, counts, totals } = counted ?? intervalDeviceCounts(results, devices, today, from);
	const groups: Acc[] = [];
	// By type, department and interval (nested maps: no key text per device).
	const byKey = new Map<string | null, Map<string | null, Map<number, Acc>>>();
	for (let k = 0; k < usable.length; k++) {
		const d = usable[k];
		const interval = intervals[k];
		const department = groupBy === 'designationDepartment' ? d.department : null;
		let byDepartment = byKey.get(d.designation);
		if (byDepartment === undefined) byKey.set(d.designation, (byDepartment = new Map()));
		let byInterval = byDepartment.get(department);
		if (byInterval === undefined) byDepartment.set(department, (byInterval = new Map()));
		let g = byInterval.get(interval);
		if (!g) {
			byInterval.set(interval, (g = { designation: d.designation, department, interval, devices: [], tests: 0, failed: 0, excluded: { noPreviousTest: 0, outsideWindow: 0, unknownStatus: 0, sameDay: 0 } }));
			groups.push(g);
		}
		g.devices.push(d);
		const c = k * COUNTS;
		g.tests += counts[c + TESTS];
		g.failed += counts[c + FAILED];
		g.excluded.noPreviousTest += counts[c + NO_PREVIOUS];
		g.excluded.outsideWindow += counts[c + OUTSIDE];
		g.excluded.unknownStatus += counts[c + UNKNOWN];
		g.excluded.sameDay += counts[c + SAME_DAY];
	}

	const out = groups.map((g): IntervalRecommendation => {
		const depts = [...new Set(g.devices.map((d) => d.department))].map((d) => departmentLimits(d, settings));
		// Several departments: the shortest of their maxima and of their minima (no department's limits
		// hold another's devices at a longer interval; each minimum is at most its own maximum, validated).
		const maxMonths = Math.min(...depts.map((d) => d.maxMonths));
		const minMonths = Math.min(...depts.map((d) => d.minMonths));
		const environments = DGUV_ENVIRONMENTS.filter((e) => depts.some((d) => d.environment === e));
		const t = intervalTest(g.tests, g.failed, g.interval, settings, minMonths, maxMonths);
		const change: IntervalChange = t.recommendedIntervalMonths > g.interval ? 'lengthen' : t.recommendedIntervalMonths < g.interval ? 'shorten' : 'keep';
		const e = g.excluded;
		const partial: Omit<IntervalRecommendation, 'reason'> = {
			group: groupBy,
			designation: g.designation,
			department: g.department,
			currentIntervalMonths: g.interval,
			recommendedIntervalMonths: t.recommendedIntervalMonths,
			change,
			intervalTest: t.intervalTest,
			limitedBy: t.limitedBy,
			modelIntervalMonths: t.modelIntervalMonths,
			devices: g.devices.length,
			resultsUsed: g.tests,
			failedUsed: g.failed,
			resultsExcluded: e.noPreviousTest + e.outsideWindow + e.unknownStatus + e.sameDay,
			excluded: { ...e },
			observedReliability: t.observedReliability,
			reliabilityLowerLimit: t.reliabilityLowerLimit,
			reliabilityUpperLimit: t.reliabilityUpperLimit,
			reliabilityLowerBound95: 1 - upperBound(g.failed, g.tests),
			reliabilityUpperBound95: 1 - lowerBound(g.failed, g.tests),
			reliabilityTarget: settings.reliabilityTarget,
			confidence: settings.confidence,
			rejectionConfidence: t.rejectionConfidence,
			minMonths,
			maxMonths,
			environments,
		};
		return { ...partial, reason: reasonOf(partial) };
	});
	out.sort(
		(a, b) =>
			compareGroups({ id: a.designation, name: a.designation }, { id: b.designation, name: b.designation }) ||
			compareGroups({ id: a.department, name: a.department }, { id: b.department, name: b.department }) ||
			a.currentIntervalMonths - b.currentIntervalMonths,
	);
	return { groupBy, today, from, settings, groups: out, unmatchedDepartments: unmatchedDepartments(settings.departments, devices), totals: { ...totals } };
}
