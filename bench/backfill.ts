import { Pacer, SERVICE_RATE, ServiceClient, SharePacer, parseBaseUrl, type RequestFn } from '../client';
import { systemClock, undiciRequestFn } from '../lambdas/adapters/undiciService';
import { DEFAULT_BACKFILL_SHARE, newReport } from '../lambdas/pollers/context';
import { BACKFILL_RESULTS, BACKFILL_SLICE_MS, continueBackfill } from '../lambdas/pollers/measurementBackfill';
import { startSandbox } from '../sandbox/server';
import { pagesAtLimit, type BenchRow, type Scale } from './lib';
import { MemoryStore, benchContext } from './pollerContext';

/**
 * The results poller's first-run backfill of measured values (docs/scale.md, "The backfill of
 * measured values"), measured on a scaled-down account and extrapolated to 100,000 devices. The
 * sandbox answers at a high rate and the share's pacer runs on a virtual clock (its waits move the
 * clock, not the run), so the run measures the work: requests, bytes stored, memory. The time at
 * the service's 5 requests a second follows from the requests and the share's rule
 * (client/sharePacing.ts: floor(share × 5) requests per 1,025 ms; under a fifth, 1 per a longer window).
 *
 * Extrapolation rule: requests and stored bytes grow with the devices (each device costs its own
 * results list and at most BACKFILL_RESULTS (4) details; the device list at least one page per run), so they are
 * scaled by 100,000 ÷ devices measured; memory does not grow with the devices (one device in hand,
 * one page of the device list), so it is reported as measured.
 */

const SIZES = {
	full: { customers: 40, devices: 2000, results: 6000 },
	quick: { customers: 10, devices: 300, results: 900 },
};
const TARGET_DEVICES = 100_000;
const FAST_RATE = 10_000;
const MB = 1024 * 1024;
/** infra/config.ts's default scheduleRateMinutes. */
const SCHEDULE_MINUTES = 5;
/** The deployed poller's memory (infra/constructs/pollers.ts). */
const LAMBDA_MB = 512;
/** DynamoDB's largest item. */
const ITEM_LIMIT_BYTES = 400 * 1024;

