import { dayOfEpochDay, epochDay } from './dates';
import type { LimitSide } from './measuredValues';
import { studentTQuantile } from './studentT';

/**
 * The trend of one device's measured values of one step, pure: the ordinary least-squares line of
 * the value over the test day, its one-sided prediction bound for the next reading, and the first
 * day that bound reaches the limit.
 *
 * With n points (x = epoch day, y = value), x̄, Sxx = Σ(x − x̄)², slope b = Σ(x − x̄)(y − ȳ) / Sxx,
 * s = √(Σ residual² / (n − 2)), the one-sided bound at confidence c for a new reading on day x₀ is
 *   ŷ(x₀) ± t(c; n − 2) · s · √(1 + 1/n + (x₀ − x̄)² / Sxx)
 * (+ against an upper limit, − against a lower one; Montgomery, Peck & Vining, Introduction to
 * Linear Regression Analysis, eq. 2.45, one-sided). t comes from client/studentT.ts.
 *
 * Rules (docs/compliance.md, "Warnings from measured values"):
 * - a trend needs MIN_TREND_POINTS results on different days; of two results on one day the later
 *   one (the larger result id) counts, the other is counted as `sameDay`;
 * - the values must share one unit: a series whose unit changes has no trend (`unitChanged`);
 *   no unit is converted;
 * - the limits are the latest result's (the ones in force now); with both, each side is checked
 *   and the earlier day counts;
 * - a limit day is predicted only when the fitted line moves toward that limit (rising toward an
 *   upper, falling toward a lower one): a bound that reaches a limit only because it widens far
 *   from the data is no drift; it is searched from the latest result's day for
 *   MAX_HORIZON_DAYS; on that day itself when the bound is already there;
 * - a flat line moves toward neither limit: the fit is computed on the differences from the first
 *   value, so a constant series has slope 0 exactly, and a line that moves by at most FLAT_SHARE
 *   (1e-12) of the largest value over the series (values that differ only in their last digits) is
 *   flat too;
 * - values so large (or so spread) that a sum, the slope, the residual SD or a bound is not a finite
 *   number (beyond about 1e154, squares overflow) have no trend (`notComputable`): a limit day is
 *   never given without the bound it rests on.
 */

export const MIN_TREND_POINTS = 3;
export const TREND_CONFIDENCE = 0.95;
/** How far ahead a limit day is looked for: 10 years, longer than any DGUV V3 interval. */
export const MAX_HORIZON_DAYS = 3653;
/** A fitted line that moves at most this share of the largest value over the series is flat. */
export const FLAT_SHARE = 1e-12;

export interface TrendPoint {
	testResultId: number;
	/** YYYY-MM-DD */
	testDate: string;
	value: number;
	unit: string | null;
	lowLimit: number | null;
	highLimit: number | null;
}

export interface LinearFit {
	points: number;
	/** Change of the value per day. */
	slopePerDay: number;
	/** The fitted value on the latest result's day. */
	fittedAtLast: number;
	/** Residual standard deviation s (n − 2 degrees of freedom). */
	residualSd: number;
	meanDay: number;
	sxx: number;
	/** t(confidence; n − 2). */
	tQuantile: number;
}

export type NoTrendReason = 'tooFewResults' | 'unitChanged' | 'notComputable';

export interface MeasurementTrend {
	/** The points used, oldest first (one per day). */
	points: TrendPoint[];
	sameDay: number;
	fit: LinearFit | null;
	noTrend: NoTrendReason | null;
	unit: string | null;
	lowLimit: number | null;
	highLimit: number | null;
	/** The first day the prediction bound reaches a limit (YYYY-MM-DD), or null. */
	predictedLimitDate: string | null;
	/** The limit it reaches. */
	predictedLimitSide: LimitSide | null;
	/** The bound on the latest result's day (the side of the binding limit). */
	boundAtLast: number | null;
}

/** OLS fit of y over x with the t quantile for the one-sided bound (n ≥ 3, x not all equal). */
export function linearFit(xs: readonly number[], ys: readonly number[], confidence = TREND_CONFIDENCE): LinearFit & { intercept: number } {
	const n = xs.length;
	const mx = xs.reduce((a, b) => a + b, 0) / n;
	// The values as differences from the first one: a constant series is all zeros and has slope 0
	// exactly (its own mean, rounded, differs from it in the last digit and gave a slope of ±1e-33).
	const y0 = ys[0];
	const dy = ys.map((y) => y - y0);
	const mdy = dy.reduce((a, b) => a + b, 0) / n;
	const my = y0 + mdy;
	let sxx = 0;
	let sxy = 0;
	for (let i = 0; i < n; i++) {
		sxx += (xs[i] - mx) ** 2;
		sxy += (xs[i] - mx) * (dy[i] - mdy);
	}
	const slope = sxy / sxx;
	let sse = 0;
	for (let i = 0; i < n; i++) sse += (dy[i] - mdy - slope * (xs[i] - mx)) ** 2;
	const last = Math.max(...xs);
	return {
		points: n,
		slopePerDay: slope,
		intercept: my - slope * mx,
		fittedAtLast: my + slope * (last - mx),
		residualSd: Math.sqrt(sse / (n - 2)),
		meanDay: mx,
		sxx,
		tQuantile: studentTQuantile(confidence, n - 2),
	};
}

