import { describe, expect, it } from 'vitest';
import { DEVICE } from '../../sandbox/properties';
import { addDays } from '../../client/dates';
import { pollOverdueDevices } from '../../lambdas/pollers/overdueDevices';
import { pollTestResults } from '../../lambdas/pollers/testResults';
import { DETAIL_TYPES } from '../../lambdas/events/names';
import { newTable, pollerContext, usePollerWorld, type World } from '../support/pollers';
import { LiveTally, putLive } from '../support/live';
import { ServiceClient, parseBaseUrl, sharedPacers, tokenPacingKey, type RequestFn, type ServiceProfile } from '../../client';
import { VARIANTS } from '../support/profiles';
import { systemClock, undiciRequestFn } from '../../lambdas/adapters/undiciService';
import { pollerClient } from './support';
import { soaked } from '../support/soak';

/**
 * Exact on a live service: the sandbox's live mode changes the account after every list page
 * (devices tested, made overdue, created, deleted; results uploaded with today's and older test
 * dates) and between runs. Each face is compared with the sandbox's ground truth: 0 false
 * Resolved, 0 new episodes for devices that never left, 0 lost results, every device overdue
 * since before the previous run announced, 0 duplicate dedupe keys.
 */
/** 2 rounds in `npm test` (one with the overlap, one without), 20 in `npm run soak`. */
const ROUNDS = soaked(2, 20);
const RUNS_PER_ROUND = 6;

const SIZE = { devices: 260, customers: 6, testResults: 100 };
const world = usePollerWorld(SIZE);

/** The service's clock at noon UTC today: far from a day boundary, so "overdue" only changes by the test's own changes. */
function atNoon(sandbox: World['sandbox']): void {
	const now = new Date();
	sandbox.account.clockOffsetMs = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 12) - Date.now();
}
/**
 * The live rounds on a sandbox laid out as `profile` says, the pollers told the same profile (page
 * numbers read by windows, a largest page below 1000: the same guarantees).
 */
function liveRounds(layout: string, profile: ServiceProfile | undefined, rounds: number): void {
	describe(`pollers on a live service (${layout})`, () => {
		const world = usePollerWorld(SIZE, { profile });
		it(`${rounds} randomized rounds of ${RUNS_PER_ROUND} runs: exact against the ground truth`, async () => {
			// Odd rounds scan with the overlap; even rounds without it, so the list visibly shifts under
			// the cursor and only the confirmation keeps Resolved exact.
			const totals = { overlap: new LiveTally('with overlap'), none: new LiveTally('without overlap') };
			for (let round = 1; round <= rounds; round++) {
				const { sandbox } = world;
				const overlap = round % 2 === 1;
				atNoon(sandbox);
				sandbox.account.reset({ seed: 7000 + round });
				// On from the start (a fresh record of changes), but quiet until the first runs are done.
				await putLive(sandbox, { on: true, seed: 100 + round, changes_per_page: 0 });
				world.aws.accepted.length = 0;
				const table = await newTable(world.dynamo);
				// A token per run: runs are minutes apart in production, so one run never waits on the last one's requests.
				const context = () => pollerContext(world, table, { token: sandbox.account.createToken().token, settings: { pageSize: 25, reminderDays: 0, ...(overlap ? {} : { overlap: 0 }) } });
				const tally = new LiveTally(`round ${round}`);
				const overdueRun = async (settled = false) => {
					tally.runStart(sandbox);
					tally.report(await pollOverdueDevices(context()));
					const { announced, resolved } = tally.overdueEvents(world.aws.events());
					tally.runDone(sandbox, announced, resolved, settled);
				};

				// First runs see a quiet account; then it changes while and between runs.
				await overdueRun();
				await pollTestResults(context());
				const before = new Set(sandbox.live.truth().results);
				await putLive(sandbox, { on: true, changes_per_page: 2 });
				for (let run = 1; run <= RUNS_PER_ROUND; run++) {
					sandbox.live.step(4);
					await overdueRun();
					tally.report(await pollTestResults(context()));
				}
				tally.counts.changes = sandbox.live.changes.length;
				// Settle: the account stops changing; two more runs of each.
				await putLive(sandbox, { on: false });
				await overdueRun();
				await overdueRun(true);
				for (let i = 0; i < 2; i++) tally.report(await pollTestResults(context()));
				const events = world.aws.events();
				tally.results(sandbox, events.filter((e) => e['detail-type'] === 'Test Result Recorded').map((e) => (e.detail.data.testResult as { id: number }).id), before);
				tally.keys(events.map((e) => e.detail.metadata.dedupeKey));
				console.info(`live (pollers, ${layout}, round ${round}, ${overlap ? 'overlap' : 'no overlap'}): ${JSON.stringify(tally.counts)}`);
				(overlap ? totals.overlap : totals.none).add(tally);
			}
			for (const t of Object.values(totals)) console.info(`live (pollers, ${t.name}, total): ${JSON.stringify(t.counts)}`);
			totals.overlap.expectExact();
			if (rounds >= 2) totals.none.expectExact({ checkLate: false });
		}, soaked(300_000, 3_000_000));
	});
}

