/**
 * The results poller's first-run backfill of measured values, against the sandbox over HTTP and
 * dynalite: each device's last passed results since its latest failed one are kept as the client's
 * rule says; interrupted (time budget, crash) it resumes without re-reading finished devices and
 * without losing any; it never takes more than its share of the token's budget, counted on an
 * injected clock (its grants per window) and on the sandbox's own request count.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ServiceClient, keptPoints, parseBaseUrl, sharedPacers, tokenPacingKey, measuredValuesOf, trendResultsOf, failedOf, stepKey, type DeviceSeries } from '../../client';
import { systemClock, undiciRequestFn } from '../../lambdas/adapters/undiciService';
import { continueBackfill, BACKFILL_RESULTS, BACKFILL_SLICE_MS } from '../../lambdas/pollers/measurementBackfill';
import { MIN_BACKFILL_SHARE, newReport, type PollerContext } from '../../lambdas/pollers/context';
import { NS, type BackfillState } from '../../lambdas/pollers/state';
import { pollTestResults } from '../../lambdas/pollers/testResults';
import { DynamoStateStore } from '../../lambdas/adapters/dynamoStateStore';
import { DETAIL_TYPES } from '../../lambdas/events/names';
import { DEVICE } from '../../sandbox/properties';
import { renderTestResultDetail } from '../../sandbox/render';
import { nodeTrendOf } from '../support/measuredWarnings';
import { pollerContext, useFreshScenarios, usePollerWorld } from '../support/pollers';

const world = usePollerWorld({ devices: 24, customers: 2, testResults: 90 }, { ratePerSecond: 200 });
const scenario = useFreshScenarios(world);
const files = world;
/** A shorter slice than the deployments' 90 s, so that these 24 devices take several runs. */
const SLICE_MS = 20_000;

/** A virtual clock: sleeps move it on at once (the share is counted on it, never on real time). */
function virtualClock(start: number) {
	let t = start;
	return { now: () => t, sleep: async (ms: number) => void (t += Math.max(0, ms)) };
}

/**
 * A context on a virtual clock with the backfill on, counting every request, and per result its
 * detail requests (`attempts`) and the details it got (`details`): a request the service refused
 * (a 429) and the client sent again is one read, not two. Its client takes the token's pacer, as
 * the deployed one does (connectService), so it keeps to the sandbox's rate.
 */
function context(options: { store?: DynamoStateStore; remainingMs?: () => number; lambdaMs?: number; sliceMs?: number; share?: number; on?: { world: typeof world; table: () => string } } = {}) {
	const { world, table } = options.on ?? { world: files, table: scenario.table };
	const clock = virtualClock(world.sandbox.account.now());
	// `lambdaMs`: the time the Lambda has left at the start, running down on the injected clock.
	const start = clock.now();
	const remainingMs = options.lambdaMs === undefined ? options.remainingMs : () => start + options.lambdaMs! - clock.now();
	const ctx = pollerContext(world, table(), { store: options.store, remainingMs, settings: { backfillShare: options.share ?? 0.5, backfillSliceMs: options.sliceMs } });
	ctx.now = clock.now;
	ctx.sleep = clock.sleep;
	const base = undiciRequestFn(world.sandbox.sandboxToken);
	const counts = { requests: 0, lists: [] as string[], attempts: new Map<number, number>(), details: new Map<number, number>() };
	const add = (map: Map<number, number>, id: number) => map.set(id, (map.get(id) ?? 0) + 1);
	ctx.client = new ServiceClient({
		baseUrl: world.sandbox.url,
		clock: systemClock,
		pacer: sharedPacers.forKey(tokenPacingKey(world.sandbox.sandboxToken, 'sandbox', parseBaseUrl(world.sandbox.url)), systemClock),
		retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
		request: async (req) => {
			counts.requests++;
			// Each device's results list (its one page), by its filter.
			if (req.url.includes('/tests_performed/all/')) counts.lists.push(req.url);
			const m = /\/tests_performed\/detailed\/(\d+)\//.exec(req.url);
			if (m) add(counts.attempts, Number(m[1]));
			const answer = await base(req);
			if (m && answer.status >= 200 && answer.status < 300) add(counts.details, Number(m[1]));
			return answer;
		},
	});
	return { ctx, counts };
}

