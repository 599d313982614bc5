import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { table, type BenchRow } from './lib';
import { benchBundles } from './bundles';
import { benchNode } from './node-return-all';
import { benchPollers } from './pollers';
import { benchSandbox } from './sandbox';

/** `npm run bench`: every benchmark, one table (also written to bench/results.md). */
const BENCHES: Record<string, () => Promise<BenchRow[]>> = {
	sandbox: () => benchSandbox(),
	pollers: () => benchPollers(),
	bundles: () => benchBundles(),
	node: () => benchNode(),
};

async function main(): Promise<void> {
	const only = process.argv.slice(2);
	const rows: BenchRow[] = [];
	for (const [name, run] of Object.entries(BENCHES)) {
		if (only.length > 0 && !only.includes(name)) continue;
		process.stderr.write(`running ${name}…\n`);
		rows.push(...(await run()));
	}
	const text = `${table(rows)}\n\nMachine: ${process.platform} ${process.arch}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}\n`;
	process.stdout.write(`${text}`);
	if (only.length === 0) writeFileSync(join(__dirname, 'results.md'), text);
}

main().catch((error) => {
	process.stderr.write(`${(error as Error).stack}\n`);
	process.exit(1);
});
