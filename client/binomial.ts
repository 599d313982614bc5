import { ValidationError } from './errors';

/**
 * Exact (Clopper–Pearson, 1934) one-sided bounds of a failure rate: `failed` failures in `tests`
 * tests. Pure, no dependency. The binomial CDF P(X ≤ x | n, p) comes from log-factorials; the
 * bounds solve its defining equations by bisection in p, which is the Beta quantile through the
 * identity P(X ≤ x | n, p) = 1 − I_p(x + 1, n − x):
 * - upper bound at confidence c: the p with P(X ≤ x) = 1 − c, i.e. Beta⁻¹(c; x + 1, n − x);
 *   1 when x = n (every test failed: nothing bounds the rate below 1);
 * - lower bound at confidence c: the p with P(X ≥ x) = 1 − c, i.e. Beta⁻¹(1 − c; x, n − x + 1);
 *   0 when x = 0.
 * A two-sided interval at 95 % is the two one-sided bounds at 97.5 %.
 */

/** The confidence of the bounds the failure rates show: one-sided 95 %. */
export const BOUND_CONFIDENCE = 0.95;

const EXACT_UP_TO = 256;
const LOG_FACTORIALS: number[] = [0];
for (let k = 1; k <= EXACT_UP_TO; k++) LOG_FACTORIALS[k] = LOG_FACTORIALS[k - 1] + Math.log(k);

/** ln k!: summed exactly up to 256, Stirling's series beyond (its next term is below 1e-19 there). */
export function logFactorial(k: number): number {
	if (k <= EXACT_UP_TO) return LOG_FACTORIALS[k];
	const k2 = k * k;
	return k * Math.log(k) - k + 0.5 * Math.log(2 * Math.PI * k) + 1 / (12 * k) - 1 / (360 * k * k2) + 1 / (1260 * k * k2 * k2);
}

function checkCounts(failed: number, tests: number): void {
	if (!Number.isSafeInteger(tests) || tests < 0) throw new ValidationError('tests', `must be a whole number of at least 0, got ${tests}`);
	if (!Number.isSafeInteger(failed) || failed < 0 || failed > tests) throw new ValidationError('failed', `must be a whole number from 0 to tests (${tests}), got ${failed}`);
}

function checkConfidence(confidence: number): void {
	if (!(typeof confidence === 'number' && confidence >= 0.5 && confidence < 1)) {
		throw new ValidationError('confidence', `must be a number between 0.5 and 1 (0.95 for 95 %), got ${confidence}`);
	}
}

/** The CDF's terms, reused from call to call (grown when a call needs more). */
let logs = new Float64Array(256);
/**
 * ln C(n, k) of the last (x, n) asked, k = 0…x: a bound's bisection asks the same x and n some
 * fifty times with another p, and these parts do not depend on p (the same sums, in the same order).
 */
let choose = new Float64Array(256);
let chosenX = -1;
let chosenN = -1;
/** The least k whose ln C(n, k) is worked out (they are, from x down, as the sums need them). */
let chosenFrom = 0;

/** P(X ≤ x) for X binomial with n trials and probability p (x, n whole numbers, 0 ≤ p ≤ 1). */
export function binomialCdf(x: number, n: number, p: number): number {
	if (x < 0) return 0;
	if (x >= n) return 1;
	if (p <= 0) return 1;
	if (p >= 1) return 0;
	const lp = Math.log(p);
	const lq = Math.log1p(-p);
	const ln = logFactorial(n);
	// Terms in logs, summed relative to the largest so that none underflows alone (kept in one
	// reused buffer: the bounds' bisections call this thousands of times per report).
	if (logs.length <= x) logs = new Float64Array(Math.max(x + 1, logs.length * 2));
	if (x !== chosenX || n !== chosenN) {
		if (choose.length <= x) choose = new Float64Array(Math.max(x + 1, choose.length * 2));
		chosenX = x;
		chosenN = n;
		chosenFrom = x + 1;
	}
	// From k = x down: the terms rise to the largest (the mode, or x) and fall beyond it (the
	// binomial is log-concave). Once falling and more than 746 below the largest, every lower term
	// is exactly 0 as a double (exp underflows): those are neither worked out nor summed (adding
	// 0 changes no sum). On a large account's totals this is most of x's thousands of terms.
	let max = -Infinity;
	let low = 0;
	for (let k = x; k >= 0; k--) {
		if (k < chosenFrom) {
			choose[k] = ln - logFactorial(k) - logFactorial(n - k);
			chosenFrom = k;
		}
		const l = choose[k] + k * lp + (n - k) * lq;
		logs[k] = l;
		if (l > max) max = l;
		else if (l < max - 746 && l < logs[k + 1]) {
			low = k;
			break;
		}
	}
	if (max === -Infinity) return 0;
	let sum = 0;
	const least = max - 746;
	for (let k = low; k <= x; k++) if (logs[k] >= least) sum += Math.exp(logs[k] - max);
	return Math.min(1, Math.exp(max) * sum);
}

/** The p in [lo, hi] where `f` (falling in p) crosses `target`, to the last bits of a double. */
function solveFalling(f: (p: number) => number, target: number, lo: number, hi: number): number {
	for (let i = 0; i < 2000 && hi - lo > 1e-16 * hi; i++) {
		const mid = (lo + hi) / 2;
		if (mid <= lo || mid >= hi) break;
		if (f(mid) > target) lo = mid;
		else hi = mid;
	}
	return (lo + hi) / 2;
}

/** The one-sided upper bound of the failure rate at `confidence` (1 when every test failed). */
export function upperBound(failed: number, tests: number, confidence = BOUND_CONFIDENCE): number {
	checkCounts(failed, tests);
	checkConfidence(confidence);
	if (failed === tests) return 1;
	return solveFalling((p) => binomialCdf(failed, tests, p), 1 - confidence, failed / tests, 1);
}

/** The one-sided lower bound of the failure rate at `confidence` (0 when no test failed). */
export function lowerBound(failed: number, tests: number, confidence = BOUND_CONFIDENCE): number {
	checkCounts(failed, tests);
	checkConfidence(confidence);
	if (failed === 0) return 0;
	// P(X ≥ x) = 1 − P(X ≤ x − 1) rises with p: the CDF at x − 1 falls through the confidence.
	return solveFalling((p) => binomialCdf(failed - 1, tests, p), confidence, 0, failed / tests);
}

/**
 * How many more tests without a failure bring the upper bound under `limit` (0 when it is already
 * under). The bound is under the limit exactly when P(X ≤ failed | tests, limit) < 1 − confidence,
 * and that probability falls as tests are added: the least such count is found by doubling, then
 * halving.
 */
export function testsNeeded(failed: number, tests: number, limit = 0.02, confidence = BOUND_CONFIDENCE): number {
	checkCounts(failed, tests);
	checkConfidence(confidence);
	if (!(limit > 0 && limit < 1)) throw new ValidationError('limit', `must be a rate between 0 and 1 (0.02 for 2 %), got ${limit}`);
	const under = (n: number) => binomialCdf(failed, n, limit) < 1 - confidence;
	if (under(tests)) return 0;
	let lo = tests;
	let hi = Math.max(tests + 1, failed + 1);
	while (!under(hi)) {
		lo = hi;
		hi *= 2;
	}
	while (hi - lo > 1) {
		const mid = Math.floor((lo + hi) / 2);
		if (under(mid)) hi = mid;
		else lo = mid;
	}
	return hi - tests;
}
