import { resolveProfile } from '../client';
import { connectService } from '../lambdas/adapters/undiciService';
import { pollOverdueDevices } from '../lambdas/pollers/overdueDevices';
import { MemoryStore, benchContext } from './pollerContext';

/**
 * One process = one measurement, so memory and CPU are the poller's alone (the sandbox runs in
 * the parent). Prints one JSON line: duration, pages, items, CPU per item (all the process's
 * threads: the compiler and the collector work for the poller too), peak RSS, 429s; with `warm`,
 * also the CPU per item of one more steady-state run in the same process. A service profile (JSON,
 * the 5th argument) is loaded as the faces load it.
 */
async function main(): Promise<void> {
	const [url, token, settle = '1100', warm = '', profileJson = ''] = process.argv.slice(2);
	const profile = profileJson === '' ? undefined : resolveProfile(profileJson);
	let rateLimited = 0;
	const client = connectService({ baseUrl: url, token, environment: 'sandbox', profile, onEvent: (e) => void (e.type === 'retry' && e.kind === 'rateLimit' && rateLimited++) });
	const store = new MemoryStore();
	const counter = { emitted: 0 };
	// First run announces everything (state filled); the measured run is the steady state.
	const first = await pollOverdueDevices(benchContext(client, store, counter));
	await new Promise((r) => setTimeout(r, Number(settle))); // a fresh rate window
	const cpu = process.cpuUsage();
	const started = performance.now();
	const report = await pollOverdueDevices(benchContext(client, store, counter));
	const ms = performance.now() - started;
	const used = process.cpuUsage(cpu);
	// On request, one more steady-state run in the same process: what a warm container spends.
	let warmCpuUsPerItem: number | undefined;
	if (warm === 'warm') {
		await new Promise((r) => setTimeout(r, Number(settle)));
		const before = process.cpuUsage();
		const again = await pollOverdueDevices(benchContext(client, store, counter));
		const spent = process.cpuUsage(before);
		warmCpuUsPerItem = (spent.user + spent.system) / Math.max(1, again.itemsSeen);
	}
	process.stdout.write(
		`${JSON.stringify({
			ms,
			firstRunMs: first.durationMs,
			pages: report.pages,
			items: report.itemsSeen,
			emittedFirstRun: counter.emitted,
			cpuUsPerItem: (used.user + used.system) / Math.max(1, report.itemsSeen),
			warmCpuUsPerItem,
			maxRssMb: process.resourceUsage().maxRSS / 1024,
			rateLimited,
		})}\n`,
	);
}

main().catch((e) => {
	process.stderr.write(`${(e as Error).stack}\n`);
	process.exit(1);
});
