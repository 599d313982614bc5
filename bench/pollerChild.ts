import { connectService } from '../lambdas/adapters/undiciService';
import { DEFAULT_SETTINGS, type PollerContext } from '../lambdas/pollers/context';
import { pollOverdueDevices } from '../lambdas/pollers/overdueDevices';
import type { StateStore, StoredItem } from '../lambdas/ports';

/**
 * One process = one measurement, so memory and CPU are the poller's alone (the sandbox runs in
 * the parent). Prints one JSON line: duration, pages, items, CPU per item, peak RSS, 429s.
 */
class MemoryStore implements StateStore {
	private data = new Map<string, Map<string, unknown>>();
	async *list<T>(ns: string): AsyncIterable<StoredItem<T>> {
		for (const [key, value] of this.data.get(ns) ?? []) yield { key, value: value as T };
	}
	async get<T>(ns: string, key: string) {
		return this.data.get(ns)?.get(key) as T | undefined;
	}
	async putMany<T>(ns: string, items: Array<StoredItem<T>>) {
		const m = this.data.get(ns) ?? new Map<string, unknown>();
		for (const i of items) m.set(i.key, i.value);
		this.data.set(ns, m);
	}
	async acquireLease() {
		return true;
	}
	async releaseLease() {}
}

async function main(): Promise<void> {
	const [url, token] = process.argv.slice(2);
	let rateLimited = 0;
	const client = connectService({ baseUrl: url, token, environment: 'sandbox', onEvent: (e) => void (e.type === 'retry' && e.kind === 'rateLimit' && rateLimited++) });
	const store = new MemoryStore();
	let emitted = 0;
	const ctx = (): PollerContext => ({
		client,
		store,
		publisher: { publish: async (events) => void (emitted += events.length) },
		environment: 'sandbox',
		now: Date.now,
		remainingMs: () => Number.POSITIVE_INFINITY,
		log: { info: () => undefined, warn: () => undefined, error: () => undefined },
		metrics: { count: () => undefined },
		settings: { ...DEFAULT_SETTINGS, safetyMs: 0 },
		runId: 'bench',
	});
	// First run announces everything (state filled); the measured run is the steady state.
	const first = await pollOverdueDevices(ctx());
	await new Promise((r) => setTimeout(r, 1100)); // a fresh rate window
	const cpu = process.cpuUsage();
	const started = performance.now();
	const report = await pollOverdueDevices(ctx());
	const ms = performance.now() - started;
	const used = process.cpuUsage(cpu);
	process.stdout.write(
		`${JSON.stringify({
			ms,
			firstRunMs: first.durationMs,
			pages: report.pages,
			items: report.itemsSeen,
			emittedFirstRun: emitted,
			cpuUsPerItem: (used.user + used.system) / Math.max(1, report.itemsSeen),
			maxRssMb: process.resourceUsage().maxRSS / 1024,
			rateLimited,
		})}\n`,
	);
}

main().catch((e) => {
	process.stderr.write(`${(e as Error).stack}\n`);
	process.exit(1);
});