/** What the backfill should keep for each device, from the sandbox's own results (the client's rule). */
function expectedSeries(): Map<number, Record<string, number[]>> {
	const out = new Map<number, Record<string, number[]>>();
	const account = world.sandbox.account;
	for (const device of account.data.devices.values()) {
		const results = [...account.data.testResults.values()].filter((r) => r.device_id === device.id).map((r) => ({ id: r.id, testDate: r.test_date, failed: failedOf(r.status) }));
		const steps: Record<string, number[]> = {};
		for (const r of trendResultsOf(results, BACKFILL_RESULTS)) {
			for (const v of measuredValuesOf(renderTestResultDetail(account, account.data.testResults.get(r.id)!)).values) (steps[stepKey(v)] ??= []).push(r.id);
		}
		out.set(device.id, steps);
	}
	return out;
}

async function keptSeries(ctx: PollerContext): Promise<Map<number, DeviceSeries>> {
	const out = new Map<number, DeviceSeries>();
	for await (const item of ctx.store.list<DeviceSeries>(NS.measurements('sandbox'))) out.set(Number(item.key), item.value);
	return out;
}

function checkKept(kept: Map<number, DeviceSeries>): void {
	const expected = expectedSeries();
	expect([...kept.keys()].sort((a, b) => a - b)).toEqual([...expected.keys()].sort((a, b) => a - b));
	for (const [id, steps] of expected) {
		const series = kept.get(id)!;
		expect(series.backfilled).toBe(true);
		const got = Object.fromEntries(Object.entries(series.steps).map(([k, points]) => [k, keptPoints(points).map((p) => p.testResultId)]));
		expect(got, `device ${id}`).toEqual(steps);
	}
}

