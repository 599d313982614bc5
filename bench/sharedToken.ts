import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { LIMIT, idealSeconds, type BenchRow, type Scale } from './lib';

export interface ProcessResult {
	ms: number;
	answers: number;
	rateLimited: number;
	failed: number;
	items: number;
}

export interface SharedTokenResult {
	processes: ProcessResult[];
	/** From "go" to the last process's end (the parent's clock). */
	wallMs: number;
	/** Answers the sandbox gave in that time: accepted (2xx) and refused (429). */
	accepted: number;
	refused: number;
}

/**
 * `count` OS processes on one token, each reading every device `reads` times through the client
 * (bench/sharedTokenChild.ts); they load first, then start together. The sandbox counts the answers.
 */
export async function runSharedToken(sandbox: Sandbox, count: number, reads: number): Promise<SharedTokenResult> {
	const token = sandbox.accounts[0].account.createToken({ label: `shared by ${count}` }).token;
	const children: Array<ChildProcessByStdio<Writable, Readable, null>> = [];
	const lines: AsyncIterator<string>[] = [];
	for (let i = 0; i < count; i++) {
		const child = spawn(process.execPath, ['--require', 'tsx/cjs', join(__dirname, 'sharedTokenChild.ts'), sandbox.url, String(reads)], { stdio: ['pipe', 'pipe', 'inherit'] });
		child.stdin.write(`${token}\n`);
		children.push(child);
		lines.push(createInterface({ input: child.stdout })[Symbol.asyncIterator]());
	}
	for (const l of lines) if ((await l.next()).value !== 'ready') throw new Error('a shared-token child did not start');
	const before = { ...sandbox.stats.byStatus };
	const started = performance.now();
	for (const c of children) c.stdin.end('go\n');
	const processes = await Promise.all(
		lines.map(async (l) => {
			const line = await l.next();
			if (line.done) throw new Error('a shared-token child ended without its result');
			return JSON.parse(line.value) as ProcessResult;
		}),
	);
	const wallMs = performance.now() - started;
	await Promise.all(children.map((c) => new Promise((done) => (c.exitCode !== null ? done(c.exitCode) : c.once('exit', done)))));
	const delta = (status: string) => (sandbox.stats.byStatus[status] ?? 0) - (before[status] ?? 0);
	return { processes, wallMs, accepted: delta('200'), refused: delta('429') };
}

/** The goals of issue 33 for processes sharing a token; a row never moves its target. */
const GOALS: Record<number, number> = { 4: 0.1, 16: 0.2 };
/** The wall-time goal (issue 33), for any number of processes. */
export const WALL_GOAL = 1.1;

/**
 * Processes sharing one token (n8n queue-mode workers, pollers, the node): each reads 10,000
 * devices three times. Rows: share of answers that were 429, failed reads, wall time ÷ the ideal
 * (the requests the sandbox accepted, at 5 per second), slowest process ÷ fastest.
 */
export async function benchSharedToken(scale: Scale): Promise<BenchRow[]> {
	const { devices, reads, processes: counts } = scale.sharedToken;
	const sandbox = await startSandbox({ port: 0, size: { devices, customers: 20, testResults: 10 } });
	const rows: BenchRow[] = [];
	try {
		for (const n of counts) {
			const r = await runSharedToken(sandbox, n, reads);
			const label = `${n} processes, one token, each reading ${devices.toLocaleString('en')} devices ${reads} times`;
			const answers = r.accepted + r.refused;
			const failed = r.processes.reduce((s, p) => s + p.failed, 0);
			const ideal = idealSeconds(r.accepted);
			const times = r.processes.map((p) => p.ms);
			const goal = GOALS[n];
			const share = r.refused / answers;
			const ratio = r.wallMs / 1000 / ideal;
			const spread = Math.max(...times) / Math.min(...times);
			const verdict = (ok: boolean) => (ok ? '' : ' — misses');
			rows.push(
				{
					bench: 'shared token',
					measure: `${label}: answers that were 429 ÷ all answers`,
					value: `${r.refused} of ${answers} (${failed} of ${n * reads} reads failed)`,
					ratio: share,
					target: goal === undefined ? '' : `≤ ${goal.toFixed(2)}, 0 failed${verdict(share <= goal && failed === 0)}`,
				},
				{
					bench: 'shared token',
					measure: `${label}: wall time ÷ ideal`,
					value: `${(r.wallMs / 1000).toFixed(1)} s`,
					ideal: `${ideal.toFixed(1)} s (${r.accepted} requests answered at ${LIMIT.ratePerSecond}/s; with the 429s: ${idealSeconds(answers).toFixed(1)} s)`,
					ratio,
					target: `≤ ${WALL_GOAL}${verdict(ratio <= WALL_GOAL)}`,
				},
				{
					bench: 'shared token',
					measure: `${label}: slowest process ÷ fastest`,
					value: `${(Math.max(...times) / 1000).toFixed(1)} s`,
					baseline: `fastest: ${(Math.min(...times) / 1000).toFixed(1)} s`,
					ratio: spread,
					target: `≤ 1.3${verdict(spread <= 1.3)}`,
				},
			);
		}
	} finally {
		await sandbox.stop();
	}
	return rows;
}
