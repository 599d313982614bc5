import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { build } from 'esbuild';
import { lambdaBuildOptions } from '../infra/bundling';
import { FULL, median, type BenchRow, type Scale } from './lib';

const ROOT = join(__dirname, '..');
const HANDLERS_DIR = join(ROOT, 'lambdas', 'handlers');
/** The size every function's bundle should stay under (minified, without its source map). */
export const TARGET_KIB = 300;
/**
 * Bundles known to miss TARGET_KIB, each with the ceiling it must not grow past while the miss is
 * open (none now: the monthly report left the digest's function for one of its own).
 */
export const KNOWN_OVER_KIB: Readonly<Record<string, number>> = {};

/**
 * Every Lambda entry: each module of `lambdas/handlers/` that exports `handler` (shared modules
 * there export none). Found by reading the folder, so a new function is measured too.
 */
export function lambdaEntries(): Record<string, string> {
	const entries: Record<string, string> = {};
	for (const file of readdirSync(HANDLERS_DIR).sort()) {
		if (!file.endsWith('.ts') || file.endsWith('.d.ts')) continue;
		const source = readFileSync(join(HANDLERS_DIR, file), 'utf8');
		if (/export\s+(const|async\s+function|function|let)\s+handler\b/.test(source) || /export\s*\{[^}]*\bhandler\b[^}]*\}/.test(source)) {
			entries[basename(file, '.ts')] = join(HANDLERS_DIR, file);
		}
	}
	return entries;
}

/** The deployed bundle: the stack's own esbuild settings (infra/bundling.ts). */
export async function bundle(entry: string, outfile: string): Promise<number> {
	await build(lambdaBuildOptions(entry, outfile));
	return statSync(outfile).size;
}

/** The AWS SDK v3 is left to the Lambda runtime (its NODE_PATH); the repository's copy stands in. */
const RUNTIME_NODE_PATH = join(ROOT, 'node_modules');

/**
 * Init time: a fresh Node process (with the functions' `--enable-source-maps`, which reads the
 * map at load) times the evaluation of the bundle, as a cold start does before the handler
 * runs; median of `runs`.
 */
function initMs(file: string, runs: number, sourceMaps = true): number {
	const script = `const t=performance.now();require(${JSON.stringify(file)});process.stdout.write(String(performance.now()-t))`;
	const env = { ...process.env, ...DEPLOYED_ENV, NODE_PATH: RUNTIME_NODE_PATH, NODE_OPTIONS: sourceMaps ? '--enable-source-maps' : '' };
	return median(Array.from({ length: runs }, () => Number(execFileSync(process.execPath, ['-e', script], { env, stdio: ['ignore', 'pipe', 'pipe'] }).toString())));
}

/** Configuration shaped like the stack's, for modules that read it while they load. */
const DEPLOYED_ENV = {
	AWS_REGION: 'eu-central-1',
	TEC_BASE_URL: 'https://sandbox.example.invalid',
	TEC_ENVIRONMENT: 'sandbox',
	TEC_TOKEN_SECRET_ARN: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:tec-token',
	STATE_TABLE: 'tec-state',
	EVENT_BUS_NAME: 'tec-events',
};

/** The init times, or why the module did not load (a row says so instead of ending the bench). */
function init(file: string, runs: number): { ms: number; withoutMaps: number } | { failed: string } {
	try {
		return { ms: initMs(file, runs), withoutMaps: initMs(file, runs, false) };
	} catch (error) {
		const stderr = String((error as { stderr?: unknown }).stderr ?? (error as Error).message);
		return { failed: `init failed: ${stderr.split('\n').find((line) => /Error/.test(line))?.trim() ?? 'see stderr'}` };
	}
}

/** A function's init against an empty handler's (the floor, measured in the same run). */
const INIT_TARGET = 10;

export async function benchBundles(scale: Scale = FULL): Promise<BenchRow[]> {
	const dir = mkdtempSync(join(tmpdir(), 'tec-bundles-'));
	// The baseline: an empty handler bundled and loaded the same way (what any function pays).
	const emptyEntry = join(dir, 'empty.ts');
	writeFileSync(emptyEntry, 'export const handler = async () => undefined;\n');
	const emptyFile = join(dir, 'empty.js');
	const emptySize = await bundle(emptyEntry, emptyFile);
	const emptyMs = initMs(emptyFile, scale.initRuns);
	const rows: BenchRow[] = [];
	for (const [name, entry] of Object.entries(lambdaEntries())) {
		const file = join(dir, `${name}.js`);
		const size = await bundle(entry, file);
		rows.push({
			bench: `Lambda ${name}`,
			measure: 'bundle size ÷ target',
			value: `${(size / 1024).toFixed(0)} KiB`,
			ideal: `${TARGET_KIB} KiB`,
			baseline: `empty handler: ${(emptySize / 1024).toFixed(1)} KiB`,
			ratio: size / 1024 / TARGET_KIB,
			target: `≤ ${TARGET_KIB} KiB`,
			goal: 1,
		});
		const times = init(file, scale.initRuns);
		rows.push({
			bench: `Lambda ${name}`,
			measure: `init (module evaluation, median of ${scale.initRuns}) ÷ an empty handler's init`,
			value: 'failed' in times ? times.failed : `${times.ms.toFixed(0)} ms (${times.withoutMaps.toFixed(0)} ms without source maps)`,
			baseline: `empty handler: ${emptyMs.toFixed(1)} ms`,
			ratio: 'failed' in times ? Number.NaN : times.ms / emptyMs,
			target: `≤ ${INIT_TARGET}`,
			goal: INIT_TARGET,
		});
	}
	return rows;
}