liveRounds('default layout', undefined, ROUNDS);
// Page numbers with page/page_size, other paths, a renamed field and property: the overlap rounds.
liveRounds('page-numbers layout', VARIANTS['page-numbers'], soaked(1, 10));

describe('clock sanity: this machine\'s clock set back 10 days for one run', () => {
	const DAY = 86_400_000;
	const setup = async () => {
		const { sandbox } = world;
		await putLive(sandbox, { on: false });
		atNoon(sandbox);
		sandbox.account.reset({ seed: 4242 });
		world.aws.accepted.length = 0;
		const table = await newTable(world.dynamo);
		return { sandbox, context: (skewMs = 0) => ({ ...pollerContext(world, table, { settings: { reminderDays: 7 } }), now: () => sandbox.account.now() + skewMs }) };
	};
	const keys = () => world.aws.events().map((e) => e.detail.metadata.dedupeKey);

	it('overdue poller: an episode begun by the late clock is not dated in the past, so no reminder minutes later', async () => {
		const { sandbox, context } = await setup();
		await pollOverdueDevices(context());
		const device = [...sandbox.account.data.devices.values()].find((d) => !sandbox.account.isOverdue(d))!;
		sandbox.account.edit('device', { id: device.id, properties: { [DEVICE.lastTested]: addDays(sandbox.account.today(), -900) } }, 'test');
		await pollOverdueDevices(context(-10 * DAY)); // announces the device with the clock 10 days behind
		sandbox.account.clockOffsetMs += 5 * 60_000;
		await pollOverdueDevices(context()); // minutes later, the clock right again
		const mine = world.aws.events().filter((e) => e['detail-type'] === 'Device Overdue' && (e.detail.data.device as { id: number }).id === device.id);
		expect(mine.map((e) => e.detail.data.reminder)).toEqual([0]);
		expect(new Set(keys()).size).toBe(keys().length);
	});

	it('overdue poller: an episode dated in the future (clock set back after it began) gets no early reminder', async () => {
		const { sandbox, context } = await setup();
		await pollOverdueDevices(context(20 * DAY)); // the first run's clock 20 days ahead
		const announced = world.aws.events().length;
		sandbox.account.clockOffsetMs += 8 * DAY; // a week later by the service, 12 days before the stamp
		await pollOverdueDevices(context());
		const reminders = world.aws.events().slice(announced).filter((e) => e['detail-type'] === 'Device Overdue' && e.detail.data.reminder !== 0);
		expect(reminders).toHaveLength(0);
	});

	it('test-results poller: no duplicates, no old results announced as new, new ones once', async () => {
		const { sandbox, context } = await setup();
		await pollTestResults(context());
		const first = sandbox.account.syncTestResult({ device_id: 1 });
		await pollTestResults(context());
		const second = sandbox.account.syncTestResult({ device_id: 2, test_date: addDays(sandbox.account.today(), -3) });
		await pollTestResults(context(-10 * DAY));
		await pollTestResults(context());
		const third = sandbox.account.syncTestResult({ device_id: 3 });
		await pollTestResults(context(-10 * DAY));
		await pollTestResults(context());
		const ids = world.aws.events().map((e) => (e.detail.data.testResult as { id: number }).id);
		expect(ids).toEqual([first.id, second.id, third.id]);
	});
});

