/**
 * Student's t quantile from the regularized incomplete beta, no library: against a published
 * t-table, the closed forms for 1 and 2 degrees of freedom, and the beta function's identities.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError, logGamma, regularizedBeta, studentTCdf, studentTQuantile } from '../../client';

describe('Student t quantile', () => {
	// NIST/SEMATECH e-Handbook of Statistical Methods, 1.3.6.7.2 "Critical Values of the Student's t
	// Distribution" (upper-tail 0.05 and 0.025 columns, three decimals).
	it.each([
		[1, 0.95, 6.314],
		[2, 0.95, 2.92],
		[3, 0.95, 2.353],
		[5, 0.95, 2.015],
		[10, 0.95, 1.812],
		[18, 0.95, 1.734],
		[30, 0.95, 1.697],
		[100, 0.95, 1.66],
		[1, 0.975, 12.706],
		[10, 0.975, 2.228],
		[18, 0.975, 2.101],
	])('t(%i degrees of freedom) at %f is %f as the NIST/SEMATECH t-table prints it', (df, p, printed) => {
		expect(studentTQuantile(p, df)).toBeCloseTo(printed, 3);
	});

	it('1 degree of freedom: the Cauchy quantile tan(π(p − ½)); 2: (2p − 1) / √(2p(1 − p))', () => {
		fc.assert(
			fc.property(fc.double({ min: 0.02, max: 0.98, noNaN: true }), (p) => {
				expect(studentTQuantile(p, 1)).toBeCloseTo(Math.tan(Math.PI * (p - 0.5)), 9);
				expect(studentTQuantile(p, 2)).toBeCloseTo((2 * p - 1) / Math.sqrt(2 * p * (1 - p)), 9);
			}),
		);
	});

	it('the quantile inverts the CDF, rises with p, is odd about ½ and falls with the degrees of freedom', () => {
		fc.assert(
			fc.property(fc.double({ min: 0.51, max: 0.999, noNaN: true }), fc.integer({ min: 1, max: 200 }), (p, df) => {
				const t = studentTQuantile(p, df);
				expect(studentTCdf(t, df)).toBeCloseTo(p, 10);
				expect(studentTQuantile(p - 0.005, df)).toBeLessThan(t);
				expect(studentTQuantile(1 - p, df)).toBeCloseTo(-t, 9);
				expect(studentTQuantile(p, df + 1)).toBeLessThan(t);
			}),
		);
	});

	it('bad input is refused naming what is wrong', () => {
		expect(() => studentTQuantile(1, 5)).toThrow(ValidationError);
		expect(() => studentTQuantile(0.95, 0)).toThrow(/degrees of freedom: must be a positive number, got 0/);
		expect(() => regularizedBeta(1.5, 1, 1)).toThrow(/x: must be a number from 0 to 1/);
	});
});

describe('regularized incomplete beta', () => {
	it('I_x(1, b) = 1 − (1 − x)^b, I_x(a, 1) = x^a, and I_x(a, b) = 1 − I_(1−x)(b, a)', () => {
		fc.assert(
			fc.property(fc.double({ min: 0.001, max: 0.999, noNaN: true }), fc.double({ min: 0.2, max: 60, noNaN: true }), fc.double({ min: 0.2, max: 60, noNaN: true }), (x, a, b) => {
				expect(regularizedBeta(x, 1, b)).toBeCloseTo(1 - (1 - x) ** b, 10);
				expect(regularizedBeta(x, a, 1)).toBeCloseTo(x ** a, 10);
				expect(regularizedBeta(x, a, b)).toBeCloseTo(1 - regularizedBeta(1 - x, b, a), 10);
			}),
		);
	});

	it('ln Γ at integers is ln (n − 1)! and Γ(½) = √π', () => {
		let logFactorial = 0;
		for (let n = 1; n <= 30; n++) {
			expect(logGamma(n)).toBeCloseTo(logFactorial, 9);
			logFactorial += Math.log(n);
		}
		expect(logGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 12);
	});
});
