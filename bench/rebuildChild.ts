import { Pacer, SERVICE_RATE, ServiceClient, parseBaseUrl, type RequestFn } from '../client';
import { systemClock, undiciRequestFn } from '../lambdas/adapters/undiciService';
import { pollDueDates } from '../lambdas/pollers/dueDates';
import { benchContext } from './pollerContext';
import { SizingStore } from './sizingStore';

/**
 * One process = one measurement of the due-date history's first run (the rebuild), so CPU and
 * memory are the poller's alone (the sandbox runs in the parent). Prints one JSON line: requests
 * and response bytes by list, CPU, peak heap and RSS, what the store holds, what was written.
 * Run with --expose-gc: the store's own heap is measured by dropping it.
 */

/** Which list a request read, from its path. */
function listOf(url: string): string {
	const path = new URL(url).pathname;
	return path.includes('test') ? 'results' : path.includes('device') ? 'devices' : path.includes('customer') ? 'customers' : 'other';
}

async function main(): Promise<void> {
	const [url, token, rate] = process.argv.slice(2);
	const requests: Record<string, number> = {};
	const bytes: Record<string, number> = {};
	const plain = undiciRequestFn(token);
	const counting: RequestFn = async (req) => {
		const res = await plain(req);
		const list = listOf(req.url);
		requests[list] = (requests[list] ?? 0) + 1;
		bytes[list] = (bytes[list] ?? 0) + (typeof res.body === 'string' ? Buffer.byteLength(res.body) : res.body.byteLength);
		return res;
	};
	// Paced at the sandbox's high rate: the run measures the work; the time at 5 req/s is computed.
	const client = new ServiceClient({
		baseUrl: parseBaseUrl(url, 'url'),
		request: counting,
		requestAnonymous: undiciRequestFn(undefined),
		clock: systemClock,
		pacer: new Pacer(systemClock, { ...SERVICE_RATE, maxRequests: Number(rate) }),
	});
	let store: SizingStore | undefined = new SizingStore();

	const gc = (globalThis as { gc?: () => void }).gc;
	if (!gc) throw new Error('run with --expose-gc');
	gc();
	const before = process.memoryUsage();
	let peakHeap = before.heapUsed;
	const sampler = setInterval(() => void (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 20);
	const cpu = process.cpuUsage();
	const started = performance.now();
	const report = await pollDueDates(benchContext(client, store, { emitted: 0 }));
	const ms = performance.now() - started;
	const used = process.cpuUsage(cpu);
	clearInterval(sampler);
	peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
	const maxRss = process.resourceUsage().maxRSS * 1024;
	if (!report.complete || !report.rebuild?.done) throw new Error(`the first run did not finish the rebuild: ${JSON.stringify(report.rebuild)}`);

	const written = store.written();
	const held = store.held();
	// What the store's items take in this heap (DynamoDB holds them outside the Lambda): drop it and see.
	gc();
	const withStore = process.memoryUsage().heapUsed;
	store = undefined;
	gc();
	const storeHeap = withStore - process.memoryUsage().heapUsed;

	process.stdout.write(
		`${JSON.stringify({
			ms,
			cpuMs: (used.user + used.system) / 1000,
			requests,
			bytes,
			resultsRead: report.rebuild.resultsRead,
			heapBefore: before.heapUsed,
			peakHeap,
			storeHeap,
			rssBefore: before.rss,
			maxRss,
			written,
			held,
		})}\n`,
	);
}

main().catch((e) => {
	process.stderr.write(`${(e as Error).stack}\n`);
	process.exit(1);
});
