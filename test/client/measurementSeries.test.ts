/**
 * A device's kept measured values (client/measurementSeries.ts), pure: a failed result and a
 * passed re-test on the same day (fail, repair, re-test: the DGUV V3 routine) keep what
 * trendResultsOf keeps, ordered by test date then result id; a stored failure day without its
 * result's id is read as before (the whole day counts as failed).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addFailedResult, addPassedResult, emptySeries, keptPoints, trendResultsOf, type DeviceSeries, type StepValue } from '../../client';

const RISO = 'Insulation resistance';
const values = (value: number): StepValue[] => [{ step: RISO, measurement: null, value, unit: 'MΩ', lowLimit: 1, highLimit: null } as StepValue];
const keptIds = (s: DeviceSeries) => Object.values(s.steps).flatMap((points) => keptPoints(points).map((p) => p.testResultId));

/** The series as the pollers build it: each result as it arrives. */
function arriving(results: ReadonlyArray<{ id: number; testDate: string; failed: boolean }>): DeviceSeries {
	let s = emptySeries();
	for (const r of results) s = r.failed ? addFailedResult(s, r.testDate, r.id) : addPassedResult(s, { id: r.id, testDate: r.testDate, values: values(100 + r.id) });
	return s;
}

describe('the kept values of a device', () => {
	it('a passed re-test on the day of a failed result is kept, before or after the failure arrives; a passed result before the failure on that day is not', () => {
		const history = [
			{ id: 61, testDate: '2026-05-13', failed: true },
			{ id: 62, testDate: '2026-05-13', failed: false },
			{ id: 63, testDate: '2026-08-21', failed: false },
			{ id: 64, testDate: '2026-11-29', failed: false },
		];
		expect(keptIds(arriving(history))).toEqual([62, 63, 64]);
		// The re-test read first (an upload order the service allows), then its failure: still kept.
		expect(keptIds(arriving([history[1], history[0], history[2], history[3]]))).toEqual([62, 63, 64]);
		// A passed result of the same day with a smaller id came before the failure: dropped, in either order.
		const earlier = { id: 60, testDate: '2026-05-13', failed: false };
		expect(keptIds(arriving([earlier, ...history]))).toEqual([62, 63, 64]);
		expect(keptIds(arriving([history[0], earlier, ...history.slice(1)]))).toEqual([62, 63, 64]);
		expect(arriving(history)).toMatchObject({ failedOn: '2026-05-13', failedId: 61 });
	});

	it('a later failure on the same day replaces an earlier one; an earlier one changes nothing', () => {
		let s = addFailedResult(emptySeries(), '2026-05-13', 61);
		s = addPassedResult(s, { id: 62, testDate: '2026-05-13', values: values(5) });
		s = addFailedResult(s, '2026-05-13', 63);
		expect(s).toMatchObject({ failedOn: '2026-05-13', failedId: 63 });
		expect(keptIds(s)).toEqual([]);
		expect(addFailedResult(s, '2026-05-13', 61)).toBe(s);
		expect(keptIds(addPassedResult(s, { id: 64, testDate: '2026-05-13', values: values(5) }))).toEqual([64]);
	});

	it('a stored failure day without its id (kept by an earlier version) is read as before: nothing of that day is kept', () => {
		const stored: DeviceSeries = { failedOn: '2026-05-13', steps: {} };
		expect(keptIds(addPassedResult(stored, { id: 99, testDate: '2026-05-13', values: values(5) }))).toEqual([]);
		expect(keptIds(addPassedResult(stored, { id: 99, testDate: '2026-05-14', values: values(5) }))).toEqual([99]);
		expect(addFailedResult(stored, '2026-05-13', 98)).toBe(stored);
		expect(addFailedResult(stored, '2026-05-14', 98)).toMatchObject({ failedOn: '2026-05-14', failedId: 98 });
	});

	it('results that measure different steps: each step keeps its values among the latest five passed results only, as trendResultsOf takes them, in any order of arrival (fast-check)', () => {
		const STEPS = [RISO, 'Protective conductor resistance'];
		const result = fc.record({ day: fc.integer({ min: 1, max: 9 }), failed: fc.boolean(), measures: fc.subarray(STEPS) });
		const byStep = (s: DeviceSeries) => Object.fromEntries(Object.entries(s.steps).map(([k, points]) => [k.split('\u0000')[0], keptPoints(points).map((p) => p.testResultId)]));
		fc.assert(
			fc.property(fc.array(result, { maxLength: 14 }), fc.func(fc.integer()), (drawn, order) => {
				const history = drawn.map((r, i) => ({ id: i + 1, testDate: `2026-0${r.day}-01`, failed: r.failed, measures: r.measures }));
				const expected: Record<string, number[]> = {};
				for (const r of trendResultsOf(history)) for (const step of r.measures) (expected[step] ??= []).push(r.id);
				const shuffled = [...history].sort((a, b) => order(a.id) - order(b.id) || a.id - b.id);
				for (const arrival of [history, shuffled]) {
					let s = emptySeries();
					for (const r of arrival) {
						const measured = r.measures.map((step) => ({ step, measurement: null, value: 100 + r.id, unit: 'MΩ', lowLimit: 1, highLimit: null }) as StepValue);
						s = r.failed ? addFailedResult(s, r.testDate, r.id) : addPassedResult(s, { id: r.id, testDate: r.testDate, values: measured });
					}
					expect(byStep(s)).toEqual(expected);
				}
			}),
			{ numRuns: 500 },
		);
	});

	it('a step left out of the latest results keeps none of its older values: two results of one step, three of another, a sixth of the first', () => {
		let s = emptySeries();
		const pe = (value: number): StepValue[] => [{ step: 'Protective conductor resistance', measurement: null, value, unit: 'Ω', lowLimit: null, highLimit: 0.3 } as StepValue];
		s = addPassedResult(s, { id: 1, testDate: '2025-07-17', values: values(400) });
		s = addPassedResult(s, { id: 2, testDate: '2025-10-25', values: values(150) });
		for (const [i, day] of ['2026-02-02', '2026-05-13', '2026-08-21'].entries()) s = addPassedResult(s, { id: 3 + i, testDate: day, values: pe(0.1) });
		s = addPassedResult(s, { id: 66, testDate: '2026-11-29', values: values(1.2) });
		expect(keptPoints(s.steps[`${RISO}\u0000`]).map((p) => p.testResultId)).toEqual([2, 66]);
		// A passed result without a usable value counts among the five too.
		s = addPassedResult(s, { id: 67, testDate: '2026-11-30', values: [] });
		expect(keptPoints(s.steps[`${RISO}\u0000`]).map((p) => p.testResultId)).toEqual([66]);
	});

	it('stored kept values without the list of results (an earlier version) are read as before: their results are the latest kept', () => {
		const stored: DeviceSeries = { steps: { [`${RISO}\u0000`]: [[1, '2026-01-01', 400, 'MΩ', 1, null], [2, '2026-02-01', 150, 'MΩ', 1, null]] } };
		const s = addPassedResult(stored, { id: 3, testDate: '2026-03-01', values: values(3) });
		expect(keptIds(s)).toEqual([1, 2, 3]);
	});

	it('whatever the order of arrival, the kept values are the results trendResultsOf keeps (fast-check)', () => {
		const result = fc.record({ day: fc.integer({ min: 1, max: 6 }), failed: fc.boolean() });
		fc.assert(
			fc.property(fc.array(result, { maxLength: 12 }), fc.func(fc.integer()), (drawn, order) => {
				const history = drawn.map((r, i) => ({ id: i + 1, testDate: `2026-0${r.day}-01`, failed: r.failed }));
				const shuffled = [...history].sort((a, b) => order(a.id) - order(b.id) || a.id - b.id);
				// Failures only drop, the bound keeps the latest: the order of arrival changes nothing.
				expect(keptIds(arriving(history))).toEqual(trendResultsOf(history).map((r) => r.id));
				expect(keptIds(arriving(shuffled))).toEqual(trendResultsOf(history).map((r) => r.id));
			}),
			{ numRuns: 500 },
		);
	});
});
