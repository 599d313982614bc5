import { epochDay } from './dates';
import { stepKey, type StepValue } from './measuredValues';
import { measurementTrend, type MeasurementTrend, type TrendPoint } from './measurementTrend';
import { TREND_RESULTS, isTestEarlier, warningsOf, type MeasurementWarning } from './measurementWarnings';

/**
 * The alerts of a newly read result, pure, for every face that follows results as they arrive
 * (the results poller's events, the n8n trigger's): a device's recent measured values kept in a
 * small memory, the near-limit warnings of a new passed result, and its drift warnings. The
 * decisions are client/measurementWarnings.ts' (`warningsOf`, `isTestEarlier`) over
 * client/measurementTrend.ts' trend, so the alerts say what Get Measurement Warnings and Get
 * Measurement Trend say of the same results.
 *
 * The memory (one per device) keeps the device's latest TREND_RESULTS passed results since its
 * latest failed result (trendResultsOf's rule: a failed device was repaired or replaced), each
 * passed result counting whether or not it has a usable value of a step, and per step the values
 * of those results only (so a step left out of the latest results fits no older values, as Get
 * Measurement Trend fits it), ordered by test date then result id, whatever order they arrive
 * in; so a passed re-test on the day of a failure (a larger id) is kept, as trendResultsOf keeps
 * it. A result already kept is not added twice, so reading a result again (a run repeated after a crash) changes nothing.
 */

/** One kept value: [result id, test date YYYY-MM-DD, value, unit, low limit, high limit]. */
export type KeptPoint = [number, string, number, string | null, number | null, number | null];

export interface DeviceSeries {
	/** The latest failed result's test date: passed results before it (and on it, up to failedId) are not kept. */
	failedOn?: string;
	/** That failed result's id; absent (stored by earlier versions): the whole day counts as failed. */
	failedId?: number;
	/**
	 * The latest TREND_RESULTS passed results since the failure: [result id, test date], oldest
	 * first. Absent (stored by earlier versions): the results of the kept values stand for it.
	 */
	results?: KeptResult[];
	/** stepKey → kept values (of `results` only), oldest first. */
	steps: Record<string, KeptPoint[]>;
	/** The device's earlier results were read into it (the results poller's first-run backfill). */
	backfilled?: boolean;
}

/** One kept passed result: [result id, test date YYYY-MM-DD]. */
export type KeptResult = [number, string];

export const emptySeries = (): DeviceSeries => ({ results: [], steps: {} });

const before = (a: KeptResult | KeptPoint, b: KeptResult | KeptPoint) => (a[1] !== b[1] ? a[1] < b[1] : a[0] < b[0]);
const byTest = (a: KeptResult | KeptPoint, b: KeptResult | KeptPoint) => (before(a, b) ? -1 : before(b, a) ? 1 : 0);

/** The kept passed results; for a memory stored without them, those its kept values belong to. */
export function keptResults(series: DeviceSeries): KeptResult[] {
	if (series.results) return series.results;
	const byId = new Map<number, KeptResult>();
	for (const points of Object.values(series.steps)) for (const p of points) byId.set(p[0], [p[0], p[1]]);
	return [...byId.values()].sort(byTest);
}

/** Whether (date, id) comes after the series' latest failure, in trendResultsOf's order; a failure kept without its id takes its whole day. */
export function afterFailure(series: DeviceSeries, date: string, id: number): boolean {
	if (series.failedOn === undefined || date > series.failedOn) return true;
	return date === series.failedOn && series.failedId !== undefined && id > series.failedId;
}

/** The result as a failure: every kept value before it (by test date, then result id) is dropped. */
export function addFailedResult(series: DeviceSeries, testDate: string, id: number): DeviceSeries {
	if (epochDay(testDate) === undefined || !afterFailure(series, testDate, id)) return series;
	const after = (p: KeptResult | KeptPoint) => p[1] > testDate || (p[1] === testDate && p[0] > id);
	const steps: Record<string, KeptPoint[]> = {};
	for (const [key, points] of Object.entries(series.steps)) {
		const kept = points.filter(after);
		if (kept.length > 0) steps[key] = kept;
	}
	return { ...series, failedOn: testDate, failedId: id, results: keptResults(series).filter(after), steps };
}

/**
 * The series with a passed result added: it counts among the latest `max` passed results even
 * without a usable value; each step keeps the values of those results only.
 */
