/**
 * `Test Result Near Limit` and `Device Measurement Drift` from the results poller, against the
 * sandbox over HTTP, dynalite and the local EventBridge endpoint: a passed result at 85 % of its
 * limit gives one near-limit event and one at 50 % none; three results with a falling insulation
 * resistance give one drift event; runs again emit nothing new; a detail that cannot be read is
 * retried by the next run; bad measurements give no event and stop nothing.
 */
import { describe, expect, it } from 'vitest';
import { ServiceClient, addDays } from '../../client';
import { systemClock, undiciRequestFn } from '../../lambdas/adapters/undiciService';
import { DETAIL_TYPES } from '../../lambdas/events/names';
import { pollTestResults } from '../../lambdas/pollers/testResults';
import { NS, type PendingMeasurement, type RecordedWarningValue } from '../../lambdas/pollers/state';
import { CUSTOMER, DEVICE } from '../../sandbox/properties';
import { nodeTrendOf } from '../support/measuredWarnings';
import { newTable, pollerContext, useFreshScenarios, usePollerWorld } from '../support/pollers';

const world = usePollerWorld({ devices: 30, customers: 3, testResults: 60 }, { ratePerSecond: 200 });
const scenario = useFreshScenarios(world);
let detailRequests = 0;
let customerListRequests = 0;

/** A poller context whose client counts detail requests and gives up after one retry (fast tests); `table`: another state table. */
function context(table = scenario.table()) {
	const ctx = pollerContext(world, table);
	const base = undiciRequestFn(world.sandbox.sandboxToken);
	ctx.client = new ServiceClient({
		baseUrl: world.sandbox.url,
		clock: systemClock,
		retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
		request: async (req) => {
			const res = await base(req);
			// Counted as answered: a 429 the client waits out is no second read.
			if (req.url.includes('/tests_performed/detailed/') && res.status !== 429) detailRequests++;
			if (req.url.includes('/data/customers/all/') && res.status !== 429) customerListRequests++;
			return res;
		},
	});
	return ctx;
}

const PE = 'Protective conductor resistance';
const RISO = 'Insulation resistance';
type Measured = { step: string; value: unknown; unit?: unknown; low_limit?: unknown; high_limit?: unknown };
const ofType = (type: string) => world.aws.events().filter((e) => e['detail-type'] === type);
const alerts = () => [...ofType(DETAIL_TYPES.testResultNearLimit), ...ofType(DETAIL_TYPES.deviceMeasurementDrift)];
type Data = Record<string, Record<string, unknown>>;

/** A device with a test interval and none of the demo's results. */
function cleanDevice(): number {
	const [device] = [...world.sandbox.account.data.devices.values()].filter((d) => typeof d.values[DEVICE.testInterval] === 'number');
	for (const [id, r] of world.sandbox.account.data.testResults) if (r.device_id === device.id) world.sandbox.account.data.testResults.delete(id);
	return device.id;
}

function upload(deviceId: number, measured: Measured[], testDate = world.sandbox.account.today(), status: 'passed' | 'failed' = 'passed') {
	return world.sandbox.account.syncTestResult({ device_id: deviceId, status, test_date: testDate, measured: measured as never });
}

/** The first run (records where the uploads stand), then nothing in EventBridge. */
async function started(): Promise<void> {
	await pollTestResults(context());
	world.aws.accepted.length = 0;
	detailRequests = 0;
}

