/**
 * Interval recommendations by NCSLI RP-1 method A3 (the interval test), pure.
 *
 * The published worked example: Sandia National Laboratories' suncal (github.com/sandialabs/suncal,
 * suncal/intervals/testa3.py, function a3_testinterval: "Calculate optimal interval using A3 Test
 * Interval Method as described in NCSLI RP-1") documents method A3 with data from the 2019 NCSLI
 * Symposium tutorial on intervals: 15 of 20 calibrations in tolerance at 365 days, reliability
 * target 95 %, change confidence 50 %: the current interval's rejection confidence
 * Q = 1 − 2 · P(X ≤ 15 | n = 20, p = 0.95) = 99.49 %, so it is rejected as too long, and the new
 * interval 365 · 10^((0.75 − 0.95) · Q) = 230.85, 231 days. Both are checked below, the factor in
 * days, with the other examples of suncal's own test of A3 (test/test_interval.py, testA3: assets
 * 2 and 3 of the tutorial, and 42 of 50 at target 90 %, C = 0.3), and a case in months by hand.
 * A difference from suncal: for an observed reliability above the target suncal's code takes
 * Q = P(X ≤ x) − 1, never positive (only a group without a failure could lengthen there); this
 * implementation takes the two-sided Q = 1 − 2 · P(X ≥ x | n, R*), the same decision as the
 * two-sided limits ISG and RP-1 describe (without a failure: Q = 1 − 2 · R*^n), and lengthens by
 * 10^((R0 − R*) / (1 − Q)). A second: with every result failed (or none) suncal takes
 * Q = 1 − P(X = x), here 1 − 2 · (1 − R*)^n (docs/compliance.md, "How it was checked").
 * Also read: ISG's "Method A3 – Interval Test Method, Description of the Methodology" (its abstract:
 * "Interval testing computes binomial confidence limits from an observed reliability. If the
 * reliability target falls outside the confidence limits, the interval is said to have failed the
 * test"), IndySoft's "The A3 Interval Test Method" (the three outcomes), Kuster, Cenker & Castrup,
 * "Calibration Interval Adjustment Methods: Quantitative Comparison and Optimization" (NCSLI), NASA
 * RP-1342; NCSLI RP-1 itself was not available. What is checked besides:
 * - the limits against closed forms: with no failure in n, the lower reliability limit is
 *   (1 − q)^(1/n), q = (1 + C) / 2 (P(X = 0) = R^n); with every result failed, the upper limit is
 *   1 − (1 − q)^(1/n); and without a failure Q = 1 − 2 · R*^n, so the new interval is
 *   I · 10^((1 − R*) / (2 · R*^n)), e.g. 12 · 10^(0.02 / (2 · 0.98^100)) = 14.28 months for 100
 *   results without failure;
 * - the rejection confidence against a direct sum of binomial terms (up to n = 100,000), and the
 *   duality: the limits exclude the target exactly when Q exceeds the change confidence;
 * - ISG's rule as a property: the test fails exactly when the target lies outside the limits;
 * - properties: the change goes the way the test says, at most ×2 and at least ÷2, within the
 *   minimum and maximum (the maximum wins), monotone in failures, in results and in confidence;
 * - the window, same-day, grouping and DGUV V3 Table 1B maximum rules on small accounts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, addMonths } from '../../client/dates';
import type { RateDevice, RateTestResult } from '../../client/failureRates';
import { a3AdjustmentFactor, DEFAULT_INTERVAL_SETTINGS, intervalSettingsProblem, intervalRecommendations, intervalTest, rejectionConfidence, unmatchedDepartments, withIntervalDefaults, type IntervalSettings } from '../../client/intervals';

const S = DEFAULT_INTERVAL_SETTINGS;

/**
 * P(X ≤ x | n, p) summed term by term, independent of client/binomial.ts: ln P(X = 0) = n · ln(1 − p),
 * each next term by the ratio (n − k) / (k + 1) · p / (1 − p), the sum scaled by its largest term.
 */
function summedCdf(x: number, n: number, p: number): number {
	const logs: number[] = [n * Math.log1p(-p)];
	for (let k = 0; k < Math.min(x, n); k++) logs.push(logs[k] + Math.log((n - k) / (k + 1)) + Math.log(p) - Math.log1p(-p));
	const max = Math.max(...logs.slice(0, Math.min(x, n) + 1));
	return Math.min(1, Math.exp(max) * logs.reduce((sum, l) => sum + Math.exp(l - max), 0));
}