describe('the backfill of measured values', () => {
	it('the first run begins it, later runs go on (at most a slice each, here 20 s) until done; each device’s last passed results since its latest failed one are kept, each detail read once (no device begun that the slice cannot finish), progress as done/total', async () => {
		const reads = new Map<number, number>();
		const progress: Array<{ devicesDone: number; devicesTotal: number | null }> = [];
		for (let run = 1; ; run++) {
			const { ctx, counts } = context({ sliceMs: SLICE_MS });
			const began = ctx.now();
			const report = await pollTestResults(ctx);
			for (const [id, n] of counts.details) reads.set(id, (reads.get(id) ?? 0) + n);
			// The slice: no request waited for past its end.
			expect(ctx.now() - began).toBeLessThanOrEqual(SLICE_MS);
			progress.push(report.backfill!);
			if (report.backfill!.done) break;
			expect(run).toBeLessThan(10);
		}
		expect(progress.length).toBeGreaterThan(1);
		expect(progress.map((p) => p.devicesTotal)).toEqual(progress.map(() => 24));
		for (let i = 1; i < progress.length; i++) expect(progress[i].devicesDone).toBeGreaterThan(progress[i - 1].devicesDone);
		expect(progress[progress.length - 1].devicesDone).toBe(24);
		const { ctx, counts } = context();
		checkKept(await keptSeries(ctx));
		// No device begun that its slice could not finish: no detail read twice.
		expect([...reads.values()].every((n) => n === 1)).toBe(true);
		const after = await pollTestResults(ctx);
		expect(after.backfill).toBeUndefined();
		expect(counts.details.size).toBe(0);
	});

	it('stopped by its time budget mid-way, it resumes where it stopped: no finished device read again, none lost', async () => {
		const reads = new Map<number, number>();
		let runs = 0;
		for (;;) {
			runs++;
			// Each run handles 5 devices: the budget drops below the safety margin once the fifth is written.
			const store = new DynamoStateStore(scenario.table(), world.dynamo, async () => undefined);
			const counting = Object.create(store) as DynamoStateStore;
			let written = 0;
			counting.putMany = async (ns, items) => {
				if (ns.startsWith('measurements:')) written++;
				return store.putMany(ns, items);
			};
			const { ctx, counts } = context({ store: counting, remainingMs: () => (written >= 5 ? 0 : 600_000) });
			const report = newReport('testResults');
			await continueBackfill(ctx, report);
			for (const [id, n] of counts.details) reads.set(id, (reads.get(id) ?? 0) + n);
			if (report.backfill?.done) break;
			expect(report.stoppedForTime).toBe(true);
			expect(runs).toBeLessThan(30);
		}
		expect(runs).toBeGreaterThan(2);
		const { ctx } = context();
		checkKept(await keptSeries(ctx));
		expect([...reads.entries()].filter(([, n]) => n > 1)).toEqual([]);
		const state = await ctx.store.get<BackfillState>(NS.measurementBackfill('sandbox'), 'backfill');
		expect(state).toMatchObject({ devicesDone: 24, devicesTotal: 24 });
		expect(state!.done).toBeDefined();
	});

	it('a crash mid-way: the next run goes on; only the device in hand is read again', async () => {
		const store = new DynamoStateStore(scenario.table(), world.dynamo, async () => undefined);
		const crashing = Object.create(store) as DynamoStateStore;
		let written = 0;
		crashing.putMany = async (ns, items) => {
			if (ns.startsWith('measurements:') && ++written > 7) throw new Error('process killed');
			return store.putMany(ns, items);
		};
		const first = context({ store: crashing });
		await expect(continueBackfill(first.ctx, newReport('testResults'))).rejects.toThrow('process killed');
		const later = new Set<number>();
		for (let run = 1; ; run++) {
			const next = context();
			const report = newReport('testResults');
			await continueBackfill(next.ctx, report);
			for (const id of next.counts.details.keys()) later.add(id);
			if (report.backfill?.done) break;
			expect(run).toBeLessThan(10);
		}
		checkKept(await keptSeries(context().ctx));
		const twice = [...later].filter((id) => first.counts.details.has(id));
		// The eighth device's details (being written when the run died) at most.
		const eighth = new Set([...world.sandbox.account.data.testResults.values()].filter((r) => r.device_id === [...world.sandbox.account.data.devices.keys()][7]).map((r) => r.id));
		for (const id of twice) expect(eighth.has(id), `result ${id} read again`).toBe(true);
	});

	for (const nth of [7, 8]) {
		it(`a crash at the ${nth}th write of its position (before or after the device in hand's values were written): the last report counts all 24 devices, once each, and, when it died after writing the device’s values, every request made`, async () => {
			const store = new DynamoStateStore(scenario.table(), world.dynamo, async () => undefined);
			const crashing = Object.create(store) as DynamoStateStore;
			let written = 0;
			let afterValues = false;
			crashing.putMany = async (ns, items) => {
				if (ns.startsWith('measurementBackfill:') && ++written === nth) throw new Error('process killed');
				afterValues = ns.startsWith('measurements:');
				return store.putMany(ns, items);
			};
			const first = context({ store: crashing });
			let granted = 0;
			await expect(continueBackfill(first.ctx, newReport('testResults'), () => granted++)).rejects.toThrow('process killed');
			// The requests of the run that died, up to the last position it saved (a device in hand, read again, counts again).
			const saved = (await store.get<BackfillState>(NS.measurementBackfill('sandbox'), 'backfill'))!;
			const grantedBeforeCrash = granted;
			let last = newReport('testResults');
			for (let run = 1; !last.backfill?.done; run++) {
				last = newReport('testResults');
				await continueBackfill(context().ctx, last, () => granted++);
				expect(run).toBeLessThan(10);
			}
			checkKept(await keptSeries(context().ctx));
			expect(last.backfill).toMatchObject({ devicesDone: 24, devicesTotal: 24, done: true });
			if (afterValues) {
				expect(saved.requests).toBe(grantedBeforeCrash);
				expect(last.backfill!.requests).toBe(granted);
			}
		});
	}

	it('never more than its share: with a share of one half, at most 2 of its requests start in any 1,025 ms of a run’s injected clock, and every request the sandbox counts was granted', async () => {
		let granted = 0;
		let requests = 0;
		const before = world.sandbox.stats.requests;
		for (let run = 1; ; run++) {
			const { ctx, counts } = context();
			const grants: number[] = [];
			const report = newReport('testResults');
			await continueBackfill(ctx, report, (at) => grants.push(at));
			for (let i = 2; i < grants.length; i++) expect(grants[i] - grants[i - 2]).toBeGreaterThanOrEqual(1025);
			// The share is what limits it: 2 per window, so the injected clock moved on about half a window per request.
			expect(grants[grants.length - 1] - grants[0]).toBeGreaterThanOrEqual(Math.floor((grants.length - 1) / 2) * 1025);
			granted += grants.length;
			requests += counts.requests;
			if (report.backfill?.done) {
				expect(report.backfill.requests).toBe(granted);
				break;
			}
			expect(run).toBeLessThan(10);
		}
		// Every request the sandbox answered was granted (a grant whose list had ended sends none).
		expect(world.sandbox.stats.requests - before).toBe(requests);
		expect(requests).toBeLessThanOrEqual(granted);
		expect(requests).toBeGreaterThan(24);
	});

	it('a share under a fifth is kept too: with 0.1, one request per 2,050 ms of the injected clock (a tenth of 5 a second), never one per window', async () => {
		let granted = 0;
		for (let run = 1; ; run++) {
			const { ctx } = context({ share: 0.1 });
			const grants: number[] = [];
			const report = newReport('testResults');
			await continueBackfill(ctx, report, (at) => grants.push(at));
			for (let i = 1; i < grants.length; i++) expect(grants[i] - grants[i - 1]).toBeGreaterThanOrEqual(2050);
			// At most a tenth of the service's 5 a second over the run.
			expect(grants.length - 1).toBeLessThanOrEqual((0.1 * 5 * (grants[grants.length - 1] - grants[0])) / 1000);
			granted += grants.length;
			if (report.backfill?.done) {
				expect(report.backfill.requests).toBe(granted);
				break;
			}
			expect(run).toBeLessThan(20);
		}
		expect(granted).toBeGreaterThan(24);
	});

	it('with the smallest share taken (0.05, one request per 4,100 ms), no run waits past its 90 s slice, no device is begun that its run cannot finish, and the backfill still finishes over runs: every device kept, every request counted', async () => {
		let granted = 0;
		const lists: string[] = [];
		const done: number[] = [];
		for (let run = 1; ; run++) {
			const { ctx, counts } = context({ share: MIN_BACKFILL_SHARE });
			const began = ctx.now();
			const report = newReport('testResults');
			await continueBackfill(ctx, report, () => granted++);
			lists.push(...counts.lists);
			expect(ctx.now() - began, `run ${run}`).toBeLessThanOrEqual(BACKFILL_SLICE_MS);
			done.push(report.backfill!.devicesDone);
			if (report.backfill?.done) {
				expect(report.backfill.requests).toBe(granted);
				break;
			}
			expect(report.stoppedForTime).toBe(true);
			expect(run).toBeLessThan(20);
		}
		// Several runs, each a step further.
		// A device is begun only when its reads fit: none stopped mid-way, no results list read twice.
		expect(lists.length).toBe(new Set(lists).size);
		expect(done.length).toBeGreaterThan(2);
		for (let i = 1; i < done.length; i++) expect(done[i]).toBeGreaterThan(done[i - 1]);
		checkKept(await keptSeries(context().ctx));
	});

	it('nor past the Lambda’s time left: with 40 s left and a safety margin of 15 s, a run at the smallest share waits at most 25 s and stops for time, its progress saved', async () => {
		const { ctx } = context({ share: MIN_BACKFILL_SHARE, lambdaMs: 40_000 });
		ctx.settings.safetyMs = 15_000;
		const began = ctx.now();
		const report = newReport('testResults');
		await continueBackfill(ctx, report);
		expect(ctx.now() - began).toBeLessThanOrEqual(25_000);
		expect(report.stoppedForTime).toBe(true);
		const state = await ctx.store.get<BackfillState>(NS.measurementBackfill('sandbox'), 'backfill');
		expect(state?.requests).toBe(report.backfill!.requests);
		expect(state!.requests).toBeGreaterThan(0);
	});

	it('property: whatever share is taken (0.05 to 1), slice and time left each run has, no run waits past its slice or the Lambda’s time left less the safety margin; then the backfill finishes with every device kept', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.double({ min: MIN_BACKFILL_SHARE, max: 1, noNaN: true }),
				fc.integer({ min: 1_000, max: BACKFILL_SLICE_MS }),
				fc.integer({ min: 16_000, max: 300_000 }),
				async (share, sliceMs, lambdaMs) => {
					const { ctx } = context({ share, sliceMs, lambdaMs });
					const began = ctx.now();
					await continueBackfill(ctx, newReport('testResults'));
					expect(ctx.now() - began).toBeLessThanOrEqual(Math.min(sliceMs, lambdaMs - ctx.settings.safetyMs));
				},
			),
			{ numRuns: 25 },
		);
		for (let run = 1; ; run++) {
			const report = newReport('testResults');
			await continueBackfill(context().ctx, report);
			if (report.backfill === undefined || report.backfill.done) break;
			expect(run).toBeLessThan(10);
		}
		checkKept(await keptSeries(context().ctx));
	});

	it('the first new result after the backfill is fitted as the node fits it: the backfill keeps the last 4 passed results, with the new one the node’s 5; a re-test on a failure’s day is kept', async () => {
		const account = world.sandbox.account;
		const [drifting, retested] = [...account.data.devices.values()];
		for (const [id, r] of account.data.testResults) if (r.device_id === drifting.id || r.device_id === retested.id) account.data.testResults.delete(id);
		const PE = 'Protective conductor resistance';
		const upload = (deviceId: number, value: number, testDate: string, status: 'passed' | 'failed' = 'passed') =>
			account.syncTestResult({ device_id: deviceId, status, test_date: testDate, measured: [{ step: PE, value, unit: 'Ω', high_limit: 0.3 }] as never });
		const ids = [0.1, 0.15, 0.2, 0.21, 0.22].map((value, i) => upload(drifting.id, value, `${2021 + i}-01-10`).id);
		upload(retested.id, 0.35, '2025-03-01', 'failed');
		const retest = upload(retested.id, 0.12, '2025-03-01').id;
		for (;;) {
			const report = await pollTestResults(context().ctx);
			if (report.backfill!.done) break;
		}
		const kept = await keptSeries(context().ctx);
		expect(Object.values(kept.get(drifting.id)!.steps).map((points) => keptPoints(points).map((p) => p.testResultId))).toEqual([ids.slice(1)]);
		expect(Object.values(kept.get(retested.id)!.steps).map((points) => keptPoints(points).map((p) => p.testResultId))).toEqual([[retest]]);

		world.aws.accepted.length = 0;
		ids.push(upload(drifting.id, 0.245, '2026-01-10').id);
		drifting.values[DEVICE.nextTest] = '2027-01-10';
		await pollTestResults(context().ctx);
		const node = (await nodeTrendOf(world.sandbox, drifting.id, PE))!;
		expect(node.trend.points.map((p) => p.testResultId)).toEqual(ids.slice(1));
		expect(node.trend.predictedLimitDate).toBe('2026-08-06');
		expect(node.testEarlier).toBe(true);
		const drift = world.aws.events().filter((e) => e['detail-type'] === DETAIL_TYPES.deviceMeasurementDrift);
		expect(drift).toHaveLength(1);
		const data = drift[0].detail.data as { testResult: { id: number }; trend: { points: Array<{ testResultId: number }>; predictedLimitDate: string } };
		expect(data.testResult.id).toBe(ids[5]);
		expect(data.trend.points.map((p) => p.testResultId)).toEqual(ids.slice(1));
		expect(data.trend.predictedLimitDate).toBe(node.trend.predictedLimitDate);
	});
});