describe('Test Result Near Limit', () => {
	it('a passed result at 85 % of its limit gives one event for that step; one at 50 % none; each new passed result costs one detail request', async () => {
		const deviceId = cleanDevice();
		await started();
		const near = upload(deviceId, [
			{ step: PE, value: 0.255, unit: 'Ω', high_limit: 0.3 },
			{ step: RISO, value: 200, unit: 'MΩ', low_limit: 1 },
		]);
		const half = upload(deviceId, [{ step: PE, value: 0.15, unit: 'Ω', high_limit: 0.3 }]);
		const report = await pollTestResults(context());
		expect(report.complete).toBe(true);
		expect(detailRequests).toBe(2);
		const events = ofType(DETAIL_TYPES.testResultNearLimit);
		expect(events).toHaveLength(1);
		const data = events[0].detail.data as Data;
		expect(data.testResult).toMatchObject({ id: near.id, passed: true, testDate: near.test_date });
		expect(data.device).toEqual({ id: deviceId, customerId: near.customer_id });
		expect(data.measurement).toMatchObject({ step: PE, value: 0.255, unit: 'Ω', lowLimit: null, highLimit: 0.3, limitSide: 'high' });
		expect(data.measurement.limitUsed).toBeCloseTo(0.85, 12);
		expect(data.threshold).toBe(0.8);
		expect(events[0].detail.metadata.dedupeKey).toBe(`test-result-near-limit:sandbox:${near.id}:${PE}`);
		expect(ofType(DETAIL_TYPES.deviceMeasurementDrift)).toEqual([]);
		expect(half.id).toBeGreaterThan(near.id);

		// A second run emits nothing new and reads nothing again.
		world.aws.accepted.length = 0;
		detailRequests = 0;
		await pollTestResults(context());
		expect(world.aws.events()).toEqual([]);
		expect(detailRequests).toBe(0);
	});

	it('each warning announced is recorded as the row the e-mails show: the device as it routes (designation, ID Barcode, customer, department), value, limit, share, test date; a step below the threshold is not', async () => {
		const deviceId = cleanDevice();
		await started();
		const near = upload(deviceId, [
			{ step: PE, value: 0.255, unit: 'Ω', high_limit: 0.3 },
			{ step: RISO, value: 200, unit: 'MΩ', low_limit: 1 },
		]);
		const ctx = context();
		await pollTestResults(ctx);
		const ns = NS.measurementWarnings('sandbox');
		const rows: Array<{ key: string; value: RecordedWarningValue }> = [];
		for await (const item of ctx.store.list<RecordedWarningValue>(ns)) if (item.value.device.id === deviceId) rows.push(item);
		const device = world.sandbox.account.get('device', deviceId);
		const customer = world.sandbox.account.data.customers.get(device.customer_id!);
		expect(rows.map((r) => r.key)).toEqual([`${near.id}:${PE}`]);
		expect(rows[0].value).toMatchObject({ testResultId: near.id, testDate: near.test_date, step: PE, measurement: null, value: 0.255, unit: 'Ω', lowLimit: null, highLimit: 0.3, nearLimit: true, testEarlier: false, predictedLimitDate: null, nextTestDate: null });
		expect(rows[0].value.limitUsed).toBeCloseTo(0.85, 12);
		expect(rows[0].value.device).toMatchObject({ id: deviceId, customerId: device.customer_id, customerName: customer ? String(customer.values[CUSTOMER.name]) : null, designation: device.values[DEVICE.designation] ?? null });
	});

	it('a run with a failed result and a warning, on devices that name no customer, reads the customer list once for both (the failed steps’ owner and the warning row)', async () => {
		const deviceId = cleanDevice();
		const other = [...world.sandbox.account.data.devices.values()].find((d) => d.id !== deviceId && d.customer_id !== null)!;
		expect(world.sandbox.account.get('device', deviceId).customer_id).not.toBeNull();
		await started();
		upload(deviceId, [{ step: PE, value: 0.255, unit: 'Ω', high_limit: 0.3 }]);
		upload(other.id, [{ step: PE, value: 0.5, unit: 'Ω', high_limit: 0.3 }], world.sandbox.account.today(), 'failed');
		customerListRequests = 0;
		const ctx = context();
		await pollTestResults(ctx);
		expect(ofType(DETAIL_TYPES.testResultNearLimit)).toHaveLength(1);
		expect(ofType(DETAIL_TYPES.testResultFailed)).toHaveLength(1);
		// Both name their customer from the list (the sandbox's device records carry no customer name).
		const failed = ofType(DETAIL_TYPES.testResultFailed)[0].detail.data as Data;
		expect(failed.device.customerName).not.toBeNull();
		const rows: RecordedWarningValue[] = [];
		for await (const item of ctx.store.list<RecordedWarningValue>(NS.measurementWarnings('sandbox'))) if (item.value.device.id === deviceId) rows.push(item.value);
		expect(rows).toHaveLength(1);
		expect(rows[0].device.customerName).not.toBeNull();
		expect(customerListRequests).toBe(1);
	});

	it('the threshold is the poller’s setting', async () => {
		const deviceId = cleanDevice();
		await started();
		upload(deviceId, [{ step: PE, value: 0.15, unit: 'Ω', high_limit: 0.3 }]);
		const ctx = context();
		ctx.settings.nearLimitThreshold = 0.5;
		await pollTestResults(ctx);
		expect(ofType(DETAIL_TYPES.testResultNearLimit).map((e) => (e.detail.data as Data).measurement.limitUsed)).toEqual([0.5]);
	});

	it('a detail that cannot be read is retried by the next run, not lost; then announced once', async () => {
		const deviceId = cleanDevice();
		await started();
		const near = upload(deviceId, [{ step: PE, value: 0.27, unit: 'Ω', high_limit: 0.3 }]);
		world.sandbox.faults.add({ kind: 'status', status: 503, path: '/tests_performed/detailed/' });
		expect((await pollTestResults(context())).complete).toBe(true);
		expect(ofType(DETAIL_TYPES.testResultRecorded)).toHaveLength(1);
		expect(alerts()).toEqual([]);
		await pollTestResults(context());
		expect(alerts()).toEqual([]);

		world.sandbox.faults.clear();
		await pollTestResults(context());
		expect(ofType(DETAIL_TYPES.testResultNearLimit).map((e) => (e.detail.data as Data).testResult.id)).toEqual([near.id]);
		await pollTestResults(context());
		expect(alerts()).toHaveLength(1);
		expect(ofType(DETAIL_TYPES.testResultRecorded)).toHaveLength(1);
	});

	/** The run's metric counts of `name`, its warning rows of `deviceId`, and its device's kept values. */
	async function afterRun(deviceId: number, name: string) {
		const ctx = context();
		let counted = 0;
		const lines: string[] = [];
		ctx.metrics = { count: (metric: string, n = 1) => void (metric === name && (counted += n)) };
		ctx.log = { ...ctx.log, warn: (message: string, fields?: unknown) => void lines.push(`${message} ${JSON.stringify(fields)}`) };
		expect((await pollTestResults(ctx)).complete).toBe(true);
		const rows: RecordedWarningValue[] = [];
		for await (const item of ctx.store.list<RecordedWarningValue>(NS.measurementWarnings('sandbox'))) if (item.value.device.id === deviceId) rows.push(item.value);
		const kept = await ctx.store.get<{ steps: Record<string, unknown[]> }>(NS.measurements('sandbox'), String(deviceId));
		return { counted, rows, kept, lines };
	}

	it('a passed result whose device was deleted after its detail answered 503 is, on its retry, no warning: no event, no row, its values not kept, counted (MeasurementsUnknownDevice), as Get Measurement Warnings skips it', async () => {
		const deviceId = cleanDevice();
		await started();
		upload(deviceId, [{ step: PE, value: 0.27, unit: 'Ω', high_limit: 0.3 }]);
		world.sandbox.faults.add({ kind: 'status', status: 503, path: '/tests_performed/detailed/' });
		await pollTestResults(context());
		expect(ofType(DETAIL_TYPES.testResultRecorded)).toHaveLength(1);
		world.sandbox.faults.clear();
		world.sandbox.account.delete('device', deviceId, false);
		const run = await afterRun(deviceId, 'MeasurementsUnknownDevice');
		expect(alerts()).toEqual([]);
		expect(run.rows).toEqual([]);
		expect(run.counted).toBe(1);
		expect(run.kept?.steps[PE] ?? []).toEqual([]);
		expect(run.lines.some((l) => l.includes('device no longer exists') && !l.includes(world.sandbox.sandboxToken))).toBe(true);
		// Not retried: the next run counts nothing more.
		expect((await afterRun(deviceId, 'MeasurementsUnknownDevice')).counted).toBe(0);
		expect(ofType(DETAIL_TYPES.testResultRecorded)).toHaveLength(1);
	});

	it('a new passed result of a device deleted before the run is no warning (no event, no row, values not kept, counted); its Test Result Recorded event stays', async () => {
		const deviceId = cleanDevice();
		await started();
		const near = upload(deviceId, [{ step: PE, value: 0.27, unit: 'Ω', high_limit: 0.3 }]);
		world.sandbox.account.delete('device', deviceId, false);
		const run = await afterRun(deviceId, 'MeasurementsUnknownDevice');
		expect(ofType(DETAIL_TYPES.testResultRecorded).map((e) => (e.detail.data as Data).testResult.id)).toEqual([near.id]);
		expect(alerts()).toEqual([]);
		expect(run.rows).toEqual([]);
		expect(run.counted).toBe(1);
		expect(run.kept?.steps[PE] ?? []).toEqual([]);
	});

	it('bad measurements give no event and stop nothing: no value, text, no limit, zero against a lower limit, a negative value, a bad limit, a unit changing within a series', async () => {
		const deviceId = cleanDevice();
		await started();
		const today = world.sandbox.account.today();
		upload(deviceId, [
			{ step: 'A', value: null, unit: 'Ω', high_limit: 0.3 },
			{ step: 'B', value: 'high', unit: 'Ω', high_limit: 0.3 },
			{ step: 'C', value: 0.29, unit: 'Ω' },
			{ step: RISO, value: 0, unit: 'MΩ', low_limit: 1 },
			{ step: 'D', value: -0.29, unit: 'Ω', high_limit: 0.3 },
			{ step: 'E', value: 0.29, unit: 'Ω', low_limit: 0.5, high_limit: 0.3 },
		]);
		// A falling series whose unit changes: no trend, so no drift (and 3 of 300 kΩ is far from 1 MΩ).
		upload(deviceId, [{ step: 'F', value: 400, unit: 'MΩ', low_limit: 1 }], addDays(today, -400));
		upload(deviceId, [{ step: 'F', value: 150, unit: 'MΩ', low_limit: 1 }], addDays(today, -200));
		upload(deviceId, [{ step: 'F', value: 3000, unit: 'kΩ', low_limit: 1 }], addDays(today, -1));
		const good = upload(deviceId, [{ step: PE, value: 0.29, unit: 'Ω', high_limit: 0.3 }]);
		const report = await pollTestResults(context());
		expect(report.complete).toBe(true);
		expect(ofType(DETAIL_TYPES.testResultRecorded)).toHaveLength(5);
		expect(ofType(DETAIL_TYPES.deviceMeasurementDrift)).toEqual([]);
		// Only the good result's step.
		expect(ofType(DETAIL_TYPES.testResultNearLimit).map((e) => (e.detail.data as Data).testResult.id)).toEqual([good.id]);
	});

	it('one bad record never stops a run: a value written as text that overflows ("1e999") is counted as skipped, the other results’ events are published, and runs again publish nothing twice', async () => {
		const deviceId = cleanDevice();
		await started();
		upload(deviceId, [{ step: PE, value: '1e999', unit: 'Ω', high_limit: 0.3 }]);
		upload(deviceId, [{ step: RISO, value: '1e999', unit: 'MΩ', low_limit: 1 }]);
		const good = upload(deviceId, [{ step: PE, value: 0.27, unit: 'Ω', high_limit: 0.3 }]);
		let skipped = 0;
		for (let run = 0; run < 3; run++) {
			const ctx = context();
			ctx.metrics = { count: (name: string, n = 1) => void (name === 'MeasurementsSkipped' && (skipped += n)) };
			expect((await pollTestResults(ctx)).complete).toBe(true);
		}
		expect(skipped).toBe(2);
		expect(ofType(DETAIL_TYPES.testResultRecorded)).toHaveLength(3);
		expect(ofType(DETAIL_TYPES.testResultNearLimit).map((e) => (e.detail.data as Data).testResult.id)).toEqual([good.id]);
		expect(ofType(DETAIL_TYPES.deviceMeasurementDrift)).toEqual([]);
	});
});