describe('the interval test against closed forms', () => {
	it('100 results without failure at 12 months, C = 0.5: lower limit 0.25^(1/100), Q = 1 − 2 · 0.98^100, interval 12 · 10^(0.02 / (2 · 0.98^100)) = 14.28 → 14 months', () => {
		const t = intervalTest(100, 0, 12, S, 1, 24);
		expect(t.reliabilityLowerLimit).toBeCloseTo(0.25 ** (1 / 100), 12);
		expect(t.reliabilityUpperLimit).toBe(1);
		expect(t.intervalTest).toBe('tooShort');
		expect(t.rejectionConfidence).toBeCloseTo(1 - 2 * 0.98 ** 100, 12);
		expect(t.modelIntervalMonths).toBeCloseTo(12 * 10 ** (0.02 / (2 * 0.98 ** 100)), 9);
		expect(t.modelIntervalMonths).toBeCloseTo(14.2753, 4);
		expect(t.recommendedIntervalMonths).toBe(14);
		expect(t.limitedBy).toBe('model');
	});

	it('every result failed: upper limit 1 − (1 − q)^(1/n), Q = 1 − 2 · 0.02^4; 12 · 10^(−0.98 · Q) = 1.26 months, bounded at half', () => {
		const t = intervalTest(4, 4, 12, { reliabilityTarget: 0.98, confidence: 0.9 });
		expect(t.reliabilityUpperLimit).toBeCloseTo(1 - 0.05 ** (1 / 4), 12);
		expect(t.reliabilityLowerLimit).toBe(0);
		expect(t.rejectionConfidence).toBeCloseTo(1 - 2 * 0.02 ** 4, 14);
		expect(t.modelIntervalMonths).toBeCloseTo(12 * 10 ** (-0.98 * (1 - 2 * 0.02 ** 4)), 9);
		expect(t).toMatchObject({ intervalTest: 'tooLong', observedReliability: 0, recommendedIntervalMonths: 6, limitedBy: 'halving' });
	});

	it('shortening by 10^((R0 − R*) · Q): 10 of 100 failed at 12 months → 12 · 10^(−0.08 · 0.99993) = 9.98 → 9; 3 of 100 at 24 months, C = 0 → 23.81 → 23', () => {
		const t = intervalTest(100, 10, 12, S);
		expect(t.intervalTest).toBe('tooLong');
		const q = 1 - 2 * summedCdf(90, 100, 0.98);
		expect(t.rejectionConfidence).toBeCloseTo(q, 12);
		expect(t.modelIntervalMonths).toBeCloseTo(12 * 10 ** (-0.08 * q), 9);
		expect(t).toMatchObject({ recommendedIntervalMonths: 9, limitedBy: 'model' });
		// 3 of 100 at 24 months: Q = 1 − 2 · P(X ≤ 97 | 100, 0.98) = 0.3534, 24 · 10^(−0.01 · Q) = 23.81 → 23.
		const q3 = 1 - 2 * summedCdf(97, 100, 0.98);
		expect(q3).toBeCloseTo(0.3534, 4);
		expect(intervalTest(100, 3, 24, { reliabilityTarget: 0.98, confidence: 0 }, 1, 24)).toMatchObject({ intervalTest: 'tooLong', recommendedIntervalMonths: 23, limitedBy: 'model' });
		expect(intervalTest(100, 3, 24, { reliabilityTarget: 0.98, confidence: 0 }, 1, 24).modelIntervalMonths).toBeCloseTo(24 * 10 ** (-0.01 * q3), 9);
	});

	it('the published example (suncal, suncal/intervals/testa3.py, a3_testinterval; 2019 NCSLI tutorial data): 15 of 20 in tolerance at 365 days, target 95 %, C = 0.5: Q = 99.49 %, rejected as too long, 365 · 10^((0.75 − 0.95) · Q) = 230.85 → 231 days', () => {
		// RP-1's rejection confidence of a shortening: 1 − 2 · P(X ≤ in tolerance | n, R*).
		const q = rejectionConfidence(20, 5, 0.95);
		expect(q).toBeCloseTo(0.9949, 4);
		expect(q).toBeCloseTo(1 - 2 * summedCdf(15, 20, 0.95), 12);
		expect((q * 100).toFixed(2)).toBe('99.49');
		const factor = a3AdjustmentFactor(0.75, 0.95, q);
		expect(factor).toBeCloseTo(10 ** (-0.2 * q), 12);
		expect(365 * factor).toBeCloseTo(230.85, 2);
		expect(Math.round(365 * factor)).toBe(231);
		const t = intervalTest(20, 5, 12, { reliabilityTarget: 0.95, confidence: 0.5 });
		expect(t).toMatchObject({ intervalTest: 'tooLong', rejectionConfidence: q });
		expect(t.modelIntervalMonths).toBeCloseTo(12 * factor, 12);
		// The same decision at a change confidence below the rejection confidence, none above it.
		expect(intervalTest(20, 5, 12, { reliabilityTarget: 0.95, confidence: 0.99 }).intervalTest).toBe('tooLong');
		expect(intervalTest(20, 5, 12, { reliabilityTarget: 0.95, confidence: 0.995 }).intervalTest).toBe('consistent');
	});

	it('every example of suncal’s own test of method A3 (test/test_interval.py, testA3; assets 1–3 of the 2019 NCSLI tutorial): rejection confidence, limits and interval in days', () => {
		const published = [
			{ passed: 15, n: 20, days: 365, target: 0.95, confidence: 0.5, Q: 0.9949, lower: 0.6516, upper: 0.8286, interval: 231 },
			{ passed: 14, n: 20, days: 365, target: 0.95, confidence: 0.5, Q: 0.9993, lower: 0.6, upper: 0.7843, interval: 205 },
			{ passed: 16, n: 20, days: 730, target: 0.95, confidence: 0.5, Q: 0.9682, lower: 0.7041, upper: 0.8716, interval: 523 },
			{ passed: 42, n: 50, days: 365, target: 0.9, confidence: 0.3, Q: 0.7557, lower: 0.8067, upper: 0.8664, interval: 329 },
		];
		for (const e of published) {
			const t = intervalTest(e.n, e.n - e.passed, 12, { reliabilityTarget: e.target, confidence: e.confidence });
			expect(t.intervalTest).toBe('tooLong');
			expect(t.rejectionConfidence).toBeCloseTo(e.Q, 4);
			expect(t.reliabilityLowerLimit).toBeCloseTo(e.lower, 4);
			expect(t.reliabilityUpperLimit).toBeCloseTo(e.upper, 4);
			expect(Math.round(e.days * a3AdjustmentFactor(e.passed / e.n, e.target, t.rejectionConfidence))).toBe(e.interval);
		}
	});

	it('a case in months, worked by hand: 35 of 38 passed at 6 months, target 98 %, C = 0.5: P(X ≤ 35) = 0.0401, Q = 0.9197, factor 10^(−0.05895 · Q) = 0.8826, 5.30 → 5 months', () => {
		const p = summedCdf(35, 38, 0.98);
		// 1 − P(38) − P(37) − P(36), each term written out.
		expect(p).toBeCloseTo(1 - 0.98 ** 38 - 38 * 0.02 * 0.98 ** 37 - 703 * 0.02 ** 2 * 0.98 ** 36, 12);
		expect(p).toBeCloseTo(0.0401, 4);
		const q = rejectionConfidence(38, 3, 0.98);
		expect(q).toBeCloseTo(1 - 2 * p, 12);
		expect(q).toBeCloseTo(0.9197, 4);
		const factor = a3AdjustmentFactor(35 / 38, 0.98, q);
		expect(factor).toBeCloseTo(0.8826, 4);
		const t = intervalTest(38, 3, 6, S);
		expect(t).toMatchObject({ intervalTest: 'tooLong', recommendedIntervalMonths: 5, limitedBy: 'model' });
		expect(t.modelIntervalMonths).toBeCloseTo(5.296, 3);
	});

	it('lengthening by 10^((R0 − R*) / (1 − Q)), Q two-sided: 1 − 2 · P(X ≥ x | n, R*); Q = 1 in floating point: the doubling bound', () => {
		// 297 of 300 passed: Q = 1 − 2 · P(F ≤ 3 | 300, 0.02).
		const q = rejectionConfidence(300, 3, 0.98);
		expect(q).toBeCloseTo(1 - 2 * summedCdf(3, 300, 0.02), 12);
		expect(a3AdjustmentFactor(0.99, 0.98, q)).toBeCloseTo(10 ** (0.01 / (1 - q)), 12);
		// At 24 months: 24 · 1.0806 = 25.93 → 25.
		const t = intervalTest(300, 3, 24, S, 1, 48);
		expect(t).toMatchObject({ intervalTest: 'tooShort', recommendedIntervalMonths: 25, limitedBy: 'model' });
		expect(t.modelIntervalMonths).toBeCloseTo(24 * 10 ** (0.01 / (1 - q)), 9);
		expect(a3AdjustmentFactor(0.995, 0.98, 1)).toBe(Infinity);
		expect(a3AdjustmentFactor(0.98, 0.98, 0)).toBe(1);
		// 2,000 without a failure: 0.98^2000 = 3e−18, Q = 1 as a double: no model interval, doubled.
		expect(intervalTest(2000, 0, 6, S, 1, 24)).toMatchObject({ intervalTest: 'tooShort', rejectionConfidence: 1, modelIntervalMonths: null, recommendedIntervalMonths: 12, limitedBy: 'doubling' });
		// Without a failure: Q = 1 − 2 · R*^n; a group at the target: 0.
		expect(rejectionConfidence(100, 0, 0.98)).toBeCloseTo(1 - 2 * 0.98 ** 100, 14);
		expect(rejectionConfidence(30, 0, 0.98)).toBe(0); // 1 − 2 · 0.98^30 < 0
		expect(rejectionConfidence(50, 1, 0.98)).toBe(0);
		expect(rejectionConfidence(0, 0, 0.98)).toBe(0);
		expect(() => rejectionConfidence(5, 6, 0.98)).toThrow(/failed/);
		expect(() => rejectionConfidence(5, 1, 1)).toThrow(/target/);
	});

	it('the rejection confidence is exact up to 100,000 results: against a direct sum of the binomial terms', () => {
		// 98,100 passed (above the target): the tail P(X ≥ x) = P(F ≤ 1,900 | 100,000, 0.02); the
		// literals are the same sums in 40-digit arithmetic.
		expect(rejectionConfidence(100_000, 1_900, 0.98)).toBeCloseTo(1 - 2 * summedCdf(1_900, 100_000, 0.02), 9);
		expect(rejectionConfidence(100_000, 1_900, 0.98)).toBeCloseTo(0.976331971131627, 11);
		// 97,900 passed (below it): P(X ≤ 97,900 | 100,000, 0.98) = 1 − P(F ≤ 2,099 | 100,000, 0.02).
		expect(rejectionConfidence(100_000, 2_100, 0.98)).toBeCloseTo(1 - 2 * (1 - summedCdf(2_099, 100_000, 0.02)), 9);
		expect(rejectionConfidence(100_000, 2_100, 0.98)).toBeCloseTo(0.974462564983252, 11);
		expect(rejectionConfidence(100_000, 2_100, 0.98)).toBeGreaterThan(0.9);
	});

	it('no result: limits 0 to 1, the interval kept', () => {
		expect(intervalTest(0, 0, 6, S)).toMatchObject({ intervalTest: 'consistent', observedReliability: null, reliabilityLowerLimit: 0, reliabilityUpperLimit: 1, modelIntervalMonths: null, recommendedIntervalMonths: 6, limitedBy: 'none' });
	});

	it('the maximum wins over the ×2/÷2 bound and over a consistent test; the minimum over a shortening', () => {
		expect(intervalTest(0, 0, 24, S, 1, 12)).toMatchObject({ recommendedIntervalMonths: 12, limitedBy: 'maximum' });
		expect(intervalTest(1000, 0, 6, S, 1, 120)).toMatchObject({ recommendedIntervalMonths: 12, limitedBy: 'doubling' });
		expect(intervalTest(10, 10, 12, S, 9, 12)).toMatchObject({ recommendedIntervalMonths: 9, limitedBy: 'minimum' });
	});
});

