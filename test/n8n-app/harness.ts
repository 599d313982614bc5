/**
 * Drives the real n8n app (installed by ./install.ts, run with Node 24) the way a user does:
 * this package packed with `npm pack` and installed into `<N8N_USER_FOLDER>/.n8n/nodes`, the
 * sandbox started with `npm run sandbox`, credentials and workflows imported with n8n's CLI,
 * workflows executed with `n8n execute`, and `n8n start` for the editor and webhooks.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { createServer } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, type N8nApp } from './install';

export const PACKAGE_NAME = 'n8n-nodes-test-equipment-cloud';
export const NODE_TYPE = `${PACKAGE_NAME}.testEquipmentCloud`;
export const CREDENTIAL_ID = '1';
export const CREDENTIAL_NAME = 'Test Equipment Cloud sandbox';

export interface Result {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** Runs a command to its end (no shell), collecting its output; rejects only if it cannot start. */
export function exec(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Result> {
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, { cwd: options.cwd ?? ROOT, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (c) => (stdout += c));
		child.stderr.on('data', (c) => (stderr += c));
		const timer = options.timeoutMs
			? setTimeout(() => {
					stderr += `\n[harness] killed after ${options.timeoutMs} ms`;
					child.kill('SIGKILL');
				}, options.timeoutMs)
			: undefined;
		child.on('error', reject);
		child.on('close', (code) => {
			if (timer) clearTimeout(timer);
			resolve({ code, stdout, stderr });
		});
	});
}

export async function execOk(what: string, command: string, args: string[], options: Parameters<typeof exec>[2] = {}): Promise<Result> {
	const r = await exec(command, args, options);
	if (r.code !== 0) throw new Error(`${what} failed (exit ${r.code}): ${command} ${args.join(' ')}\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`);
	return r;
}

export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as { port: number };
			server.close(() => resolve(port));
		});
	});
}

function log(message: string): void {
	process.stderr.write(`[n8n-app] ${message}\n`);
}

// ---- this package, as a user installs it ------------------------------------------------------

