import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { machine, scaleFromEnv, type BenchRow, type Scale } from './lib';
import { RESULTS_JSON, resultsMarkdown, writeDocs, type BenchResults } from './docs';
import { benchAccounts } from './accounts';
import { benchBackfill } from './backfill';
import { benchBundles } from './bundles';
import { benchEmails } from './emails';
import { benchNode } from './node-return-all';
import { benchPollers } from './pollers';
import { benchProfile } from './profile';
import { benchRebuild } from './rebuild';
import { benchSandbox } from './sandbox';
import { benchSharedToken } from './sharedToken';
import { benchSharedTokenBound } from './sharedTokenBound';
import { benchTestResults } from './testResults';

/**
 * `npm run bench`: every benchmark, one table. A full run stores its rows in bench/results.json
 * and writes bench/results.md and docs/performance.md's table from them (bench/docs.ts).
 * `BENCH_QUICK=1` runs every row on small data in seconds (a smoke test of the bench; its figures
 * mean nothing and are never written). `--json` prints the rows as JSON; names select benches.
 */
export const BENCHES: Record<string, (scale: Scale) => Promise<BenchRow[]>> = {
	sandbox: benchSandbox,
	pollers: benchPollers,
	profile: benchProfile,
	testResults: benchTestResults,
	bundles: benchBundles,
	node: benchNode,
	accounts: benchAccounts,
	rebuild: benchRebuild,
	sharedToken: benchSharedToken,
	sharedTokenBound: benchSharedTokenBound,
	emails: benchEmails,
	backfill: benchBackfill,
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
	const results: BenchResults = { started: started.toISOString(), machineAtStart: loadBefore, machineAtEnd: machine(), rows };
	process.stdout.write(resultsMarkdown(results));
	if (scale.quick) process.stdout.write('QUICK MODE: small data, figures not meaningful.\n');
	if (positionals.length === 0 && !scale.quick) {
		writeFileSync(RESULTS_JSON, `${JSON.stringify(results, null, '\t')}\n`);
		writeDocs(results);
	}
}

main().catch((error) => {
	process.stderr.write(`${(error as Error).stack}\n`);
	process.exit(1);
});
