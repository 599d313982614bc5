/**
 * Compliance → Get Measurement Warnings and Device → Get Measurement Trend in n8n's engine against
 * the sandbox: the warnings equal those counted here from the sandbox's own results and details;
 * a series uploaded through the sandbox's admin API with known numbers gives the limit day a
 * day-by-day scan of the textbook formula gives; bad measurements are skipped and counted; each
 * detail is read once; bad parameters name themselves.
 */
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import { NODE_SCHEMA_DIR, NODE_SCHEMA_VERSION, nodeOutputSchemas } from '../../contract/nodeSchemas';
import { addDays, epochDay } from '../../client';
import { DEVICE } from '../../sandbox/properties';
import { renderTestResultDetail } from '../../sandbox/render';
import { FIXED_NOW } from '../support/sandbox';
import { byId, hintsOf, jsonOf, runUtc, useSandbox } from './helpers';

// The tests' day (both the sandbox's and the node's today), so the demo's window is the same on every run.
const sandbox = useSandbox({ at: FIXED_NOW });

/** Every item as the operation's output schema (__schema__) describes it. */
function expectSchema(resource: string, operation: string, items: IDataObject[]) {
	const validate = new Ajv({ strict: false, allErrors: true }).compile(nodeOutputSchemas()[`${NODE_SCHEMA_DIR}/${NODE_SCHEMA_VERSION}/${resource}/${operation}.json`] as object);
	for (const item of items) expect(validate(item), JSON.stringify(validate.errors)).toBe(true);
}
const PE = 'Protective conductor resistance';
const RISO = 'Insulation resistance';

