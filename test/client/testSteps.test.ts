import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_STEP_TEXT, failedStepsOf, testedDeviceOf } from '../../client/testSteps';

const measurement = fc.record({
	name: fc.oneof(fc.string(), fc.constant(null)),
	value: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(null)),
	unit: fc.oneof(fc.constantFrom('Ω', 'MΩ', 'mA'), fc.constant(null)),
	low_limit: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(null)),
	high_limit: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(null)),
	passed: fc.boolean(),
});
const step = fc.record({
	step: fc.integer({ min: 1, max: 10_000 }),
	name: fc.string({ maxLength: 400 }),
	status: fc.constantFrom('passed', 'failed', 'FAILED', 'skipped'),
	measurements: fc.array(measurement, { maxLength: 80 }),
});

describe('failedStepsOf (the detailed result reader)', () => {
	it('keeps exactly the failed steps, in order, failed measurements first, with counts of what it cut', () => {
		fc.assert(
			fc.property(fc.array(step, { maxLength: 30 }), fc.integer({ min: 1, max: 60 }), (steps, max) => {
				const out = failedStepsOf({ id: 1, steps }, max);
				const failed = steps.filter((s) => s.status.toLowerCase() === 'failed' || s.measurements.some((m) => !m.passed));
				expect(out.map((s) => s.step)).toEqual(failed.map((s) => s.step));
				out.forEach((s, i) => {
					const source = failed[i].measurements;
					expect(s.measurements.length + s.truncatedMeasurements).toBe(source.length);
					expect(s.measurements.length).toBeLessThanOrEqual(max);
					const firstPassed = s.measurements.findIndex((m) => m.passed !== false);
					if (firstPassed >= 0) expect(s.measurements.slice(firstPassed).every((m) => m.passed !== false)).toBe(true);
					expect((s.name ?? '').length).toBeLessThanOrEqual(MAX_STEP_TEXT + 1);
				});
			}),
		);
	});

	it('never throws on anything JSON can hold, and reads numbers written as text', () => {
		fc.assert(
			fc.property(fc.jsonValue(), (value) => {
				expect(Array.isArray(failedStepsOf(value))).toBe(true);
				expect(testedDeviceOf(value)).toBeTypeOf('object');
			}),
		);
		const [s] = failedStepsOf({ steps: [{ step: '2', status: 'failed', measurements: [{ value: '0.41', low_limit: '1', passed: 'failed' }] }] });
		expect(s).toMatchObject({ step: 2, measurements: [{ value: 0.41, lowLimit: 1, highLimit: null, passed: false }] });
	});
});