export function addPassedResult(series: DeviceSeries, result: { id: number; testDate: string; values: readonly StepValue[] }, max = TREND_RESULTS): DeviceSeries {
	if (epochDay(result.testDate) === undefined || !afterFailure(series, result.testDate, result.id)) return series;
	const known = keptResults(series);
	const results = known.some((r) => r[0] === result.id) ? known : [...known, [result.id, result.testDate] as KeptResult].sort(byTest).slice(-max);
	const ids = new Set(results.map((r) => r[0]));
	const steps: Record<string, KeptPoint[]> = {};
	for (const [key, points] of Object.entries(series.steps)) {
		const kept = points.filter((p) => ids.has(p[0]));
		if (kept.length > 0) steps[key] = kept;
	}
	if (ids.has(result.id)) {
		for (const v of result.values) {
			const key = stepKey(v);
			const points = steps[key] ?? [];
			if (points.some((p) => p[0] === result.id)) continue;
			steps[key] = [...points, [result.id, result.testDate, v.value, v.unit, v.lowLimit, v.highLimit] as KeptPoint].sort(byTest);
		}
	}
	return { ...series, results, steps };
}

/**
 * The memory without the given results (those uploaded after a result, as far as the caller knows):
 * as it stood when that result arrived. A run repeated after a crash meets its page's results kept
 * already, the later ones too; fitted to this, each gets the trend the first run gave it.
 */
export function withoutResults(series: DeviceSeries, ids: ReadonlySet<number>): DeviceSeries {
	if (ids.size === 0) return series;
	const steps: Record<string, KeptPoint[]> = {};
	for (const [key, points] of Object.entries(series.steps)) {
		const kept = points.filter((p) => !ids.has(p[0]));
		if (kept.length > 0) steps[key] = kept;
	}
	return { ...series, results: keptResults(series).filter((r) => !ids.has(r[0])), steps };
}

/** The kept values of one step as the trend reads them. */
export function keptPoints(points: readonly KeptPoint[]): TrendPoint[] {
	return points.map(([testResultId, testDate, value, unit, lowLimit, highLimit]) => ({ testResultId, testDate, value, unit, lowLimit, highLimit }));
}

export interface DriftWarning {
	testResultId: number;
	deviceId: number;
	step: string;
	measurement: string | null;
	/** YYYY-MM-DD */
	testDate: string;
	trend: MeasurementTrend;
	/** The day the trend's prediction bound reaches the limit. */
	predictedLimitDate: string;
	nextTestDate: string;
}

export interface ResultAlerts {
	/** Each measured step at or above the threshold (Get Measurement Warnings' items). */
	nearLimit: MeasurementWarning[];
	/** Each step whose trend reaches its limit before the device's next due date. */
	drift: DriftWarning[];
}

/**
 * The trends a new passed result's steps have in the device's memory (the result already added):
 * only the steps the result is the latest value of (a late upload of an older test says nothing
 * about now).
 */
export function trendsOfResult(series: DeviceSeries, result: { id: number; values: readonly StepValue[] }): Map<string, MeasurementTrend> {
	const out = new Map<string, MeasurementTrend>();
	for (const v of result.values) {
		const key = stepKey(v);
		const points = series.steps[key];
		if (!points || points[points.length - 1]?.[0] !== result.id) continue;
		out.set(key, measurementTrend(keptPoints(points)));
	}
	return out;
}

/** Whether a result's trends could give a drift warning: then, and only then, its device's next due date is needed. */
export const mayDrift = (trends: ReadonlyMap<string, MeasurementTrend>): boolean => [...trends.values()].some((t) => t.predictedLimitDate !== null);

/**
 * The alerts of a new passed result: near-limit warnings at or above `threshold`, and a drift
 * warning for each step whose prediction bound reaches its limit before `nextTestDate` (none
 * without a due date).
 */
export function resultAlerts(
	result: { id: number; deviceId: number; testDate: string; values: readonly StepValue[] },
	trends: ReadonlyMap<string, MeasurementTrend>,
	threshold: number,
	nextTestDate: string | null,
): ResultAlerts {
	const nearLimit = warningsOf(result, threshold, (key) => trends.get(key), nextTestDate);
	const drift: DriftWarning[] = [];
	for (const v of result.values) {
		const trend = trends.get(stepKey(v));
		if (!trend?.predictedLimitDate || nextTestDate === null || !isTestEarlier(trend.predictedLimitDate, nextTestDate)) continue;
		drift.push({ testResultId: result.id, deviceId: result.deviceId, step: v.step, measurement: v.measurement, testDate: result.testDate, trend, predictedLimitDate: trend.predictedLimitDate, nextTestDate });
	}
	return { nearLimit, drift };
}