async function upload(body: IDataObject): Promise<number> {
	const res = await fetch(`${sandbox.adminUrl}/test-results`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
	expect(res.status, await res.clone().text()).toBe(201);
	return ((await res.json()) as { id: number }).id;
}

/** A device with no results but the ones a test uploads. */
function cleanDevice(): number {
	const [device] = [...sandbox.account.data.devices.values()].filter((d) => typeof d.values[DEVICE.testInterval] === 'number');
	for (const [id, r] of sandbox.account.data.testResults) if (r.device_id === device.id) sandbox.account.data.testResults.delete(id);
	return device.id;
}

/**
 * The first day on or after the last one when the one-sided 95 % upper bound of the least-squares
 * line (t(0.95; n − 2) given) reaches `limit`: written out and scanned day by day.
 */
function scannedLimitDay(days: number[], values: number[], t: number, limit: number, side: 'high' | 'low'): number {
	const n = days.length;
	const mx = days.reduce((a, b) => a + b) / n;
	const my = values.reduce((a, b) => a + b) / n;
	const sxx = days.reduce((a, x) => a + (x - mx) ** 2, 0);
	const b = days.reduce((a, x, i) => a + (x - mx) * (values[i] - my), 0) / sxx;
	const s = Math.sqrt(days.reduce((a, x, i) => a + (values[i] - my - b * (x - mx)) ** 2, 0) / (n - 2));
	const bound = (x: number) => my + b * (x - mx) + (side === 'high' ? 1 : -1) * t * s * Math.sqrt(1 + 1 / n + (x - mx) ** 2 / sxx);
	let day = Math.max(...days);
	while (side === 'high' ? bound(day) < limit : bound(day) > limit) day++;
	return day;
}

describe('Compliance → Get Measurement Warnings', () => {
	it('lists exactly the measured steps of the last 30 days’ passed results at or above 80 % of the limit stored with them, as counted here from the sandbox', async () => {
		const today = sandbox.account.today();
		const from = addDays(today, -29);
		// Whatever the demo holds in the window (on some days none), one result in it is near its limit: 0.27 of 0.3 Ω warns, 1 MΩ of 1.5 does not.
		const uploaded = await upload({ device_id: cleanDevice(), test_date: addDays(today, -3), measurements: [{ step: PE, value: 0.27, unit: 'Ω', high_limit: 0.3 }, { step: RISO, value: 1.5, unit: 'MΩ', low_limit: 1 }] });
		const expected: string[] = [];
		for (const r of sandbox.account.data.testResults.values()) {
			if (r.status !== 'passed' || r.test_date < from || r.test_date > today || !sandbox.account.data.devices.has(r.device_id)) continue;
			for (const s of renderTestResultDetail(sandbox.account, r).steps) {
				for (const m of s.measurements) {
					const value = m.value as number;
					const share = typeof m.high_limit === 'number' ? value / m.high_limit : value > 0 ? (m.low_limit as number) / value : 0;
					if (Math.round(share * 1e12) / 1e12 >= 0.8) expected.push(`${r.id}/${s.name}/${m.value}`);
				}
			}
		}
		const { items, error } = await runUtc(sandbox, { resource: 'compliance', operation: 'getMeasurementWarnings', returnAll: true });
		expect(error).toBeUndefined();
		const got = jsonOf(items);
		expectSchema('compliance', 'getMeasurementWarnings', got);
		expect(got.map((w) => `${w.testResultId}/${w.step}/${w.value}`).sort()).toEqual(expected.sort());
		expect(expected).toContain(`${uploaded}/${PE}/0.27`);
		expect(expected).not.toContain(`${uploaded}/${RISO}/1.5`);
		for (const w of got) {
			expect(w.limitUsed as number).toBeGreaterThanOrEqual(0.8);
			expect((w.testDate as string) >= from && (w.testDate as string) <= today).toBe(true);
			expect(w.run).toMatchObject({ from, today, threshold: 0.8 });
		}
		// Newest first.
		const dates = got.map((w) => w.testDate as string);
		expect([...dates].sort().reverse()).toEqual(dates);
	});

	it('a series uploaded with known numbers: the warning carries the day its upper 95 % bound reaches 0.3 Ω, before the next due date; a failed test before it starts the series anew', async () => {
		const today = sandbox.account.today();
		const deviceId = cleanDevice();
		const offsets = [-540, -360, -180, 0];
		const pe = [0.1, 0.15, 0.21, 0.24];
		// Before the repair: a passed result, then a failed one; neither is in the series.
		await upload({ device_id: deviceId, test_date: addDays(today, -800), measurements: [{ step: PE, value: 0.29, unit: 'Ω', high_limit: 0.3 }] });
		await upload({ device_id: deviceId, status: 'failed', test_date: addDays(today, -700), measurements: [{ step: PE, value: 2.5, unit: 'Ω', high_limit: 0.3 }] });
		const ids: number[] = [];
		for (const [i, offset] of offsets.entries()) {
			ids.push(await upload({ device_id: deviceId, test_date: addDays(today, offset), measurements: [{ step: PE, value: pe[i], unit: 'Ω', low_limit: null, high_limit: 0.3 }] }));
		}
		const { items, error } = await runUtc(sandbox, { resource: 'compliance', operation: 'getMeasurementWarnings', days: 1, threshold: 0.8 });
		expect(error).toBeUndefined();
		const mine = jsonOf(items).filter((w) => w.deviceId === deviceId);
		const limitDay = scannedLimitDay(offsets.map((o) => epochDay(addDays(today, o))!), pe, 2.919986, 0.3, 'high');
		const nextTest = sandbox.account.data.devices.get(deviceId)!.values[DEVICE.nextTest] as string;
		expect(mine).toHaveLength(1);
		expect(mine[0]).toMatchObject({ testResultId: ids[3], deviceId, step: PE, value: 0.24, unit: 'Ω', lowLimit: null, highLimit: 0.3, limitUsed: 0.8, limitSide: 'high', testDate: today, nextTestDate: nextTest });
		expect(mine[0].predictedLimitDate).toBe(addDays('1970-01-01', limitDay));
		expect(mine[0].testEarlier).toBe((mine[0].predictedLimitDate as string) < nextTest);
		expect(mine[0].testEarlier).toBe(true);
	});

	it('bad measurements are skipped and counted, never a warning: no value, text (and "1e999"), no limit, a zero against a lower limit, a negative, a bad limit; a deleted device’s result is skipped; each detail is read once', async () => {
		const today = sandbox.account.today();
		const deviceId = cleanDevice();
		for (const [id] of sandbox.account.data.testResults) if (sandbox.account.data.testResults.get(id)!.test_date === today) sandbox.account.data.testResults.delete(id);
		await upload({
			device_id: deviceId,
			test_date: today,
			measurements: [
				{ step: 'A', value: null, unit: 'Ω', high_limit: 0.3 },
				{ step: 'B', value: 'n/a', unit: 'Ω', high_limit: 0.3 },
				{ step: 'C', value: 0.29, unit: 'Ω' },
				{ step: 'D', value: 0, unit: 'MΩ', low_limit: 1 },
				{ step: 'E', value: -0.2, unit: 'Ω', high_limit: 0.3 },
				{ step: 'F', value: 0.29, unit: 'Ω', low_limit: 0.5, high_limit: 0.3 },
				{ step: 'G', value: 0.29, unit: 'Ω', low_limit: 0.01, high_limit: 0.3 },
				// Texts beyond a number's range: no Infinity, neither as a value nor as a limit.
				{ step: 'H', value: '1e999', unit: 'Ω', high_limit: 0.3 },
				{ step: 'I', value: 0.2, unit: 'Ω', high_limit: '1e999' },
			],
		});
		const [other] = [...sandbox.account.data.devices.values()].filter((d) => d.id !== deviceId);
		await upload({ device_id: other.id, test_date: today, measurements: [{ step: PE, value: 0.29, unit: 'Ω', high_limit: 0.3 }] });
		sandbox.account.data.devices.delete(other.id);
		const before = { ...sandbox.stats.byPath };
		const { items, error } = await runUtc(sandbox, { resource: 'compliance', operation: 'getMeasurementWarnings', days: 1, returnAll: true });
		expect(error).toBeUndefined();
		const got = jsonOf(items);
		// G has both limits: the upper one binds (0.29 / 0.3).
		expect(got.map((w) => [w.step, w.limitSide])).toEqual([['G', 'high']]);
		expect(got[0].run).toMatchObject({ unknownDevices: 1, resultsRead: 1, skippedMeasurements: { noValue: 1, nonNumericValue: 2, noLimit: 1, nonPositiveValue: 2, invalidLimit: 2, repeated: 0, noName: 0 } });
		const detailReads = Object.entries(sandbox.stats.byPath)
			.filter(([path]) => path.startsWith('/api/v1/tests_performed/detailed/') || path.includes('/tests_performed/detailed/'))
			.reduce((a, [path, n]) => a + n - (before[path] ?? 0), 0);
		// The result's own detail, read once though its trend needs it again; the deleted device's never.
		expect(detailReads).toBe(1);
	});

	it('what was skipped is named with its counts in an execution hint, also when nothing warns and there is no item: Get Measurement Warnings and Get Measurement Trend', async () => {
		const today = sandbox.account.today();
		const deviceId = cleanDevice();
		for (const [id] of sandbox.account.data.testResults) if (sandbox.account.data.testResults.get(id)!.test_date === today) sandbox.account.data.testResults.delete(id);
		const bad = [
			{ step: 'A', value: 'n/a', unit: 'Ω', high_limit: 0.3 },
			{ step: 'C', value: 0.29, unit: 'Ω' },
			{ step: 'D', value: 0, unit: 'MΩ', low_limit: 1 },
		];
		await upload({ device_id: deviceId, test_date: today, measurements: bad });
		const see = 'see docs/compliance.md (Warnings from measured values)';
		// Nothing near its limit: no item, and the hint tells "every value unreadable" from "none near its limit".
		const warnings = await runUtc(sandbox, { resource: 'compliance', operation: 'getMeasurementWarnings', days: 1, returnAll: true });
		expect(warnings.error).toBeUndefined();
		expect(warnings.items).toEqual([]);
		expect(hintsOf(warnings)).toEqual([`3 measured values skipped: 1 not a number, 1 without a limit, 1 zero or negative; ${see}`]);
		const trend = await runUtc(sandbox, { resource: 'device', operation: 'getMeasurementTrend', deviceId: byId(deviceId) });
		expect(trend.error).toBeUndefined();
		expect(trend.items).toEqual([]);
		expect(hintsOf(trend)).toEqual([`3 measured values skipped: 1 not a number, 1 without a limit, 1 zero or negative; ${see}`]);

		// With items: the same counts in the hint and in each item; a result of a device no longer listed is counted too.
		await upload({ device_id: deviceId, test_date: today, measurements: [...bad, { step: 'G', value: 0.29, unit: 'Ω', high_limit: 0.3 }] });
		const [other] = [...sandbox.account.data.devices.values()].filter((d) => d.id !== deviceId);
		await upload({ device_id: other.id, test_date: today, measurements: [{ step: PE, value: 0.29, unit: 'Ω', high_limit: 0.3 }] });
		sandbox.account.data.devices.delete(other.id);
		const some = await runUtc(sandbox, { resource: 'compliance', operation: 'getMeasurementWarnings', days: 1, returnAll: true });
		expect(some.error).toBeUndefined();
		expect(jsonOf(some.items).map((w) => w.step)).toEqual(['G']);
		expect(some.items[0].json.run).toMatchObject({ unknownDevices: 1, skippedMeasurements: { nonNumericValue: 2, noLimit: 2, nonPositiveValue: 2 } });
		expect(hintsOf(some)).toEqual([`6 measured values skipped: 2 not a number, 2 without a limit, 2 zero or negative; 1 result of a device not in the device list skipped; ${see}`]);
		const someTrend = await runUtc(sandbox, { resource: 'device', operation: 'getMeasurementTrend', deviceId: byId(deviceId) });
		expect(someTrend.error).toBeUndefined();
		expect(jsonOf(someTrend.items).map((s) => [s.step, s.skippedMeasurements])).toEqual([['G', expect.objectContaining({ nonNumericValue: 2, noLimit: 2, nonPositiveValue: 2 })]]);
		expect(hintsOf(someTrend)).toEqual([`6 measured values skipped: 2 not a number, 2 without a limit, 2 zero or negative; ${see}`]);
		// Nothing skipped: no hint.
		sandbox.account.reset();
		const clean = cleanDevice();
		await upload({ device_id: clean, test_date: today, measurements: [{ step: PE, value: 0.29, unit: 'Ω', high_limit: 0.3 }] });
		const none = await runUtc(sandbox, { resource: 'device', operation: 'getMeasurementTrend', deviceId: byId(clean) });
		expect(none.items).toHaveLength(1);
		expect(hintsOf(none)).toEqual([]);
	});

	it('Limit: the newest warnings only, and fewer details read', async () => {
		const today = sandbox.account.today();
		const devices = [...sandbox.account.data.devices.keys()].slice(0, 3);
		for (const [i, deviceId] of devices.entries()) await upload({ device_id: deviceId, test_date: addDays(today, -i), measurements: [{ step: PE, value: 0.29, unit: 'Ω', high_limit: 0.3 }] });
		const all = jsonOf((await runUtc(sandbox, { resource: 'compliance', operation: 'getMeasurementWarnings', days: 3, returnAll: true })).items);
		expect(all.length).toBeGreaterThan(1);
		const { items, error } = await runUtc(sandbox, { resource: 'compliance', operation: 'getMeasurementWarnings', days: 3, returnAll: false, limit: 1 });
		expect(error).toBeUndefined();
		expect(jsonOf(items).map((w) => [w.testResultId, w.step])).toEqual([[all[0].testResultId, all[0].step]]);
		expect((items[0].json.run as IDataObject).resultsRead as number).toBeLessThan((all[0].run as IDataObject).resultsRead as number);
	});

	it('bad parameters are refused naming the parameter and the valid values', async () => {
		const threshold = await runUtc(sandbox, { resource: 'compliance', operation: 'getMeasurementWarnings', threshold: 1.5 });
		expect(threshold.error?.message).toMatch(/Threshold: must be a share of the limit above 0 and at most 1.*got 1.5/);
		const days = await runUtc(sandbox, { resource: 'compliance', operation: 'getMeasurementWarnings', days: 0 });
		expect(days.error?.message).toMatch(/Days: must be a whole number of days from 1 to 3660, got 0/);
	});
});

describe('Device → Get Measurement Trend', () => {
	it('per step the series, fit and prediction: insulation resistance falling toward 1 MΩ, protective-conductor resistance rising toward 0.3 Ω, a unit that changes gives no trend; two results on one day keep the later', async () => {
		const today = sandbox.account.today();
		const deviceId = cleanDevice();
		const offsets = [-720, -540, -360, -180, 0];
		const riso = [520, 430, 380, 260, 190];
		const pe = [0.05, 0.06, 0.05, 0.07, 0.06];
		for (const [i, offset] of offsets.entries()) {
			await upload({
				device_id: deviceId,
				test_date: addDays(today, offset),
				measurements: [
					{ step: RISO, value: riso[i], unit: 'MΩ', low_limit: 1 },
					{ step: PE, value: pe[i], unit: 'Ω', high_limit: 0.3 },
					{ step: 'Leakage', value: i === 2 ? 900 : 0.9, unit: i === 2 ? 'µA' : 'mA', high_limit: i === 2 ? 3500 : 3.5 },
				],
			});
		}
		// The same day as the last, uploaded later: it replaces the last in the series.
		await upload({ device_id: deviceId, test_date: today, measurements: [{ step: RISO, value: 180, unit: 'MΩ', low_limit: 1 }] });
		const { items, error } = await runUtc(sandbox, { resource: 'device', operation: 'getMeasurementTrend', deviceId: byId(deviceId), results: 6 });
		expect(error).toBeUndefined();
		expectSchema('device', 'getMeasurementTrend', jsonOf(items));
		const byStep = new Map(jsonOf(items).map((s) => [s.step, s]));
		const iso = byStep.get(RISO)!;
		const isoValues = [...riso.slice(0, 4), 180];
		expect((iso.points as IDataObject[]).map((p) => p.value)).toEqual(isoValues);
		expect(iso.sameDay).toBe(1);
		expect(iso.fit).toMatchObject({ points: 5, confidence: 0.95 });
		expect((iso.fit as IDataObject).tQuantile as number).toBeCloseTo(2.353, 3);
		const isoDay = scannedLimitDay(offsets.map((o) => epochDay(addDays(today, o))!), isoValues, 2.353363, 1, 'low');
		expect(iso.predictedLimitDate).toBe(addDays('1970-01-01', isoDay));
		expect(iso).toMatchObject({ predictedLimitSide: 'low', lowLimit: 1, highLimit: null, unit: 'MΩ', noTrend: null });
		expect(iso.testEarlier).toBe((iso.predictedLimitDate as string) < (iso.nextTestDate as string));
		const peStep = byStep.get(PE)!;
		expect(peStep).toMatchObject({ noTrend: null, highLimit: 0.3 });
		expect(peStep.testEarlier).toBe(peStep.predictedLimitDate !== null && (peStep.predictedLimitDate as string) < (peStep.nextTestDate as string));
		expect(byStep.get('Leakage')).toMatchObject({ noTrend: 'unitChanged', fit: null, predictedLimitDate: null, testEarlier: false });
	});

	it('a unit that changes within a series: each point carries its own unit, so 3000 µA is not read as 3000 mA against a 3.5 mA limit', async () => {
		const today = sandbox.account.today();
		const deviceId = cleanDevice();
		const series = [
			[-540, 0.9, 'mA', 3.5],
			[-360, 1.9, 'mA', 3.5],
			[-180, 3000, 'µA', 3500],
			[0, 3.9, 'mA', 3.5],
		] as const;
		for (const [offset, value, unit, high] of series) await upload({ device_id: deviceId, test_date: addDays(today, offset), measurements: [{ step: 'Leakage', value, unit, high_limit: high }] });
		const { items, error } = await runUtc(sandbox, { resource: 'device', operation: 'getMeasurementTrend', deviceId: byId(deviceId) });
		expect(error).toBeUndefined();
		expectSchema('device', 'getMeasurementTrend', jsonOf(items));
		const [leakage] = jsonOf(items);
		expect(leakage).toMatchObject({ step: 'Leakage', noTrend: 'unitChanged', unit: 'mA', fit: null, predictedLimitDate: null });
		expect((leakage.points as IDataObject[]).map((p) => [p.testDate, p.value, p.unit, p.highLimit])).toEqual(series.map(([offset, value, unit, high]) => [addDays(today, offset), value, unit, high]));
	});

	it('values so large that the fit overflows (around 1e200): no trend (`notComputable`), no limit day, no test-earlier, in Get Measurement Trend and in Get Measurement Warnings alike', async () => {
		const today = sandbox.account.today();
		const deviceId = cleanDevice();
		const huge = [1e200, 1.4e200, 1.9e200, 2.3e200, 2.8e200];
		for (const [i, offset] of [-720, -540, -360, -180, -1].entries()) {
			await upload({ device_id: deviceId, test_date: addDays(today, offset), measurements: [{ step: 'Leakage', value: huge[i], unit: 'mA', high_limit: 3e200 }] });
		}
		const trend = await runUtc(sandbox, { resource: 'device', operation: 'getMeasurementTrend', deviceId: byId(deviceId) });
		expect(trend.error).toBeUndefined();
		expectSchema('device', 'getMeasurementTrend', jsonOf(trend.items));
		expect(jsonOf(trend.items)).toEqual([expect.objectContaining({ step: 'Leakage', noTrend: 'notComputable', fit: null, boundAtLast: null, predictedLimitDate: null, testEarlier: false })]);
		const warnings = await runUtc(sandbox, { resource: 'compliance', operation: 'getMeasurementWarnings', days: 3 });
		expect(warnings.error).toBeUndefined();
		const mine = jsonOf(warnings.items).filter((w) => w.deviceId === deviceId);
		expect(mine).toHaveLength(1);
		expect(mine[0].limitUsed as number).toBeGreaterThan(0.9);
		expect(mine[0].predictedLimitDate ?? null).toBeNull();
		expect(mine[0].testEarlier ?? false).toBe(false);
	});

	it('a device that does not exist is a 404 naming it', async () => {
		const { error } = await runUtc(sandbox, { resource: 'device', operation: 'getMeasurementTrend', deviceId: byId(987654) });
		expect(error?.message).toMatch(/404/);
		expect(JSON.stringify(error)).toMatch(/Device 987654 does not exist/);
	});
});