const target = fc.constantFrom(0.9, 0.95, 0.98, 0.99);
const confidence = fc.constantFrom(0, 0.5, 0.8, 0.9, 0.95);
const counts = fc.integer({ min: 0, max: 400 }).chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n })));
const months = fc.integer({ min: 1, max: 60 });

describe('the interval test: properties', () => {
	it('fails exactly when the target lies outside the limits (ISG), and the change goes the way the test says', () => {
		fc.assert(
			fc.property(counts, months, target, confidence, ([n, x], I, R, C) => {
				const t = intervalTest(n, x, I, { reliabilityTarget: R, confidence: C });
				expect(t.reliabilityLowerLimit).toBeLessThanOrEqual(t.reliabilityUpperLimit);
				if (t.observedReliability !== null) {
					expect(t.reliabilityLowerLimit).toBeLessThanOrEqual(t.observedReliability + 1e-12);
					expect(t.reliabilityUpperLimit).toBeGreaterThanOrEqual(t.observedReliability - 1e-12);
				}
				expect(t.intervalTest).toBe(R < t.reliabilityLowerLimit ? 'tooShort' : R > t.reliabilityUpperLimit ? 'tooLong' : 'consistent');
				const r = t.recommendedIntervalMonths;
				if (t.intervalTest === 'consistent') expect(r).toBe(I);
				if (t.intervalTest === 'tooShort') expect(r).toBeGreaterThanOrEqual(I);
				if (t.intervalTest === 'tooLong') expect(r).toBeLessThanOrEqual(I);
				expect(r).toBeLessThanOrEqual(2 * I);
				expect(r).toBeGreaterThanOrEqual(Math.max(1, Math.ceil(I / 2)));
			}),
		);
	});

	it('the duality (Clopper–Pearson): the limits exclude the target exactly when the rejection confidence Q exceeds the change confidence C', () => {
		const cases = fc.integer({ min: 1, max: 2000 }).chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n })));
		const targetShare = fc.double({ min: 0.5, max: 1, noNaN: true }).filter((r) => r > 0.5 && r < 1);
		fc.assert(
			fc.property(cases, targetShare, fc.double({ min: 0, max: 0.99, noNaN: true }), ([n, f], R, C) => {
				const t = intervalTest(n, f, 12, { reliabilityTarget: R, confidence: C });
				const q = rejectionConfidence(n, f, R);
				expect(t.rejectionConfidence).toBe(Math.abs(q - C) <= 1e-12 ? C : q);
				expect(q).toBeGreaterThanOrEqual(0);
				expect(q).toBeLessThanOrEqual(1);
				// The decision is Q > C itself, ties included (a Q within 1e-12 of C is C).
				expect(t.intervalTest !== 'consistent').toBe(t.rejectionConfidence > C);
				if (Math.abs(q - C) < 1e-9) return; // a tie in floating point: the limits may fall either way
				const R0 = (n - f) / n;
				expect(R < t.reliabilityLowerLimit || R > t.reliabilityUpperLimit).toBe(q > C);
				expect(t.intervalTest !== 'consistent').toBe(q > C);
				// Q of the side the observed reliability lies on: shortening below the target, lengthening above.
				if (t.intervalTest === 'tooLong') expect(R0).toBeLessThan(R);
				if (t.intervalTest === 'tooShort') expect(R0).toBeGreaterThan(R);
			}),
		);
	});

	it('an exact tie Q = C keeps the interval, though Q rounds a hair either side of C in floating point', () => {
		// 2 of 2 failed, target 0.9: Q = 1 − 2 · 0.1² = 0.98 exactly; 1 of 1 failed, target 0.9: Q = 1 − 2 · 0.1 = 0.8.
		for (const [n, f, R, C] of [
			[2, 2, 0.9, 0.98],
			[1, 1, 0.9, 0.8],
		] as const) {
			const t = intervalTest(n, f, 12, { reliabilityTarget: R, confidence: C });
			expect(t.rejectionConfidence).toBe(C);
			expect(t.intervalTest).toBe('consistent');
			expect(t.recommendedIntervalMonths).toBe(12);
		}
	});

	it('the observed reliability is x/n, the quotient Q and the direction use: 7 failed of 100 at target 93 % reads 93.0 %, not 92.99999999999999 %', () => {
		for (const [n, f, R] of [
			[100, 7, 0.93],
			[50, 9, 0.82],
			[200, 39, 0.805],
		] as const) {
			const t = intervalTest(n, f, 12, { reliabilityTarget: R, confidence: 0.5 });
			expect(t.observedReliability).toBe(R);
			expect(t.rejectionConfidence).toBe(0);
		}
		const devices: RateDevice[] = Array.from({ length: 100 }, (_, i) => ({ id: i + 1, designation: 'Drill', department: null, customerId: null, customerName: null, testIntervalMonths: 12 }));
		const results: RateTestResult[] = devices.flatMap((d) => [
			{ id: d.id * 2, deviceId: d.id, testDate: '2025-01-10', failed: false },
			{ id: d.id * 2 + 1, deviceId: d.id, testDate: '2026-01-10', failed: d.id <= 7 },
		]);
		const [g] = intervalRecommendations(results, devices, '2026-05-31', '2024-06-01', 'designation', { ...DEFAULT_INTERVAL_SETTINGS, reliabilityTarget: 0.93 }).groups;
		expect(g.reason).toContain('observed reliability 93.0 %');
	});

	it('at an exact tie the kept interval’s limits hold the target (the bisected limit fell an ulp beyond it: 90.99999999999999 %)', () => {
		for (const [n, f, R, C] of [
			[1, 1, 0.91, 0.82],
			[1, 1, 0.92, 0.84],
			[2, 2, 0.61, 0.6958],
			[2, 0, 0.58, 0.3272],
		] as const) {
			const t = intervalTest(n, f, 12, { reliabilityTarget: R, confidence: C });
			expect(t.intervalTest).toBe('consistent');
			expect(t.reliabilityLowerLimit).toBeLessThanOrEqual(R);
			expect(t.reliabilityUpperLimit).toBeGreaterThanOrEqual(R);
		}
		const devices: RateDevice[] = [{ id: 1, designation: 'Drill', department: null, customerId: null, customerName: null, testIntervalMonths: 12 }];
		const results: RateTestResult[] = [
			{ id: 1, deviceId: 1, testDate: '2025-01-10', failed: false },
			{ id: 2, deviceId: 1, testDate: '2026-01-10', failed: true },
		];
		const [g] = intervalRecommendations(results, devices, '2026-05-31', '2025-06-01', 'designation', { ...DEFAULT_INTERVAL_SETTINGS, reliabilityTarget: 0.91, confidence: 0.82 }).groups;
		expect(g.reason).not.toContain('90.99999999999999');
		expect(g.reason).toContain('lies within the limits');
	});

	it('a change confidence that is not a whole per cent is shown as set, so Q below it never reads "above" it', () => {
		const t = intervalTest(81, 3, 12, { reliabilityTarget: 0.98, confidence: 0.555 });
		expect(t.intervalTest).toBe('tooLong');
		expect(t.rejectionConfidence).toBeGreaterThan(0.555);
		const devices: RateDevice[] = Array.from({ length: 81 }, (_, i) => ({ id: i + 1, designation: 'Drill', department: null, customerId: null, customerName: null, testIntervalMonths: 12 }));
		const results: RateTestResult[] = devices.flatMap((d) => [
			{ id: d.id * 2, deviceId: d.id, testDate: '2024-06-10', failed: false },
			{ id: d.id * 2 + 1, deviceId: d.id, testDate: '2025-06-10', failed: d.id <= 3 },
		]);
		const [g] = intervalRecommendations(results, devices, '2025-06-30', '2024-07-01', 'designation', { ...DEFAULT_INTERVAL_SETTINGS, confidence: 0.555 }).groups;
		expect(g.reason).toContain('55.5 % confidence limits');
		expect(g.reason).toContain('rejection confidence 55.8 % above the change confidence 55.5 %');
	});

	it('within the maximum; at the minimum unless that is above the current interval (a minimum never lengthens); the maximum wins when they conflict', () => {
		fc.assert(
			fc.property(counts, months, fc.integer({ min: 1, max: 120 }), fc.integer({ min: 1, max: 120 }), ([n, x], I, min, max) => {
				const r = intervalTest(n, x, I, S, min, max).recommendedIntervalMonths;
				expect(r).toBeLessThanOrEqual(max);
				expect(r).toBeGreaterThanOrEqual(Math.min(min, max, I));
			}),
		);
	});

	it('with any minimum and maximum: never against the test’s direction, never beyond ×2/÷2, except where the maximum brings it down', () => {
		fc.assert(
			fc.property(counts, months, target, confidence, fc.integer({ min: 1, max: 120 }), fc.integer({ min: 1, max: 120 }), ([n, x], I, R, C, min, max) => {
				const t = intervalTest(n, x, I, { reliabilityTarget: R, confidence: C }, min, max);
				const r = t.recommendedIntervalMonths;
				if (t.limitedBy === 'maximum') {
					expect(r).toBe(max);
					expect(r).toBeLessThan(I * 2 + 1);
					return;
				}
				if (t.intervalTest === 'consistent') expect(r).toBe(I);
				// A lengthening reaches the minimum, as far as ×2 allows.
				if (t.intervalTest === 'tooShort') expect(r).toBeGreaterThanOrEqual(Math.max(I, Math.min(min, max, 2 * I)));
				if (t.intervalTest === 'tooLong') expect(r).toBeLessThanOrEqual(I);
				expect(r).toBeLessThanOrEqual(2 * I);
				expect(r).toBeGreaterThanOrEqual(Math.ceil(I / 2));
			}),
		);
	});

	it('monotone: one more failure never lengthens, one more passed result never shortens, more confidence never changes more', () => {
		fc.assert(
			fc.property(counts, months, target, confidence, ([n, x], I, R, C) => {
				const s = { reliabilityTarget: R, confidence: C };
				const base = intervalTest(n, x, I, s).recommendedIntervalMonths;
				if (x < n) expect(intervalTest(n, x + 1, I, s).recommendedIntervalMonths).toBeLessThanOrEqual(base);
				expect(intervalTest(n + 1, x, I, s).recommendedIntervalMonths).toBeGreaterThanOrEqual(base);
				const surer = intervalTest(n, x, I, { reliabilityTarget: R, confidence: Math.min(0.99, C + 0.04) }).recommendedIntervalMonths;
				expect(Math.abs(surer - I)).toBeLessThanOrEqual(Math.abs(base - I));
			}),
		);
	});
});

