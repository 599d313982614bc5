import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { startSandbox, type Sandbox } from '../sandbox/server';
import type { BenchRow } from './lib';

const run = promisify(execFile);

interface ChildResult {
	ms: number;
	pages: number;
	items: number;
	cpuUsPerItem: number;
	maxRssMb: number;
	rateLimited: number;
}

async function pollerRun(sandbox: Sandbox): Promise<ChildResult> {
	const token = sandbox.account.createToken().token;
	const { stdout } = await run(process.execPath, ['--import', 'tsx', join(__dirname, 'pollerChild.ts'), sandbox.url, token], { maxBuffer: 1 << 20 });
	return JSON.parse(stdout.trim().split('\n').pop()!) as ChildResult;
}

/** The baseline: sequential requests, no pacing, a 1 s sleep and retry on 429. */
async function naiveRun(sandbox: Sandbox, pageSize: number): Promise<{ ms: number; rateLimited: number; items: number }> {
	const token = sandbox.account.createToken().token;
	await new Promise((r) => setTimeout(r, 1100));
	let rateLimited = 0;
	let items = 0;
	const started = performance.now();
	let url: string | null = `${sandbox.url}/api/v1/data/devices/overdue/?limit=${pageSize}`;
	while (url) {
		const res = await request(url, { headers: { authorization: `Token ${token}` } });
		const text = await res.body.text();
		if (res.statusCode === 429) {
			rateLimited++;
			await new Promise((r) => setTimeout(r, 1000));
			continue;
		}
		const page = JSON.parse(text) as { next: string | null; results: unknown[] };
		items += page.results.length;
		url = page.next;
	}
	return { ms: performance.now() - started, rateLimited, items };
}

/** Ideal time at the service's limit: pages ÷ 5 per second. */
const ideal = (pages: number) => (pages / 5) * 1000;

export async function benchPollers(): Promise<BenchRow[]> {
	const rows: BenchRow[] = [];
	// About one device in five is overdue in the demo data: 100k devices → ~20k overdue.
	const sandbox = await startSandbox({ port: 0, size: { devices: 100_000, customers: 200, testResults: 0 } });
	try {
		const overdue = [...sandbox.account.data.devices.values()].filter((d) => sandbox.account.isOverdue(d)).length;
		const fast = await pollerRun(sandbox);
		const naive = await naiveRun(sandbox, 1000);
		rows.push({
			bench: 'overdue poller',
			measure: `${overdue.toLocaleString('en')} overdue devices, ${fast.pages} pages: ideal ÷ measured (429s)`,
			value: `${(ideal(fast.pages) / fast.ms).toFixed(2)} (${fast.ms.toFixed(0)} ms, ${fast.rateLimited} × 429)`,
			baseline: `naive: ${(ideal(fast.pages) / naive.ms).toFixed(2)} (${naive.ms.toFixed(0)} ms, ${naive.rateLimited} × 429)`,
			ratio: `${(naive.ms / fast.ms).toFixed(2)}× faster`,
			target: '≥ 0.95, 0 × 429',
		});
		rows.push({ bench: 'overdue poller', measure: 'CPU per item', value: `${fast.cpuUsPerItem.toFixed(1)} µs`, target: '≤ 20 µs' });

		sandbox.faults.add({ kind: 'latency', latencyMs: 150 });
		const slow = await pollerRun(sandbox);
		const slowNaive = await naiveRun(sandbox, 1000);
		sandbox.faults.clear();
		rows.push({
			bench: 'overdue poller',
			measure: `same, 150 ms latency per request: ideal ÷ measured`,
			value: `${(ideal(slow.pages) / slow.ms).toFixed(2)} (${slow.ms.toFixed(0)} ms, ${slow.rateLimited} × 429)`,
			baseline: `naive: ${(ideal(slow.pages) / slowNaive.ms).toFixed(2)} (${slowNaive.rateLimited} × 429)`,
			target: '≥ 0.90',
		});

		sandbox.account.reset({ size: { devices: 10_000 } });
		const small = await pollerRun(sandbox);
		sandbox.account.reset({ size: { devices: 100_000 } });
		const large = await pollerRun(sandbox);
		rows.push({
			bench: 'overdue poller',
			measure: 'peak RSS at 100k devices ÷ at 10k',
			value: `${(large.maxRssMb / small.maxRssMb).toFixed(2)} (${large.maxRssMb.toFixed(0)} MB vs ${small.maxRssMb.toFixed(0)} MB)`,
			target: '≤ 1.2',
		});
	} finally {
		await sandbox.stop();
	}
	return rows;
}
