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
