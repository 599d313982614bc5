import { ValidationError } from './errors';

/**
 * Student's t distribution without a library, for the measured values' prediction bounds
 * (client/measurementTrend.ts). Its CDF is the regularized incomplete beta function:
 * for t ≥ 0, P(T ≤ t) = 1 − ½ · I_{ν/(ν+t²)}(ν/2, ½); the quantile solves that by bisection.
 * I_x(a, b) is evaluated from its continued fraction (modified Lentz), on the side of the
 * symmetry I_x(a, b) = 1 − I_{1−x}(b, a) where the fraction converges fast.
 */

/** ln Γ(z) for z > 0: Lanczos' approximation (g = 7, 9 terms), about 15 significant digits. */
const LANCZOS = [
	0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
	9.9843695780195716e-6, 1.5056327351493116e-7,
];
export function logGamma(z: number): number {
	// Reflection keeps the series where it is accurate (z ≥ ½).
	if (z < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * z))) - logGamma(1 - z);
	const x = z - 1;
	let sum = LANCZOS[0];
	for (let k = 1; k < LANCZOS.length; k++) sum += LANCZOS[k] / (x + k);
	const t = x + 7.5;
	return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(sum);
}

const TINY = 1e-300;

/** The continued fraction of I_x(a, b), without its prefactor (converges for x < (a+1)/(a+b+2)). */
function betaFraction(x: number, a: number, b: number): number {
	let c = 1;
	let d = 1 - ((a + b) * x) / (a + 1);
	if (Math.abs(d) < TINY) d = TINY;
	d = 1 / d;
	let h = d;
	for (let m = 1; m <= 10_000; m++) {
		const m2 = 2 * m;
		// Even step: m(b−m)x / ((a+2m−1)(a+2m)).
		let num = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
		d = 1 + num * d;
		c = 1 + num / c;
		if (Math.abs(d) < TINY) d = TINY;
		if (Math.abs(c) < TINY) c = TINY;
		d = 1 / d;
		h *= d * c;
		// Odd step: −(a+m)(a+b+m)x / ((a+2m)(a+2m+1)).
		num = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
		d = 1 + num * d;
		c = 1 + num / c;
		if (Math.abs(d) < TINY) d = TINY;
		if (Math.abs(c) < TINY) c = TINY;
		d = 1 / d;
		const step = d * c;
		h *= step;
		if (Math.abs(step - 1) < 1e-16) break;
	}
	return h;
}

/** The regularized incomplete beta function I_x(a, b), 0 ≤ x ≤ 1, a, b > 0. */
export function regularizedBeta(x: number, a: number, b: number): number {
	if (!(a > 0 && b > 0 && Number.isFinite(a) && Number.isFinite(b))) throw new ValidationError('a, b', `must be positive numbers, got ${a}, ${b}`);
	if (!(x >= 0 && x <= 1)) throw new ValidationError('x', `must be a number from 0 to 1, got ${x}`);
	if (x === 0 || x === 1) return x;
	const logFront = logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x);
	if (x < (a + 1) / (a + b + 2)) return (Math.exp(logFront) * betaFraction(x, a, b)) / a;
	return 1 - (Math.exp(logFront) * betaFraction(1 - x, b, a)) / b;
}

function checkDegrees(df: number): void {
	if (!(df > 0 && Number.isFinite(df))) throw new ValidationError('degrees of freedom', `must be a positive number, got ${df}`);
}

/** P(T ≤ t) for Student's t with `df` degrees of freedom. */
export function studentTCdf(t: number, df: number): number {
	checkDegrees(df);
	if (Number.isNaN(t)) throw new ValidationError('t', 'must be a number, got NaN');
	if (t === Infinity) return 1;
	if (t === -Infinity) return 0;
	const tail = 0.5 * regularizedBeta(df / (df + t * t), df / 2, 0.5);
	return t >= 0 ? 1 - tail : tail;
}

/** The t with P(T ≤ t) = p (0 < p < 1): bisection on the CDF, to the last bits of a double. */
export function studentTQuantile(p: number, df: number): number {
	checkDegrees(df);
	if (!(p > 0 && p < 1)) throw new ValidationError('p', `must be a probability between 0 and 1 (0.95 for a one-sided 95 % bound), got ${p}`);
	if (p === 0.5) return 0;
	if (p < 0.5) return -studentTQuantile(1 - p, df);
	let lo = 0;
	let hi = 1;
	while (studentTCdf(hi, df) < p) {
		lo = hi;
		hi *= 2;
	}
	for (let i = 0; i < 2000; i++) {
		const mid = (lo + hi) / 2;
		if (mid <= lo || mid >= hi) break;
		if (studentTCdf(mid, df) < p) lo = mid;
		else hi = mid;
	}
	return (lo + hi) / 2;
}
