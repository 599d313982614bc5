import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { rebuildReach, usableInterval } from '../client';
import { RETENTION_MONTHS } from '../lambdas/pollers/dueDates';
import { DEVICE } from '../sandbox/properties';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { FULL, LIMIT, idealSeconds, pagesAtLimit, type BenchRow, type Scale } from './lib';
import type { Held, Written } from './sizingStore';

/**
 * The due-date history's first run on a large account (docs/scale.md, "The rebuild"): every
 * device read, then every test result in the rebuild's reach, stored, rebuilt and written. The
 * sandbox answers at a high rate so the run measures the work; the time at the service's 5
 * requests per second is computed from the requests. The poller runs in a child process (its
 * CPU and memory alone) on a store that serializes and weighs each item as DynamoDB would.
 */

const SIZES = {
	full: { customers: 1000, devices: 100_000, results: 300_000 },
	quick: { customers: 20, devices: 2000, results: 6000 },
};
/** The sandbox's and the child's rate: far above the work's own pace. */
const FAST_RATE = 10_000;
/** The deployed poller's memory (infra/constructs/pollers.ts). */
const LAMBDA_MB = 512;
const MB = 1024 * 1024;

interface ChildResult {
	ms: number;
	cpuMs: number;
	requests: Record<string, number>;
	bytes: Record<string, number>;
	resultsRead: number;
	heapBefore: number;
	peakHeap: number;
	storeHeap: number;
	rssBefore: number;
	maxRss: number;
	written: Record<string, Written>;
	held: Record<string, Held>;
}

/** Results the rebuild must read: dated from its reach (the account's longest interval) to today. */
function resultsInReach(sandbox: Sandbox): { reach: string; inReach: number; total: number } {
	const { data } = sandbox.account;
	const today = sandbox.account.today();
	let longest = 0;
	for (const d of data.devices.values()) longest = Math.max(longest, usableInterval(d.values[DEVICE.testInterval]) ?? 0);
	const reach = rebuildReach(today, RETENTION_MONTHS, longest);
	let inReach = 0;
	for (const r of data.testResults.values()) if (r.test_date >= reach && r.test_date <= today) inReach++;
	return { reach, inReach, total: data.testResults.size };
}

async function childRun(sandbox: Sandbox): Promise<ChildResult> {
	const token = sandbox.account.createToken({ label: 'bench rebuild' }).token;
	// tsx's CommonJS hook compiles in this thread (no loader thread adding to the process's CPU).
	const args = ['--expose-gc', '--require', 'tsx/cjs', join(__dirname, 'rebuildChild.ts'), sandbox.url, token, String(FAST_RATE)];
	const { stdout } = await promisify(execFile)(process.execPath, args, { maxBuffer: 1 << 20 });
	return JSON.parse(stdout.trim().split('\n').pop()!) as ChildResult;
}

const n = (x: number) => x.toLocaleString('en');
const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;
const sum = (r: Record<string, number>) => Object.values(r).reduce((s, x) => s + x, 0);