/** The fitted value on day x. */
export function fittedAt(fit: LinearFit, x: number, lastDay: number): number {
	return fit.fittedAtLast + fit.slopePerDay * (x - lastDay);
}

/** The one-sided prediction bound for a new reading on day x: above the fit (`high`) or below it (`low`). */
export function predictionBound(fit: LinearFit, x: number, lastDay: number, side: LimitSide): number {
	const half = fit.tQuantile * fit.residualSd * Math.sqrt(1 + 1 / fit.points + (x - fit.meanDay) ** 2 / fit.sxx);
	const y = fittedAt(fit, x, lastDay);
	return side === 'high' ? y + half : y - half;
}

/** Every number of the fit is finite (an overflowed sum gives Infinity or NaN, never an error). */
function isFiniteFit(fit: LinearFit & { intercept: number }): boolean {
	return [fit.slopePerDay, fit.intercept, fit.fittedAtLast, fit.residualSd, fit.meanDay, fit.sxx, fit.tQuantile].every(Number.isFinite);
}

/**
 * The first day from the latest result's on which the bound reaches `limit` (within the horizon),
 * undefined when none does, null when a bound it looked at is not a finite number.
 */
function firstLimitDay(fit: LinearFit, lastDay: number, side: LimitSide, limit: number): number | undefined | null {
	let finite = true;
	// Beyond the limit is convex in x (a line plus a widening square root), so it is crossed once after a day below it.
	const beyond = (x: number) => {
		const bound = predictionBound(fit, x, lastDay, side);
		if (!Number.isFinite(bound)) finite = false;
		return side === 'high' ? bound - limit : limit - bound;
	};
	if (beyond(lastDay) >= 0) return finite ? lastDay : null;
	let hi = lastDay + MAX_HORIZON_DAYS;
	if (beyond(hi) < 0) return finite ? undefined : null;
	let lo = lastDay;
	while (hi - lo > 1) {
		const mid = Math.floor((lo + hi) / 2);
		if (beyond(mid) >= 0) hi = mid;
		else lo = mid;
	}
	return finite ? hi : null;
}

/** The trend of one series (points in any order, possibly several on one day). */
export function measurementTrend(input: readonly TrendPoint[], confidence = TREND_CONFIDENCE): MeasurementTrend {
	const byDay = new Map<number, TrendPoint>();
	let sameDay = 0;
	for (const p of input) {
		const day = epochDay(p.testDate);
		if (day === undefined || !Number.isFinite(p.value)) continue;
		const before = byDay.get(day);
		if (before) sameDay++;
		if (!before || p.testResultId > before.testResultId) byDay.set(day, p);
	}
	const days = [...byDay.keys()].sort((a, b) => a - b);
	const points = days.map((d) => byDay.get(d)!);
	const latest = points[points.length - 1];
	const base = {
		points,
		sameDay,
		unit: latest?.unit ?? null,
		lowLimit: latest?.lowLimit ?? null,
		highLimit: latest?.highLimit ?? null,
		predictedLimitDate: null,
		predictedLimitSide: null,
		boundAtLast: null,
	};
	if (points.some((p) => p.unit !== latest.unit)) return { ...base, fit: null, noTrend: 'unitChanged' };
	if (points.length < MIN_TREND_POINTS) return { ...base, fit: null, noTrend: 'tooFewResults' };
	const fit = linearFit(days, points.map((p) => p.value), confidence);
	const notComputable = { ...base, fit: null, noTrend: 'notComputable' as const };
	if (!isFiniteFit(fit)) return notComputable;
	const lastDay = days[days.length - 1];
	// A line that moves less than rounding over the whole series is flat: toward neither limit.
	const flat = Math.abs(fit.slopePerDay) * (lastDay - days[0]) <= FLAT_SHARE * Math.max(...points.map((p) => Math.abs(p.value)));
	const sides: Array<[LimitSide, number | null]> = [
		['high', latest.highLimit],
		['low', latest.lowLimit],
	];
	let best: { day: number; side: LimitSide } | undefined;
	for (const [side, limit] of sides) {
		if (limit === null) continue;
		const toward = !flat && (side === 'high' ? fit.slopePerDay > 0 : fit.slopePerDay < 0);
		const day = toward ? firstLimitDay(fit, lastDay, side, limit) : undefined;
		if (day === null) return notComputable;
		if (day !== undefined && (best === undefined || day < best.day)) best = { day, side };
	}
	const boundSide: LimitSide | null = best?.side ?? (latest.highLimit !== null ? 'high' : latest.lowLimit !== null ? 'low' : null);
	const boundAtLast = boundSide === null ? null : predictionBound(fit, lastDay, lastDay, boundSide);
	if (boundAtLast !== null && !Number.isFinite(boundAtLast)) return notComputable;
	return {
		...base,
		fit,
		noTrend: null,
		predictedLimitDate: best ? dayOfEpochDay(best.day) : null,
		predictedLimitSide: best?.side ?? null,
		boundAtLast,
	};
}