export async function benchBackfill(scale: Scale): Promise<BenchRow[]> {
	const size = scale.quick ? SIZES.quick : SIZES.full;
	const sandbox = await startSandbox({ port: 0, size: { customers: size.customers, devices: size.devices, testResults: size.results }, ratePerSecond: FAST_RATE });
	try {
		const token = sandbox.account.createToken().token;
		let requests = 0;
		const plain = undiciRequestFn(token);
		const counting: RequestFn = async (req) => {
			requests++;
			return await plain(req);
		};
		const client = new ServiceClient({
			baseUrl: parseBaseUrl(sandbox.url, 'url'),
			request: counting,
			requestAnonymous: undiciRequestFn(undefined),
			clock: systemClock,
			pacer: new Pacer(systemClock, { ...SERVICE_RATE, maxRequests: FAST_RATE }),
		});
		const store = new MemoryStore();
		let virtual = Date.now();
		const ctx = benchContext(client, store, { emitted: 0 }, { backfillShare: DEFAULT_BACKFILL_SHARE });
		ctx.now = () => virtual;
		ctx.sleep = async (ms) => void (virtual += ms);
		const gc = (globalThis as { gc?: () => void }).gc;
		gc?.();
		const heapBefore = process.memoryUsage().heapUsed;
		let peakHeap = heapBefore;
		const sample = () => void (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed));
		const sampler = setInterval(sample, 20);
		const started = performance.now();
		let runs = 0;
		let report = newReport('testResults');
		try {
			do {
				runs++;
				report = newReport('testResults');
				await continueBackfill(ctx, report);
			} while (!report.backfill?.done);
		} finally {
			sample();
			clearInterval(sampler);
		}
		const wallMs = performance.now() - started;
		let storedBytes = 0;
		let items = 0;
		let largestItem = 0;
		for (const ns of ['measurements:sandbox', 'measurementBackfill:sandbox']) {
			for await (const item of store.list(ns)) {
				items++;
				const bytes = Buffer.byteLength(item.key) + Buffer.byteLength(JSON.stringify(item.value));
				storedBytes += bytes;
				largestItem = Math.max(largestItem, bytes);
			}
		}
		const { perWindow, windowMs } = SharePacer.forShare(systemClock, DEFAULT_BACKFILL_SHARE);
		const windowS = windowMs / 1000;
		const factor = TARGET_DEVICES / size.devices;
		// The one count of the devices and the one position item do not grow with the account.
		const requestsAt = Math.round((requests - 1) * factor) + 1;
		const hours = (requestsAt * windowS) / perWindow / 3600;
		const slices = Math.ceil((hours * 3600 * 1000) / BACKFILL_SLICE_MS);
		// On AWS one slice per run of the results poller, every SCHEDULE_MINUTES by default.
		const days = (slices * SCHEDULE_MINUTES) / 60 / 24;
		const detailsRead = report.backfill!.detailsRead;
		const heapMb = (peakHeap - heapBefore) / MB;
		// The least the data asks for: the device list at the largest page and the details read
		// (the last ≤ BACKFILL_RESULTS passed results of each device); beside them the backfill lists each
		// device's results (the list filters by device, client/measurementsRead.ts) and counts the devices once.
		const least = pagesAtLimit(size.devices) + detailsRead;
		// Reading every result's detail instead (what "the last BACKFILL_RESULTS" saves), from the same run's data.
		const everyDetail = pagesAtLimit(size.devices) + size.devices + size.results;
		const idealHours = requestsAt / (5 * DEFAULT_BACKFILL_SHARE) / 3600;
		const wholeTokenHours = requestsAt / 5 / 3600;
		// Goals from the stated limits, not from a measurement: the design reads one result list per
		// device beside its details; the share's pacer admits whole requests per window.
		const requestsGoal = ((least + size.devices) / least) * 1.02;
		const hoursGoal = ((5 * DEFAULT_BACKFILL_SHARE) / (perWindow / windowS)) * 1.02;
		const measured = `${size.devices} devices, ${size.results} results: ${requests} requests (${detailsRead} details), ${runs} runs of ≤ ${BACKFILL_SLICE_MS / 1000} s, ${(wallMs / 1000).toFixed(1)} s of work`;
		return [
			{
				bench: 'backfill of measured values (100,000 devices)',
				measure: `requests ÷ the least the data asks for (device-list pages + the details read), extrapolated ×${factor.toFixed(0)} from ${measured}`,
				value: `${requestsAt} requests`,
				ideal: `${Math.round(least * factor)} requests (${pagesAtLimit(size.devices)} device-list pages + ${detailsRead} details, ×${factor.toFixed(0)}); the backfill adds a result list per device and 1 count`,
				baseline: `every result's detail instead of the last ${BACKFILL_RESULTS}: ${Math.round(everyDetail * factor)} requests (${(everyDetail / least).toFixed(2)} × the least)`,
				ratio: requests / least,
				target: `≤ ${requestsGoal.toFixed(2)} (the design's cost: one result list per device beside its details, ${((size.devices + least) / least).toFixed(2)} × the least on this data, + 2 % for each run's device-list page and the count)`,
				goal: requestsGoal,
			},
			{
				bench: 'backfill of measured values (100,000 devices)',
				measure: `hours at 5 requests/s with the default share ${DEFAULT_BACKFILL_SHARE} (${perWindow} requests per ${windowS.toFixed(3)} s)`,
				value: `${hours.toFixed(1)} h of backfill (${slices} runs' slices of ${BACKFILL_SLICE_MS / 1000} s: ${days.toFixed(1)} days at the default schedule of one run per ${SCHEDULE_MINUTES} min)`,
				ideal: `${idealHours.toFixed(1)} h at exactly ${DEFAULT_BACKFILL_SHARE} of 5/s`,
				baseline: `the whole token (share 1, no alerts beside it): ${wholeTokenHours.toFixed(1)} h`,
				ratio: hours / idealHours,
				target: `≤ ${hoursGoal.toFixed(2)} (the share's rule: ⌊${DEFAULT_BACKFILL_SHARE} × 5⌋ = ${perWindow} requests per ${windowS.toFixed(3)} s is ${(perWindow / windowS).toFixed(2)}/s for the ideal ${(5 * DEFAULT_BACKFILL_SHARE).toFixed(2)}/s, + 2 % for run boundaries)`,
				goal: hoursGoal,
			},
			{
				bench: 'backfill of measured values (100,000 devices)',
				measure: `state stored (key + JSON value bytes of the kept values and the position), extrapolated; ratio: the largest item ÷ DynamoDB's 400 KB item limit`,
				value: `${((storedBytes * factor) / MB).toFixed(1)} MB in ${Math.round((items - 1) * factor) + 1} items (largest ${largestItem} B)`,
				ideal: `${ITEM_LIMIT_BYTES} B an item`,
				baseline: `the average item: ${(storedBytes / items).toFixed(0)} B`,
				ratio: largestItem / ITEM_LIMIT_BYTES,
				target: '≤ 0.1',
				goal: 0.1,
			},
			{
				bench: 'backfill of measured values (100,000 devices)',
				measure: `memory: peak heap during the backfill ÷ the poller Lambda's memory (the backfill holds one device and one list page; the heap includes the bench's in-memory store of ${(storedBytes / MB).toFixed(1)} MB, which on AWS is DynamoDB)`,
				value: `${(peakHeap / MB).toFixed(1)} MB peak`,
				ideal: `${LAMBDA_MB} MB`,
				baseline: `the heap before the backfill: ${(heapBefore / MB).toFixed(1)} MB (growth ${heapMb.toFixed(1)} MB${gc ? '' : '; run with --expose-gc for a settled baseline'})`,
				ratio: peakHeap / (LAMBDA_MB * MB),
				target: '≤ 0.8',
				goal: 0.8,
			},
		];
	} finally {
		await sandbox.stop();
	}
}
