/** The quick checks of stored shapes (lambdas/pollers/stateFits.ts) accept only what the zod schemas accept, and take what the pollers write. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addPassedResult, emptySeries, withoutResults, type DeviceSeries, type StepValue } from '../../client';
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

describe('a deferred result’s pending entry (PendingMeasurement) with its device’s kept values', () => {
	const { PendingMeasurement } = stateSchemas();
	const recorded = {
		testResult: { id: 9_999_999, status: 'passed', passed: true, testDate: '2026-05-13', syncedTime: '2026-05-13T10:00:00Z', projectId: 12_345, testSequence: 'VDE 0701-0702 Schutzklasse I mit Verlängerungsleitung', tester: 'A. Prüferin-Mustermann' },
		device: { id: 9_999_998, customerId: 9_999_997 },
	};
	const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

	it('fits a store item (DynamoDB: 400 KB) with room at the kept maximum: 5 results of 64 measured steps, long names, full-precision values and both limits, under a tenth of it', () => {
		const step = (k: number, day: number): StepValue => ({ step: `Schutzleiterwiderstand Steckplatz ${String(k).padStart(2, '0')} (Verlängerung 25 m)`, measurement: `Messung R_PE ${k} Hilfsleiter`, value: 0.123_456_789_012_345_6 + day / 1e4, unit: 'Ω', lowLimit: 0.000_123_456_789_012_3, highLimit: 0.312_345_678_901_234_5, limitUsed: 0.4, limitSide: 'high' });
		let series: DeviceSeries = emptySeries();
		// More results than are kept: the series holds the latest 5 of them.
		for (let r = 0; r < 8; r++) series = addPassedResult(series, { id: 9_999_900 + r, testDate: `2026-0${r + 1}-28`, values: Array.from({ length: 64 }, (_, k) => step(k, r)) });
		expect(series.results).toHaveLength(5);
		const entry = { recorded, attempts: 1, series: withoutResults(series, new Set()) };
		expect(PendingMeasurement.safeParse(entry).success).toBe(true);
		expect(bytes(entry)).toBeLessThan(40_000);
	});

	it('is its kept values and the recorded result, and a few bytes more: it fits wherever the device’s kept values fit with room for the result (fast-check)', () => {
		const day = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
		const value = fc.record({ step: fc.string({ minLength: 1, maxLength: 40 }), measurement: fc.option(fc.string({ maxLength: 20 })), value: fc.double({ min: 1e-6, max: 1e6, noNaN: true }), unit: fc.option(fc.constantFrom('Ω', 'MΩ', 'mA')), lowLimit: fc.option(fc.double({ min: 1e-6, max: 1e6, noNaN: true })), highLimit: fc.option(fc.double({ min: 1e-6, max: 1e6, noNaN: true })) });
		const result = fc.record({ id: fc.integer({ min: 1, max: 1e9 }), testDate: day, values: fc.array(value, { maxLength: 12 }) });
		fc.assert(
			fc.property(fc.array(result, { maxLength: 9 }), (results) => {
				const series = results.reduce<DeviceSeries>((s, r) => addPassedResult(s, { ...r, values: r.values.map((v) => ({ ...v, limitUsed: 0.5, limitSide: 'high' as const })) }), emptySeries());
				const entry = { recorded, attempts: 24, done: true, series };
				expect(PendingMeasurement.safeParse(entry).success).toBe(true);
				expect(bytes(entry)).toBeLessThanOrEqual(bytes(series) + bytes(recorded) + 64);
			}),
			{ numRuns: 300 },
		);
	});
});