const device = (id: number, o: Partial<RateDevice> = {}): RateDevice => ({ id, designation: 'Drill', department: 'Workshop', customerId: null, customerName: null, testIntervalMonths: 12, ...o });
let nextId = 1;
const result = (deviceId: number, testDate: string, failed: boolean | null = false): RateTestResult => ({ id: nextId++, deviceId, testDate, failed });
const TODAY = '2026-06-30';
const FROM = '2023-07-01';

describe('intervalRecommendations: which results count', () => {
	it('the window: 0.75 to 1.25 intervals after the previous test of any status; the first test read has none', () => {
		const start = '2024-01-10';
		const oneYear = addMonths(start, 12);
		const results = [
			result(1, start),
			result(1, oneYear, true), // 1.0 interval: counted, failed
			result(1, addDays(oneYear, 60)), // 0.16: outside
			result(2, '2023-09-01', null), // unknown status, still the previous test
			result(2, addDays('2023-09-01', 274)), // 274 / 366 = 0.749: outside
			result(3, '2023-09-01'),
			result(3, addDays('2023-09-01', 275)), // 275 / 366 = 0.751: counted
			result(4, '2024-02-01'),
			result(4, addDays('2024-02-01', 457)), // 457 / 366 = 1.249: counted
			result(5, '2024-02-01'),
			result(5, addDays('2024-02-01', 458)), // 1.251: outside
		];
		const r = intervalRecommendations(results, [1, 2, 3, 4, 5].map((id) => device(id)), TODAY, FROM, 'designation');
		expect(r.groups).toHaveLength(1);
		expect(r.groups[0]).toMatchObject({ resultsUsed: 3, failedUsed: 1, excluded: { noPreviousTest: 4, outsideWindow: 3, unknownStatus: 1, sameDay: 0 }, resultsExcluded: 8 });
	});

	it('a test before the period is only the previous test of the first one in it: that one counts, the earlier one is neither used nor excluded', () => {
		const before = addMonths(FROM, -6);
		const results = [result(1, before), result(1, addMonths(before, 12), true), result(2, addMonths(FROM, -30)), result(2, addMonths(FROM, -18), true)];
		const [g] = intervalRecommendations(results, [device(1), device(2)], TODAY, FROM, 'designation').groups;
		expect(g).toMatchObject({ resultsUsed: 1, failedUsed: 1, resultsExcluded: 0, excluded: { noPreviousTest: 0, outsideWindow: 0, unknownStatus: 0, sameDay: 0 } });
	});

	it('several results of a device on one day are one test, failed when any failed', () => {
		const results = [result(1, '2024-03-01'), result(1, '2025-03-01', true), result(1, '2025-03-01', false), result(1, '2025-03-01', false)];
		const [g] = intervalRecommendations(results, [device(1)], TODAY, FROM, 'designation').groups;
		expect(g).toMatchObject({ resultsUsed: 1, failedUsed: 1, excluded: { sameDay: 2, noPreviousTest: 1 } });
	});

	it('results dated after today, of unknown devices, of devices without an interval: counted apart, in no group', () => {
		const results = [result(1, '2026-07-05'), result(99, '2025-01-01'), result(2, '2025-01-01'), result(1, 'someday')];
		const r = intervalRecommendations(results, [device(1), device(2, { testIntervalMonths: null })], TODAY, FROM, 'designation');
		expect(r.totals).toEqual({ devicesWithoutInterval: 1, resultsOfDevicesWithoutInterval: 1, unknownDevices: 1, futureTests: 1, invalidTestDate: 1 });
		expect(r.groups.map((g) => g.resultsExcluded + g.resultsUsed)).toEqual([0]);
	});
});

