/**
 * `npm run test:n8n-oldest`: the built package loaded by the oldest n8n the peer range allows.
 * The full n8n app of that age needs an old Node and ~2 GB, so this installs only n8n's engine
 * (n8n-core with the n8n-workflow it was released with) into .cache/n8n-oldest, puts the packed
 * package beside it, and loads it through n8n-core's own PackageDirectoryLoader: every node and
 * the credential must load and instantiate, and every n8n-workflow export the compiled code uses
 * must exist. One version below the minimum must fail to load, so the stated minimum is the real one.
 * peerDependencies keeps "n8n-workflow": "*" (n8n's verification rule valid-peer-dependencies: the
 * n8n host provides n8n-workflow), so the minimum is stated in the README and proven here.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pkg from '../package.json';

/** The minimum n8n-workflow (the README states it), and the n8n-core release built on it (n8n 1.85). */
export const OLDEST = { workflow: '1.83.0', core: '1.84.0' };
const BELOW = '1.82.0';

const ROOT = join(__dirname, '..');
const CACHE = join(ROOT, '.cache', 'n8n-oldest');
const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });

function install(dir: string, specs: string[]): void {
	if (existsSync(join(dir, 'installed.json'))) return;
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, 'package.json'), '{"private": true}\n');
	npm(['install', '--ignore-scripts', '--legacy-peer-deps', '--no-audit', '--no-fund', '--no-save', ...specs], dir);
	writeFileSync(join(dir, 'installed.json'), `${JSON.stringify(specs)}\n`);
}

/** The packed tarball (what npm would install), unpacked as node_modules/<name> of `dir`. */
function placePackage(dir: string, tarball: string): string {
	const target = join(dir, 'node_modules', pkg.name);
	rmSync(target, { recursive: true, force: true });
	mkdirSync(target, { recursive: true });
	execFileSync('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
	return target;
}

const LOAD = `
const { PackageDirectoryLoader } = require('n8n-core');
const workflow = require('n8n-workflow');
const fs = require('node:fs'), path = require('node:path');
(async () => {
	const dir = process.argv[1];
	const loader = new PackageDirectoryLoader(dir);
	await loader.loadAll();
	const nodes = Object.keys(loader.nodeTypes), credentials = Object.keys(loader.credentialTypes);
	for (const name of nodes) {
		const type = loader.nodeTypes[name].type;
		const d = type.description ?? type.nodeVersions?.[1]?.description;
		if (!d || !d.inputs || !d.outputs || !d.properties) throw new Error(name + ': no description');
	}
	const used = new Set();
	const walk = (p) => { for (const e of fs.readdirSync(p, { withFileTypes: true })) { const f = path.join(p, e.name); if (e.isDirectory()) walk(f); else if (f.endsWith('.js')) for (const m of fs.readFileSync(f, 'utf8').matchAll(/n8n_workflow_1\\.(\\w+)/g)) used.add(m[1]); } };
	walk(path.join(dir, 'dist'));
	const missing = [...used].filter((k) => !(k in workflow));
	process.stdout.write(JSON.stringify({ nodes, credentials, used: [...used].sort(), missing, errors: loader.errors?.length ?? 0 }));
})().catch((e) => { process.stdout.write(JSON.stringify({ error: String(e && e.message || e) })); });
`;

const INSTANTIATE = `
try {
	const dir = process.argv[1];
	const { n8n } = require(dir + '/package.json');
	for (const f of n8n.nodes) { const m = require(dir + '/' + f); for (const C of Object.values(m)) new C(); }
	process.stdout.write(JSON.stringify({ loaded: true }));
} catch (e) { process.stdout.write(JSON.stringify({ loaded: false, error: String(e.message) })); }
`;

function main(): void {
	if (!readFileSync(join(ROOT, 'README.md'), 'utf8').includes(`n8n-workflow >= ${OLDEST.workflow}`)) {
		throw new Error(`The README does not state the minimum this check proves: n8n-workflow >= ${OLDEST.workflow}`);
	}
	const packDir = mkdtempSync(join(tmpdir(), 'tec-oldest-'));
	try {
		const packed = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', packDir], ROOT)) as Array<{ filename: string }>;
		const tarball = join(packDir, packed[0].filename);

		const oldest = join(CACHE, `core-${OLDEST.core}`);
		// zod-to-json-schema releases after n8n-core ${OLDEST.core} import zod/v3, which its zod 3.24 lacks.
		install(oldest, [`n8n-core@${OLDEST.core}`, `n8n-workflow@${OLDEST.workflow}`, 'zod-to-json-schema@3.23.5']);
		const at = placePackage(oldest, tarball);
		const r = JSON.parse(execFileSync(process.execPath, ['-e', LOAD, at], { cwd: oldest, encoding: 'utf8', env: { ...process.env, N8N_USER_FOLDER: packDir } }));
		const expected = { nodes: pkg.n8n.nodes.length, credentials: pkg.n8n.credentials.length };
		if (r.error || r.nodes.length !== expected.nodes || r.credentials.length !== expected.credentials || r.missing.length > 0) {
			throw new Error(`The package does not load in n8n-core ${OLDEST.core} / n8n-workflow ${OLDEST.workflow}: ${JSON.stringify(r)}`);
		}
		process.stdout.write(`n8n-core ${OLDEST.core} + n8n-workflow ${OLDEST.workflow}: loaded ${r.nodes.join(', ')} and ${r.credentials.join(', ')}; n8n-workflow exports used: ${r.used.join(', ')}\n`);

		const below = join(CACHE, `workflow-${BELOW}`);
		install(below, [`n8n-workflow@${BELOW}`]);
		const b = JSON.parse(execFileSync(process.execPath, ['-e', INSTANTIATE, placePackage(below, tarball)], { cwd: below, encoding: 'utf8' }));
		if (b.loaded) throw new Error(`The nodes also load with n8n-workflow ${BELOW}: lower the minimum in peerDependencies and in the README`);
		process.stdout.write(`n8n-workflow ${BELOW} (below the minimum): fails as expected (${b.error})\n`);
	} finally {
		rmSync(packDir, { recursive: true, force: true });
	}
}

main();
