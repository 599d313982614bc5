import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { FULL, LIMIT, idealSeconds, type BenchRow, type Scale } from './lib';

interface ChildResult {
	ms: number;
	firstMs: number;
	firstEvents: number;
	cpuMs: number;
	rssBeforeMb: number;
	maxRssMb: number;
	items: number;
	complete: boolean;
	failed: number;
	rateLimited: number;
	/** Requests of each account in the measured cycle (the sandbox counts them per account). */
	requests: number[];
}

/** `npm start`'s runner over the first `n` accounts of the sandbox, in a child process of its own. */
async function runnerRun(sandbox: Sandbox, n: number, settleMs: number): Promise<ChildResult> {
	// Fresh tokens: each starts with an empty rate window.
	const accounts = sandbox.accounts.slice(0, n);
	const tokens = accounts.map((a) => a.account.createToken({ label: 'bench' }).token);
	const child = spawn(process.execPath, ['--require', 'tsx/cjs', join(__dirname, 'accountsChild.ts'), sandbox.url, String(settleMs)], { stdio: ['pipe', 'pipe', 'inherit'] });
	child.stdin.end(JSON.stringify(tokens));
	let before: Record<string, number> = {};
	let last = '';
	for await (const line of createInterface({ input: child.stdout })) {
		// The child says when the measured cycle starts: the requests are counted from there.
		if (line === 'measure') before = { ...sandbox.stats.byAccount };
		else last = line;
	}
	const code = await new Promise<number | null>((done) => (child.exitCode !== null ? done(child.exitCode) : child.once('exit', done)));
	if (code !== 0) throw new Error(`the bench child failed (exit ${code})`);
	const result = JSON.parse(last) as Omit<ChildResult, 'requests'>;
	return { ...result, requests: accounts.map((a) => (sandbox.stats.byAccount[a.id] ?? 0) - (before[a.id] ?? 0)) };
}

/**
 * Many accounts in one runner: N accounts of 2,000 devices each in one cycle, each account at its
 * own token's ceiling. The wall time is set against the slowest account's ideal (its requests at
 * 5 per second), and CPU and memory per account against one account alone.
 */
export async function benchAccounts(scale: Scale = FULL): Promise<BenchRow[]> {
	const { count, devices } = scale.accounts;
	const sandbox = await startSandbox({ port: 0, accounts: count, size: { devices, customers: 20, testResults: 200 } });
	try {
		const one = await runnerRun(sandbox, 1, scale.settleMs);
		const many = await runnerRun(sandbox, count, scale.settleMs);
		for (const r of [one, many]) if (!r.complete || r.failed > 0) throw new Error('a run of the bench did not complete');
		const idealMs = (r: ChildResult) => idealSeconds(Math.max(...r.requests)) * 1000;
		const label = `${count} accounts × ${devices.toLocaleString('en')} devices`;
		return [
			{
				bench: 'many accounts',
				measure: `${label}, one steady-state cycle of the three pollers: wall time ÷ the slowest account's ideal`,
				value: `${many.ms.toFixed(0)} ms (${many.requests.reduce((a, b) => a + b, 0)} requests, ${many.rateLimited} × 429)`,
				ideal: `${(idealMs(many) / 1000).toFixed(1)} s (${Math.max(...many.requests)} requests at ${LIMIT.ratePerSecond}/s)`,
				baseline: `1 account alone: ${one.ms.toFixed(0)} ms (${(one.ms / idealMs(one)).toFixed(2)} × its ideal; the limiter's burst lets a short run beat it)`,
				ratio: many.ms / idealMs(many),
				target: '≤ 1.3',
				goal: 1.3,
			},
			{
				bench: 'many accounts',
				measure: `${label}, first cycle (announces every overdue and due-soon device): wall time ÷ 1 account's first cycle`,
				value: `${many.firstMs.toFixed(0)} ms (${many.firstEvents.toLocaleString('en')} events)`,
				baseline: `1 account: ${one.firstMs.toFixed(0)} ms (${one.firstEvents.toLocaleString('en')} events)`,
				ratio: many.firstMs / one.firstMs,
			},
			{
				bench: 'many accounts',
				measure: `CPU per account of the measured cycle, ${count} accounts ÷ 1`,
				value: `${(many.cpuMs / count).toFixed(1)} ms`,
				baseline: `1 account: ${one.cpuMs.toFixed(1)} ms`,
				ratio: many.cpuMs / count / one.cpuMs,
				target: '≤ 1.2 (flat)',
				goal: 1.2,
			},
			{
				bench: 'many accounts',
				measure: `memory per account: the process's growth (peak RSS over its RSS before the runs) with ${count} accounts, per account ÷ 1 account's`,
				value: `${((many.maxRssMb - many.rssBeforeMb) / count).toFixed(1)} MB per account (peak ${many.maxRssMb.toFixed(0)} MB)`,
				baseline: `1 account: ${(one.maxRssMb - one.rssBeforeMb).toFixed(1)} MB (peak ${one.maxRssMb.toFixed(0)} MB)`,
				// Growths, not a difference of two peaks: positive however noisy the machine.
				ratio: (many.maxRssMb - many.rssBeforeMb) / count / Math.max(one.maxRssMb - one.rssBeforeMb, 0.1),
				target: '≤ 1.2 (flat)',
				goal: 1.2,
			},
		];
	} finally {
		await sandbox.stop();
	}
}