describe('test-results poller cost', () => {
	it('steady-state requests per run: the new results (and their details, and one device read per device with a measured-value warning) plus at most one day of uploads, the same for 7, 30 and 90 days of lookback', async () => {
		const { sandbox } = world;
		await putLive(sandbox, { on: false });
		atNoon(sandbox);
		sandbox.account.reset({ seed: 5150, size: { testResults: 0 } });
		const now = sandbox.account.now();
		// 90 days of history, 200 uploads a day, dated up to 10 days before their upload.
		for (let day = 90; day >= 1; day--) {
			for (let k = 0; k < 200; k++) {
				const synced = new Date(now - day * 86_400_000 + k * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
				sandbox.account.syncTestResult({ device_id: 1 + (k % 200), test_date: addDays(synced.slice(0, 10), -(k % 11)), synced_time: synced });
			}
		}
		const requests: Record<number, number[]> = {};
		const pages: Record<number, number[]> = {};
		let warnedRuns = 0;
		for (const lookbackDays of [7, 30, 90]) {
			const table = await newTable(world.dynamo);
			world.aws.accepted.length = 0;
			const paths: string[] = [];
			const client = pollerClient(sandbox, sandbox.sandboxToken, { onEvent: (e) => void (e.type === 'response' && paths.push(e.path)) });
			const context = () => ({ ...pollerContext(world, table, { settings: { pageSize: 100, lookbackDays } }), client });
			await pollTestResults(context());
			requests[lookbackDays] = [];
			pages[lookbackDays] = [];
			for (let run = 0; run < 3; run++) {
				const fresh = [0, 1, 2].map((k) => sandbox.account.syncTestResult({ device_id: 1 + k, test_date: addDays(sandbox.account.today(), -k * 20) }).id);
				const before = paths.length;
				const eventsBefore = world.aws.events().length;
				await pollTestResults(context());
				const sent = paths.slice(before);
				requests[lookbackDays].push(sent.length);
				// The recorded events only: a passed result near its limit is followed by its `Test Result Near Limit` (and drift) event.
				const events = world.aws.events().slice(eventsBefore);
				const announced = events.filter((e) => e['detail-type'] === DETAIL_TYPES.testResultRecorded).map((e) => (e.detail.data.testResult as { id: number }).id);
				expect(announced).toEqual(fresh);
				const warned = [...new Set(events.filter((e) => e['detail-type'] === DETAIL_TYPES.testResultNearLimit || e['detail-type'] === DETAIL_TYPES.deviceMeasurementDrift).map((e) => (e.detail.data.device as { id: number }).id))];
				if (warned.length > 0) warnedRuns++;
				const of = (part: string) => sent.filter((p) => p.includes(part));
				pages[lookbackDays].push(of('/tests_performed/all/').length);
				// Each new result costs its detail (its measured values, for Test Result Near Limit and drift).
				expect(of('/tests_performed/detailed/').sort()).toEqual(fresh.map((id) => `/tests_performed/detailed/${id}/`).sort());
				// A result with a warning costs its device's record (once per device and run: what the
				// e-mails' warning rows show and route by, shared with the drift's next due date); one without none.
				expect(of('/device/detail/').sort()).toEqual(warned.map((id) => `/device/detail/${id}/`).sort());
				// The customer list (one page here) only when a device with a warning names no customer, once a run.
				expect(of('/data/customers/all/').length).toBeLessThanOrEqual(warned.length > 0 ? 1 : 0);
				expect(sent.length).toBe(of('/tests_performed/all/').length + 3 + warned.length + of('/data/customers/all/').length);
			}
		}
		console.info(`test-results poller, requests per steady-state run (pages of 100): ${JSON.stringify(requests)}, of them list pages: ${JSON.stringify(pages)}`);
		// The data do warn (otherwise the device reads above were never looked at).
		expect(warnedRuns).toBeGreaterThan(0);
		// The first run after the start re-reads the uploads of the cursor's day (yesterday: 200 =
		// 2 pages) with the new ones; then one page a run. Never more, whatever the lookback.
		for (const runs of Object.values(pages)) {
			expect(runs.every((n) => n <= 3)).toBe(true);
			expect(runs.slice(1)).toEqual([1, 1]);
		}
	});
});

describe('a scan that does not end normally', () => {
	it('resolves nothing; the report, the log and a metric say why; the next normal run resolves', async () => {
		const { sandbox } = world;
		await putLive(sandbox, { on: false });
		atNoon(sandbox);
		sandbox.account.reset({ seed: 6060 });
		world.aws.accepted.length = 0;
		const table = await newTable(world.dynamo);
		await pollOverdueDevices(pollerContext(world, table, { settings: { pageSize: 25 } }));
		const left = sandbox.live.truth().overdue[0];
		sandbox.account.delete('device', left, false);
		// A proxy that answers the first page again instead of the second.
		const base = undiciRequestFn(sandbox.sandboxToken);
		let first: Awaited<ReturnType<RequestFn>> | undefined;
		const repeating: RequestFn = async (req) => {
			if (!req.url.includes('/data/devices/overdue/')) return base(req);
			if (first && !req.url.includes('offset=0')) return first;
			const response = await base(req);
			first ??= response;
			return response;
		};
		const warnings: Array<Record<string, unknown> | undefined> = [];
		const metrics: string[] = [];
		const odd = {
			...pollerContext(world, table, { settings: { pageSize: 25 } }),
			client: new ServiceClient({ baseUrl: sandbox.url, request: repeating, clock: systemClock, pacer: sharedPacers.forKey(tokenPacingKey(sandbox.sandboxToken, 'sandbox', parseBaseUrl(sandbox.url)), systemClock) }),
			log: { info: () => undefined, warn: (_m: string, extra?: Record<string, unknown>) => void warnings.push(extra), error: () => undefined },
			metrics: { count: (name: string) => void metrics.push(name) },
		};
		const report = await pollOverdueDevices(odd);
		expect(report.complete).toBe(false);
		expect(report.incomplete?.reason).toBe('repeatedPage');
		expect(warnings.some((w) => w?.reason === 'repeatedPage')).toBe(true);
		expect(metrics).toContain('ScanIncomplete');
		expect(world.aws.events().filter((e) => e['detail-type'] === 'Device Overdue Resolved')).toHaveLength(0);
		await pollOverdueDevices(pollerContext(world, table, { settings: { pageSize: 25 } }));
		const resolved = world.aws.events().filter((e) => e['detail-type'] === 'Device Overdue Resolved').map((e) => (e.detail.data.device as { id: number }).id);
		expect(resolved).toEqual([left]);
	});
});