/** `npm run build` and `npm pack` into `dir`; returns the tarball's path. */
export async function packPackage(dir: string): Promise<string> {
	mkdirSync(dir, { recursive: true });
	log('building and packing this package (npm run build, npm pack)');
	await execOk('npm run build', 'npm', ['run', '--silent', 'build']);
	const r = await execOk('npm pack', 'npm', ['pack', '--json', '--pack-destination', dir]);
	const [info] = JSON.parse(r.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
	return join(dir, info.filename);
}

/**
 * A fresh n8n user folder with the tarball installed the way n8n's docs describe a manual
 * install of a community node: `npm install <package>` inside `~/.n8n/nodes`.
 */
export async function newUserFolder(tarball: string, app: N8nApp, prefix = 'tec-n8n-app-'): Promise<string> {
	const userFolder = mkdtempSync(join(tmpdir(), prefix));
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	mkdirSync(nodesDir, { recursive: true });
	writeFileSync(join(nodesDir, 'package.json'), `${JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2)}\n`);
	log(`installing ${tarball} into ${nodesDir} (npm install <tarball>)`);
	// With the n8n host's Node (24) first on PATH, as on a machine that runs this n8n.
	const env = { ...cleanNpmEnv(), PATH: `${join(app.nodeDir, 'bin')}:${process.env.PATH ?? ''}`, npm_config_nodedir: app.nodeDir };
	await execOk('npm install of the packed package', 'npm', ['install', tarball, '--no-audit', '--no-fund'], { cwd: nodesDir, env });
	if (!existsSync(join(nodesDir, 'node_modules', PACKAGE_NAME, 'package.json'))) {
		throw new Error(`npm install did not put ${PACKAGE_NAME} into ${nodesDir}/node_modules`);
	}
	return userFolder;
}

function cleanNpmEnv(): NodeJS.ProcessEnv {
	const env = { ...process.env };
	for (const k of Object.keys(env)) if (k.startsWith('npm_')) delete env[k];
	return env;
}

// ---- the n8n CLI ------------------------------------------------------------------------------

export class N8n {
	constructor(
		readonly app: N8nApp,
		readonly userFolder: string,
		readonly extraEnv: NodeJS.ProcessEnv = {},
	) {}

	env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
		return {
			...cleanNpmEnv(),
			PATH: `${join(this.app.nodeDir, 'bin')}:${process.env.PATH ?? ''}`,
			N8N_USER_FOLDER: this.userFolder,
			// n8n's CLI prints its results (list, execute --rawOutput) through its logger at level info.
			N8N_LOG_LEVEL: 'info',
			N8N_DIAGNOSTICS_ENABLED: 'false',
			N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
			N8N_TEMPLATES_ENABLED: 'false',
			N8N_PERSONALIZATION_ENABLED: 'false',
			N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
			N8N_SECURE_COOKIE: 'false',
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			NODE_ENV: 'production',
			...this.extraEnv,
			...extra,
		};
	}

	/** One n8n CLI command, to its end. */
	cli(args: string[], timeoutMs = 180_000, extraEnv: NodeJS.ProcessEnv = {}): Promise<Result> {
		return exec(this.app.node, [this.app.n8nBin, ...args], { cwd: this.userFolder, env: this.env(extraEnv), timeoutMs });
	}

	async cliOk(args: string[], timeoutMs?: number): Promise<Result> {
		const r = await this.cli(args, timeoutMs);
		if (r.code !== 0) throw new Error(`n8n ${args.join(' ')} failed (exit ${r.code}):\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`);
		return r;
	}

	async importCredential(sandbox: SandboxProcess, token = sandbox.sandboxToken): Promise<void> {
		const file = join(this.userFolder, 'credential.json');
		writeFileSync(
			file,
			JSON.stringify([
				{
					id: CREDENTIAL_ID,
					name: CREDENTIAL_NAME,
					type: 'testEquipmentCloudApi',
					// Plain data: import:credentials encrypts it with the instance's key.
					data: { accessToken: token, environment: 'sandbox', sandboxBaseUrl: sandbox.url, productionBaseUrl: '' },
				},
			]),
		);
		await this.cliOk(['import:credentials', `--input=${file}`]);
	}

	/** Imports credentials of any type (plain data: import:credentials encrypts it with the instance's key). */
	async importCredentials(credentials: Array<{ id: string; name: string; type: string; data: Record<string, unknown> }>): Promise<void> {
		const file = join(this.userFolder, 'credentials-import.json');
		writeFileSync(file, JSON.stringify(credentials));
		await this.cliOk(['import:credentials', `--input=${file}`]);
		rmSync(file, { force: true });
	}

	/** Imports workflows with the given ids in one CLI call (`import:workflow --separate`). */
	async importWorkflows(workflows: Record<string, WorkflowJson>): Promise<void> {
		const dir = mkdtempSync(join(this.userFolder, 'import-'));
		for (const [id, workflow] of Object.entries(workflows)) writeFileSync(join(dir, `${id}.json`), JSON.stringify({ ...workflow, id }));
		await this.cliOk(['import:workflow', '--separate', `--input=${dir}`]);
		rmSync(dir, { recursive: true, force: true });
	}

	/** `n8n execute --id <id> --rawOutput`: the run's data, parsed from the JSON it prints. */
	async execute(id: string): Promise<ExecuteOutcome> {
		// The run's JSON is printed through n8n's logger at level info.
		const r = await this.cli(['execute', `--id=${id}`, '--rawOutput'], 180_000, { N8N_LOG_LEVEL: 'info' });
		return parseExecuteOutput(r);
	}

	/** `n8n start`, resolved once the editor answers on /healthz. */
	async start(): Promise<N8nServer> {
		const port = await freePort();
		const brokerPort = await freePort();
		const url = `http://127.0.0.1:${port}`;
		const child = spawn(this.app.node, [this.app.n8nBin, 'start'], {
			cwd: this.userFolder,
			env: this.env({
				N8N_PORT: String(port),
				N8N_RUNNERS_BROKER_PORT: String(brokerPort),
				WEBHOOK_URL: `${url}/`,
				N8N_EDITOR_BASE_URL: `${url}/`,
				N8N_LOG_LEVEL: 'info',
			}),
			stdio: ['ignore', 'pipe', 'pipe'],
			detached: true,
		});
		const server = new N8nServer(child, url);
		await server.ready();
		return server;
	}
}

export interface WorkflowJson {
	name: string;
	nodes: Array<{ name: string; type: string; parameters: Record<string, unknown>; credentials?: Record<string, { id: string; name: string }>; [k: string]: unknown }>;
	connections: Record<string, unknown>;
	[k: string]: unknown;
}

export function readWorkflow(path: string): WorkflowJson {
	return JSON.parse(readFileSync(path, 'utf8')) as WorkflowJson;
}

export function exampleFiles(): string[] {
	return readdirSync(join(ROOT, 'examples'))
		.filter((f) => f.endsWith('.json'))
		.sort()
		.map((f) => join(ROOT, 'examples', f));
}

export interface NodeRun {
	executionStatus?: string;
	error?: { message?: string; description?: string; httpCode?: string; name?: string };
	data?: { main: Array<Array<{ json: Record<string, unknown>; binary?: Record<string, BinaryRef>; pairedItem?: unknown }> | null> };
}
export interface BinaryRef {
	data?: string;
	id?: string;
	mimeType?: string;
	fileName?: string;
	fileSize?: string;
	fileExtension?: string;
}

