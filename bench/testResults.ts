import { addDays } from '../client/dates';
import { connectService } from '../lambdas/adapters/undiciService';
import { pollTestResults } from '../lambdas/pollers/testResults';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { FULL, pagesAtLimit, pause, type BenchRow, type Scale } from './lib';
import { MemoryStore, benchContext } from './pollerContext';

/**
 * The test-results poller's cost per steady-state run, by lookback window: an account with
 * `resultsPerDay` results a day, one first run (which records the window), then the results of
 * one schedule interval arrive and the measured run follows. Requests are counted at the
 * sandbox. Measured through the poller's public function, so the rows show whatever it does.
 */

/** The deployed schedule's default interval (infra config `scheduleRateMinutes`). */
const INTERVAL_MINUTES = 5;
/** Of the results that arrive, this share was tested days earlier (equipment synced late). */
const LATE_SHARE = 0.1;
const DAY_MS = 86_400_000;

/** `perDay` results a day for `days` days before today, synced the afternoon of their day (a tenth late). */
function fillHistory(sandbox: Sandbox, days: number, perDay: number): void {
	const account = sandbox.account;
	const now = account.now();
	const today = account.today();
	const devices = account.data.devices.size;
	let n = 0;
	for (let d = days; d >= 1; d--) {
		const day = addDays(today, -d);
		for (let i = 0; i < perDay; i++, n++) {
			const lateDays = n % Math.round(1 / LATE_SHARE) === 0 ? 2 + (n % 8) : 0;
			const synced = Math.min(now - 60_000, Date.parse(`${day}T16:00:00Z`) + lateDays * DAY_MS + (i % 3600) * 1000);
			account.syncTestResult({ device_id: 1 + (n % devices), test_date: day, synced_time: new Date(synced).toISOString(), status: n % 9 === 0 ? 'failed' : 'passed' });
		}
	}
}

/** The results of one schedule interval arrive now: most tested today, a tenth days earlier. */
function arrive(sandbox: Sandbox, count: number, lookbackDays: number): void {
	const account = sandbox.account;
	const today = account.today();
	const devices = account.data.devices.size;
	for (let i = 0; i < count; i++) {
		const late = i < Math.round(count * LATE_SHARE);
		account.syncTestResult({ device_id: 1 + ((i * 37) % devices), test_date: late ? addDays(today, -Math.min(lookbackDays - 1, 2 + (i % 5))) : today });
	}
}

interface SteadyRun {
	lookbackDays: number;
	requests: number;
	firstRunRequests: number;
	arrived: number;
	emitted: number;
	seconds: number;
	windowResults: number;
}

async function steadyRun(sandbox: Sandbox, lookbackDays: number, arrivals: number, settleMs: number): Promise<SteadyRun> {
	const token = sandbox.account.createToken({ label: `bench results ${lookbackDays} d` }).token;
	const client = connectService({ baseUrl: sandbox.url, token, environment: 'sandbox' });
	const store = new MemoryStore();
	const counter = { emitted: 0 };
	const settings = { lookbackDays };
	const before = () => sandbox.stats.requests;

	const first = before();
	const primed = await pollTestResults(benchContext(client, store, counter, settings));
	if (!primed.complete) throw new Error(`the first test-results run (${lookbackDays} d) did not complete`);
	await pause(50);
	const firstRunRequests = before() - first;

	arrive(sandbox, arrivals, lookbackDays);
	await pause(settleMs);
	counter.emitted = 0;
	const start = before();
	const started = performance.now();
	const report = await pollTestResults(benchContext(client, store, counter, settings));
	const seconds = (performance.now() - started) / 1000;
	await pause(50); // the sandbox counts a request once its answer is sent
	if (!report.complete) throw new Error(`the measured test-results run (${lookbackDays} d) did not complete`);
	const from = addDays(sandbox.account.today(), -lookbackDays);
	const windowResults = [...sandbox.account.data.testResults.values()].filter((r) => r.test_date >= from).length;
	return { lookbackDays, requests: before() - start, firstRunRequests, arrived: arrivals, emitted: counter.emitted, seconds, windowResults };
}

const requests = (n: number) => `${n} request${n === 1 ? '' : 's'}`;

export async function benchTestResults(scale: Scale = FULL): Promise<BenchRow[]> {
	const longest = Math.max(...scale.lookbackDays);
	const arrivals = Math.max(1, Math.round((scale.resultsPerDay * INTERVAL_MINUTES) / (24 * 60)));
	const sandbox = await startSandbox({ port: 0, size: { devices: 2000, customers: 20, testResults: 0 } });
	const runs: SteadyRun[] = [];
	try {
		fillHistory(sandbox, longest + 10, scale.resultsPerDay);
		for (const days of scale.lookbackDays) runs.push(await steadyRun(sandbox, days, arrivals, scale.settleMs));
	} finally {
		await sandbox.stop();
	}
	const need = pagesAtLimit(arrivals);
	const rows: BenchRow[] = runs.map((r) => ({
		bench: 'test-results poller',
		measure: `steady-state run, ${r.lookbackDays} days lookback at ${scale.resultsPerDay.toLocaleString('en')} results/day, ${r.arrived} new: requests ÷ what the new results need`,
		value: `${requests(r.requests)}, ${r.seconds.toFixed(1)} s (${r.emitted} of ${r.arrived} new announced; first run ${requests(r.firstRunRequests)})`,
		ideal: requests(need),
		baseline: `re-reading the window: ${requests(pagesAtLimit(r.windowResults))} (${r.windowResults.toLocaleString('en')} results)`,
		ratio: r.requests / need,
		target: 'flat',
	}));
	const [shortest, widest] = [runs[0], runs[runs.length - 1]];
	rows.push({
		bench: 'test-results poller',
		measure: `requests per steady-state run, ${widest.lookbackDays} days ÷ ${shortest.lookbackDays} days lookback`,
		value: requests(widest.requests),
		baseline: requests(shortest.requests),
		ratio: widest.requests / Math.max(1, shortest.requests),
		target: '≈ 1 (flat)',
	});
	return rows;
}