/** `passed` devices tested twice 12 months apart, and `failedN` of them failing at the second test. */
function account(n: number, failedN: number, o: Partial<RateDevice> = {}, first = 1): { devices: RateDevice[]; results: RateTestResult[] } {
	const devices: RateDevice[] = [];
	const results: RateTestResult[] = [];
	for (let i = 0; i < n; i++) {
		const d = device(first + i, o);
		devices.push(d);
		const interval = d.testIntervalMonths!;
		results.push(result(d.id, '2024-01-15'), result(d.id, addMonths('2024-01-15', interval), i < failedN));
	}
	return { devices, results };
}

describe('intervalRecommendations: groups, limits, reason', () => {
	it('one group per device type and current interval; within departments per department', () => {
		const a = account(3, 0, { testIntervalMonths: 6 }, 1);
		const b = account(2, 0, { testIntervalMonths: 12, department: 'Office' }, 10);
		const c = account(2, 0, { designation: 'Kettle', testIntervalMonths: 12 }, 20);
		const all = { devices: [...a.devices, ...b.devices, ...c.devices], results: [...a.results, ...b.results, ...c.results] };
		const byType = intervalRecommendations(all.results, all.devices, TODAY, FROM, 'designation').groups;
		expect(byType.map((g) => [g.designation, g.department, g.currentIntervalMonths, g.devices])).toEqual([
			['Drill', null, 6, 3],
			['Drill', null, 12, 2],
			['Kettle', null, 12, 2],
		]);
		const within = intervalRecommendations(all.results, all.devices, TODAY, FROM, 'designationDepartment').groups;
		expect(within.map((g) => [g.designation, g.department, g.currentIntervalMonths])).toEqual([
			['Drill', 'Office', 12],
			['Drill', 'Workshop', 6],
			['Kettle', 'Workshop', 12],
		]);
	});

	it('DGUV V3 Table 1B maxima by environment: an office 24 months, a workshop 12; set per department; a type across departments takes the strictest', () => {
		const office = account(120, 0, { department: 'Office' }, 1);
		const shop = account(200, 0, { department: 'Workshop' }, 1000);
		const o = intervalRecommendations(office.results, office.devices, TODAY, FROM, 'designationDepartment', { ...S, departments: { Office: { environment: 'office' } } }).groups[0];
		// 120 without a failure: 12 · 10^(0.02 / (2 · 0.98^120)) = 15.56 → 15.
		expect(o).toMatchObject({ change: 'lengthen', recommendedIntervalMonths: 15, limitedBy: 'model', maxMonths: 24, environments: ['office'] });
		const w = intervalRecommendations(shop.results, shop.devices, TODAY, FROM, 'designationDepartment').groups[0];
		expect(w).toMatchObject({ change: 'keep', recommendedIntervalMonths: 12, limitedBy: 'maximum', maxMonths: 12, environments: ['workshop'] });
		const both = intervalRecommendations([...office.results, ...shop.results], [...office.devices, ...shop.devices], TODAY, FROM, 'designation', { ...S, departments: { Office: { environment: 'office' } } }).groups[0];
		expect(both).toMatchObject({ maxMonths: 12, environments: ['office', 'workshop'], recommendedIntervalMonths: 12 });
		const set = intervalRecommendations(shop.results, shop.devices, TODAY, FROM, 'designation', { ...S, departments: { Workshop: { maxMonths: 18, minMonths: 3 } } }).groups[0];
		expect(set).toMatchObject({ recommendedIntervalMonths: 18, limitedBy: 'maximum', minMonths: 3, maxMonths: 18 });
	});

	it('a department’s minimum above the current interval: a group the interval test would shorten keeps its interval (not lengthened past ×2 by the minimum), and the reason says so', () => {
		const devices = Array.from({ length: 10 }, (_, i) => device(i + 1, { department: 'Shop', testIntervalMonths: 3 }));
		const results = devices.flatMap((d) => [result(d.id, '2025-01-10'), result(d.id, '2025-04-10', d.id <= 5)]);
		const settings = { ...S, departments: { Shop: { minMonths: 12 } } };
		const [g] = intervalRecommendations(results, devices, '2025-06-30', '2024-07-01', 'designation', settings).groups;
		expect(g).toMatchObject({ intervalTest: 'tooLong', change: 'keep', currentIntervalMonths: 3, recommendedIntervalMonths: 3, limitedBy: 'minimum', minMonths: 12 });
		expect(g.reason).toContain('the interval should be shorter. Recommended: keep 3 months (the minimum set for the group, 12 months, is above the current interval: a minimum never lengthens it).');
		// Without results the test is consistent: the minimum does not lengthen that either.
		expect(intervalRecommendations([], devices, '2025-06-30', '2024-07-01', 'designation', settings).groups[0]).toMatchObject({ change: 'keep', recommendedIntervalMonths: 3 });
		// A minimum below the current interval still stops a shortening.
		expect(intervalTest(10, 5, 12, S, 9, 12)).toMatchObject({ intervalTest: 'tooLong', recommendedIntervalMonths: 9, limitedBy: 'minimum' });
	});

	it('a department’s minimum above a lengthening: the recommendation is lifted to the minimum (within ×2), and the reason names it', () => {
		const devices = Array.from({ length: 100 }, (_, i) => device(i + 1, { department: 'Shop', testIntervalMonths: 6 }));
		const results = devices.flatMap((d) => [result(d.id, '2025-01-10'), result(d.id, '2025-07-10')]);
		const [g] = intervalRecommendations(results, devices, '2025-09-30', '2024-10-01', 'designation', { ...S, departments: { Shop: { minMonths: 12 } } }).groups;
		expect(g).toMatchObject({ intervalTest: 'tooShort', change: 'lengthen', currentIntervalMonths: 6, recommendedIntervalMonths: 12, limitedBy: 'minimum', minMonths: 12 });
		expect(g.reason).toContain('the interval can be longer. Recommended: 12 months (the minimum set for the group, 12 months).');
		// The model alone: 7 months (6 · 1.1896 = 7.14); the test says longer, and the kept 6 of a lengthening the model gives as 6 is lifted too.
		expect(intervalTest(100, 0, 6, S, 12, 24)).toMatchObject({ intervalTest: 'tooShort', recommendedIntervalMonths: 12, limitedBy: 'minimum' });
		expect(intervalTest(80, 0, 6, S, 12, 24)).toMatchObject({ intervalTest: 'tooShort', recommendedIntervalMonths: 12, limitedBy: 'minimum' });
		// A minimum beyond ×2 stops at ×2, and the reason says why it is below the minimum.
		const three = intervalRecommendations(results, devices.map((d) => ({ ...d, testIntervalMonths: 3 })), '2025-09-30', '2024-10-01', 'designation', { ...S, departments: { Shop: { minMonths: 12 } } });
		for (const r of three.groups) if (r.intervalTest === 'tooShort') expect(r.reason).toContain('(the minimum set for the group, 12 months, is more than twice the current interval: a change is at most twice it)');
		expect(intervalTest(100, 0, 3, S, 12, 24)).toMatchObject({ recommendedIntervalMonths: 6, limitedBy: 'minimum' });
	});

	it('a current interval above the maximum is brought down to it, and the reason says why', () => {
		const a = account(5, 0, { testIntervalMonths: 24 });
		const [g] = intervalRecommendations(a.results, a.devices, TODAY, FROM, 'designation').groups;
		expect(g).toMatchObject({ intervalTest: 'consistent', change: 'shorten', recommendedIntervalMonths: 12, limitedBy: 'maximum' });
		expect(g.reason).toContain('the maximum for the group: 12 months, DGUV V3 Table 1B for workshop');
	});

	it('the reason names the counts, limits, target, method and that the employer decides', () => {
		const a = account(100, 0);
		const [g] = intervalRecommendations(a.results, a.devices, TODAY, FROM, 'designation', { ...S, departments: { Workshop: { environment: 'office' } } }).groups;
		expect(g).toMatchObject({ change: 'lengthen', recommendedIntervalMonths: 14, observedReliability: 1 });
		expect(g.rejectionConfidence).toBeCloseTo(1 - 2 * 0.98 ** 100, 14);
		expect(g.reason).toBe(
			'Device type "Drill", current interval 12 months: 100 tests near the interval (0.75 to 1.25 intervals after the previous one), 0 failed: observed reliability 100.0 %, 50 % confidence limits 98.6 % to 100.0 %, one-sided 95 % lower bound 97.0 %. ' +
				'The target 98.0 % lies below the limits, rejection confidence 73.5 % above the change confidence 50 %: by NCSLI RP-1 method A3 (the interval test) the interval can be longer. Recommended: 14 months (NCSLI RP-1 method A3: current × 10^((R0 − R*)/(1 − Q)), whole months rounded down). ' +
				'With 95 % confidence the reliability is only shown to be at least 97.0 %, below the target. ' +
				'Not counted: 100 without an earlier test read, 0 outside the window, 0 of an unknown status, 0 further results on the same day. ' +
				"A recommendation, not applied to the service: Setting a test interval is the employer's decision, made in its risk assessment (DGUV Vorschrift 3, BetrSichV); these failure rates are evidence for that decision, not the decision.",
		);
	});

	it('the reason names the rejection confidence beside the change confidence, and RP-1’s adjustment of a shortening', () => {
		const a = account(38, 3, { testIntervalMonths: 6 });
		const [g] = intervalRecommendations(a.results, a.devices, TODAY, FROM, 'designation').groups;
		expect(g).toMatchObject({ change: 'shorten', recommendedIntervalMonths: 5, limitedBy: 'model' });
		expect(g.reason).toContain(
			'The target 98.0 % lies above the limits, rejection confidence 92.0 % above the change confidence 50 %: by NCSLI RP-1 method A3 (the interval test) the interval should be shorter. Recommended: 5 months (NCSLI RP-1 method A3: current × 10^((R0 − R*)·Q), whole months rounded down).',
		);
		const few = account(10, 0);
		const [k] = intervalRecommendations(few.results, few.devices, TODAY, FROM, 'designation').groups;
		expect(k).toMatchObject({ change: 'keep', rejectionConfidence: 0 });
		expect(k.reason).toContain('The target 98.0 % lies within the limits, rejection confidence 0.0 % not above the change confidence 50 %: by NCSLI RP-1 method A3');
	});

	it('department names match as the e-mail routing matches them (case, surrounding and doubled spaces): a row "verwaltung " sets the limits of "Verwaltung"', () => {
		const office = account(120, 0, { department: 'Verwaltung' }, 1);
		for (const name of ['verwaltung', 'Verwaltung ', '  VERWALTUNG']) {
			const r = intervalRecommendations(office.results, office.devices, TODAY, FROM, 'designationDepartment', { ...S, departments: { [name]: { environment: 'office' } } });
			expect(r.groups[0]).toMatchObject({ department: 'Verwaltung', maxMonths: 24, environments: ['office'], recommendedIntervalMonths: 15 });
			expect(r.unmatchedDepartments).toEqual([]);
		}
		const spaced = account(120, 0, { department: 'Werk  Nord' }, 1000);
		expect(intervalRecommendations(spaced.results, spaced.devices, TODAY, FROM, 'designation', { ...S, departments: { 'werk nord': { environment: 'office' } } }).groups[0]).toMatchObject({ maxMonths: 24 });
	});

	it('a device type across departments with different maxima: the reason says its maximum is the shortest of its departments’', () => {
		const devices: RateDevice[] = Array.from({ length: 80 }, (_, i) => ({ id: i + 1, designation: 'Drill', department: i < 40 ? 'Office' : 'Plant', customerId: null, customerName: null, testIntervalMonths: 12 }));
		const results: RateTestResult[] = devices.flatMap((d) => ['2022-01-10', '2023-01-10', '2024-01-10', '2025-01-10', '2026-01-10'].map((day, n) => ({ id: d.id * 10 + n, deviceId: d.id, testDate: day, failed: false })));
		const settings = { ...S, departments: { Office: { environment: 'office' as const } } };
		const [type] = intervalRecommendations(results, devices, '2026-10-31', '2024-11-01', 'designation', settings).groups;
		expect(type).toMatchObject({ limitedBy: 'maximum', maxMonths: 12, environments: ['office', 'workshop'] });
		expect(type.reason).toContain('(the maximum for the group: 12 months, the shortest of its departments’ maxima: DGUV V3 Table 1B for office, workshop unless set otherwise)');
		const office = intervalRecommendations(results, devices, '2026-10-31', '2024-11-01', 'designationDepartment', settings).groups.find((g) => g.department === 'Office')!;
		expect(office.maxMonths).toBe(24);
		expect(office.reason).not.toContain('shortest of its departments');
	});

	it('a device type across departments takes the shortest of their minima: one department’s minimum never holds another’s failing devices (Office 18 to 24 months, Shop the defaults)', () => {
		const devices: RateDevice[] = Array.from({ length: 20 }, (_, i) => ({ id: i + 1, designation: 'Drill', department: i < 10 ? 'Office' : 'Shop', customerId: null, customerName: null, testIntervalMonths: 12 }));
		const results: RateTestResult[] = devices.flatMap((d) => [
			{ id: d.id * 10, deviceId: d.id, testDate: '2024-03-10', failed: false },
			{ id: d.id * 10 + 1, deviceId: d.id, testDate: '2025-03-10', failed: d.id >= 11 && d.id <= 16 },
		]);
		const settings = { ...S, departments: { Office: { environment: 'office' as const, minMonths: 18 } } };
		const [type] = intervalRecommendations(results, devices, '2025-06-30', '2024-07-01', 'designation', settings).groups;
		expect(type).toMatchObject({ minMonths: 1, maxMonths: 12, intervalTest: 'tooLong', change: 'shorten', recommendedIntervalMonths: 6 });
		// One department setting its own maximum (the same environment): the type's reason names it as the departments'.
		const lamps: RateDevice[] = devices.map((d) => ({ ...d, designation: 'Lamp', department: d.id <= 10 ? 'A' : 'B' }));
		const passed = results.map((r) => ({ ...r, failed: false }));
		const [lamp] = intervalRecommendations(passed, lamps, '2025-06-30', '2024-07-01', 'designation', { ...S, defaultEnvironment: 'office', departments: { B: { maxMonths: 6 } } }).groups;
		expect(lamp).toMatchObject({ maxMonths: 6, limitedBy: 'maximum', environments: ['office'] });
		expect(lamp.reason).toContain('the shortest of its departments’ maxima');
	});

	it('a department row without a name is refused, as the e-mail routing refuses one', () => {
		for (const name of ['', '  ']) {
			expect(intervalSettingsProblem({ ...S, departments: { [name]: { environment: 'office' } } })).toEqual({ setting: 'departments', message: `a department name is empty (${JSON.stringify(name)}); name the department as the service holds it` });
		}
		expect(intervalSettingsProblem({ ...S, departments: { Lager: { environment: 'office' } } })).toBeUndefined();
	});

	it('a department row that matches no device’s department is named; two rows naming one department are refused, naming both', () => {
		const office = account(10, 0, { department: 'Verwaltung' }, 1);
		const r = intervalRecommendations(office.results, office.devices, TODAY, FROM, 'designation', { ...S, departments: { Verwaltung: { environment: 'office' }, Vertrieb: { environment: 'office' } } });
		expect(r.unmatchedDepartments).toEqual(['Vertrieb']);
		expect(unmatchedDepartments({ Lager: {}, ' verwaltung': {} }, office.devices)).toEqual(['Lager']);
		expect(() => intervalRecommendations([], [], TODAY, FROM, 'designation', { ...S, departments: { Verwaltung: {}, 'verwaltung ': { environment: 'office' } } })).toThrow(
			/departments: "Verwaltung" and "verwaltung " name the same department \(names match whatever their case and spacing\); keep one/,
		);
	});

	it('settings given in part take the defaults for the rest', () => {
		expect(withIntervalDefaults(undefined)).toEqual(S);
		expect(withIntervalDefaults({ defaultEnvironment: 'office', departments: { IT: { maxMonths: 6 } } })).toEqual({ ...S, defaultEnvironment: 'office', departments: { IT: { maxMonths: 6 } } });
	});

	it('bad settings are refused naming the setting and what would be valid', () => {
		const bad = (s: Partial<IntervalSettings>) => () => intervalRecommendations([], [], TODAY, FROM, 'designation', { ...S, ...s });
		expect(bad({ reliabilityTarget: 98 })).toThrow(/reliabilityTarget: must be a share above 0.5 and below 1 \(0.98 for 98 %\), got 98/);
		expect(bad({ confidence: 1 })).toThrow(/confidence: must be a share from 0 to 0.99/);
		expect(bad({ minMonths: 0 })).toThrow(/minMonths: must be a whole number of months from 1 to 120, got 0/);
		expect(bad({ departments: { IT: { environment: 'garden' as never } } })).toThrow(/departments\[IT\].environment: must be one of office, workshop, constructionSite/);
		expect(bad({ departments: { IT: { minMonths: 13 } } })).toThrow(/departments\[IT\]: its minimum \(13 months\) must not exceed its maximum \(12 months\)/);
		// The node-wide minimum holds for every department without its own: above the environment's maximum it is refused, not replaced by it.
		expect(bad({ minMonths: 30 })).toThrow(/minMonths: must be at most 12 months, the DGUV V3 maximum of the environment workshop \(set a department's own limits for a longer one\), got 30/);
		expect(bad({ minMonths: 30, defaultEnvironment: 'office' })).toThrow(/minMonths: must be at most 24 months, the DGUV V3 maximum of the environment office .*got 30/);
		expect(bad({ minMonths: 13, departments: { IT: { environment: 'office' } } })).toThrow(/minMonths: must be at most 12 months/);
		expect(() => intervalRecommendations([], [], TODAY, FROM, 'designation', { ...S, minMonths: 24, defaultEnvironment: 'office' })).not.toThrow();
		expect(() => intervalRecommendations([], [], TODAY, FROM, 'customer' as never)).toThrow(/groupBy: must be one of designation, designationDepartment/);
	});
});
