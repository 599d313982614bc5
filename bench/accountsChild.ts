import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectService } from '../lambdas/adapters/undiciService';
import { createRunner } from '../lambdas/runner';

/**
 * One process = one measurement of `npm start`'s runner over N accounts (the sandbox runs in the
 * parent): a first cycle fills the state, then after a fresh rate window the measured cycle.
 * Prints one JSON line: wall time of each cycle, CPU of the measured one, memory before and at
 * the peak, events and 429s. Tokens come on stdin (never on the command line).
 */
async function main(): Promise<void> {
	const [url, settle = '1100'] = process.argv.slice(2);
	const tokens = JSON.parse(await new Promise<string>((done) => {
		let text = '';
		process.stdin.on('data', (d: Buffer) => (text += d.toString()));
		process.stdin.on('end', () => done(text));
	})) as string[];
	let rateLimited = 0;
	let events = 0;
	const several = tokens.length > 1;
	const rssBefore = process.memoryUsage().rss;
	const runner = createRunner({
		accounts: tokens.map((token, i) => ({
			client: connectService({ baseUrl: url, token, environment: 'sandbox', onEvent: (e) => void (e.type === 'retry' && e.kind === 'rateLimit' && rateLimited++) }),
			environment: 'sandbox',
			...(several ? { account: `a${i + 1}`, partition: `a${i + 1}` } : {}),
		})),
		statePath: join(mkdtempSync(join(tmpdir(), 'tec-bench-accounts-')), 'runner.json'),
		writeLine: () => void events++,
		log: { info: () => undefined, warn: () => undefined, error: () => undefined },
	});
	const firstStarted = performance.now();
	await runner.cycle();
	const firstMs = performance.now() - firstStarted;
	const firstEvents = events;
	if (runner.failed.length > 0) throw new Error(`runs failed: ${runner.failed.join(', ')}`);
	await new Promise((r) => setTimeout(r, Number(settle))); // a fresh rate window for every token
	process.stdout.write('measure\n');
	const cpu = process.cpuUsage();
	const started = performance.now();
	const reports = await runner.cycle();
	const ms = performance.now() - started;
	const used = process.cpuUsage(cpu);
	runner.close();
	process.stdout.write(
		`${JSON.stringify({
			ms,
			firstMs,
			firstEvents,
			cpuMs: (used.user + used.system) / 1000,
			rssBeforeMb: rssBefore / 2 ** 20,
			maxRssMb: process.resourceUsage().maxRSS / 1024,
			items: reports.reduce((n, r) => n + r.itemsSeen, 0),
			complete: reports.every((r) => r.complete),
			failed: runner.failed.length,
			rateLimited,
		})}\n`,
	);
}

main().catch((e) => {
	process.stderr.write(`${(e as Error).stack}\n`);
	process.exit(1);
});
