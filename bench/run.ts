import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { LIMIT, machine, scaleFromEnv, table, type BenchRow, type Scale } from './lib';
import { benchAccounts } from './accounts';
import { benchBundles } from './bundles';
import { benchNode } from './node-return-all';
import { benchPollers } from './pollers';
import { benchSandbox } from './sandbox';
import { benchTestResults } from './testResults';

/**
 * `npm run bench`: every benchmark, one table (also written to bench/results.md on a full run).
 * `BENCH_QUICK=1` runs every row on small data in seconds (a smoke test of the bench; its figures
 * mean nothing and are never written). `--json` prints the rows as JSON; names select benches.
 */
export const BENCHES: Record<string, (scale: Scale) => Promise<BenchRow[]>> = {
	sandbox: benchSandbox,
	pollers: benchPollers,
	testResults: benchTestResults,
	bundles: benchBundles,
	node: benchNode,
	accounts: benchAccounts,
};

async function main(): Promise<void> {
	const { values, positionals } = parseArgs({ options: { json: { type: 'boolean', default: false } }, allowPositionals: true });
	const unknown = positionals.filter((name) => !(name in BENCHES));
	if (unknown.length > 0) throw new Error(`unknown bench ${unknown.join(', ')}; known: ${Object.keys(BENCHES).join(', ')}`);
	const scale = scaleFromEnv();
	const rows: BenchRow[] = [];
	const started = new Date();
	const loadBefore = machine();
	for (const [name, run] of Object.entries(BENCHES)) {
		if (positionals.length > 0 && !positionals.includes(name)) continue;
		process.stderr.write(`running ${name}${scale.quick ? ' (quick)' : ''}…\n`);
		rows.push(...(await run(scale)));
	}
	if (values.json) {
		process.stdout.write(`${JSON.stringify({ quick: scale.quick, rows })}\n`);
		return;
	}
	const text = [
		table(rows),
		'',
		`Limit: ${LIMIT.ratePerSecond} requests/s per token, pages of up to ${LIMIT.largestPage} items (MAX_LIMIT); ideal = ceil(N / ${LIMIT.largestPage}) / ${LIMIT.ratePerSecond} s. ` +
			`The sandbox's limiter admits a burst of ${LIMIT.burst} requests in any ${LIMIT.windowMs} ms (measured on the limiter), so a run can end up to one window before the ideal ("burst floor").`,
		`Run ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC${scale.quick ? ' (QUICK MODE: small data, figures not meaningful)' : ''}.`,
		`Machine at the start: ${loadBefore}.`,
		`Machine at the end: ${machine()}.`,
		'',
	].join('\n');
	process.stdout.write(text);
	if (positionals.length === 0 && !scale.quick) writeFileSync(join(__dirname, 'results.md'), text);
}

main().catch((error) => {
	process.stderr.write(`${(error as Error).stack}\n`);
	process.exit(1);
});
