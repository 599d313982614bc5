/**
 * Events "testResultNearLimit" and "deviceMeasurementDrift" through n8n's engine against the
 * sandbox: the cases of the results poller's events (test/lambdas/measuredAlerts.test.ts), decided
 * by the same client code.
 */
import { describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import { addDays } from '../../client/dates';
import { TREND_RESULTS } from '../../client/measurementWarnings';
import { DEVICE } from '../../sandbox/properties';
import { nodeTrendOf } from '../support/measuredWarnings';
import { captureLogs } from '../support/n8n';
import { Poller, useWorld } from '../support/trigger';

const world = useWorld({ testResults: 60, devices: 30 });
const PE = 'Protective conductor resistance';
const RISO = 'Insulation resistance';
type Measured = { step: string; value: unknown; unit?: unknown; low_limit?: unknown; high_limit?: unknown };

/** A device with a test interval and none of the demo's results. */
function cleanDevice(): number {
	const [device] = [...world.sandbox.account.data.devices.values()].filter((d) => typeof d.values[DEVICE.testInterval] === 'number');
	for (const [id, r] of world.sandbox.account.data.testResults) if (r.device_id === device.id) world.sandbox.account.data.testResults.delete(id);
	return device.id;
}

function upload(deviceId: number, measured: Measured[], testDate = world.today(), status: 'passed' | 'failed' = 'passed') {
	return world.sandbox.account.syncTestResult({ device_id: deviceId, status, test_date: testDate, measured: measured as never });
}

async function started(parameters: IDataObject): Promise<Poller> {
	const poller = new Poller(world, parameters);
	expect(await poller.poll()).toEqual([]);
	return poller;
}

type PeUpload = (value: number, day: number, status?: 'passed' | 'failed') => number;

/**
 * The near-limit and drift items of a device's `newer` results from two pairs of triggers over the
 * same uploads: one polled without a fault, one where the details of the results `newer` returns
 * answer 503 on their poll and are read by the next. `earlier`: polled into both first. `of`: the
 * items of the returned results, per trigger.
 */
async function plainAndRetried(deviceId: number, earlier: (pe: PeUpload) => void, newer: (pe: PeUpload) => number[]) {
	const options = { maxRetryWait: 0 };
	const plain = [await started({ event: 'testResultNearLimit', options }), await started({ event: 'deviceMeasurementDrift', options })];
	const deferred = [await started({ event: 'testResultNearLimit', options }), await started({ event: 'deviceMeasurementDrift', options })];
	const today = world.today();
	const pe: PeUpload = (value, day, status = 'passed') => upload(deviceId, [{ step: PE, value, unit: 'Ω', high_limit: 0.3 }], addDays(today, day), status).id;
	const device = world.sandbox.account.get('device', deviceId);
	earlier(pe);
	device.values[DEVICE.nextTest] = addDays(today, 400);
	for (const poller of [...plain, ...deferred]) await poller.poll();
	const cursor = (poller: Poller) => poller.staticData.cursor as { series: Record<string, IDataObject>; pending?: Record<string, IDataObject> };
	const keptBefore = structuredClone(cursor(deferred[0]).series[String(deviceId)]);
	const held = newer(pe);
	device.values[DEVICE.nextTest] = addDays(today, 400);
	const of = (items: IDataObject[][]) => items.map((each) => each.filter((i) => held.includes(i.testResultId as number)));
	const uninterrupted = [await plain[0].poll(), await plain[1].poll()];
	for (const id of held) world.sandbox.faults.add({ kind: 'status', status: 503, path: `/tests_performed/detailed/${id}/` });
	const first = [await deferred[0].poll(), await deferred[1].poll()];
	const heldBack = structuredClone(cursor(deferred[0]).pending ?? {});
	world.sandbox.faults.clear();
	const retried = [await deferred[0].poll(), await deferred[1].poll()];
	expect([await deferred[0].poll(), await deferred[1].poll()]).toEqual([[], []]);
	return { held, uninterrupted, first, retried, of, keptBefore, heldBack };
}

describe('Test Result Near Limit (trigger)', () => {
	it('a passed result at 85 % of its limit triggers once for that step; one at 50 % not; a second poll emits nothing', async () => {
		const deviceId = cleanDevice();
		const poller = await started({ event: 'testResultNearLimit' });
		const near = upload(deviceId, [
			{ step: PE, value: 0.255, unit: 'Ω', high_limit: 0.3 },
			{ step: RISO, value: 200, unit: 'MΩ', low_limit: 1 },
		]);
		upload(deviceId, [{ step: PE, value: 0.15, unit: 'Ω', high_limit: 0.3 }]);
		const items = await poller.poll();
		expect(items).toHaveLength(1);
		expect(items[0]).toMatchObject({ testResultId: near.id, deviceId, step: PE, value: 0.255, unit: 'Ω', lowLimit: null, highLimit: 0.3, limitSide: 'high', testDate: near.test_date });
		expect(items[0].limitUsed as number).toBeCloseTo(0.85, 12);
		expect(await poller.poll()).toEqual([]);
	});

	it('the Threshold option decides', async () => {
		const deviceId = cleanDevice();
		const poller = await started({ event: 'testResultNearLimit', options: { threshold: 0.5 } });
		upload(deviceId, [{ step: PE, value: 0.15, unit: 'Ω', high_limit: 0.3 }]);
		expect((await poller.poll()).map((i) => i.limitUsed)).toEqual([0.5]);
		const bad = new Poller(world, { event: 'testResultNearLimit', options: { threshold: 1.5 } });
		const tick = await bad.tick();
		expect(tick.error?.message).toMatch(/Threshold must be a share of the limit above 0 and at most 1/);
	});

	it('a detail that cannot be read holds its result back; the next poll emits it, once', async () => {
		const deviceId = cleanDevice();
		const poller = await started({ event: 'testResultNearLimit', options: { maxRetryWait: 0 } });
		const near = upload(deviceId, [{ step: PE, value: 0.27, unit: 'Ω', high_limit: 0.3 }]);
		world.sandbox.faults.add({ kind: 'status', status: 503, path: '/tests_performed/detailed/' });
		expect(await poller.poll()).toEqual([]);
		world.sandbox.faults.clear();
		expect((await poller.poll()).map((i) => i.testResultId)).toEqual([near.id]);
		expect(await poller.poll()).toEqual([]);
	});

	/** One poll: its items, n8n's warn lines, and the device's kept values (static data). */
	async function pollOf(poller: Poller, deviceId: number) {
		const { result, logs } = await captureLogs(async () => await poller.poll());
		const series = (poller.staticData.cursor as { series: Record<string, { steps: Record<string, unknown[]> }> }).series;
		return { items: result, warnings: logs.filter((l) => l.level === 'warn').map((l) => l.message), kept: series[String(deviceId)]?.steps[PE] ?? [] };
	}

	it('a held-back result (503) whose device is deleted before its retry triggers nothing: no item, its values not kept, a warning (Get Measurement Warnings skips it as an unknown device)', async () => {
		const deviceId = cleanDevice();
		const poller = await started({ event: 'testResultNearLimit', options: { maxRetryWait: 0 } });
		const near = upload(deviceId, [{ step: PE, value: 0.27, unit: 'Ω', high_limit: 0.3 }]);
		world.sandbox.faults.add({ kind: 'status', status: 503, path: '/tests_performed/detailed/' });
		expect(await poller.poll()).toEqual([]);
		world.sandbox.faults.clear();
		world.sandbox.account.delete('device', deviceId, false);
		const poll = await pollOf(poller, deviceId);
		expect(poll.items).toEqual([]);
		expect(poll.kept).toEqual([]);
		expect(poll.warnings.filter((m) => m.includes(`Test result ${near.id}`) && m.includes('no longer exists'))).toHaveLength(1);
		expect((await pollOf(poller, deviceId)).warnings.filter((m) => m.includes(`Test result ${near.id}`))).toEqual([]);
	});

	it('a new passed result of a device deleted before the poll triggers nothing: no item, its values not kept, a warning', async () => {
		const deviceId = cleanDevice();
		const poller = await started({ event: 'testResultNearLimit', options: { maxRetryWait: 0 } });
		const near = upload(deviceId, [{ step: PE, value: 0.27, unit: 'Ω', high_limit: 0.3 }]);
		world.sandbox.account.delete('device', deviceId, false);
		const poll = await pollOf(poller, deviceId);
		expect(poll.items).toEqual([]);
		expect(poll.kept).toEqual([]);
		expect(poll.warnings.filter((m) => m.includes(`Test result ${near.id}`) && m.includes('no longer exists'))).toHaveLength(1);
	});

	it('a result with a warning whose device read answers 503 is held back, not dropped; the next poll emits it', async () => {
		const deviceId = cleanDevice();
		const poller = await started({ event: 'testResultNearLimit', options: { maxRetryWait: 0 } });
		const near = upload(deviceId, [{ step: PE, value: 0.27, unit: 'Ω', high_limit: 0.3 }]);
		world.sandbox.faults.add({ kind: 'status', status: 503, path: `/device/detail/${deviceId}/` });
		expect(await poller.poll()).toEqual([]);
		world.sandbox.faults.clear();
		expect((await poller.poll()).map((i) => i.testResultId)).toEqual([near.id]);
	});

	it('a result whose detail answered 503 on its poll while a later upload of its device was read is retried without that later upload: its near-limit and drift items are those of a poll without the 503 (predicted limit date, "test earlier")', async () => {
		const deviceId = cleanDevice();
		const options = { maxRetryWait: 0 };
		// Per event, two triggers over the same uploads: one polls without the fault, one with it.
		const plain = [await started({ event: 'testResultNearLimit', options }), await started({ event: 'deviceMeasurementDrift', options })];
		const deferred = [await started({ event: 'testResultNearLimit', options }), await started({ event: 'deviceMeasurementDrift', options })];
		const today = world.today();
		const pe = (value: number, day: number) => upload(deviceId, [{ step: PE, value, unit: 'Ω', high_limit: 0.3 }], addDays(today, day)).id;
		const device = world.sandbox.account.get('device', deviceId);
		pe(0.1, -400);
		pe(0.15, -300);
		device.values[DEVICE.nextTest] = addDays(today, 400);
		for (const poller of [...plain, ...deferred]) expect(await poller.poll()).toEqual([]);
		const a = pe(0.25, -200);
		const b = pe(0.26, -100);
		device.values[DEVICE.nextTest] = addDays(today, 400);
		const ofA = (items: IDataObject[]) => items.filter((i) => i.testResultId === a);

		const uninterrupted = [ofA(await plain[0].poll()), ofA(await plain[1].poll())];
		expect(uninterrupted[0]).toHaveLength(1);
		expect(uninterrupted[0][0]).toMatchObject({ testResultId: a, step: PE, testEarlier: true, nextTestDate: addDays(today, 400) });
		expect(uninterrupted[0][0].predictedLimitDate).not.toBeNull();
		expect(uninterrupted[1]).toHaveLength(1);
		expect(uninterrupted[1][0]).toMatchObject({ testResultId: a, predictedLimitDate: uninterrupted[0][0].predictedLimitDate });

		world.sandbox.faults.add({ kind: 'status', status: 503, path: `/tests_performed/detailed/${a}/` });
		const first = [await deferred[0].poll(), await deferred[1].poll()];
		expect(first.map(ofA)).toEqual([[], []]);
		expect(first[0].map((i) => i.testResultId)).toContain(b);
		world.sandbox.faults.clear();
		// Memories written by earlier versions: the held-back entry as they wrote it, retried as they did.
		const asEarlier = (keptBefore: (series: { results: Array<[number, string]> }) => number[] | undefined) => {
			const legacy = new Poller(world, deferred[0].parameters);
			legacy.staticData = structuredClone(deferred[0].staticData);
			const held = (legacy.staticData.cursor as { pending: Record<string, IDataObject> }).pending[String(a)];
			const series = held.series as { results: Array<[number, string]> };
			expect(series.results).toHaveLength(2);
			delete held.series;
			const ids = keptBefore(series);
			if (ids) held.keptBefore = ids;
			return legacy;
		};
		// With the kept result ids (`keptBefore`): fitted without B, kept since.
		expect(ofA(await asEarlier((series) => series.results.map(([id]) => id)).poll())).toEqual(uninterrupted[0]);
		// With neither: fitted with B, its step's latest value (no trend).
		expect(ofA(await asEarlier(() => undefined).poll())).toEqual([{ ...uninterrupted[0][0], predictedLimitDate: null, nextTestDate: null, testEarlier: false }]);

		expect([ofA(await deferred[0].poll()), ofA(await deferred[1].poll())]).toEqual(uninterrupted);
		expect([await deferred[0].poll(), await deferred[1].poll()]).toEqual([[], []]);
	});

	it('a held-back result (503) is retried with its device’s series as it stood on its poll: a later FAILED result, which empties the kept series, leaves its near-limit and drift items (limit date, "test earlier") those of a poll without the 503', async () => {
		const { of, ...polls } = await plainAndRetried(
			cleanDevice(),
			(pe) => [[0.1, -500], [0.12, -450], [0.15, -400], [0.2, -300]].forEach(([v, d]) => pe(v, d)),
			(pe) => {
				const a = pe(0.25, -200);
				pe(0.35, -100, 'failed');
				return [a];
			},
		);
		const [uninterrupted, first, retried] = [of(polls.uninterrupted), of(polls.first), of(polls.retried)];
		expect(uninterrupted[0]).toHaveLength(1);
		expect(uninterrupted[0][0]).toMatchObject({ testEarlier: true });
		expect(uninterrupted[0][0].predictedLimitDate).not.toBeNull();
		expect(uninterrupted[1]).toHaveLength(1);
		expect(first).toEqual([[], []]);
		expect(retried).toEqual(uninterrupted);
	});

	it('a held-back result (503) is retried with its device’s series as it stood on its poll: two later passed results, which push its oldest values out of the 5 kept, leave its predicted limit date that of a poll without the 503', async () => {
		const { of, ...polls } = await plainAndRetried(
			cleanDevice(),
			(pe) => [[0.1, -500], [0.12, -450], [0.15, -400], [0.2, -300]].forEach(([v, d]) => pe(v, d)),
			(pe) => {
				const a = pe(0.25, -200);
				pe(0.2, -100);
				pe(0.21, -50);
				return [a];
			},
		);
		const [uninterrupted, first, retried] = [of(polls.uninterrupted), of(polls.first), of(polls.retried)];
		expect(uninterrupted[0]).toHaveLength(1);
		expect(uninterrupted[0][0]).toMatchObject({ testEarlier: true });
		expect(uninterrupted[0][0].predictedLimitDate).not.toBeNull();
		expect(first).toEqual([[], []]);
		expect(retried).toEqual(uninterrupted);
	});

	it('two results of one device held back on the same poll (503 on both details): the later one is fitted with the earlier one read on the retry, so both items are those of a poll without the 503', async () => {
		const { held, of, ...polls } = await plainAndRetried(
			cleanDevice(),
			(pe) => {
				pe(0.1, -400);
				pe(0.15, -300);
			},
			(pe) => [pe(0.25, -200), pe(0.27, -100)],
		);
		// Each held-back entry is the record and its device's kept values as they stood (both without the other), a few bytes more.
		const bytes = (v: unknown) => JSON.stringify(v).length;
		expect(Object.keys(polls.heldBack).map(Number)).toEqual(held);
		for (const entry of Object.values(polls.heldBack)) {
			expect(entry.series).toEqual(polls.keptBefore);
			expect(bytes(entry)).toBeLessThanOrEqual(bytes(polls.keptBefore) + bytes(entry.record) + 40);
		}
		const [uninterrupted, first, retried] = [of(polls.uninterrupted), of(polls.first), of(polls.retried)];
		expect(uninterrupted[0].map((i) => i.testResultId)).toEqual(held);
		expect(uninterrupted[0].map((i) => i.testEarlier)).toEqual([true, true]);
		expect(uninterrupted[1].map((i) => i.testResultId)).toEqual(held);
		expect(first).toEqual([[], []]);
		expect(retried).toEqual(uninterrupted);
	});

	it('a failed result is kept without its detail, so it is never held back: a 503 on its detail changes nothing', async () => {
		const polls = await plainAndRetried(
			cleanDevice(),
			(pe) => [[0.1, -500], [0.12, -450], [0.15, -400]].forEach(([v, d]) => pe(v, d)),
			(pe) => {
				const failed = pe(0.35, -300, 'failed');
				[[0.2, -200], [0.22, -100], [0.27, -50]].forEach(([v, d]) => pe(v, d));
				return [failed];
			},
		);
		// The later results' items rest on the failure as they do without the 503: a trend of three values since.
		expect(polls.first).toEqual(polls.uninterrupted);
		expect(polls.uninterrupted[0]).toHaveLength(1);
		expect(polls.uninterrupted[1]).toHaveLength(1);
		expect(polls.retried).toEqual([[], []]);
	});

	it('a poll that fails after keeping a result (401 on a later detail of its device) leaves the static data as it was: the next poll fits that result as a poll without the failure did, so a repeated poll needs no list of later uploads', async () => {
		const deviceId = cleanDevice();
		const options = { maxRetryWait: 0 };
		const plain = await started({ event: 'testResultNearLimit', options });
		const failing = await started({ event: 'testResultNearLimit', options });
		const today = world.today();
		const pe = (value: number, day: number) => upload(deviceId, [{ step: PE, value, unit: 'Ω', high_limit: 0.3 }], addDays(today, day)).id;
		const device = world.sandbox.account.get('device', deviceId);
		pe(0.1, -400);
		pe(0.15, -300);
		const a = pe(0.25, -200);
		const b = pe(0.26, -100);
		device.values[DEVICE.nextTest] = addDays(today, 400);
		const uninterrupted = await plain.poll();
		expect(uninterrupted.map((i) => i.testResultId)).toEqual([a, b]);
		expect(uninterrupted[0].predictedLimitDate).not.toBeNull();

		const before = structuredClone(failing.staticData);
		world.sandbox.faults.add({ kind: 'status', status: 401, path: `/tests_performed/detailed/${b}/` });
		const failed = await failing.tick();
		expect(failed.error).toBeDefined();
		expect(failed.staticData).toEqual(before);
		expect(failed.staticDataChanged).toBe(false);
		world.sandbox.faults.clear();
		expect(await failing.poll()).toEqual(uninterrupted);
	});

	it('bad measurements trigger nothing and stop nothing', async () => {
		const deviceId = cleanDevice();
		const poller = await started({ event: 'testResultNearLimit' });
		upload(deviceId, [
			{ step: 'A', value: null, unit: 'Ω', high_limit: 0.3 },
			{ step: 'B', value: 'high', unit: 'Ω', high_limit: 0.3 },
			{ step: 'C', value: 0.29, unit: 'Ω' },
			{ step: RISO, value: 0, unit: 'MΩ', low_limit: 1 },
			{ step: 'D', value: -0.29, unit: 'Ω', high_limit: 0.3 },
			{ step: 'E', value: 0.29, unit: 'Ω', low_limit: 0.5, high_limit: 0.3 },
		]);
		const good = upload(deviceId, [{ step: PE, value: 0.29, unit: 'Ω', high_limit: 0.3 }]);
		expect((await poller.poll()).map((i) => i.testResultId)).toEqual([good.id]);
	});
});

describe('Device Measurement Drift (trigger)', () => {
	it('three results with a falling insulation resistance (400, 150, 3 MΩ), one poll each, trigger once; polls again nothing', async () => {
		const deviceId = cleanDevice();
		const poller = await started({ event: 'deviceMeasurementDrift' });
		const today = world.today();
		const ids: number[] = [];
		const items: IDataObject[] = [];
		for (const [i, value] of [400, 150, 3].entries()) {
			ids.push(upload(deviceId, [{ step: RISO, value, unit: 'MΩ', low_limit: 1 }], addDays(today, -200 + 100 * i)).id);
			items.push(...(await poller.poll()));
		}
		expect(items).toHaveLength(1);
		const device = world.sandbox.account.get('device', deviceId);
		expect(items[0]).toMatchObject({ testResultId: ids[2], deviceId, step: RISO, unit: 'MΩ', lowLimit: 1, predictedLimitSide: 'low', nextTestDate: device.values[DEVICE.nextTest] });
		expect((items[0].points as IDataObject[]).map((p) => p.testResultId)).toEqual(ids);
		expect((items[0].predictedLimitDate as string) < (device.values[DEVICE.nextTest] as string)).toBe(true);
		expect(await poller.poll()).toEqual([]);
		expect(await poller.poll()).toEqual([]);
	});

	it('a passed re-test on the day of a failed result (fail, repair, re-test) starts the series: the drift the node’s trend predicts', async () => {
		const deviceId = cleanDevice();
		const poller = await started({ event: 'deviceMeasurementDrift' });
		const today = world.today();
		upload(deviceId, [{ step: RISO, value: 0.5, unit: 'MΩ', low_limit: 1 }], addDays(today, -200), 'failed');
		const ids: number[] = [];
		const items: IDataObject[] = [];
		for (const [i, value] of [400, 150, 3].entries()) {
			ids.push(upload(deviceId, [{ step: RISO, value, unit: 'MΩ', low_limit: 1 }], addDays(today, -200 + 100 * i)).id);
			if (i > 0) items.push(...(await poller.poll()));
		}
		const node = (await nodeTrendOf(world.sandbox, deviceId, RISO))!;
		expect(node.trend.points.map((p) => p.testResultId)).toEqual(ids);
		expect(node.testEarlier).toBe(true);
		expect(items).toHaveLength(1);
		expect(items[0]).toMatchObject({ testResultId: ids[2], deviceId, step: RISO, predictedLimitDate: node.trend.predictedLimitDate });
		expect((items[0].points as IDataObject[]).map((p) => p.testResultId)).toEqual(ids);
	});

	it('the kept values (static data) hold the latest TREND_RESULTS (5) per step, the results poller’s bound (client/measurementSeries.ts) and what the node fits', async () => {
		const deviceId = cleanDevice();
		const poller = await started({ event: 'deviceMeasurementDrift' });
		const today = world.today();
		const ids = [0.1, 0.11, 0.12, 0.13, 0.14, 0.15, 0.16].map((value, i) => upload(deviceId, [{ step: PE, value, unit: 'Ω', high_limit: 0.3 }], addDays(today, -700 + 100 * i)).id);
		await poller.poll();
		const series = (poller.staticData.cursor as { series: Record<string, { steps: Record<string, Array<[number]>> }> }).series[String(deviceId)];
		expect(Object.values(series.steps).map((points) => points.map((p) => p[0]))).toEqual([ids.slice(-TREND_RESULTS)]);
		expect((await nodeTrendOf(world.sandbox, deviceId, PE))!.trend.points.map((p) => p.testResultId)).toEqual(ids.slice(-TREND_RESULTS));
	});

	it('results that do not all measure the same step: the trend rests on the latest five passed results, as the node’s, so two insulation resistances before three protective-conductor-only results and a third after give no drift', async () => {
		const deviceId = cleanDevice();
		const drift = await started({ event: 'deviceMeasurementDrift' });
		const near = await started({ event: 'testResultNearLimit' });
		const today = world.today();
		upload(deviceId, [{ step: RISO, value: 400, unit: 'MΩ', low_limit: 1 }], addDays(today, -500));
		upload(deviceId, [{ step: RISO, value: 150, unit: 'MΩ', low_limit: 1 }], addDays(today, -400));
		for (const day of [-300, -200, -100]) upload(deviceId, [{ step: PE, value: 0.1, unit: 'Ω', high_limit: 0.3 }], addDays(today, day));
		const latest = upload(deviceId, [{ step: RISO, value: 1.2, unit: 'MΩ', low_limit: 1 }], today);
		expect(await drift.poll()).toEqual([]);
		const items = await near.poll();
		expect(items.map((i) => [i.testResultId, i.predictedLimitDate])).toEqual([[latest.id, null]]);
		expect((await nodeTrendOf(world.sandbox, deviceId, RISO))!.trend).toMatchObject({ noTrend: 'tooFewResults', predictedLimitDate: null });
	});

	it('a unit changing within the series, or a failed result between, gives no drift', async () => {
		const deviceId = cleanDevice();
		const poller = await started({ event: 'deviceMeasurementDrift' });
		const today = world.today();
		upload(deviceId, [{ step: RISO, value: 400, unit: 'MΩ', low_limit: 1 }], addDays(today, -300));
		upload(deviceId, [{ step: RISO, value: 150, unit: 'MΩ', low_limit: 1 }], addDays(today, -200));
		upload(deviceId, [{ step: RISO, value: 3000, unit: 'kΩ', low_limit: 1 }], addDays(today, -100));
		expect(await poller.poll()).toEqual([]);
		const other = cleanDeviceOtherThan(deviceId);
		upload(other, [{ step: RISO, value: 400, unit: 'MΩ', low_limit: 1 }], addDays(today, -300));
		upload(other, [{ step: RISO, value: 150, unit: 'MΩ', low_limit: 1 }], addDays(today, -200));
		upload(other, [{ step: RISO, value: 0.5, unit: 'MΩ', low_limit: 1 }], addDays(today, -100), 'failed');
		upload(other, [{ step: RISO, value: 3, unit: 'MΩ', low_limit: 1 }], today);
		expect(await poller.poll()).toEqual([]);
	});
});

function cleanDeviceOtherThan(taken: number): number {
	const device = [...world.sandbox.account.data.devices.values()].find((d) => d.id !== taken && typeof d.values[DEVICE.testInterval] === 'number')!;
	for (const [id, r] of world.sandbox.account.data.testResults) if (r.device_id === device.id) world.sandbox.account.data.testResults.delete(id);
	return device.id;
}