/** Uploads a passed protective-conductor result (limit 0.3 Ω) `day` days from today; its id. */
type PeUpload = (value: number, day: number, status?: 'passed' | 'failed') => number;

/**
 * Result A's warning row and events in two state tables over the same uploads: one polled without
 * a fault, one where A's detail answers 503 on its run and is read by the next. `earlier`: polled
 * into both first; `newer`: A and its device's results uploaded after it (returns A's id, or the
 * ids of the results deferred alike, A first: `rows` and `events` are theirs);
 * `beforeRetry`: changes the deferred table before the retry.
 */
async function plainAndRetried(deviceId: number, earlier: (pe: PeUpload) => void, newer: (pe: PeUpload) => number | number[], beforeRetry?: (table: string, a: number) => Promise<void>) {
	const deferred = await newTable(world.dynamo);
	await started();
	await pollTestResults(context(deferred));
	const today = world.sandbox.account.today();
	const pe: PeUpload = (value, day, status = 'passed') => upload(deviceId, [{ step: PE, value, unit: 'Ω', high_limit: 0.3 }], addDays(today, day), status).id;
	const device = world.sandbox.account.get('device', deviceId);
	earlier(pe);
	device.values[DEVICE.nextTest] = addDays(today, 400);
	await pollTestResults(context());
	await pollTestResults(context(deferred));
	const held = [newer(pe)].flat();
	const a = held[0];
	device.values[DEVICE.nextTest] = addDays(today, 400);

	const rowsOf = async (table: string) => {
		const rows = await Promise.all(held.map(async (id) => (await context(table).store.get<RecordedWarningValue>(NS.measurementWarnings('sandbox'), `${id}:${PE}`)) ?? null));
		return { row: rows[0], rows };
	};
	const eventsOfA = () => new Map(alerts().filter((e) => held.some((id) => e.detail.metadata.dedupeKey.includes(`:sandbox:${id}:`))).map((e) => [e.detail.metadata.dedupeKey, e.detail.data]));
	world.aws.accepted.length = 0;
	await pollTestResults(context());
	const plain = { ...(await rowsOf(scenario.table())), events: eventsOfA() };

	world.aws.accepted.length = 0;
	for (const id of held) world.sandbox.faults.add({ kind: 'status', status: 503, path: `/tests_performed/detailed/${id}/` });
	await pollTestResults(context(deferred));
	const onFault = { ...(await rowsOf(deferred)), events: eventsOfA(), announced: alerts().map((e) => (e.detail.data as Data).testResult.id) };
	world.sandbox.faults.clear();
	world.aws.accepted.length = 0;
	await beforeRetry?.(deferred, a);
	await pollTestResults(context(deferred));
	return { a, held, plain, onFault, retried: { ...(await rowsOf(deferred)), events: eventsOfA() } };
}