export interface ExecuteOutcome {
	result: Result;
	/** The run data n8n printed (undefined when it printed none). */
	run?: {
		status?: string;
		data: { resultData: { runData: Record<string, NodeRun[]>; error?: { message?: string; description?: string; httpCode?: string }; lastNodeExecuted?: string } };
	};
	/** What `execute` printed when the workflow failed (n8n prints the error, not the run). */
	failure?: string;
}

/** Finds the JSON document `n8n execute --rawOutput` printed among n8n's log lines. */
export function parseExecuteOutput(result: Result): ExecuteOutcome {
	const lines = result.stdout.split('\n');
	const start = lines.findIndex((l) => l === '{');
	if (start >= 0) {
		let end = lines.length;
		while (end > start && lines[end - 1] !== '}') end--;
		try {
			return { result, run: JSON.parse(lines.slice(start, end).join('\n')) };
		} catch {
			/* not the document */
		}
	}
	return { result, failure: `${result.stdout}\n${result.stderr}`.trim() };
}

/** Items of the first run of a node's first output. */
export function itemsOf(outcome: ExecuteOutcome, node: string) {
	const runs = outcome.run?.data.resultData.runData[node];
	if (!runs) throw new Error(`node "${node}" did not run: ${outcome.failure ?? JSON.stringify(Object.keys(outcome.run?.data.resultData.runData ?? {}))}`);
	return runs[0]?.data?.main[0] ?? [];
}

/** The bytes of a binary item: inline base64, or n8n's filesystem store under the user folder. */
export function storedBinary(userFolder: string, ref: BinaryRef): Buffer {
	if (ref.id?.startsWith('filesystem-v2:')) return readFileSync(join(userFolder, '.n8n', 'storage', ref.id.slice('filesystem-v2:'.length)));
	if (ref.id?.startsWith('filesystem:')) return readFileSync(join(userFolder, '.n8n', 'binaryData', ref.id.slice('filesystem:'.length)));
	return Buffer.from(String(ref.data), 'base64');
}

// ---- n8n start ----------------------------------------------------------------------------------

export class N8nServer {
	output = '';
	private exited?: number | null;
	cookie = '';

	constructor(
		readonly child: ChildProcess,
		readonly url: string,
	) {
		child.stdout?.on('data', (c) => (this.output += c));
		child.stderr?.on('data', (c) => (this.output += c));
		child.on('exit', (code) => (this.exited = code));
	}

	async ready(timeoutMs = 180_000): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		while (Date.now() < deadline) {
			if (this.exited !== undefined) throw new Error(`n8n start exited (${this.exited}) before it was ready:\n${this.output.slice(-4000)}`);
			try {
				const r = await fetch(`${this.url}/healthz/readiness`);
				if (r.ok) return;
			} catch {
				/* not listening yet */
			}
			await new Promise((r) => setTimeout(r, 1000));
		}
		throw new Error(`n8n start did not answer /healthz/readiness within ${timeoutMs} ms:\n${this.output.slice(-4000)}`);
	}

	/** A REST call with the owner's session cookie. */
	async rest<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T; headers: Headers }> {
		const r = await fetch(`${this.url}/rest${path}`, {
			method,
			headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(this.cookie ? { cookie: this.cookie } : {}), 'browser-id': 'tec-tests' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await r.text();
		let parsed: unknown = text;
		try {
			parsed = JSON.parse(text);
		} catch {
			/* not JSON */
		}
		const setCookie = r.headers.get('set-cookie');
		if (setCookie) {
			const auth = /n8n-auth=[^;]+/.exec(setCookie);
			if (auth) this.cookie = auth[0];
		}
		return { status: r.status, body: parsed as T, headers: r.headers };
	}

	/**
	 * What the editor's "Execute workflow" button does: a manual run of the saved workflow from its
	 * trigger (the trigger's own manual mode: a Schedule Trigger fires at once, a polling trigger
	 * fetches a real record), then the finished execution's run data as n8n recorded it.
	 */
	async runFromTrigger(workflowId: string, trigger: string, n8nDir: string, timeoutMs = 180_000): Promise<RecordedExecution> {
		const started = await this.rest<{ data: { executionId?: string } }>('POST', `/workflows/${workflowId}/run`, { triggerToStartFrom: { name: trigger } });
		const executionId = started.body?.data?.executionId;
		if (started.status !== 200 || !executionId) throw new Error(`POST /rest/workflows/${workflowId}/run: ${started.status} ${JSON.stringify(started.body)}`);
		const { parse } = createRequire(join(n8nDir, 'package.json'))('flatted') as { parse: (s: string) => unknown };
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const r = await this.rest<{ data: { data: string; status: string; finished: boolean } }>('GET', `/executions/${executionId}`);
			const status = r.body?.data?.status;
			if (r.status === 200 && status && !['new', 'running', 'waiting'].includes(status)) {
				return { id: executionId, status, data: parse(r.body.data.data) as RecordedExecution['data'] };
			}
			if (Date.now() > deadline) throw new Error(`execution ${executionId} of ${workflowId} did not finish within ${timeoutMs} ms (last: ${r.status} ${status})`);
			await new Promise((done) => setTimeout(done, 500));
		}
	}

	/** Creates the owner account (first start) or logs in with it. */
	async signIn(owner = OWNER): Promise<void> {
		const setup = await this.rest('POST', '/owner/setup', owner);
		if (setup.status === 200) return;
		const login = await this.rest('POST', '/login', { emailOrLdapLoginId: owner.email, password: owner.password });
		if (login.status !== 200) throw new Error(`could not set up or log in the owner: ${setup.status} ${JSON.stringify(setup.body)} / ${login.status} ${JSON.stringify(login.body)}`);
	}

	async stop(): Promise<void> {
		if (this.exited !== undefined || this.child.pid === undefined) return;
		const exited = new Promise<void>((r) => this.child.once('exit', () => r()));
		process.kill(-this.child.pid, 'SIGTERM');
		const timer = setTimeout(() => {
			if (this.exited === undefined && this.child.pid) process.kill(-this.child.pid, 'SIGKILL');
		}, 20_000);
		await exited;
		clearTimeout(timer);
	}
}

