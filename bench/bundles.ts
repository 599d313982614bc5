import { execFileSync } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { lambdaBuildOptions } from '../infra/bundling';
import type { BenchRow } from './lib';

/** The deployable bundles: one per function, minified, source maps without sources. */
export const HANDLERS = {
	overdueDevices: 'lambdas/handlers/overdueDevices.ts',
	testResults: 'lambdas/handlers/testResults.ts',
	digestEmail: 'lambdas/handlers/digestEmail.ts',
} as const;

/** The deployed bundle (infra/bundling.ts, what the stack ships); `minify: false` for the baseline. */
export async function bundle(entry: string, outfile: string, minify: boolean): Promise<number> {
	await build({ ...lambdaBuildOptions(join(__dirname, '..', entry), outfile), minify });
	return statSync(outfile).size;
}

/** The AWS SDK v3 is left to the Lambda runtime (its NODE_PATH); the repository's copy stands in. */
const RUNTIME_NODE_PATH = join(__dirname, '..', 'node_modules');

/** Time to load a bundle in a fresh process (what a cold start pays before the handler runs). */
function initMs(file: string): number {
	const script = `const t=performance.now();require(${JSON.stringify(file)});process.stdout.write(String(performance.now()-t))`;
	const samples = Array.from({ length: 5 }, () => Number(execFileSync(process.execPath, ['-e', script], { env: { ...process.env, AWS_REGION: 'eu-central-1', NODE_PATH: RUNTIME_NODE_PATH } }).toString()));
	return samples.sort((a, b) => a - b)[2];
}

export async function benchBundles(): Promise<BenchRow[]> {
	const dir = mkdtempSync(join(tmpdir(), 'tec-bundles-'));
	const rows: BenchRow[] = [];
	for (const [name, entry] of Object.entries(HANDLERS)) {
		const min = await bundle(entry, join(dir, `${name}.min.js`), true);
		const plain = await bundle(entry, join(dir, `${name}.js`), false);
		rows.push({
			bench: `bundle ${name}`,
			measure: 'size, minified (cold init, median of 5)',
			value: `${(min / 1024).toFixed(0)} KiB (${initMs(join(dir, `${name}.min.js`)).toFixed(0)} ms)`,
			baseline: `${(plain / 1024).toFixed(0)} KiB unminified (${initMs(join(dir, `${name}.js`)).toFixed(0)} ms)`,
			ratio: `${(min / plain).toFixed(2)}`,
		});
	}
	return rows;
}
