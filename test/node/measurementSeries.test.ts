/**
 * The demo's measured values have a past (sandbox/series.ts), read through n8n's engine: a drifting
 * device's trend (Device → Get Measurement Trend) shows its drift and the day it reaches the limit;
 * Compliance → Get Measurement Warnings on the demo warns of every drifting device tested in the
 * window, at its drifting step, with that day.
 */
import { describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import { addDays, epochDay } from '../../client';
import { STEP_NAME } from '../../sandbox/series';
import { DEVICE } from '../../sandbox/properties';
import { FIXED_NOW } from '../support/sandbox';
import { byId, jsonOf, runUtc, useSandbox } from './helpers';

// The tests' day (both the sandbox's and the node's today): the same demo, and the same window, on every run.
const sandbox = useSandbox({ ratePerSecond: 200, at: FIXED_NOW });

/** The demo's devices drifting now (not repaired), with their latest result. */
function drifting() {
	const a = sandbox.account;
	return [...a.data.series.drifts]
		.filter(([id, d]) => d.end === null && a.data.devices.has(id))
		.map(([id, drift]) => {
			const own = [...a.data.testResults.values()].filter((r) => r.device_id === id).sort((x, y) => x.test_date.localeCompare(y.test_date));
			return { id, drift, step: STEP_NAME[drift.step], latest: own.at(-1)! };
		});
}

describe('the demo’s measured series through the node', () => {
	it('Device → Get Measurement Trend of a drifting device: its drifting step moves toward the limit stored with its results and has a predicted limit day', async () => {
		const devices = drifting();
		expect(devices.length).toBeGreaterThanOrEqual(4);
		for (const { id, drift, step, latest } of devices.slice(0, 4)) {
			const { items, error } = await runUtc(sandbox, { resource: 'device', operation: 'getMeasurementTrend', deviceId: byId(id) });
			expect(error).toBeUndefined();
			const byStep = new Map(jsonOf(items).map((s) => [s.step, s]));
			const trend = byStep.get(step)!;
			const fit = trend.fit as IDataObject;
			expect(trend.noTrend, `device ${id}`).toBeNull();
			// Rising toward the upper limit (protective-conductor resistance), falling toward the lower (insulation resistance).
			if (drift.step === 'pe') expect(fit.slopePerDay as number, `device ${id}`).toBeGreaterThan(0);
			else expect(fit.slopePerDay as number, `device ${id}`).toBeLessThan(0);
			expect(trend.predictedLimitDate, `device ${id}`).toEqual(expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/));
			expect(trend.predictedLimitSide).toBe(drift.step === 'pe' ? 'high' : 'low');
			const lastPoint = (trend.points as IDataObject[]).at(-1)!;
			expect((trend.predictedLimitDate as string) >= (lastPoint.testDate as string)).toBe(true);
			// Its limits are the ones stored with the latest result (0.3 Ω, or 0.2 Ω from the limit change day; 1 MΩ).
			const limits = sandbox.account.data.series.limits(drift.step, epochDay(latest.test_date)!);
			expect([trend.lowLimit, trend.highLimit]).toEqual([limits.low, limits.high]);
		}
	});

	it('Compliance → Get Measurement Warnings over the demo’s last 1000 days: a warning for every drifting device’s latest result at its drifting step, with the predicted limit day', async () => {
		const days = 1000;
		const from = addDays(sandbox.account.today(), -(days - 1));
		const expected = drifting().filter((d) => d.latest.test_date >= from);
		expect(expected.length).toBeGreaterThanOrEqual(4);
		const { items, error } = await runUtc(sandbox, { resource: 'compliance', operation: 'getMeasurementWarnings', days, returnAll: true });
		expect(error).toBeUndefined();
		const got = jsonOf(items);
		for (const { id, step, latest } of expected) {
			const w = got.find((x) => x.deviceId === id && x.step === step && x.testResultId === latest.id);
			expect(w, `device ${id} ${step} result ${latest.id}`).toBeDefined();
			expect(w!.limitUsed as number).toBeGreaterThanOrEqual(0.8);
			expect(w!.predictedLimitDate, `device ${id}`).toEqual(expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/));
			expect(w!.nextTestDate).toBe(sandbox.account.data.devices.get(id)!.values[DEVICE.nextTest]);
		}
	});
});