describe('Device Measurement Drift', () => {
	it('three results with a falling insulation resistance (400, 150, 3 MΩ over 200 days) give one drift event, as they arrive run by run; runs again emit nothing new', async () => {
		const deviceId = cleanDevice();
		await started();
		const today = world.sandbox.account.today();
		const values = [400, 150, 3];
		const ids: number[] = [];
		for (const [i, value] of values.entries()) {
			ids.push(upload(deviceId, [{ step: RISO, value, unit: 'MΩ', low_limit: 1 }], addDays(today, -200 + 100 * i)).id);
			await pollTestResults(context());
		}
		const drift = ofType(DETAIL_TYPES.deviceMeasurementDrift);
		expect(drift).toHaveLength(1);
		const data = drift[0].detail.data as Omit<Data, 'trend'> & { trend: { points: Array<{ testResultId: number }>; slopePerDay: number; predictedLimitDate: string } };
		expect(data.testResult.id).toBe(ids[2]);
		const device = world.sandbox.account.get('device', deviceId);
		expect(data.device).toMatchObject({ id: deviceId, nextTestDate: device.values[DEVICE.nextTest] });
		expect(data.measurement).toEqual({ step: RISO, measurement: null, unit: 'MΩ', lowLimit: 1, highLimit: null });
		expect(data.trend.points.map((p) => p.testResultId)).toEqual(ids);
		expect(data.trend).toMatchObject({ predictedLimitSide: 'low' });
		expect(data.trend.slopePerDay).toBeLessThan(0);
		expect(data.trend.predictedLimitDate < (device.values[DEVICE.nextTest] as string)).toBe(true);
		expect(drift[0].detail.metadata.dedupeKey).toBe(`device-measurement-drift:sandbox:${ids[2]}:${RISO}`);
		// 3 MΩ uses a third of its 1 MΩ lower limit: no near-limit event.
		expect(ofType(DETAIL_TYPES.testResultNearLimit)).toEqual([]);

		world.aws.accepted.length = 0;
		await pollTestResults(context());
		await pollTestResults(context());
		expect(world.aws.events()).toEqual([]);
	});

	it('a passed re-test on the day of a failed result (fail, repair, re-test) starts the series: the drift event is the one the node’s trend predicts', async () => {
		const deviceId = cleanDevice();
		await started();
		const today = world.sandbox.account.today();
		upload(deviceId, [{ step: RISO, value: 0.5, unit: 'MΩ', low_limit: 1 }], addDays(today, -200), 'failed');
		const ids: number[] = [];
		for (const [i, value] of [400, 150, 3].entries()) {
			ids.push(upload(deviceId, [{ step: RISO, value, unit: 'MΩ', low_limit: 1 }], addDays(today, -200 + 100 * i)).id);
			if (i === 0) await pollTestResults(context());
		}
		await pollTestResults(context());
		const node = (await nodeTrendOf(world.sandbox, deviceId, RISO))!;
		expect(node.trend.points.map((p) => p.testResultId)).toEqual(ids);
		expect(node.testEarlier).toBe(true);
		const drift = ofType(DETAIL_TYPES.deviceMeasurementDrift);
		expect(drift).toHaveLength(1);
		const data = drift[0].detail.data as Omit<Data, 'trend'> & { trend: { points: Array<{ testResultId: number }>; predictedLimitDate: string } };
		expect(data.testResult.id).toBe(ids[2]);
		expect(data.trend.points.map((p) => p.testResultId)).toEqual(ids);
		expect(data.trend.predictedLimitDate).toBe(node.trend.predictedLimitDate);
	});

	it('results that do not all measure the same step: the trend rests on the latest five passed results, as the node’s (two insulation resistances, three protective-conductor-only results between, a third insulation resistance: no trend)', async () => {
		const deviceId = cleanDevice();
		await started();
		const today = world.sandbox.account.today();
		upload(deviceId, [{ step: RISO, value: 400, unit: 'MΩ', low_limit: 1 }], addDays(today, -500));
		upload(deviceId, [{ step: RISO, value: 150, unit: 'MΩ', low_limit: 1 }], addDays(today, -400));
		for (const day of [-300, -200, -100]) upload(deviceId, [{ step: PE, value: 0.1, unit: 'Ω', high_limit: 0.3 }], addDays(today, day));
		const latest = upload(deviceId, [{ step: RISO, value: 1.2, unit: 'MΩ', low_limit: 1 }], today);
		await pollTestResults(context());
		const node = (await nodeTrendOf(world.sandbox, deviceId, RISO))!;
		expect(node.trend).toMatchObject({ noTrend: 'tooFewResults', predictedLimitDate: null });
		expect(node.trend.points).toHaveLength(2);
		expect(ofType(DETAIL_TYPES.deviceMeasurementDrift)).toEqual([]);
		const near = ofType(DETAIL_TYPES.testResultNearLimit);
		expect(near.map((e) => (e.detail.data as Data).testResult.id)).toEqual([latest.id]);
		expect((near[0].detail.data as Data).predictedLimitDate).toBeNull();
	});

	it('a run repeated after a crash between keeping a page’s values and recording its results as seen (two new results of one device on the page) rewrites the same warning rows and republishes the same events: the earlier result keeps its trend', async () => {
		const deviceId = cleanDevice();
		await started();
		const today = world.sandbox.account.today();
		const pe = (value: number, day: number) => upload(deviceId, [{ step: PE, value, unit: 'Ω', high_limit: 0.3 }], addDays(today, day)).id;
		pe(0.1, -400);
		pe(0.15, -300);
		const device = world.sandbox.account.get('device', deviceId);
		device.values[DEVICE.nextTest] = addDays(today, 400);
		await pollTestResults(context());
		expect(alerts()).toEqual([]);
		const a = pe(0.25, -200);
		const b = pe(0.26, -100);
		device.values[DEVICE.nextTest] = addDays(today, 400);

		const rowsOf = async () => {
			const rows = new Map<string, RecordedWarningValue>();
			for await (const item of context().store.list<RecordedWarningValue>(NS.measurementWarnings('sandbox'))) if (item.value.device.id === deviceId) rows.set(item.key, item.value);
			return rows;
		};
		const published = () => new Map(alerts().map((e) => [e.detail.metadata.dedupeKey, e.detail.data]));
		// The run that dies after keeping the values (series written), before the results are recorded as seen.
		const crashing = context();
		const store = crashing.store;
		crashing.store = Object.assign(Object.create(store) as typeof store, {
			putMany: async (ns: string, items: never[]) => {
				if (ns.startsWith('results:')) throw new Error('process killed');
				return store.putMany(ns, items);
			},
		});
		await expect(pollTestResults(crashing)).rejects.toThrow('process killed');
		const rowsFirst = await rowsOf();
		const eventsFirst = published();
		// What the run without the crash decided: A drifts toward its limit before its next due date.
		expect(rowsFirst.get(`${a}:${PE}`)).toMatchObject({ testResultId: a, nearLimit: true, testEarlier: true });
		expect(rowsFirst.get(`${a}:${PE}`)!.predictedLimitDate).not.toBeNull();
		expect(eventsFirst.get(`test-result-near-limit:sandbox:${a}:${PE}`)).toMatchObject({ predictedLimitDate: rowsFirst.get(`${a}:${PE}`)!.predictedLimitDate });
		expect([...eventsFirst.keys()]).toContain(`device-measurement-drift:sandbox:${b}:${PE}`);

		world.aws.accepted.length = 0;
		await pollTestResults(context());
		expect(await rowsOf()).toEqual(rowsFirst);
		expect(published()).toEqual(eventsFirst);
		world.aws.accepted.length = 0;
		await pollTestResults(context());
		expect(alerts()).toEqual([]);
	});

	it('a result whose detail could not be read on its run (503) while a later upload of its device was read is retried without that later upload: its warning row and events are those of the run without the 503 (predicted limit date, "test earlier", drift)', async () => {
		let b = 0;
		const { plain, onFault, retried } = await plainAndRetried(
			cleanDevice(),
			(pe) => {
				pe(0.1, -400);
				pe(0.15, -300);
			},
			(pe) => {
				const a = pe(0.25, -200);
				b = pe(0.26, -100);
				return a;
			},
		);
		// Without the fault: A drifts toward its limit before its next due date.
		expect(plain.row).toMatchObject({ nearLimit: true, testEarlier: true });
		expect(plain.row!.predictedLimitDate).not.toBeNull();
		expect([...plain.events.values()][0]).toMatchObject({ predictedLimitDate: plain.row!.predictedLimitDate });
		// With it: A deferred, B read and kept; the next run reads A.
		expect(onFault.row).toBeNull();
		expect(onFault.events).toEqual(new Map());
		expect(onFault.announced).toContain(b);
		expect(retried).toEqual(plain);
	});

	it('a deferred result (503) is retried with its device’s series as it stood on its run: a later FAILED result, which empties the kept series, leaves its warning row and events (limit date, "test earlier", drift) those of the run without the 503', async () => {
		const { plain, onFault, retried } = await plainAndRetried(
			cleanDevice(),
			(pe) => [[0.1, -500], [0.12, -450], [0.15, -400], [0.2, -300]].forEach(([v, d]) => pe(v, d)),
			(pe) => {
				const a = pe(0.25, -200);
				pe(0.35, -100, 'failed');
				return a;
			},
		);
		expect(plain.row).toMatchObject({ nearLimit: true, testEarlier: true });
		expect(plain.row!.predictedLimitDate).not.toBeNull();
		expect([...plain.events.keys()].some((k) => k.startsWith('device-measurement-drift:'))).toBe(true);
		expect(onFault.row).toBeNull();
		expect(onFault.events).toEqual(new Map());
		expect(retried).toEqual(plain);
	});

	it('a deferred result (503) is retried with its device’s series as it stood on its run: two later passed results, which push its oldest values out of the 5 kept, leave its predicted limit date that of the run without the 503', async () => {
		const { plain, onFault, retried } = await plainAndRetried(
			cleanDevice(),
			(pe) => [[0.1, -500], [0.12, -450], [0.15, -400], [0.2, -300]].forEach(([v, d]) => pe(v, d)),
			(pe) => {
				const a = pe(0.25, -200);
				pe(0.2, -100);
				pe(0.21, -50);
				return a;
			},
		);
		expect(plain.row).toMatchObject({ nearLimit: true, testEarlier: true });
		expect(plain.row!.predictedLimitDate).not.toBeNull();
		expect(onFault.row).toBeNull();
		expect(onFault.events).toEqual(new Map());
		expect(retried).toEqual(plain);
	});

	it('two results of one device deferred on the same run (503 on both details): retried in upload order, the earlier one read is added to the later one’s saved series first, so both warning rows and their events are those of the run without the 503', async () => {
		const { held, plain, onFault, retried } = await plainAndRetried(
			cleanDevice(),
			(pe) => {
				pe(0.1, -400);
				pe(0.15, -300);
			},
			(pe) => [pe(0.25, -200), pe(0.27, -100)],
		);
		expect(plain.rows.map((r) => [r?.testResultId, r?.testEarlier])).toEqual(held.map((id) => [id, true]));
		expect(plain.rows[1]!.predictedLimitDate).not.toBeNull();
		expect([...plain.events.keys()].filter((k) => k.startsWith('device-measurement-drift:'))).toHaveLength(2);
		expect(onFault.rows).toEqual([null, null]);
		expect(onFault.events).toEqual(new Map());
		expect(retried).toEqual(plain);
	});

	it('a failed result is kept without its detail, so it is never deferred: with a 503 on its detail, its run keeps no pending entry and the later results’ trend starts after it', async () => {
		const deviceId = cleanDevice();
		await started();
		const today = world.sandbox.account.today();
		const pe = (value: number, day: number, status: 'passed' | 'failed' = 'passed') => upload(deviceId, [{ step: PE, value, unit: 'Ω', high_limit: 0.3 }], addDays(today, day), status).id;
		[[0.1, -500], [0.12, -450], [0.15, -400]].forEach(([v, d]) => pe(v, d));
		world.sandbox.account.get('device', deviceId).values[DEVICE.nextTest] = addDays(today, 400);
		await pollTestResults(context());
		const failed = pe(0.35, -300, 'failed');
		const later = [[0.2, -200], [0.22, -100], [0.27, -50]].map(([v, d]) => pe(v, d));
		world.sandbox.account.get('device', deviceId).values[DEVICE.nextTest] = addDays(today, 400);
		world.aws.accepted.length = 0;
		world.sandbox.faults.add({ kind: 'status', status: 503, path: `/tests_performed/detailed/${failed}/` });
		await pollTestResults(context());
		const pending: string[] = [];
		for await (const item of context().store.list<PendingMeasurement>(NS.measurementPending('sandbox'))) pending.push(item.key);
		expect(pending).toEqual([]);
		const drift = ofType(DETAIL_TYPES.deviceMeasurementDrift).map((e) => e.detail.data as { testResult: { id: number }; trend: { points: Array<{ testResultId: number }> } });
		expect(drift.map((d) => [d.testResult.id, d.trend.points.map((p) => p.testResultId)])).toEqual([[later[2], later]]);
	});

	describe('a deferred result stored by an earlier version is still retried as that version did', () => {
		const ns = NS.measurementPending('sandbox');
		/** The entry as an earlier version wrote it: `keptBefore` (the results kept when it was deferred) or neither. */
		const asEarlier = (keptBefore: (series: PendingMeasurement['series']) => number[] | undefined) => async (table: string, a: number) => {
			const store = context(table).store;
			const { series, ...entry } = (await store.get<PendingMeasurement>(ns, String(a)))!;
			expect(series).toBeDefined();
			const ids = keptBefore(series);
			await store.putMany(ns, [{ key: String(a), value: ids ? { ...entry, keptBefore: ids } : entry, expiresAt: Date.now() + 86_400_000 }]);
		};
		const twoBefore = (pe: PeUpload) => {
			pe(0.1, -400);
			pe(0.15, -300);
		};
		const aThenB = (pe: PeUpload) => {
			const a = pe(0.25, -200);
			pe(0.26, -100);
			return a;
		};

		it('with the results kept before it (`keptBefore`): a later passed upload is left out of its trend', async () => {
			const { plain, retried } = await plainAndRetried(cleanDevice(), twoBefore, aThenB, asEarlier((series) => series!.results!.map(([id]) => id)));
			expect(plain.row).toMatchObject({ nearLimit: true, testEarlier: true });
			expect(plain.row!.predictedLimitDate).not.toBeNull();
			expect(retried).toEqual(plain);
		});

		it('with neither: fitted to the kept values now, where the later upload is its step’s latest value (no trend)', async () => {
			const { a, retried } = await plainAndRetried(cleanDevice(), twoBefore, aThenB, asEarlier(() => undefined));
			expect(retried.row).toMatchObject({ testResultId: a, nearLimit: true, predictedLimitDate: null, testEarlier: false });
			expect([...retried.events.keys()]).toEqual([`test-result-near-limit:sandbox:${a}:${PE}`]);
		});
	});

	it('a failed result starts the series over: values before it give no trend', async () => {
		const deviceId = cleanDevice();
		await started();
		const today = world.sandbox.account.today();
		upload(deviceId, [{ step: RISO, value: 400, unit: 'MΩ', low_limit: 1 }], addDays(today, -300));
		upload(deviceId, [{ step: RISO, value: 150, unit: 'MΩ', low_limit: 1 }], addDays(today, -200));
		upload(deviceId, [{ step: RISO, value: 0.5, unit: 'MΩ', low_limit: 1 }], addDays(today, -100), 'failed');
		upload(deviceId, [{ step: RISO, value: 3, unit: 'MΩ', low_limit: 1 }], today);
		await pollTestResults(context());
		expect(ofType(DETAIL_TYPES.deviceMeasurementDrift)).toEqual([]);
	});
});