export async function benchRebuild(scale: Scale = FULL): Promise<BenchRow[]> {
	const size = scale.quick ? SIZES.quick : SIZES.full;
	const sandbox = await startSandbox({ port: 0, size: { customers: size.customers, devices: size.devices, testResults: size.results }, maxPageSize: LIMIT.largestPage, ratePerSecond: FAST_RATE });
	let run: ChildResult;
	let reach: ReturnType<typeof resultsInReach>;
	try {
		// The demo's results lie within the last two years; the reach is 27 months plus the longest interval. Checked, not assumed.
		reach = resultsInReach(sandbox);
		if (reach.total !== size.results || reach.inReach !== size.results) {
			throw new Error(`the demo holds ${n(reach.total)} results, ${n(reach.inReach)} of them from ${reach.reach} on; the bench needs ${n(size.results)} in reach`);
		}
		run = await childRun(sandbox);
	} finally {
		await sandbox.stop();
	}
	if (run.resultsRead !== reach.inReach) throw new Error(`the rebuild read ${n(run.resultsRead)} results, ${n(reach.inReach)} are in reach`);

	const { requests, bytes } = run;
	const total = sum(requests);
	const least = pagesAtLimit(size.devices) + pagesAtLimit(size.results) + pagesAtLimit(size.customers);
	const atRate = idealSeconds(total);
	const pagesJson = sum(bytes);
	const heapGrowth = run.peakHeap - run.heapBefore - run.storeHeap;
	const rssLessStore = run.maxRss - run.storeHeap;
	const held = (kind: string) => run.held[kind] ?? { items: 0, bytes: 0, largest: 0 };
	const stored = held('dueDates').bytes + held('tests').bytes;
	const writes = Object.values(run.written);
	const wru = writes.reduce((s, w) => s + w.wru, 0);
	const itemsWritten = writes.reduce((s, w) => s + w.items, 0);
	const batches = writes.reduce((s, w) => s + w.batches, 0);
	const account = `${n(size.devices)} devices, ${n(size.results)} results from ${reach.reach} on`;
	const bench = 'due-date history rebuild';

	return [
		{
			bench,
			measure: `first run, ${account}: requests at the largest page ÷ the least (pages of ${LIMIT.largestPage} of each list)`,
			value: `${n(total)} requests (customers ${requests.customers ?? 0}, devices ${requests.devices ?? 0}, results ${requests.results ?? 0}) = ${atRate.toFixed(1)} s at ${LIMIT.ratePerSecond} req/s`,
			ideal: `${least} requests`,
			ratio: total / least,
			target: '≤ 1.05',
			goal: 1.05,
		},
		{
			bench,
			measure: `CPU of the first run (devices, results, rebuild, writes to a serializing store) ÷ the time its requests take at ${LIMIT.ratePerSecond} req/s`,
			value: `${(run.cpuMs / 1000).toFixed(1)} s CPU (wall ${(run.ms / 1000).toFixed(1)} s at ${n(FAST_RATE)} req/s)`,
			ideal: `${atRate.toFixed(1)} s (${n(total)} requests at ${LIMIT.ratePerSecond}/s)`,
			ratio: run.cpuMs / 1000 / atRate,
			target: '≤ 0.1',
			goal: 0.1,
		},
		{
			bench,
			measure: `peak heap growth, less the store's items (DynamoDB holds them) ÷ the JSON of the pages read`,
			value: `${mb(heapGrowth)} (peak heap ${mb(run.peakHeap)}; store's items ${mb(run.storeHeap)})`,
			baseline: `pages read: ${mb(pagesJson)} (devices ${mb(bytes.devices ?? 0)}, results ${mb(bytes.results ?? 0)})`,
			ratio: heapGrowth / pagesJson,
			target: '≤ 1',
			goal: 1,
		},
		{
			bench,
			measure: `peak RSS, less the store's items ÷ the poller Lambda's memory`,
			value: `${mb(rssLessStore)} (peak RSS ${mb(run.maxRss)}, ${mb(run.rssBefore)} before the run)`,
			ideal: `${LAMBDA_MB} MB`,
			ratio: rssLessStore / (LAMBDA_MB * MB),
			target: '≤ 0.8',
			goal: 0.8,
		},
		{
			bench,
			measure: `stored after the rebuild, items as DynamoDB holds them (JSON of pk, sk, v, expiresAt) ÷ the JSON of the pages read`,
			value: `${mb(stored)}: history (dueDates) ${n(held('dueDates').items)} items ${mb(held('dueDates').bytes)} (largest ${n(held('dueDates').largest)} B), tests ${n(held('tests').items)} items ${mb(held('tests').bytes)}`,
			baseline: `pages read: ${mb(pagesJson)}`,
			ratio: stored / pagesJson,
			target: '≤ 1',
			goal: 1,
		},
		{
			bench,
			measure: `one-time writes of the first run: write units ÷ items written (1 = every item under 1 KB)`,
			value: `${n(wru)} WRU, ${n(itemsWritten)} items (${Object.entries(run.written).map(([k, w]) => `${k} ${n(w.items)}`).join(', ')}), ${n(batches)} BatchWriteItem calls`,
			ideal: `${n(itemsWritten)} WRU`,
			ratio: wru / itemsWritten,
			target: '≤ 1.2',
			goal: 1.2,
		},
	];
}