export interface RecordedExecution {
	id: string;
	status: string;
	data: { resultData: { runData: Record<string, NodeRun[]>; error?: { message?: string; description?: string }; lastNodeExecuted?: string } };
}

export const OWNER = { email: 'owner@example.com', firstName: 'Tess', lastName: 'Owner', password: 'Sandbox-Owner-1' };

// ---- the sandbox (npm run sandbox) ---------------------------------------------------------------

export interface SandboxProcess {
	url: string;
	apiUrl: string;
	sandboxToken: string;
	adminUrl: string;
	stop(): Promise<void>;
	/** A request to the service's API with the sandbox token (GET unless told). */
	api<T = unknown>(path: string, method?: string, body?: unknown): Promise<T>;
	admin(method: string, path: string, body?: unknown): Promise<unknown>;
}

/** `npm run sandbox -- --port <port, 0: any free one> --quiet`; resolves with the JSON object of its first line. */
export async function startSandbox(extraArgs: string[] = [], port = 0): Promise<SandboxProcess> {
	const child = spawn('npm', ['run', '--silent', 'sandbox', '--', '--port', String(port), '--quiet', ...extraArgs], {
		cwd: ROOT,
		stdio: ['ignore', 'pipe', 'pipe'],
		detached: true,
	});
	let stderr = '';
	child.stderr.on('data', (c) => (stderr += c));
	const first = await new Promise<string>((resolve, reject) => {
		const rl = createInterface({ input: child.stdout });
		rl.once('line', (line) => resolve(line));
		child.once('exit', (code) => reject(new Error(`the sandbox exited (${code}) before printing its address: ${stderr}`)));
	});
	const info = JSON.parse(first) as { url: string; apiUrl: string; sandboxToken: string; adminUrl: string };
	child.stdout.resume();
	const exited = new Promise<void>((r) => child.once('exit', () => r()));
	return {
		...info,
		async stop() {
			if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGTERM');
			await exited;
		},
		async api<T>(path: string, method = 'GET', body?: unknown): Promise<T> {
			let r: Response;
			for (let attempt = 1; ; attempt++) {
				r = await fetch(`${info.apiUrl}${path}`, {
					method,
					headers: { authorization: `Token ${info.sandboxToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
					body: body === undefined ? undefined : JSON.stringify(body),
				});
				// The test's own checks share the token's limit (5 requests per second) with n8n's.
				if (r.status !== 429 || attempt === 10) break;
				await new Promise((done) => setTimeout(done, 1000 * Number(r.headers.get('retry-after') ?? 1)));
			}
			if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
			const text = await r.text();
			return (text ? JSON.parse(text) : undefined) as T;
		},
		async admin(method: string, path: string, body?: unknown) {
			const r = await fetch(`${info.adminUrl}${path}`, {
				method,
				headers: body === undefined ? {} : { 'content-type': 'application/json' },
				body: body === undefined ? undefined : JSON.stringify(body),
			});
			if (!r.ok) throw new Error(`admin ${method} ${path}: ${r.status} ${await r.text()}`);
			const text = await r.text();
			return text ? JSON.parse(text) : undefined;
		},
	};
}

export function removeDir(dir: string): void {
	if (process.env.KEEP_N8N_APP_RUN) {
		log(`kept ${dir} (KEEP_N8N_APP_RUN is set)`);
		return;
	}
	rmSync(dir, { recursive: true, force: true });
}
