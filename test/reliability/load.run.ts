/**
 * The load run (started by load.test.ts in its own process with --expose-gc): the sandbox under
 * CLIENTS concurrent clients with separate tokens for SECONDS, on loopback. All but UNPACED of
 * them are paced by the client core (the token's shared pacer); the unpaced ones send bursts
 * above the limit. The sandbox runs in its own process (`npm run sandbox`), as the service runs
 * elsewhere: its memory is read from /proc, the clients' heap after a forced GC. No client retries, so every refusal is counted. Prints one JSON line.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ServiceClient, ServiceError, pacingKey, sharedPacers } from '../../client';
import { systemClock, undiciRequestFn } from '../../lambdas/adapters/undiciService';

const SECONDS = Number(process.env.TEC_LOAD_SECONDS ?? 5);
const CLIENTS = Number(process.env.TEC_LOAD_CLIENTS ?? 50);
const UNPACED = Number(process.env.TEC_LOAD_UNPACED ?? 3);

interface Tally {
	paced: boolean;
	ok: number;
	rateLimited: number;
	other: string[];
	latencies: number[];
}

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const heap = () => {
	gc();
	gc();
	return process.memoryUsage().heapUsed;
};

async function main(): Promise<void> {
	const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, '..', '..', 'sandbox', 'cli.ts'), '--port', '0', '--quiet'], { stdio: ['ignore', 'pipe', 'inherit'] });
	const first = await new Promise<string>((resolve, reject) => {
		let text = '';
		child.stdout.on('data', (c: Buffer) => {
			text += c.toString();
			if (text.includes('\n')) resolve(text.split('\n')[0]);
		});
		child.on('exit', (code) => reject(new Error(`the sandbox exited (${code})`)));
	});
	const { url, adminUrl } = JSON.parse(first) as { url: string; adminUrl: string };
	const admin = async (path: string, body?: unknown) =>
		(await fetch(`${adminUrl}${path}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<Record<string, unknown>>;
	const sandboxRss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
	const stats = async () => (await admin('/stats')) as { requests: number; byStatus: Record<string, number> };
	const tokens: string[] = [];
	for (let i = 0; i < CLIENTS; i++) tokens.push(String((await admin('/tokens', { label: `load-${i}` })).token));
	const sandbox = { url };
	const clients = tokens.map((token, i) => {
		const paced = i >= UNPACED;
		return {
			tally: { paced, ok: 0, rateLimited: 0, other: [], latencies: [] } as Tally,
			client: new ServiceClient({
				baseUrl: sandbox.url,
				request: undiciRequestFn(token),
				clock: systemClock,
				pacer: paced ? sharedPacers.forKey(pacingKey(token, `load:${sandbox.url}`), systemClock) : undefined,
				retry: { maxAttempts: 1 },
			}),
		};
	});

	const one = async (c: (typeof clients)[number], n: number) => {
		const t0 = performance.now();
		try {
			if (n % 3 === 0) await c.client.call('device.list', { params: [['limit', '10'], ['offset', String(n % 200)]] });
			else await c.client.call('device.get', { pathParams: { id: 1 + (n % 240) } });
			c.tally.ok++;
			c.tally.latencies.push(performance.now() - t0);
		} catch (error) {
			if (error instanceof ServiceError && error.status === 429) c.tally.rateLimited++;
			else c.tally.other.push((error as Error).message.slice(0, 160));
		}
	};

	const drive = async (seconds: number) => {
		const until = Date.now() + seconds * 1000;
		await Promise.all(
			clients.map(async (c, i) => {
				let n = i;
				while (Date.now() < until) {
					if (c.tally.paced) await one(c, n++);
					else {
						// Above the limit: bursts of 8 at once, 5 bursts a second.
						await Promise.all(Array.from({ length: 8 }, () => one(c, n++)));
						await new Promise((r) => setTimeout(r, 200));
					}
				}
			}),
		);
	};

	await drive(1); // warm-up: connections, JIT, first pages
	for (const c of clients) Object.assign(c.tally, { ok: 0, rateLimited: 0, other: [], latencies: [] });
	const statsBefore = await stats();
	const before = statsBefore.requests;
	const byStatusBefore = { ...statsBefore.byStatus };
	const sandboxRssBefore = sandboxRss();
	const heapBefore = heap();
	const rssBefore = process.memoryUsage().rss;
	const lag = monitorEventLoopDelay({ resolution: 10 });
	lag.enable();
	const t0 = Date.now();
	await drive(SECONDS);
	const elapsed = (Date.now() - t0) / 1000;
	lag.disable();
	await new Promise((r) => setTimeout(r, 200));
	const heapAfter = heap();
	const rssAfter = process.memoryUsage().rss;
	const statsAfter = await stats();
	const sandboxRssAfter = sandboxRss();
	const byStatus = Object.fromEntries(Object.entries(statsAfter.byStatus).map(([s, n]) => [s, n - (byStatusBefore[s] ?? 0)]));
	const paced = clients.filter((c) => c.tally.paced).map((c) => c.tally);
	const unpaced = clients.filter((c) => !c.tally.paced).map((c) => c.tally);
	const lat = paced.flatMap((t) => t.latencies).sort((a, b) => a - b);
	const pct = (p: number) => Math.round(lat[Math.min(lat.length - 1, Math.floor((lat.length * p) / 100))] * 10) / 10;
	child.kill('SIGTERM');
	process.stdout.write(
		`${JSON.stringify({
			seconds: Math.round(elapsed * 10) / 10,
			clients: CLIENTS,
			unpacedClients: UNPACED,
			requests: statsAfter.requests - before,
			requestsPerSecond: Math.round((statsAfter.requests - before) / elapsed),
			byStatus,
			paced: {
				ok: paced.reduce((s, t) => s + t.ok, 0),
				rateLimited: paced.reduce((s, t) => s + t.rateLimited, 0),
				other: paced.flatMap((t) => t.other),
				minPerClientPerSecond: Math.round((Math.min(...paced.map((t) => t.ok)) / elapsed) * 100) / 100,
				maxPerClientPerSecond: Math.round((Math.max(...paced.map((t) => t.ok + t.rateLimited)) / elapsed) * 100) / 100,
				latencyMs: { p50: pct(50), p95: pct(95), p99: pct(99) },
			},
			unpaced: unpaced.map((t) => ({ ok: t.ok, rateLimited: t.rateLimited, other: t.other })),
			memory: {
				heapBeforeMB: Math.round(heapBefore / 1e5) / 10,
				heapAfterMB: Math.round(heapAfter / 1e5) / 10,
				heapGrowthMB: Math.round((heapAfter - heapBefore) / 1e5) / 10,
				rssBeforeMB: Math.round(rssBefore / 1e5) / 10,
				rssAfterMB: Math.round(rssAfter / 1e5) / 10,
				sandboxRssBeforeMB: Math.round(sandboxRssBefore * 10) / 10,
				sandboxRssAfterMB: Math.round(sandboxRssAfter * 10) / 10,
			},
			eventLoopDelayMs: { p50: Math.round(lag.percentile(50) / 1e5) / 10, p99: Math.round(lag.percentile(99) / 1e5) / 10, max: Math.round(lag.max / 1e5) / 10 },
		})}\n`,
	);
}

main().catch((error) => {
	process.stderr.write(`${(error as Error).stack}\n`);
	process.exit(1);
});
