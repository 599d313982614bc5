/**
 * Exact binomial bounds (Clopper & Pearson, "The use of confidence or fiducial limits illustrated
 * in the case of the binomial", Biometrika 26 (1934) 404–413), checked against computations made
 * apart from this module:
 * - SciPy's documented example of `scipy.stats.binomtest(k=7, n=50).proportion_ci()` (method
 *   'exact' = Clopper–Pearson, two-sided 95 %): low 0.05819170033997342, high 0.26739600249700846
 *   (docs.scipy.org, scipy.stats._result_classes.BinomTestResult.proportion_ci);
 * - R's `binom.test(682, 925)` (the example of its help page, Mendel's peas), whose 95 % interval
 *   "obtained by a procedure first given in Clopper and Pearson (1934)" prints as 0.7076683
 *   0.7654066;
 * - the closed form for no failure, 1 − α^(1/n) (P(X ≤ 0) = (1 − p)^n = α), and its large-n
 *   limit −ln α / n ≈ 3/n, the "rule of three" (Hanley & Lippman-Hand, "If nothing goes wrong, is
 *   everything all right?", JAMA 249 (1983) 1743–1745);
 * - the tests DGUV's 2 % needs: 0 failures in 149 tests give an upper bound under 2 %, in 148
 *   not; 1 failure needs 236, 2 need 313 (SciPy 1.17 `beta.ppf(0.95, x + 1, n − x)`:
 *   0.019904816 / 0.020037952, 0.019942382 / 0.020026568, 0.019976770 / 0.020040357);
 * - one failure in 70 tests: 6.6 % (SciPy: 0.0659839000); none in 50: 5.8 % (0.0581550791).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { binomialCdf, logFactorial, lowerBound, testsNeeded, upperBound } from '../../client/binomial';

describe('binomial bounds against published and independent values', () => {
	it('SciPy’s documented Clopper–Pearson example: 7 of 50, two-sided 95 % (each side 97.5 %)', () => {
		expect(lowerBound(7, 50, 0.975)).toBeCloseTo(0.05819170033997342, 12);
		expect(upperBound(7, 50, 0.975)).toBeCloseTo(0.26739600249700846, 12);
	});

	it('R’s binom.test(682, 925): 0.7076683 to 0.7654066', () => {
		expect(lowerBound(682, 925, 0.975)).toBeCloseTo(0.7076683, 7);
		expect(upperBound(682, 925, 0.975)).toBeCloseTo(0.7654066, 7);
	});

	it('one-sided 95 %: none of 50 is 5.8 %, one of 70 is 6.6 % (not the 0 % and 1.4 % observed)', () => {
		expect(upperBound(0, 50)).toBeCloseTo(0.0581550791, 9);
		expect(upperBound(1, 70)).toBeCloseTo(0.0659839000, 9);
		expect(lowerBound(1, 70)).toBeCloseTo(0.000732492944, 11);
	});

	it('no failure: exactly 1 − 0.05^(1/n), and n·bound tends to −ln 0.05 ≈ 3 (the rule of three)', () => {
		for (const n of [1, 2, 5, 10, 50, 149, 1000, 12_345]) expect(upperBound(0, n)).toBeCloseTo(1 - 0.05 ** (1 / n), 14);
		for (const n of [10_000, 100_000, 1_000_000]) {
			expect(Math.abs(n * upperBound(0, n) + Math.log(0.05))).toBeLessThan(5 / n);
			expect(Math.abs(n * upperBound(0, n) - 3)).toBeLessThan(0.005);
		}
	});

	it('tests for an upper bound under 2 %: 149 with no failure, 236 with one, 313 with two', () => {
		for (const [x, n] of [[0, 149], [1, 236], [2, 313]]) {
			expect(upperBound(x, n), `${x} in ${n}`).toBeLessThan(0.02);
			expect(upperBound(x, n - 1), `${x} in ${n - 1}`).toBeGreaterThan(0.02);
			expect(x + testsNeeded(x, x)).toBe(n);
			expect(testsNeeded(x, n - 10)).toBe(10);
			expect(testsNeeded(x, n)).toBe(0);
		}
	});

	it('edges: all failed gives 1, none failed gives 0; no test at all bounds nothing', () => {
		expect(upperBound(5, 5)).toBe(1);
		expect(lowerBound(0, 5)).toBe(0);
		expect(upperBound(0, 0)).toBe(1);
		expect(lowerBound(0, 0)).toBe(0);
		expect(lowerBound(1, 1)).toBeCloseTo(0.05, 14);
		expect(testsNeeded(0, 0)).toBe(149);
	});

	it('refuses what is not a count', () => {
		expect(() => upperBound(3, 2)).toThrow(/failed: must be a whole number from 0 to tests \(2\), got 3/);
		expect(() => upperBound(-1, 2)).toThrow(/failed/);
		expect(() => lowerBound(1, 2.5)).toThrow(/tests: must be a whole number of at least 0, got 2.5/);
		expect(() => upperBound(1, 2, 1)).toThrow(/confidence: must be a number between 0.5 and 1/);
	});
});

const countsArb = fc.integer({ min: 0, max: 3000 }).chain((n) => fc.tuple(fc.integer({ min: 0, max: n }), fc.constant(n)));

describe('binomial bounds (properties)', () => {
	it('bounds in [0, 1] and lower ≤ x/n ≤ upper', () => {
		fc.assert(
			fc.property(countsArb, ([x, n]) => {
				const lo = lowerBound(x, n);
				const hi = upperBound(x, n);
				expect(lo).toBeGreaterThanOrEqual(0);
				expect(hi).toBeLessThanOrEqual(1);
				if (n > 0) {
					expect(lo).toBeLessThanOrEqual(x / n);
					expect(hi).toBeGreaterThanOrEqual(x / n);
				}
			}),
		);
	});

	it('the defining equations: P(X ≤ x | upper) = 0.05 and P(X ≥ x | lower) = 0.05, within 1e-9', () => {
		fc.assert(
			fc.property(countsArb, ([x, n]) => {
				if (x < n) expect(Math.abs(binomialCdf(x, n, upperBound(x, n)) - 0.05)).toBeLessThan(1e-9);
				if (x > 0) expect(Math.abs(1 - binomialCdf(x - 1, n, lowerBound(x, n)) - 0.05)).toBeLessThan(1e-9);
			}),
		);
	});

	it('symmetric: the lower bound of x in n is 1 − the upper bound of n − x in n', () => {
		fc.assert(
			fc.property(countsArb, ([x, n]) => {
				expect(lowerBound(x, n)).toBeCloseTo(1 - upperBound(n - x, n), 12);
			}),
		);
	});

	it('monotonic: more failures raise both bounds, more tests with the same failures lower them', () => {
		fc.assert(
			fc.property(countsArb, fc.integer({ min: 1, max: 200 }), ([x, n], more) => {
				if (x < n) {
					expect(upperBound(x + 1, n)).toBeGreaterThan(upperBound(x, n));
					expect(lowerBound(x + 1, n)).toBeGreaterThan(lowerBound(x, n));
				}
				expect(upperBound(x, n + more)).toBeLessThanOrEqual(upperBound(x, n));
				expect(lowerBound(x, n + more)).toBeLessThanOrEqual(lowerBound(x, n));
			}),
		);
	});

	it('tests needed: that many more passed tests bring the upper bound under 2 %, one fewer does not', () => {
		fc.assert(
			fc.property(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 4000 }), (x, extra) => {
				const n = x + extra;
				const m = testsNeeded(x, n);
				if (upperBound(x, n) < 0.02) expect(m).toBe(0);
				else {
					expect(upperBound(x, n + m)).toBeLessThan(0.02);
					expect(upperBound(x, n + m - 1)).toBeGreaterThanOrEqual(0.02);
				}
			}),
			{ numRuns: 60 },
		);
	});

	it('the CDF is a distribution: 1 at x = n, falls with p, and sums its terms', () => {
		fc.assert(
			fc.property(fc.integer({ min: 1, max: 60 }), fc.double({ min: 0.001, max: 0.999, noNaN: true }), (n, p) => {
				expect(binomialCdf(n, n, p)).toBe(1);
				let direct = 0;
				let choose = 1;
				for (let k = 0; k < n; k++) {
					direct += choose * p ** k * (1 - p) ** (n - k);
					expect(binomialCdf(k, n, p)).toBeCloseTo(direct, 12);
					expect(binomialCdf(k, n, Math.min(1, p + 0.001))).toBeLessThanOrEqual(binomialCdf(k, n, p) + 1e-12);
					choose = (choose * (n - k)) / (k + 1);
				}
			}),
		);
	});

	it('the CDF is bit for bit the sum of every term in logs, however far its terms fall (large counts, one count pair asked again with another p)', () => {
		// Every term worked out and summed from k = 0, relative to the largest: what the CDF skips (the terms
		// it leaves out are exactly 0 as doubles) must not change a bit, nor must asking the same x and n again.
		const everyTerm = (x: number, n: number, p: number): number => {
			if (x < 0) return 0;
			if (x >= n) return 1;
			if (p <= 0) return 1;
			if (p >= 1) return 0;
			const lp = Math.log(p);
			const lq = Math.log1p(-p);
			const ln = logFactorial(n);
			const logs: number[] = [];
			let max = -Infinity;
			for (let k = 0; k <= x; k++) {
				logs.push(ln - logFactorial(k) - logFactorial(n - k) + k * lp + (n - k) * lq);
				max = Math.max(max, logs[k]);
			}
			let sum = 0;
			for (let k = 0; k <= x; k++) sum += Math.exp(logs[k] - max);
			return Math.min(1, Math.exp(max) * sum);
		};
		const pairArb = fc.integer({ min: 1, max: 300_000 }).chain((n) => fc.tuple(fc.integer({ min: 0, max: Math.min(n, 20_000) }), fc.constant(n)));
		fc.assert(
			fc.property(pairArb, fc.double({ min: 0.5, max: 1.5, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), ([x, n], near, anywhere) => {
				const p = Math.min(0.999999, Math.max(1e-6, (x / n) * near));
				expect(Object.is(binomialCdf(x, n, p), everyTerm(x, n, p))).toBe(true);
				expect(Object.is(binomialCdf(x, n, anywhere), everyTerm(x, n, anywhere))).toBe(true);
				expect(Object.is(binomialCdf(x, n, p), everyTerm(x, n, p))).toBe(true);
			}),
			{ numRuns: 60 },
		);
	});
});
