import { beforeEach, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../client';
import { systemClock, undiciRequestFn } from '../../lambdas/adapters/undiciService';
import { MAX_ENTRY_BYTES, entrySize, type TecEvent } from '../../lambdas/events/event';
import { pollTestResults } from '../../lambdas/pollers/testResults';
import { DynamoStateStore } from '../../lambdas/adapters/dynamoStateStore';
import { pollerContext, useFreshScenarios, usePollerWorld } from '../support/pollers';

const world = usePollerWorld({ devices: 40, customers: 4, testResults: 30 });
const scenario = useFreshScenarios(world);
let detailRequests = 0;
beforeEach(() => {
	detailRequests = 0;
});

/** A poller context whose client counts detail requests and gives up after one retry (fast tests). */
function context(options: Parameters<typeof pollerContext>[2] = {}) {
	const ctx = pollerContext(world, scenario.table(), options);
	const base = undiciRequestFn(world.sandbox.sandboxToken);
	ctx.client = new ServiceClient({
		baseUrl: world.sandbox.url,
		clock: systemClock,
		retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
		request: async (req) => {
			const res = await base(req);
			// Counted as answered: a 429 the client waits out is no second read.
			if (req.url.includes('/tests_performed/detailed/') && res.status !== 429) detailRequests++;
			return res;
		},
	});
	return ctx;
}

const ofType = (type: string) => world.aws.events().filter((e) => e['detail-type'] === type);
type FailedData = {
	testResult: { id: number; status: string };
	device: { id: number; designation: string | null; idBarcode: string | null; customerName: string | null; department: string | null };
	failedSteps: Array<{ step: number; name: string; status: string; measurements: Array<{ value: number; lowLimit: number | null; highLimit: number | null; unit: string; passed: boolean }> }>;
	failedStepCount: number;
	truncatedSteps: number;
};
const failed = () => ofType('Test Result Failed').map((e) => e.detail.data as FailedData);
const upload = (body: Record<string, unknown>) => world.sandbox.account.syncTestResult(body as Parameters<typeof world.sandbox.account.syncTestResult>[0]);
const deviceId = () => [...world.sandbox.account.data.devices.keys()][0];

describe('Test Result Failed: the evidence of a failed test', () => {
	it('a failed result with several failed steps: its steps, measured values and limits; its detail is read once, as each passed result’s is (for its measured values)', async () => {
		await pollTestResults(context()); // first run: records the window
		const bad = upload({ device_id: deviceId(), status: 'failed', performed: { steps: 6, failedSteps: 3 } });
		const good = upload({ device_id: deviceId(), status: 'passed' });
		world.aws.accepted.length = 0;
		detailRequests = 0;

		const report = await pollTestResults(context());
		expect(report.complete).toBe(true);
		expect(ofType('Test Result Recorded').map((e) => (e.detail.data as FailedData).testResult.id).sort()).toEqual([bad.id, good.id].sort());
		// One detail per new result: the failed one's for its evidence, the passed one's for its measured values.
		expect(detailRequests).toBe(2);
		const [f] = failed();
		expect(f.testResult).toMatchObject({ id: bad.id, status: 'failed' });
		expect(f.failedStepCount).toBe(3);
		expect(f.truncatedSteps).toBe(0);
		expect(f.failedSteps.map((s) => s.step)).toEqual([1, 2, 3]);
		const device = world.sandbox.account.get('device', bad.device_id);
		expect(f.device).toMatchObject({ id: bad.device_id, designation: device.values[1], idBarcode: device.values[2] });
		// What the alerts route by: the device's own customer and department, read once for the result.
		const customer = device.customer_id === undefined ? undefined : world.sandbox.account.data.customers.get(device.customer_id);
		expect(f.device).toMatchObject({ customerName: customer ? customer.values[101] : null, department: device.values[4] ?? null });
		expect(detailRequests).toBe(2);
		for (const s of f.failedSteps) {
			expect(s.status).toBe('failed');
			const [m] = s.measurements;
			expect(m.passed).toBe(false);
			expect(typeof m.value).toBe('number');
			// The measured value lies outside its limits.
			expect((m.highLimit !== null && m.value > m.highLimit) || (m.lowLimit !== null && m.value < m.lowLimit)).toBe(true);
		}
		expect(ofType('Test Result Failed')[0].detail.metadata.dedupeKey).toBe(`test-result-failed:sandbox:${bad.id}`);

		// Nothing twice.
		world.aws.accepted.length = 0;
		await pollTestResults(context());
		expect(world.aws.events()).toHaveLength(0);
	});

	it('a very long failed result is cut to fit one PutEvents entry, with counts, never dropped', async () => {
		await pollTestResults(context());
		const bad = upload({ device_id: deviceId(), status: 'failed', performed: { steps: 6000, failedSteps: 5000 } });
		world.aws.accepted.length = 0;
		await pollTestResults(context());
		const [event] = ofType('Test Result Failed') as TecEvent[];
		const f = event.detail.data as FailedData;
		expect(f.testResult.id).toBe(bad.id);
		expect(f.failedStepCount).toBe(5000);
		expect(f.failedSteps.length).toBeGreaterThan(100);
		expect(f.truncatedSteps).toBe(5000 - f.failedSteps.length);
		expect(f.truncatedSteps).toBeGreaterThan(0);
		const size = entrySize(event);
		expect(size).toBeLessThanOrEqual(MAX_ENTRY_BYTES);
		expect(size).toBeGreaterThan(MAX_ENTRY_BYTES * 0.9);
		console.log(`size cap: ${f.failedSteps.length} of 5000 failed steps kept, entry ${size} bytes of ${MAX_ENTRY_BYTES}`);
	});

	it('a detail request that fails: the result is still recorded, its Failed event follows on a later run, once', async () => {
		await pollTestResults(context());
		const bad = upload({ device_id: deviceId(), status: 'failed', performed: { steps: 5, failedSteps: 2 } });
		world.aws.accepted.length = 0;
		world.sandbox.faults.add({ kind: 'status', status: 503, path: '/tests_performed/detailed/' });

		expect((await pollTestResults(context())).complete).toBe(true);
		expect(ofType('Test Result Recorded').map((e) => (e.detail.data as FailedData).testResult.id)).toEqual([bad.id]);
		expect(failed()).toEqual([]);
		// Still failing: the next run retries and keeps it.
		await pollTestResults(context());
		expect(failed()).toEqual([]);

		world.sandbox.faults.clear();
		await pollTestResults(context());
		expect(failed().map((f) => [f.testResult.id, f.failedStepCount])).toEqual([[bad.id, 2]]);
		expect(ofType('Test Result Recorded')).toHaveLength(1);
		await pollTestResults(context());
		expect(failed()).toHaveLength(1);
	});

	it('a crash after the deferral is written but before the result is recorded: one Failed event, same key', async () => {
		await pollTestResults(context());
		const bad = upload({ device_id: deviceId(), status: 'failed', performed: { steps: 4, failedSteps: 1 } });
		world.aws.accepted.length = 0;
		world.sandbox.faults.add({ kind: 'status', status: 503, path: '/tests_performed/detailed/' });
		const store = new DynamoStateStore(scenario.table(), world.dynamo, async () => undefined);
		const crashing = Object.create(store) as DynamoStateStore;
		crashing.putMany = async (ns, items) => {
			if (ns.startsWith('results:')) throw new Error('process killed');
			return store.putMany(ns, items);
		};
		await expect(pollTestResults(context({ store: crashing }))).rejects.toThrow('process killed');
		world.sandbox.faults.clear();
		await pollTestResults(context());
		await pollTestResults(context());
		expect(failed().map((f) => f.testResult.id)).toEqual([bad.id]);
		const recorded = ofType('Test Result Recorded').map((e) => e.detail.metadata.dedupeKey);
		expect(new Set(recorded)).toEqual(new Set([`test-result-recorded:sandbox:${bad.id}`]));
	});
});
