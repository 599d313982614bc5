/** The quick checks of stored shapes (lambdas/pollers/stateFits.ts) accept only what the zod schemas accept, and take what the pollers write. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readingOfTestDay, readingOfTestResult } from '../../lambdas/pollers/records';
import { stateSchemas } from '../../lambdas/pollers/state';
import { dueHistoryFits, measurementSeriesFits, testRecordFits } from '../../lambdas/pollers/stateFits';

const { DueHistory, TestRecord } = stateSchemas();

const validDay = fc.date({ min: new Date('0100-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
const oddDay = fc.constantFrom('2024-02-30', '2023-02-29', '2024-2-01', '0000-01-01', '2024-02-29T00:00', '', ' 2024-01-01', 20240101, true, {});
const oddValue = fc.constantFrom<unknown>(null, 0, -1, 1.5, 2 ** 53, '3', '', true, [], {}, Number.NaN);
/** Mostly what the field holds, sometimes what it must not. */
const mixed = <T>(valid: fc.Arbitrary<T>, odd: fc.Arbitrary<unknown>) => fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: odd });

function shapes(odd: boolean) {
	const day = odd ? mixed(validDay, oddDay) : validDay;
	const pick = <T>(valid: fc.Arbitrary<T>) => (odd ? mixed(valid, oddValue) : valid);
	const id = pick(fc.oneof(fc.integer({ min: 1, max: 10_000 }), fc.constant(null)));
	const text = pick(fc.oneof(fc.string({ maxLength: 8 }), fc.constant(null)));
	const entry = fc.record(
		{
			due: day,
			openedOn: day,
			firstSeenOverdue: pick(fc.boolean()),
			outcome: odd ? fc.constantFrom('open', 'tested', 'deleted', 'moved', 'late', 1) : fc.constantFrom('open', 'tested', 'deleted', 'moved'),
			closedOn: day,
			testedOn: day,
			rebuilt: pick(fc.constant(true)),
			customerId: id,
			customerName: text,
			department: text,
		},
		{ requiredKeys: odd ? [] : ['due', 'openedOn', 'firstSeenOverdue', 'outcome', 'customerId', 'customerName', 'department'] },
	);
	const device = fc.record(
		{
			customerId: id,
			customerName: text,
			department: text,
			designation: text,
			nextTestDate: fc.oneof(day, fc.constant(null)),
			lastTestedDate: fc.oneof(day, fc.constant(null)),
			lastResultDate: fc.oneof(day, fc.constant(null)),
			seenOn: day,
			deletedOn: day,
			testIntervalMonths: pick(fc.oneof(fc.integer({ min: 1, max: 120 }), fc.constant(null))),
			createdOn: fc.oneof(day, fc.constant(null)),
			extra: fc.string(),
		},
		{ requiredKeys: odd ? [] : ['customerId', 'customerName', 'department', 'designation', 'nextTestDate', 'lastTestedDate', 'seenOn'] },
	);
	const history = fc.record({ device: pick(device), entries: pick(fc.array(entry, { maxLength: 4 })) }, { requiredKeys: odd ? [] : ['device', 'entries'] });
	const test = fc.record({ device: pick(fc.integer({ min: 1, max: 10_000 })), on: day, failed: pick(fc.oneof(fc.boolean(), fc.constant(null))) }, { requiredKeys: odd ? [] : ['device', 'on', 'failed'] });
	return { history, test };
}

