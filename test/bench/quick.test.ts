import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { lambdaEntries } from '../../bench/bundles';
import { QUICK, type BenchRow } from '../../bench/lib';

/**
 * `npm run bench` in quick mode (small data): every row is there and every ratio is a finite
 * number. Structure only; timings belong to the bench itself, never to a test.
 */

const ROOT = resolve(__dirname, '../..');

async function quickBench(): Promise<{ quick: boolean; rows: BenchRow[] }> {
	const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--json'], {
		cwd: ROOT,
		env: { ...process.env, BENCH_QUICK: '1' },
		maxBuffer: 1 << 22,
	});
	return JSON.parse(stdout.trim().split('\n').pop()!) as { quick: boolean; rows: BenchRow[] };
}

describe('npm run bench, quick mode', () => {
	it('prints every row with a finite ratio, against the limit and a baseline of the same run', { timeout: 300_000 }, async () => {
		const { quick, rows } = await quickBench();
		expect(quick).toBe(true);
		const of = (bench: string) => rows.filter((r) => r.bench === bench);

		expect(of('sandbox').map((r) => r.measure)).toEqual([
			expect.stringMatching(/^generate [\d,]+ devices ÷ JSON\.parse/),
			expect.stringMatching(/^list, 2 filters/),
			expect.stringMatching(/^generate the demo with whole histories, .* ÷ the same without the series$/),
			expect.stringMatching(/^render the performed steps/),
		]);
		expect(of('overdue poller').map((r) => r.measure)).toEqual([
			expect.stringMatching(/overdue devices: measured ÷ ideal/),
			expect.stringMatching(/CPU per item/),
			expect.stringMatching(/150 ms latency/),
			expect.stringMatching(/peak RSS/),
		]);

		expect(of('overdue poller, service profile').map((r) => r.measure)).toEqual([expect.stringMatching(/CPU per item with a service profile loaded/)]);

		expect(of('many accounts').map((r) => r.measure)).toEqual([
			expect.stringMatching(/wall time ÷ the slowest account's ideal/),
			expect.stringMatching(/first cycle/),
			expect.stringMatching(/CPU per account/),
			expect.stringMatching(/memory per account/),
		]);

		// The rebuild at scale: requests, CPU against 5 req/s, memory, stored size, write units.
		expect(of('due-date history rebuild').map((r) => r.measure)).toEqual([
			expect.stringMatching(/requests at the largest page ÷ the least/),
			expect.stringMatching(/^CPU of the first run .* ÷ the time its requests take at 5 req\/s/),
			expect.stringMatching(/^peak heap growth.* ÷ the JSON of the pages read/),
			expect.stringMatching(/^peak RSS.* ÷ the poller Lambda's memory/),
			expect.stringMatching(/^stored after the rebuild/),
			expect.stringMatching(/^one-time writes/),
		]);

		// What knowledge would reach, in virtual time: this client's pacer, then grids told more.
		expect(of('shared token, virtual time').map((r) => r.measure)).toEqual([
			expect.stringMatching(/this client's pacer: wall time ÷ ideal$/),
			expect.stringMatching(/told the stride that fits/),
			expect.stringMatching(/a phase no other process holds/),
			expect.stringMatching(/given a phase of its own/),
		]);

		// The E-mail resource on a large account, through n8n-core: time and CPU against the ideal read, heap against 256 MiB, each beside the bare read.
		for (const name of ['Build Customer Re-Test Notices', 'Build Monthly Compliance Report']) {
			const email = rows.filter((r) => r.bench.startsWith(`${name}, `));
			expect(email.map((r) => r.measure)).toEqual([expect.stringMatching(/through n8n-core at 5 req\/s: wall time ÷ the ideal read/), expect.stringMatching(/^CPU .* ÷ the ideal read$/), expect.stringMatching(/^peak heap .* ÷ 256 MiB$/)]);
			for (const row of email) expect(row.baseline).toMatch(/^client reading the same lists: /);
		}

		// The backfill of measured values: requests, hours at its share, stored items, memory, each against a limit beside a baseline.
		const backfill = of('backfill of measured values (100,000 devices)');
		expect(backfill.map((r) => r.measure)).toEqual([
			expect.stringMatching(/^requests ÷ the least the data asks for/),
			expect.stringMatching(/^hours at 5 requests\/s with the default share/),
			expect.stringMatching(/the largest item ÷ DynamoDB's 400 KB item limit$/),
			expect.stringMatching(/^memory: peak heap during the backfill ÷ the poller Lambda's memory/),
		]);
		for (const row of backfill) expect([row.ideal, row.baseline, row.target].every((c) => typeof c === 'string' && c.length > 0), row.measure).toBe(true);

		const results = of('test-results poller');
		expect(results).toHaveLength(QUICK.lookbackDays.length + 1);
		for (const days of QUICK.lookbackDays) expect(results.some((r) => r.measure.includes(`${days} days lookback`))).toBe(true);

		const lambdas = Object.keys(lambdaEntries());
		expect(lambdas.length).toBeGreaterThan(0);
		for (const name of lambdas) {
			const [size, init] = of(`Lambda ${name}`);
			expect(size?.value).toMatch(/^\d+ KiB$/);
			expect(size?.ideal).toMatch(/KiB/);
			// Init against an empty handler's, measured in the same run (a ratio that travels between machines).
			expect(init?.measure).toMatch(/÷ an empty handler's init$/);
			expect(init?.value).toMatch(/^\d+ ms/);
		}
		// The CPU row against JSON.parse of the same pages, measured in the same run.
		expect(of('overdue poller')[1].baseline).toMatch(/^JSON\.parse: [\d.]+ µs per item/);
		expect(of('sandbox')[0].baseline).toMatch(/^JSON\.parse: \d+ ms/);

		const read = of(`read ${QUICK.nodeDevices.toLocaleString('en')} devices`);
		expect(read.map((r) => r.measure)).toEqual([
			expect.stringMatching(/^n8n node, Return All/),
			expect.stringMatching(/^client at the largest page/),
			expect.stringMatching(/^user's loop/),
			'n8n node ÷ client at the largest page',
		]);
		// The three contenders are measured against the same limit.
		expect(new Set(read.slice(0, 3).map((r) => r.ideal)).size).toBe(1);

		for (const row of rows) {
			expect(row.ratio, `${row.bench}: ${row.measure}`).toEqual(expect.any(Number));
			expect(Number.isFinite(row.ratio) && row.ratio! > 0, `${row.bench}: ${row.measure} = ${row.ratio}`).toBe(true);
		}
	});
});