describe('the backfill of measured values, while the device list changes between runs', () => {
	// More devices than the overlap re-read before the saved position (50), so that deleting more
	// than it shifts the list back past it.
	const big = usePollerWorld({ devices: 130, customers: 2, testResults: 300 }, { ratePerSecond: 200 });
	const on = { world: big, table: useFreshScenarios(big).table };

	it('devices handled, then deleted (more than the overlap), and devices added: every device the list holds is backfilled, none twice; progress counts each device once', async () => {
		const reads = new Map<number, number>();
		const attempts = new Map<number, number>();
		const count = (counts: { attempts: Map<number, number>; details: Map<number, number> }) => {
			for (const [id, n] of counts.details) reads.set(id, (reads.get(id) ?? 0) + n);
			for (const [id, n] of counts.attempts) attempts.set(id, (attempts.get(id) ?? 0) + n);
		};
		// The service refuses a detail request now and then (a 429 on a busy machine), in the first
		// run and in a later one: the client sends it again, and that is not a second read.
		const refused = [10, 200].map((skip) => big.sandbox.faults.add({ kind: 'status', status: 429, path: '/tests_performed/detailed/', skip, count: 1 }));
		const first = context({ sliceMs: 225_000, on });
		const r1 = newReport('testResults');
		await continueBackfill(first.ctx, r1);
		count(first.counts);
		expect(r1.stoppedForTime).toBe(true);
		const handled = r1.backfill!.devicesDone;
		expect(handled).toBeGreaterThan(60);
		expect(handled).toBeLessThan(130);
		const account = big.sandbox.account;
		// 60 handled devices leave the list (to the recycle bin), 5 new ones join it.
		for (const id of [...account.data.devices.keys()].slice(0, 60)) account.delete('device', id, false);
		const added = Array.from({ length: 5 }, (_, i) => account.create('device', { properties: { [DEVICE.designation]: `Extension lead ${i + 1}` } }, 'body').id);
		let last = r1;
		for (let run = 2; !last.backfill?.done; run++) {
			const next = context({ on });
			last = newReport('testResults');
			await continueBackfill(next.ctx, last);
			count(next.counts);
			expect(run).toBeLessThan(10);
		}
		const kept = await keptSeries(context({ on }).ctx);
		const listed = [...account.data.devices.keys()];
		expect(listed.filter((id) => !kept.get(id)?.backfilled)).toEqual([]);
		for (const id of added) expect(listed).toContain(id);
		expect([...reads.entries()].filter(([, n]) => n > 1)).toEqual([]);
		expect(refused.map((f) => f.hits)).toEqual([1, 1]);
		expect([...attempts.entries()].filter(([id, n]) => n > reads.get(id)!)).toHaveLength(2);
		// 130 devices at the start, 5 added: each counted once, the 60 deleted ones as handled.
		expect(last.backfill).toMatchObject({ devicesDone: 135, devicesTotal: 135, done: true });
	});
});