describe('quick checks of stored shapes', () => {
	it('accept nothing their schema refuses', () => {
		const { history, test } = shapes(true);
		let accepted = 0;
		fc.assert(
			fc.property(history, (v) => {
				if (!dueHistoryFits(v)) return;
				accepted++;
				expect(DueHistory.safeParse(v).success).toBe(true);
			}),
			{ numRuns: 3000 },
		);
		fc.assert(fc.property(test, (v) => !testRecordFits(v) || TestRecord.safeParse(v).success), { numRuns: 3000 });
		// The property is about something: some odd-looking values still fit.
		expect(accepted).toBeGreaterThan(0);
	});

	it('take every value of the shape (so a stored history is not parsed by zod on each read)', () => {
		const { history, test } = shapes(false);
		fc.assert(fc.property(history, (v) => DueHistory.safeParse(v).success && dueHistoryFits(v)));
		fc.assert(fc.property(test, (v) => TestRecord.safeParse(v).success && testRecordFits(v)));
	});
});

describe('a test result read for its day', () => {
	it('is readable exactly when the full reading is, with the same fields', () => {
		const raw = fc.record({ id: fc.oneof(fc.integer({ min: -1, max: 9 }), oddValue), device_id: fc.oneof(fc.integer({ min: 1, max: 9 }), oddValue), test_date: fc.oneof(validDay, oddDay), status: fc.oneof(fc.constantFrom('passed', 'failed', 'PASSED'), oddValue) }, { requiredKeys: [] });
		fc.assert(
			fc.property(fc.oneof(raw, oddValue), (r) => {
				const day = readingOfTestDay(r);
				const full = readingOfTestResult(r);
				if ('record' in full) expect(day).toEqual({ record: { id: full.record.id, deviceId: full.record.deviceId, testDate: full.record.testDate, status: full.record.status } });
				else expect(day).toEqual(full);
			}),
			{ numRuns: 2000 },
		);
	});
});

describe('the kept measured values (MeasurementSeries)', () => {
	const { MeasurementSeries } = stateSchemas();
	const value = (odd: boolean) => (odd ? mixed(fc.double({ noNaN: true, noDefaultInfinity: true }), oddValue) : fc.double({ noNaN: true, noDefaultInfinity: true }));
	const series = (odd: boolean) => {
		const day = odd ? mixed(validDay, oddDay) : validDay;
		const limit = odd ? mixed(fc.oneof(fc.double({ min: 0.01, max: 1000, noNaN: true }), fc.constant(null)), oddValue) : fc.oneof(fc.double({ min: 0.01, max: 1000, noNaN: true }), fc.constant(null));
		const point = fc.tuple(odd ? mixed(fc.integer({ min: 1, max: 10_000 }), oddValue) : fc.integer({ min: 1, max: 10_000 }), day, value(odd), fc.oneof(fc.constant('MΩ'), fc.constant(null)), limit, limit);
		const failedId = odd ? mixed(fc.integer({ min: 1, max: 10_000 }), oddValue) : fc.integer({ min: 1, max: 10_000 });
		const result = fc.tuple(odd ? mixed(fc.integer({ min: 1, max: 10_000 }), oddValue) : fc.integer({ min: 1, max: 10_000 }), day);
		const results = fc.array(odd ? fc.oneof(result, fc.constantFrom<unknown>([1], [1, '2026-01-01', 3], 'x', null)) : result, { maxLength: 5 });
		return fc.record({ failedOn: day, failedId, results: odd ? mixed(results, oddValue) : results, steps: fc.dictionary(fc.string({ maxLength: 6 }), fc.array(odd ? fc.oneof(point, fc.constantFrom<unknown>([1], 'x', null)) : point, { maxLength: 5 })), backfilled: odd ? mixed(fc.boolean(), oddValue) : fc.boolean() }, { requiredKeys: ['steps'] });
	};

	it('accepts only what the schema accepts (fast-check, odd values included)', () => {
		fc.assert(
			fc.property(series(true), (v) => {
				if (measurementSeriesFits(v)) expect(MeasurementSeries.safeParse(v).success).toBe(true);
			}),
			{ numRuns: 2000 },
		);
	});

	it('takes what the pollers write', () => {
		fc.assert(
			fc.property(series(false), (v) => {
				expect(measurementSeriesFits(v)).toBe(true);
			}),
			{ numRuns: 500 },
		);
	});
});
