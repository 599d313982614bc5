import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
/** What the node tests load through n8n's package loader; rebuilt when a source is newer. */
const BUILT_MARKER = join(ROOT, 'dist', 'nodes', 'TestEquipmentCloud', 'TestEquipmentCloud.node.js');
const SOURCES = ['client', 'email', 'nodes', 'credentials', 'scripts'];

function newestSource(dir: string): number {
	let newest = 0;
	if (!existsSync(dir)) return newest;
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name);
		newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
	}
	return newest;
}

/** n8n-core reads these before building any service; without them it writes to $HOME and logs. */
export default function setup(): () => void {
	process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'tec-n8n-'));
	process.env.N8N_LOG_LEVEL ??= 'silent';
	process.env.N8N_DIAGNOSTICS_ENABLED ??= 'false';
	// The Lambda bundles, built once per run and reused by every synth while their inputs stay the same (infra/bundleCache.ts).
	// Each project runs this setup: the first makes the folder, and its teardown removes it.
	const bundles = process.env.TEC_BUNDLE_CACHE ? undefined : mkdtempSync(join(tmpdir(), 'tec-bundle-cache-'));
	if (bundles) process.env.TEC_BUNDLE_CACHE = bundles;

	// The node tests run the BUILT package (as n8n loads it): build once when dist/ is stale.
	const built = existsSync(BUILT_MARKER) ? statSync(BUILT_MARKER).mtimeMs : 0;
	const sources = Math.max(...SOURCES.map((d) => newestSource(join(ROOT, d))), statSync(join(ROOT, 'package.json')).mtimeMs);
	if (built < sources) {
		execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
	}
	return () => {
		if (bundles) rmSync(bundles, { recursive: true, force: true });
	};
}
