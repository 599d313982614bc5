import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { monthFrom } from '../nodes/TestEquipmentCloud/actions/email/common';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { FULL, LIMIT, idealSeconds, pagesAtLimit, pause, type BenchRow, type Scale } from './lib';
import type { ChildRun, EmailOperation } from './emailsChild';

/**
 * The E-mail resource on a large account (issue 39, item 6; docs/scale.md): Build Customer
 * Re-Test Notices and Build Monthly Compliance Report through n8n's real engine, against the
 * sandbox at the service's 5 requests/s and the largest page. Each runs in a child process of
 * its own (its CPU and heap alone; the sandbox stays in this one), next to the baseline measured
 * in the same run: the client reading the same lists at the same rate and keeping nothing.
 * Rows: time ÷ the ideal read (the least requests the lists take, at 5/s), CPU ÷ that time, peak
 * heap ÷ 256 MiB (n8n Cloud's smallest plan has 320 MiB of RAM). The CPU row's second baseline is
 * the same read inside n8n (n8n-core's heap, n8n's HTTP client), keeping nothing: what any node
 * reading these lists in n8n spends at least.
 */

const SIZES = {
	full: { customers: 2000, devices: 100_000, testResults: 300_000 },
	quick: { customers: 40, devices: 2000, testResults: 6000 },
};
const MiB = 1024 * 1024;
const HEAP_GOAL = 256 * MiB;
const OPERATIONS: Array<{ operation: EmailOperation; name: string }> = [
	{ operation: 'customerNotices', name: 'Build Customer Re-Test Notices' },
	{ operation: 'complianceReport', name: 'Build Monthly Compliance Report' },
];

async function child(mode: 'node' | 'read' | 'n8nRead', operation: EmailOperation, sandbox: Sandbox, month: string): Promise<ChildRun & { requests: number }> {
	const token = sandbox.account.createToken({ label: `bench ${mode} ${operation}` }).token;
	const warm = sandbox.account.createToken({ label: `bench warm-up ${operation}` }).token;
	// tsx's CommonJS hook compiles in this thread (no loader thread adding to the process's CPU).
	// The heap as n8n Cloud's smallest plan would hold it: old space limited to the goal, so the
	// collector works as it would there (unlimited, garbage piles up and the peak says little).
	const args = [`--max-old-space-size=${HEAP_GOAL / MiB}`, '--expose-gc', '--require', 'tsx/cjs', join(__dirname, 'emailsChild.ts'), mode, operation, sandbox.url, token, month, warm];
	const before = sandbox.stats.requests;
	const { stdout } = await promisify(execFile)(process.execPath, args, { maxBuffer: 1 << 20 });
	const run = JSON.parse(stdout.trim().split('\n').pop()!) as ChildRun;
	// The warm-up's one request (in n8n) is not the operation's.
	return { ...run, requests: sandbox.stats.requests - before - (mode === 'read' ? 0 : 1) };
}

const n = (x: number) => x.toLocaleString('en');
const mb = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`;

export async function benchEmails(scale: Scale = FULL): Promise<BenchRow[]> {
	const size = scale.quick ? SIZES.quick : SIZES.full;
	const sandbox = await startSandbox({ port: 0, size, maxPageSize: LIMIT.largestPage });
	const rows: BenchRow[] = [];
	try {
		const today = sandbox.account.today();
		const counts = { customers: sandbox.account.data.customers.size, devices: sandbox.account.data.devices.size };
		for (const { operation, name } of OPERATIONS) {
			const month = monthFrom(today, operation === 'customerNotices' ? 1 : -1);
			await pause(scale.settleMs);
			const read = await child('read', operation, sandbox, month);
			await pause(scale.settleMs);
			const n8nRead = await child('n8nRead', operation, sandbox, month);
			await pause(scale.settleMs);
			const node = await child('node', operation, sandbox, month);
			// The least requests: each list's pages of the largest size (results: those the read counted).
			// The page of property keys (the lists' `enabled`) is the operation's own cost, not the ideal's.
			const results = read.items - counts.customers - counts.devices;
			const least = pagesAtLimit(counts.customers) + pagesAtLimit(counts.devices) + (operation === 'complianceReport' ? pagesAtLimit(results) : 0);
			const ideal = idealSeconds(least);
			const lists = `customers ${n(counts.customers)}, devices ${n(counts.devices)}${operation === 'complianceReport' ? `, results ${n(results)}` : ''}`;
			const bench = `${name}, ${n(size.devices)} devices`;
			rows.push(
				{
					bench,
					measure: `${month}, ${n(node.items)} e-mail items through n8n-core at ${LIMIT.ratePerSecond} req/s: wall time ÷ the ideal read (${lists})`,
					value: `${(node.ms / 1000).toFixed(1)} s (${node.requests} requests)`,
					ideal: `${ideal.toFixed(1)} s (${least} requests at ${LIMIT.ratePerSecond}/s)`,
					baseline: `client reading the same lists: ${(read.ms / 1000).toFixed(1)} s (${read.requests} requests, ${(read.ms / 1000 / ideal).toFixed(2)} × ideal)`,
					ratio: node.ms / 1000 / ideal,
					target: '≤ 1.1',
					goal: 1.1,
				},
				{
					bench,
					measure: `CPU of the operation's process during the run ÷ the ideal read`,
					value: `${(node.cpuMs / 1000).toFixed(1)} s`,
					ideal: `${ideal.toFixed(1)} s`,
					baseline: `client reading the same lists: ${(read.cpuMs / 1000).toFixed(1)} s (${(read.cpuMs / 1000 / ideal).toFixed(2)}); the same read in an n8n-core process through n8n's HTTP client, nothing kept: ${(n8nRead.cpuMs / 1000).toFixed(1)} s (${(n8nRead.cpuMs / 1000 / ideal).toFixed(2)})`,
					ratio: node.cpuMs / 1000 / ideal,
					target: '≤ 0.1',
					goal: 0.1,
				},
				{
					bench,
					measure: `peak heap of the operation's process (n8n-core loaded; old space limited to 256 MiB; sampled every 5 ms) ÷ 256 MiB`,
					value: `${mb(node.peakHeap)} (${mb(node.heapBefore)} before the run; peak RSS ${mb(node.maxRss)})`,
					ideal: '256 MiB (n8n Cloud’s smallest plan: 320 MiB RAM)',
					baseline: `client reading the same lists: ${mb(read.peakHeap)} (${mb(read.heapBefore)} before)`,
					ratio: node.peakHeap / HEAP_GOAL,
					target: '≤ 1',
					goal: 1,
				},
			);
		}
	} finally {
		await sandbox.stop();
	}
	return rows;
}
