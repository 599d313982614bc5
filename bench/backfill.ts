import { Pacer, SERVICE_RATE, ServiceClient, SharePacer, parseBaseUrl, type RequestFn } from '../client';
import { systemClock, undiciRequestFn } from '../lambdas/adapters/undiciService';
import { DEFAULT_BACKFILL_SHARE, newReport } from '../lambdas/pollers/context';
import { BACKFILL_SLICE_MS, continueBackfill } from '../lambdas/pollers/measurementBackfill';
import { startSandbox } from '../sandbox/server';
import type { BenchRow, Scale } from './lib';
import { MemoryStore, benchContext } from './pollerContext';

/**
 * The results poller's first-run backfill of measured values (docs/scale.md, "The backfill of
 * measured values"), measured on a scaled-down account and extrapolated to 100,000 devices. The
 * sandbox answers at a high rate and the share's pacer runs on a virtual clock (its waits move the
 * clock, not the run), so the run measures the work: requests, bytes stored, memory. The time at
 * the service's 5 requests a second follows from the requests and the share's rule
 * (client/sharePacing.ts: floor(share × 5) requests per 1,025 ms).
 *
 * Extrapolation rule: requests and stored bytes grow with the devices (each device costs its own
 * results list and at most 3 details; the device list at least one page per run), so they are
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
		const sampler = setInterval(() => void (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 20);
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
			clearInterval(sampler);
		}
		const wallMs = performance.now() - started;
		let storedBytes = 0;
		let items = 0;
		for (const ns of ['measurements:sandbox', 'measurementBackfill:sandbox']) {
			for await (const item of store.list(ns)) {
				items++;
				storedBytes += Buffer.byteLength(item.key) + Buffer.byteLength(JSON.stringify(item.value));
			}
		}
		const perWindow = SharePacer.forShare(systemClock, DEFAULT_BACKFILL_SHARE).perWindow;
		const windowS = (SERVICE_RATE.windowMs + SERVICE_RATE.marginMs) / 1000;
		const factor = TARGET_DEVICES / size.devices;
		const requestsAt = Math.round(requests * factor);
		const hours = (requestsAt * windowS) / perWindow / 3600;
		const slices = Math.ceil((hours * 3600 * 1000) / BACKFILL_SLICE_MS);
		// On AWS one slice per run of the results poller, every SCHEDULE_MINUTES by default.
		const days = (slices * SCHEDULE_MINUTES) / 60 / 24;
		const detailsRead = report.backfill!.detailsRead;
		const heapMb = (peakHeap - heapBefore) / MB;
		const measured = `${size.devices} devices, ${size.results} results: ${requests} requests (${detailsRead} details), ${runs} runs of ≤ ${BACKFILL_SLICE_MS / 1000} s, ${(wallMs / 1000).toFixed(1)} s of work`;
		return [
			{
				bench: 'backfill of measured values (100,000 devices)',
				measure: `requests, extrapolated ×${factor.toFixed(0)} from ${measured}`,
				value: `${requestsAt} requests`,
				ideal: `${TARGET_DEVICES} result lists + ≤ ${3 * TARGET_DEVICES} details + a device-list page per run + 1 count`,
			},
			{
				bench: 'backfill of measured values (100,000 devices)',
				measure: `hours at 5 requests/s with the default share ${DEFAULT_BACKFILL_SHARE} (${perWindow} requests per ${windowS.toFixed(3)} s)`,
				value: `${hours.toFixed(1)} h of backfill (${slices} runs' slices of ${BACKFILL_SLICE_MS / 1000} s: ${days.toFixed(1)} days at the default schedule of one run per ${SCHEDULE_MINUTES} min)`,
				ideal: `${((requestsAt / (5 * DEFAULT_BACKFILL_SHARE)) / 3600).toFixed(1)} h at exactly half of 5/s`,
				ratio: hours / (requestsAt / (5 * DEFAULT_BACKFILL_SHARE) / 3600),
			},
			{
				bench: 'backfill of measured values (100,000 devices)',
				measure: 'state stored (key + JSON value bytes of the kept values and the position), extrapolated',
				value: `${((storedBytes * factor) / MB).toFixed(1)} MB in ${Math.round(items * factor)} items (${(storedBytes / items).toFixed(0)} B each)`,
			},
			{
				bench: 'backfill of measured values (100,000 devices)',
				measure: `memory: peak heap growth during the backfill, measured (the backfill holds one device and one list page; this includes the bench's in-memory store of ${(storedBytes / MB).toFixed(1)} MB, which on AWS is DynamoDB)`,
				value: `${heapMb.toFixed(1)} MB${gc ? '' : ' (run with --expose-gc for a settled baseline)'}`,
			},
		];
	} finally {
		await sandbox.stop();
	}
}
