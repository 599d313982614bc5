/**
 * A share in per cent beside the figure it is read against (the reliability target, the 2 % mark):
 * shown with one decimal, more when one decimal would show it equal to that figure or on its other
 * side. Both faces write the interval reason with it (client's reasonOf, the e-mail's German
 * reasonText) and the failure rates' bounds.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addMonths } from '../../client/dates';
import type { RateDevice, RateTestResult } from '../../client/failureRates';
import { DEFAULT_INTERVAL_SETTINGS, intervalRecommendations, reasonOf, type IntervalRecommendation } from '../../client/intervals';
import { exactPercent, percentBeside } from '../../client/percent';
import { reasonText } from '../../email/intervalsRender';

/** −1, 0 or 1 as the decimal strings compare, digit by digit (no rounding through a double). */
function compareDecimal(a: string, b: string): number {
	const [ai, af = ''] = a.replace(',', '.').split('.');
	const [bi, bf = ''] = b.replace(',', '.').split('.');
	if (ai.length !== bi.length) return Math.sign(ai.length - bi.length);
	const n = Math.max(af.length, bf.length);
	const x = ai + af.padEnd(n, '0');
	const y = bi + bf.padEnd(n, '0');
	return x === y ? 0 : x < y ? -1 : 1;
}

const share = fc.double({ min: 0, max: 1, noNaN: true });
const target = fc.double({ min: 0.5, max: 1, noNaN: true, minExcluded: true, maxExcluded: true });

/** The 148 drills of an office tested a year apart without a failure: the one-sided 95 % lower bound 97.996 %, the target 98 %. */
function drills(): IntervalRecommendation {
	const devices: RateDevice[] = [];
	const results: RateTestResult[] = [];
	for (let id = 1; id <= 148; id++) {
		devices.push({ id, designation: 'Drill', department: 'Office', customerId: null, customerName: null, testIntervalMonths: 12 });
		results.push({ id: id * 2, deviceId: id, testDate: '2025-01-10', failed: false }, { id: id * 2 + 1, deviceId: id, testDate: addMonths('2025-01-10', 12), failed: false });
	}
	const settings = { ...DEFAULT_INTERVAL_SETTINGS, defaultEnvironment: 'office' as const };
	return intervalRecommendations(results, devices, '2026-03-01', '2025-06-01', 'designation', settings).groups[0];
}

const N = String.raw`(\d+(?:[.,]\d+)?)(?: |\u00a0)%`;
const EN = new RegExp(String.raw`observed reliability ${N}, \d+ % confidence limits ${N} to ${N}, one-sided 95 % lower bound ${N}`);
const DE = new RegExp(String.raw`beobachtete Zuverlässigkeit ${N}, \d+-%-Vertrauensgrenzen ${N} bis ${N}, einseitige untere 95-%-Grenze ${N}`);

/** The reason's target and its four reliability figures (observed, the two limits, the 95 % bound), English or German. */
function figures(reason: string): { target: string; shown: string[] } {
	const m = EN.exec(reason) ?? DE.exec(reason);
	expect(m, reason).not.toBeNull();
	const target = new RegExp(String.raw`(?:target|Ziel) ${N}`).exec(reason)![1];
	return { target, shown: m!.slice(1, 5) };
}

describe('a share in per cent beside the figure it is read against', () => {
	it('never shows equal to a different target, and compares with it as the numbers do', () => {
		fc.assert(
			fc.property(share, target, (v, t) => {
				const shown = percentBeside(v, t);
				const against = exactPercent(t);
				expect(compareDecimal(shown, against)).toBe(Math.sign(v - t));
				expect(shown).toMatch(/^\d+\.\d+$/);
			}),
		);
		expect(percentBeside(0.97996, 0.98)).toBe('97.996');
		expect(percentBeside(0.97, 0.98)).toBe('97.0');
		expect(percentBeside(0.98, 0.98)).toBe('98.0');
		expect(exactPercent(0.98)).toBe('98.0');
		expect(exactPercent(0.9825)).toBe('98.25');
	});

	it('the 148 drills: the reason says 97.996 %, below the target 98.0 %, not "at least 98.0 %, below the target"', () => {
		const g = drills();
		// NCSLI RP-1 A3: 12 · 10^(0.02 / (2 · 0.98^148)) = 18.97 → 18 months.
		expect(g).toMatchObject({ change: 'lengthen', recommendedIntervalMonths: 18, reliabilityTarget: 0.98 });
		expect(g.reliabilityLowerBound95).toBeCloseTo(0.97996, 5);
		expect(g.reason).toContain('one-sided 95 % lower bound 97.996 %');
		expect(g.reason).toContain('With 95 % confidence the reliability is only shown to be at least 97.996 %, below the target.');
		expect(g.reason).toContain('The target 98.0 % lies below the limits');
		expect(reasonText(g, 'de')).toContain('nur als mindestens 97,996\u00a0% belegt, unter dem Ziel.');
	});

	it('the reason, English (both faces) and German: every reliability figure differs from the target as its number does', () => {
		const base = drills();
		fc.assert(
			fc.property(share, share, share, share, share, target, fc.constantFrom('tooShort', 'tooLong', 'consistent') as fc.Arbitrary<IntervalRecommendation['intervalTest']>, (observed, lower, upper, lower95, upper95, t, test) => {
				const r = { ...base, observedReliability: observed, reliabilityLowerLimit: lower, reliabilityUpperLimit: upper, reliabilityLowerBound95: lower95, reliabilityUpperBound95: upper95, reliabilityTarget: t, intervalTest: test };
				const values = [observed, lower, upper, lower95];
				for (const reason of [reasonOf(r), reasonText({ ...r, reason: '' }, 'de')]) {
					const f = figures(reason);
					expect(compareDecimal(f.target, exactPercent(t))).toBe(0);
						f.shown.forEach((shown, i) => expect(compareDecimal(shown, f.target), `${shown} vs ${f.target} in ${reason}`).toBe(Math.sign(values[i] - t)));
				}
				expect(reasonText({ ...r, reason: '' }, 'en')).toBe(reasonOf(r));
			}),
		);
	});
});
