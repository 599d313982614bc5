/**
 * Warnings from measured values, pure: the share of a limit used, the reader's rules for bad
 * measurements, the least-squares trend and its one-sided prediction bound (against Montgomery's
 * worked example and an independent day-by-day scan), the results a trend rests on, and the
 * outlier devices.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
	addDays,
	epochDay,
	isTestEarlier,
	limitShare,
	linearFit,
	measuredValuesOf,
	measurementTrend,
	outlierDevices,
	predictionBound,
	trendResultsOf,
	warningsOf,
	type TrendPoint,
} from '../../client';

const step = (name: string, measurements: unknown[]) => ({ step: 1, name, status: 'passed', measurements });
const m = (value: unknown, low: unknown, high: unknown, unit: unknown = 'Ω', name: unknown = 'R') => ({ name, value, unit, low_limit: low, high_limit: high, passed: true });

describe('share of the limit used', () => {
	it('value ÷ upper limit; lower limit ÷ value; with both limits the nearer one binds', () => {
		expect(limitShare(0.24, null, 0.3)).toEqual({ limitUsed: 0.8, limitSide: 'high' });
		expect(limitShare(2, 1, null)).toEqual({ limitUsed: 0.5, limitSide: 'low' });
		expect(limitShare(0, null, 3.5)).toEqual({ limitUsed: 0, limitSide: 'high' });
		expect(limitShare(9, 2, 10)).toEqual({ limitUsed: 0.9, limitSide: 'high' });
		expect(limitShare(2.5, 2, 10)).toEqual({ limitUsed: 0.8, limitSide: 'low' });
	});

	it('bad limits and values are named, never a share: no limit, a limit not above 0, lower not under upper, a negative value, zero against a lower limit', () => {
		expect(limitShare(1, null, null)).toBe('noLimit');
		expect(limitShare(1, 0, null)).toBe('invalidLimit');
		expect(limitShare(1, null, -2)).toBe('invalidLimit');
		expect(limitShare(1, 5, 5)).toBe('invalidLimit');
		expect(limitShare(-0.1, null, 0.3)).toBe('nonPositiveValue');
		expect(limitShare(0, 1, null)).toBe('nonPositiveValue');
	});

	it('rises with the value toward an upper limit, falls with it above a lower one, and is 1 exactly at the limit', () => {
		const pos = fc.double({ min: 1e-6, max: 1e6, noNaN: true });
		fc.assert(
			fc.property(pos, pos, pos, (a, b, limit) => {
				const [lo, hi] = a <= b ? [a, b] : [b, a];
				const up = (v: number) => (limitShare(v, null, limit) as { limitUsed: number }).limitUsed;
				const down = (v: number) => (limitShare(v, limit, null) as { limitUsed: number }).limitUsed;
				expect(up(lo)).toBeLessThanOrEqual(up(hi));
				expect(down(lo)).toBeGreaterThanOrEqual(down(hi));
				expect(up(limit)).toBe(1);
				expect(down(limit)).toBe(1);
			}),
		);
	});
});

describe('reading the measured values of a detailed result', () => {
	it('keeps each usable measurement with its own limits and counts every bad one by its reason', () => {
		const detail = {
			steps: [
				step('Visual inspection', []),
				step('Protective conductor resistance', [m(0.26, null, 0.3)]),
				step('Insulation resistance', [m('2.5', 1, null, 'MΩ')]),
				step('No value', [m(null, null, 0.3)]),
				step('Text value', [m('about 3', null, 0.3), m('0,12', null, 0.3), m(true, null, 0.3)]),
				step('No limit', [m(0.2, null, null)]),
				step('Zero limit', [m(0.2, 0, null), m(0.2, 'x', null)]),
				step('Window', [m(5, 6, 4)]),
				step('Negative', [m(-1, null, 0.3), m(0, 1, null)]),
				{ step: 9, name: null, measurements: [{ value: 1, high_limit: 2 }] },
				step('Protective conductor resistance', [m(0.29, null, 0.3)]),
				'not a step',
				{ name: 'No measurements list' },
			],
		};
		const { values, skipped } = measuredValuesOf(detail);
		expect(values).toEqual([
			{ step: 'Protective conductor resistance', measurement: 'R', value: 0.29, unit: 'Ω', lowLimit: null, highLimit: 0.3, limitUsed: Math.round((0.29 / 0.3) * 1e12) / 1e12, limitSide: 'high' },
			{ step: 'Insulation resistance', measurement: 'R', value: 2.5, unit: 'MΩ', lowLimit: 1, highLimit: null, limitUsed: 0.4, limitSide: 'low' },
		]);
		expect(skipped).toEqual({ noValue: 1, nonNumericValue: 3, noLimit: 1, invalidLimit: 3, nonPositiveValue: 2, repeated: 1, noName: 1 });
	});

	it('never throws, whatever the detail holds, and every value it keeps has a finite share', () => {
		fc.assert(
			fc.property(fc.anything(), fc.array(fc.record({ name: fc.anything(), measurements: fc.array(fc.record({ value: fc.anything(), low_limit: fc.anything(), high_limit: fc.anything(), unit: fc.anything() })) })), (junk, steps) => {
				expect(() => measuredValuesOf(junk)).not.toThrow();
				for (const v of measuredValuesOf({ steps }).values) expect(Number.isFinite(v.limitUsed)).toBe(true);
			}),
		);
	});
});

describe('values and limits at the ends of the number line', () => {
	// Numbers and numeric texts with exponents far beyond a double's range: "1e999" overflows to
	// Infinity, "1e-999" underflows to 0, and 1e308 against 1e-300 is a finite value whose share is not.
	const exponent = fc.integer({ min: -400, max: 400 });
	const numericText = fc.oneof(
		fc.tuple(fc.integer({ min: -9, max: 9 }), fc.integer({ min: 0, max: 99 }), exponent).map(([i, f, e]) => `${i}.${f}e${e}`),
		fc.tuple(fc.nat(99), exponent).map(([i, e]) => `${i}E+${e}`.replace('+-', '-')),
		fc.double().map(String),
	);
	const numeric = fc.oneof(fc.double(), fc.constantFrom(1e308, -1e308, 5e-324, 1e-300, Number.MAX_VALUE, Number.MIN_VALUE), numericText, fc.constantFrom('1e999', '-1e999', '1e-999', 'Infinity', 'NaN', null));

	it('every value and share that comes out is finite, and every measurement is either used or counted as skipped', () => {
		fc.assert(
			fc.property(fc.array(fc.record({ value: numeric, low_limit: numeric, high_limit: numeric }), { maxLength: 6 }), (ms) => {
				const steps = ms.map((x, i) => step(`S${i}`, [m(x.value, x.low_limit, x.high_limit)]));
				const { values, skipped } = measuredValuesOf({ steps });
				expect(values.length + Object.values(skipped).reduce((a, b) => a + b, 0)).toBe(ms.length);
				for (const v of values) for (const n of [v.value, v.limitUsed, v.lowLimit ?? 0, v.highLimit ?? 0]) expect(Number.isFinite(n)).toBe(true);
			}),
		);
	});

	it('a text that overflows ("1e999") is not a number; one that underflows ("1e-999") is 0; a share too large to be a number is not given', () => {
		const read = (value: unknown, low: unknown, high: unknown) => measuredValuesOf({ steps: [step('S', [m(value, low, high)])] });
		expect(read('1e999', null, 0.3)).toEqual({ values: [], skipped: { ...read(null, null, 0.3).skipped, noValue: 0, nonNumericValue: 1 } });
		expect(read('-1e999', null, 0.3).skipped.nonNumericValue).toBe(1);
		expect(read(0.2, '1e999', null).skipped.invalidLimit).toBe(1);
		expect(read(0.2, null, '1e999').skipped.invalidLimit).toBe(1);
		expect(read('1e-999', null, 0.3).values[0]).toMatchObject({ value: 0, limitUsed: 0 });
		expect(read('1e-999', 1, null).skipped.nonPositiveValue).toBe(1);
		expect(limitShare(1e308, null, 1e-300)).toBe('invalidLimit');
		expect(limitShare(1e-300, 1e300, null)).toBe('invalidLimit');
		fc.assert(
			fc.property(fc.double({ noNaN: true }), fc.option(fc.double({ noNaN: true })), fc.option(fc.double({ noNaN: true })), (value, low, high) => {
				const share = limitShare(value, low, high);
				if (typeof share !== 'string') expect(Number.isFinite(share.limitUsed)).toBe(true);
			}),
		);
	});
});

// Montgomery, Peck & Vining, Introduction to Linear Regression Analysis (5th ed.), Table 2.1, the
// rocket propellant data (x: age of the propellant in weeks, y: shear strength in psi), Example 2.1
// (ŷ = 2627.82 − 37.15x, Sxx = 1106.56, Sxy = −41,112.65) and Example 2.7: the 95 % prediction
// interval at x₀ = 10 weeks is 2048.32 ≤ y₀ ≤ 2464.32. The book rounds the coefficients before
// it predicts (ŷ₀ = 2256.32, MSE = 9244.59 from the rounded slope); unrounded the ends are
// 2048.38 and 2464.19, so the book's ends are matched within 0.15 psi.
const PROPELLANT_X = [15.5, 23.75, 8, 17, 5.5, 19, 24, 2.5, 7.5, 11, 13, 3.75, 25, 9.75, 22, 18, 6, 12.5, 2, 21.5];
const PROPELLANT_Y = [2158.7, 1678.15, 2316, 2061.3, 2207.5, 1708.3, 1784.7, 2575, 2357.9, 2256.7, 2165.2, 2399.55, 1779.8, 2336.75, 1765.3, 2053.5, 2414.4, 2200.5, 2654.2, 1753.7];

describe('least-squares trend and its prediction bound', () => {
	it('reproduces Montgomery’s rocket propellant example: the fit and the 95 % prediction interval at 10 weeks', () => {
		// A two-sided 95 % interval is the two one-sided bounds at 97.5 %.
		const fit = linearFit(PROPELLANT_X, PROPELLANT_Y, 0.975);
		expect(fit.intercept).toBeCloseTo(2627.82, 2);
		expect(fit.slopePerDay).toBeCloseTo(-37.15, 2);
		expect(fit.sxx).toBeCloseTo(1106.56, 2);
		expect(fit.slopePerDay * fit.sxx).toBeCloseTo(-41112.65, 1);
		expect(fit.tQuantile).toBeCloseTo(2.101, 3);
		const last = Math.max(...PROPELLANT_X);
		const low = predictionBound(fit, 10, last, 'low');
		const high = predictionBound(fit, 10, last, 'high');
		expect(Math.abs(low - 2048.32)).toBeLessThan(0.15);
		expect(Math.abs(high - 2464.32)).toBeLessThan(0.15);
	});

	const points = (values: number[], days: number[], limits: { low?: number; high?: number } = { high: 0.3 }, unit = 'Ω'): TrendPoint[] =>
		values.map((value, i) => ({ testResultId: i + 1, testDate: addDays('2024-01-01', days[i]), value, unit, lowLimit: limits.low ?? null, highLimit: limits.high ?? null }));

	it('predicts the first day the one-sided 95 % bound reaches an upper limit, as a day-by-day scan with the t-table’s t(0.95; 2) finds it', () => {
		const days = [0, 180, 360, 540];
		const values = [0.1, 0.15, 0.21, 0.24];
		const trend = measurementTrend(points(values, days));
		// Independent: sums written out, t(0.95; 2) = 2.920 closed form, every day scanned.
		const n = 4;
		const mx = days.reduce((a, b) => a + b) / n;
		const my = values.reduce((a, b) => a + b) / n;
		const sxx = days.reduce((a, x) => a + (x - mx) ** 2, 0);
		const b = days.reduce((a, x, i) => a + (x - mx) * (values[i] - my), 0) / sxx;
		const s = Math.sqrt(days.reduce((a, x, i) => a + (values[i] - my - b * (x - mx)) ** 2, 0) / (n - 2));
		const t = 0.9 / Math.sqrt(2 * 0.95 * 0.05);
		let day = 540;
		while (my + b * (day - mx) + t * s * Math.sqrt(1 + 1 / n + (day - mx) ** 2 / sxx) < 0.3) day++;
		expect(trend.noTrend).toBeNull();
		expect(trend.fit!.tQuantile).toBeCloseTo(2.92, 3);
		expect(trend.predictedLimitDate).toBe(addDays('2024-01-01', day));
		expect(trend.predictedLimitSide).toBe('high');
		expect(day).toBeGreaterThan(540);
	});

	it('insulation resistance falling from 400 MΩ to 3 MΩ over three passed tests: the lower bound is at the 1 MΩ limit already on the last test’s day', () => {
		const trend = measurementTrend(points([400, 200, 3], [0, 366, 731], { low: 1 }, 'MΩ'));
		expect(trend.predictedLimitDate).toBe('2026-01-01');
		expect(trend.predictedLimitSide).toBe('low');
		expect(isTestEarlier(trend.predictedLimitDate, '2027-01-01')).toBe(true);
		expect(isTestEarlier(trend.predictedLimitDate, null)).toBe(false);
	});

	it('no limit day for a series moving away from its limit, or level: the bound widening far from the data is no drift', () => {
		expect(measurementTrend(points([0.25, 0.2, 0.15], [0, 365, 730])).predictedLimitDate).toBeNull();
		expect(measurementTrend(points([0.2, 0.2, 0.2], [0, 365, 730])).predictedLimitDate).toBeNull();
		expect(measurementTrend(points([2, 5, 9], [0, 365, 730], { low: 1 }, 'MΩ')).predictedLimitDate).toBeNull();
	});

	it('a flat series has no slope: a constant series at, below or above either limit never predicts a day (rounding once gave 0.7 MΩ on three days at a 0.7 MΩ lower limit a slope of −6e−33 and its last day)', () => {
		// 2024-01-10, 2024-07-10, 2025-01-10.
		const days = [9, 191, 375];
		const atLow = measurementTrend(points([0.7, 0.7, 0.7], days, { low: 0.7 }, 'MΩ'));
		expect(atLow).toMatchObject({ noTrend: null, predictedLimitDate: null, predictedLimitSide: null });
		expect(Math.abs(atLow.fit!.slopePerDay)).toBe(0);
		for (const limits of [{ low: 0.7 }, { high: 0.7 }, { low: 0.5, high: 0.9 }, { low: 0.7, high: 0.7 }]) {
			for (const value of [0.7, 0.5, 0.9, 0.1 + 0.2, 0.30000000000000004, 1e-9, 123456.789]) {
				const trend = measurementTrend(points([value, value, value, value], [...days, 500], limits, 'MΩ'));
				expect(Math.abs(trend.fit!.slopePerDay), `${value} ${JSON.stringify(limits)}`).toBe(0);
				expect(trend.predictedLimitDate, `${value} ${JSON.stringify(limits)}`).toBeNull();
			}
		}
		// Values that differ only in their last digit are flat too: no drift rests on rounding.
		const lastDigit = measurementTrend(points([0.7, 0.7000000000000001, 0.7], days, { low: 0.7 }, 'MΩ'));
		expect(lastDigit.predictedLimitDate).toBeNull();
		const lastDigitHigh = measurementTrend(points([0.3, 0.29999999999999993, 0.3], days, { high: 0.3 }));
		expect(lastDigitHigh.predictedLimitDate).toBeNull();
	});

	it('properties: a constant series never predicts a day, whatever its value, days and limits; adding a constant to every value changes the slope by no more than rounding', () => {
		const dayList = fc.uniqueArray(fc.integer({ min: 0, max: 4000 }), { minLength: 3, maxLength: 8 });
		const limit = fc.option(fc.double({ min: 1e-6, max: 1e6, noNaN: true }), { nil: null });
		fc.assert(
			fc.property(dayList, fc.double({ min: -1e6, max: 1e6, noNaN: true }), limit, limit, (days, value, low, high) => {
				const trend = measurementTrend(days.map((d, i) => ({ testResultId: i + 1, testDate: addDays('2020-01-01', d), value, unit: 'Ω', lowLimit: low, highLimit: high })));
				expect(Math.abs(trend.fit!.slopePerDay)).toBe(0);
				expect(trend.predictedLimitDate).toBeNull();
			}),
			{ numRuns: 300 },
		);
		const value = fc.double({ min: -1e6, max: 1e6, noNaN: true });
		fc.assert(
			fc.property(dayList, fc.array(value, { minLength: 8, maxLength: 8 }), value, (days, values, shift) => {
				const ys = days.map((_, i) => values[i]);
				const size = Math.max(...ys.map(Math.abs)) + Math.abs(shift);
				const slope = linearFit(days, ys).slopePerDay;
				const shifted = linearFit(days, ys.map((y) => y + shift)).slopePerDay;
				expect(Math.abs(shifted - slope)).toBeLessThanOrEqual(1e-12 * size);
			}),
			{ numRuns: 300 },
		);
	});

	it('bad series: fewer than three days, two results on one day (the later id counts), a unit that changes', () => {
		const few = measurementTrend(points([0.1, 0.2], [0, 365]));
		expect(few).toMatchObject({ noTrend: 'tooFewResults', fit: null, predictedLimitDate: null });
		const sameDay = points([0.1, 0.15, 0.5, 0.21], [0, 180, 180, 360]);
		const trend = measurementTrend(sameDay);
		expect(trend.sameDay).toBe(1);
		expect(trend.points.map((p) => p.value)).toEqual([0.1, 0.5, 0.21]);
		const twoDays = measurementTrend(points([0.1, 0.2, 0.25], [0, 0, 365]));
		expect(twoDays.noTrend).toBe('tooFewResults');
		const units = points([100, 90, 80], [0, 365, 730], { low: 1 }, 'MΩ');
		units[1] = { ...units[1], unit: 'kΩ', value: 90_000 };
		expect(measurementTrend(units)).toMatchObject({ noTrend: 'unitChanged', predictedLimitDate: null });
	});

	it('values so large that the sums overflow (around 1e200): no trend (`notComputable`), never a limit day without its bound', () => {
		const trend = measurementTrend(points([1e200, 1.5e200, 2.1e200], [0, 365, 730], { high: 2.5e200 }, 'Ω'));
		expect(trend).toMatchObject({ noTrend: 'notComputable', fit: null, predictedLimitDate: null, predictedLimitSide: null, boundAtLast: null });
		expect(trend.points).toHaveLength(3);
		// The same series scaled down has a trend: it is the size of the numbers, not the series.
		expect(measurementTrend(points([1, 1.5, 2.1], [0, 365, 730], { high: 2.5 }, 'Ω'))).toMatchObject({ noTrend: null, predictedLimitSide: 'high' });
	});

	it('properties, over values and limits across the whole finite range: nothing throws, a fit has only finite numbers, and every limit day comes with a finite bound', () => {
		const finite = fc.double({ noNaN: true, noDefaultInfinity: true });
		const limit = fc.option(fc.double({ min: Number.MIN_VALUE, max: Number.MAX_VALUE, noNaN: true }), { nil: null });
		const series = fc.array(fc.tuple(fc.integer({ min: 0, max: 4000 }), finite), { minLength: 3, maxLength: 8 });
		fc.assert(
			fc.property(series, limit, limit, (raw, lowLimit, highLimit) => {
				const trend = measurementTrend(raw.map(([day, value], i) => ({ testResultId: i + 1, testDate: addDays('2020-01-01', day), value, unit: 'Ω', lowLimit, highLimit })));
				expect(trend.fit === null).toBe(trend.noTrend !== null);
				if (trend.fit === null) {
					expect(trend).toMatchObject({ predictedLimitDate: null, predictedLimitSide: null, boundAtLast: null });
					return;
				}
				for (const v of Object.values(trend.fit)) expect(Number.isFinite(v), JSON.stringify(trend.fit)).toBe(true);
				if (trend.boundAtLast !== null) expect(Number.isFinite(trend.boundAtLast)).toBe(true);
				if (trend.predictedLimitDate === null) return;
				const last = epochDay(trend.points[trend.points.length - 1].testDate)!;
				expect(Number.isFinite(trend.boundAtLast)).toBe(true);
				expect(Number.isFinite(predictionBound(trend.fit, epochDay(trend.predictedLimitDate)!, last, trend.predictedLimitSide!))).toBe(true);
			}),
			{ numRuns: 500 },
		);
		expect(fc.sample(finite, 1000).some((v) => Math.abs(v) > 1e200)).toBe(true);
	});

	it('the limits are the latest result’s: a limit lowered by a new standard moves the limit day', () => {
		const old = points([0.1, 0.15, 0.21, 0.24], [0, 180, 360, 540], { high: 1 });
		const lowered = old.map((p, i) => (i === 3 ? { ...p, highLimit: 0.3 } : p));
		expect(measurementTrend(old).predictedLimitDate).not.toBe(measurementTrend(lowered).predictedLimitDate);
		expect(measurementTrend(lowered).highLimit).toBe(0.3);
	});

	it('properties: the upper bound is above the fit, the lower below it, and the limit day is the first day the bound reaches the limit', () => {
		const series = fc.array(fc.tuple(fc.integer({ min: 0, max: 2000 }), fc.double({ min: 0.01, max: 0.29, noNaN: true })), { minLength: 3, maxLength: 8 });
		fc.assert(
			fc.property(series, (raw) => {
				const trend = measurementTrend(raw.map(([day, value], i) => ({ testResultId: i + 1, testDate: addDays('2020-01-01', day), value, unit: 'Ω', lowLimit: null, highLimit: 0.3 })));
				if (trend.fit === null) return;
				const last = epochDay(trend.points[trend.points.length - 1].testDate)!;
				for (const x of [last - 500, last, last + 100, last + 5000]) {
					const fitted = trend.fit.fittedAtLast + trend.fit.slopePerDay * (x - last);
					expect(predictionBound(trend.fit, x, last, 'high')).toBeGreaterThanOrEqual(fitted);
					expect(predictionBound(trend.fit, x, last, 'low')).toBeLessThanOrEqual(fitted);
				}
				if (trend.predictedLimitDate === null) return;
				expect(trend.fit.slopePerDay).toBeGreaterThan(0);
				const day = epochDay(trend.predictedLimitDate)!;
				expect(predictionBound(trend.fit, day, last, 'high')).toBeGreaterThanOrEqual(0.3);
				if (day > last) expect(predictionBound(trend.fit, day - 1, last, 'high')).toBeLessThan(0.3);
			}),
		);
	});
});

describe('the results a trend rests on, and the warnings of a result', () => {
	it('the passed results after the latest failed one, the latest five, oldest first; unknown statuses left out', () => {
		const r = (id: number, testDate: string, failed: boolean | null) => ({ id, testDate, failed });
		const history = [r(1, '2020-01-01', false), r(2, '2021-01-01', true), r(3, '2021-01-01', false), r(4, '2022-01-01', null), r(9, '2023-01-01', false), r(5, '2024-01-01', false), r(6, '2025-01-01', false), r(7, '2025-06-01', false), r(8, '2026-01-01', false)];
		expect(trendResultsOf(history).map((x) => x.id)).toEqual([9, 5, 6, 7, 8]);
		expect(trendResultsOf(history, 10).map((x) => x.id)).toEqual([3, 9, 5, 6, 7, 8]);
		expect(trendResultsOf([...history, r(10, '2026-02-01', true)])).toEqual([]);
	});

	it('one warning per measured step at or above the threshold, with the trend’s limit day and test-earlier against the next due date', () => {
		const values = measuredValuesOf({ steps: [step('PE resistance', [m(0.24, null, 0.3)]), step('Insulation', [m(1.3, 1, null, 'MΩ')]), step('Current', [m(1, null, 3.5, 'mA')])] }).values;
		const result = { id: 7, deviceId: 3, testDate: '2026-11-02', values };
		const trendOf = (key: string) => (key.startsWith('PE') ? ({ predictedLimitDate: '2027-03-01' } as ReturnType<typeof measurementTrend>) : undefined);
		const warnings = warningsOf(result, 0.8, trendOf, '2027-11-02');
		// 0.24 Ω of 0.3 Ω is exactly 80 %: at the threshold; 1 MΩ of 1.3 MΩ is 76.9 %: below it.
		expect(warnings).toEqual([
			{ testResultId: 7, deviceId: 3, step: 'PE resistance', measurement: 'R', value: 0.24, unit: 'Ω', lowLimit: null, highLimit: 0.3, limitUsed: 0.8, limitSide: 'high', testDate: '2026-11-02', predictedLimitDate: '2027-03-01', nextTestDate: '2027-11-02', testEarlier: true },
		]);
		expect(warningsOf(result, 0.7, trendOf, null).map((w) => w.step)).toEqual(['PE resistance', 'Insulation']);
		expect(warningsOf(result, 0.7, trendOf, null)[0].testEarlier).toBe(false);
	});
});

describe('outlier devices', () => {
	const results = (deviceId: number, tests: number, failed: number) => Array.from({ length: tests }, (_, i) => ({ deviceId, failed: i < failed }));

	it('a device failing 4 of 10 tests where its group failed 2 of 200 is a dog; the group’s other devices are not', () => {
		const group = new Map<number, string | null>(Array.from({ length: 21 }, (_, i) => [i + 1, 'Drill']));
		const input = [...results(1, 10, 4), ...Array.from({ length: 20 }, (_, i) => results(i + 2, 10, i < 2 ? 1 : 0)).flat()];
		const { outliers } = outlierDevices(input, group);
		expect(outliers.map((o) => [o.deviceId, o.kind])).toEqual([[1, 'dog']]);
		expect(outliers[0]).toMatchObject({ tests: 10, failedTests: 4, groupTests: 200, groupFailedTests: 2 });
		expect(outliers[0].tailProbability).toBeLessThan(0.05);
	});

	it('a device with no failure in 40 tests where the rest of its group fails one test in four is a gem; a dog needs the group’s record: 1 failure in a group of 5 tests flags nobody', () => {
		const group = new Map<number, string | null>([[1, 'Kettle'], [2, 'Kettle'], [3, 'Kettle'], [4, 'Kettle'], [9, 'Saw'], [10, 'Saw']]);
		const input = [...results(1, 40, 0), ...results(2, 100, 25), ...results(3, 100, 25), ...results(4, 100, 25), ...results(9, 1, 1), ...results(10, 5, 0)];
		const { outliers, unknownDevices } = outlierDevices([...input, { deviceId: 77, failed: true }, { deviceId: 2, failed: null }], group);
		expect(outliers.map((o) => [o.deviceId, o.kind])).toEqual([[1, 'gem']]);
		expect(outliers[0].tests * outliers[0].groupRateBound).toBeGreaterThanOrEqual(1);
		expect(unknownDevices).toBe(1);
	});

	it('equal records flag nobody, whatever the counts', () => {
		fc.assert(
			fc.property(fc.integer({ min: 2, max: 12 }), fc.integer({ min: 1, max: 30 }), fc.integer({ min: 0, max: 30 }), (devices, tests, failed) => {
				const f = Math.min(failed, tests);
				const group = new Map<number, string | null>(Array.from({ length: devices }, (_, i) => [i + 1, null]));
				const input = Array.from({ length: devices }, (_, i) => results(i + 1, tests, f)).flat();
				expect(outlierDevices(input, group).outliers).toEqual([]);
			}),
		);
	});
});
