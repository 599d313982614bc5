import { ValidationError } from './errors';
import { stepKey, type LimitSide, type StepValue } from './measuredValues';
import { measurementTrend, type MeasurementTrend, type TrendPoint } from './measurementTrend';

/**
 * Warnings from measured values, pure: a measured step of a passed test at or above a share of
 * its limit (`near limit`), and, where the device's series has a trend, the day its prediction
 * bound reaches the limit and whether that comes before the device's next due date
 * (`testEarlier`). Rules: docs/compliance.md, "Warnings from measured values".
 */

export const DEFAULT_WARNING_THRESHOLD = 0.8;
export const DEFAULT_WARNING_DAYS = 30;
/** The device's latest passed results (since its latest failed one) a trend is fitted to. */
export const TREND_RESULTS = 5;

export function checkThreshold(threshold: unknown, parameter = 'threshold'): number {
	if (typeof threshold !== 'number' || !(threshold > 0 && threshold <= 1)) {
		throw new ValidationError(parameter, `must be a share of the limit above 0 and at most 1 (0.8 for 80 %), got ${JSON.stringify(threshold)}`);
	}
	return threshold;
}

export function checkDays(days: unknown, parameter = 'days'): number {
	if (typeof days !== 'number' || !Number.isSafeInteger(days) || days < 1 || days > 3660) {
		throw new ValidationError(parameter, `must be a whole number of days from 1 to 3660, got ${JSON.stringify(days)}`);
	}
	return days;
}

/** A test result as the warnings read it: its list record, and its measured values once its detail is read. */
export interface DeviceResult {
	id: number;
	/** YYYY-MM-DD */
	testDate: string;
	/** null: a status this version does not know (neither passed nor failed). */
	failed: boolean | null;
}

/**
 * The results a device's trend rests on: its passed results after its latest failed one (a failed
 * device was repaired or replaced, its earlier values describe another state), the latest `max`
 * of them, oldest first. Order: test date, then result id.
 */
export function trendResultsOf<R extends DeviceResult>(results: readonly R[], max = TREND_RESULTS): R[] {
	const ordered = [...results].sort((a, b) => (a.testDate < b.testDate ? -1 : a.testDate > b.testDate ? 1 : a.id - b.id));
	let start = 0;
	ordered.forEach((r, i) => {
		if (r.failed === true) start = i + 1;
	});
	return ordered.slice(start).filter((r) => r.failed === false).slice(-max);
}

/** The series of each step over results whose values are read, keyed by `stepKey`. */
export function seriesOf(results: ReadonlyArray<{ id: number; testDate: string; values: readonly StepValue[] }>): Map<string, TrendPoint[]> {
	const series = new Map<string, TrendPoint[]>();
	for (const r of results) {
		for (const v of r.values) {
			const key = stepKey(v);
			const list = series.get(key) ?? [];
			list.push({ testResultId: r.id, testDate: r.testDate, value: v.value, unit: v.unit, lowLimit: v.lowLimit, highLimit: v.highLimit });
			series.set(key, list);
		}
	}
	return series;
}

/** A predicted limit day before the next due date: test earlier. No due date, no such warning. */
export function isTestEarlier(predictedLimitDate: string | null, nextTestDate: string | null): boolean {
	return predictedLimitDate !== null && nextTestDate !== null && predictedLimitDate < nextTestDate;
}

export interface MeasurementWarning {
	testResultId: number;
	deviceId: number;
	step: string;
	measurement: string | null;
	value: number;
	unit: string | null;
	lowLimit: number | null;
	highLimit: number | null;
	limitUsed: number;
	limitSide: LimitSide;
	/** YYYY-MM-DD */
	testDate: string;
	/** The trend's predicted limit day, where the device's series has a trend reaching a limit. */
	predictedLimitDate: string | null;
	nextTestDate: string | null;
	testEarlier: boolean;
}

/** The warnings of one passed result: each measured step at or above `threshold`. */
export function warningsOf(
	result: { id: number; deviceId: number; testDate: string; values: readonly StepValue[] },
	threshold: number,
	trendOf: (key: string) => MeasurementTrend | undefined,
	nextTestDate: string | null,
): MeasurementWarning[] {
	return result.values
		.filter((v) => v.limitUsed >= threshold)
		.map((v) => {
			const predictedLimitDate = trendOf(stepKey(v))?.predictedLimitDate ?? null;
			return {
				testResultId: result.id,
				deviceId: result.deviceId,
				step: v.step,
				measurement: v.measurement,
				value: v.value,
				unit: v.unit,
				lowLimit: v.lowLimit,
				highLimit: v.highLimit,
				limitUsed: v.limitUsed,
				limitSide: v.limitSide,
				testDate: result.testDate,
				predictedLimitDate,
				nextTestDate,
				testEarlier: isTestEarlier(predictedLimitDate, nextTestDate),
			};
		});
}

/** Each step's trend over the series of a device. */
export function trendsOf(series: ReadonlyMap<string, TrendPoint[]>): Map<string, MeasurementTrend> {
	return new Map([...series].map(([key, points]) => [key, measurementTrend(points)]));
}
