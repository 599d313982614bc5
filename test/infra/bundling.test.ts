import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { build } from 'esbuild';
import { XRAY_RECORDED_SERVICES, bundleHandler, lambdaBuildOptions } from '../../infra/bundling';

/** What the Lambda bundles leave out of the X-Ray SDK (infra/bundling.ts) is what no Lambda uses. */
const ROOT = join(__dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'tec-bundling-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sourcesUnder(folder: string): string[] {
	return readdirSync(folder, { recursive: true, encoding: 'utf8' })
		.filter((f) => f.endsWith('.ts'))
		.map((f) => readFileSync(join(folder, f), 'utf8'));
}

describe('the Lambda bundles and the X-Ray SDK', () => {
	it('keep the recorded fields of every AWS service the Lambdas call that the SDK lists', () => {
		const { services } = JSON.parse(readFileSync(join(ROOT, 'node_modules/aws-xray-sdk-core/dist/lib/resources/aws_whitelist.json'), 'utf8')) as { services: Record<string, unknown> };
		const called = new Set(sourcesUnder(join(ROOT, 'lambdas')).flatMap((source) => [...source.matchAll(/@aws-sdk\/client-([a-z0-9-]+)/g)].map((m) => m[1].replaceAll('-', ''))));
		expect([...called].filter((name) => name in services).sort()).toEqual([...XRAY_RECORDED_SERVICES].sort());
	});

	it('trace inside Lambda: the Tracer loads (sampling left to the trace header) and records a subsegment', async () => {
		const entry = join(dir, 'traced.ts');
		writeFileSync(
			entry,
			`import { loadTracer } from ${JSON.stringify(join(ROOT, 'lambdas/handlers/powertools'))};\n` +
				"export const handler = async () => { const tracer = await loadTracer(); const sub = tracer.getSegment()?.addNewSubsegment('probe'); sub?.close(); return { enabled: tracer.isTracingEnabled(), subsegment: sub?.name }; };\n",
		);
		await bundleHandler(entry, join(dir, 'traced'));
		const script = `require(${JSON.stringify(join(dir, 'traced', 'index.js'))}).handler().then((r) => process.stdout.write(JSON.stringify(r)))`;
		const env = {
			...process.env,
			NODE_PATH: join(ROOT, 'node_modules'),
			AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
			LAMBDA_TASK_ROOT: join(dir, 'traced'),
			AWS_LAMBDA_FUNCTION_NAME: 'traced',
			_X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
			// Segments go to a port where no daemon listens (UDP: nothing waits for an answer).
			AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1:9',
		};
		const out = execFileSync(process.execPath, ['-e', script], { env, encoding: 'utf8' });
		expect(JSON.parse(out)).toEqual({ enabled: true, subsegment: 'probe' });
	});
});

/** Writes `files` (path: text) under `root`. */
function writeTree(root: string, files: Record<string, string>): void {
	for (const [path, text] of Object.entries(files)) {
		mkdirSync(join(root, path, '..'), { recursive: true });
		writeFileSync(join(root, path), text);
	}
}

describe('the Lambda bundles and a package with a nested copy of another version', () => {
	it('take a module of the nested copy from the hoisted copy where it and what it imports are the same code; what differs stays the nested copy\'s', async () => {
		const root = join(dir, 'nested');
		const b = (version: string, comment: string) => ({
			'package.json': JSON.stringify({ name: 'b', version, main: 'index.js' }),
			'index.js': "export { version } from './version.js';\nexport { same } from './same.js';\n",
			'version.js': `export const version = '${version}';\n`,
			// The newer version's module differs in a comment only.
			'same.js': `${comment}export const same = (x) => \`same:\${x}\`;\n`,
		});
		const prefixed = (prefix: string, files: Record<string, string>) => Object.fromEntries(Object.entries(files).map(([k, v]) => [`${prefix}/${k}`, v]));
		writeTree(root, {
			...prefixed('node_modules/b', b('2.0.0', '/** Newer. */\n')),
			...prefixed('node_modules/a/node_modules/b', b('1.0.0', '')),
			'node_modules/a/package.json': JSON.stringify({ name: 'a', version: '1.0.0', main: 'index.js' }),
			'node_modules/a/index.js': "import { version, same } from 'b';\nexport const a = () => [version, same('a')];\n",
			'entry.ts': "import { a } from 'a';\nimport { version, same } from 'b';\nexport const handler = async () => ({ a: a(), b: [version, same('b')] });\n",
		});
		const result = await build(lambdaBuildOptions(join(root, 'entry.ts'), join(root, 'out', 'index.js')));
		const inputs = Object.keys(result.metafile?.inputs ?? {}).map((f) => f.replaceAll('\\', '/').replace(/^.*?node_modules\//, 'node_modules/'));
		expect(inputs.filter((f) => f.includes('/b/')).sort()).toEqual([
			'node_modules/a/node_modules/b/index.js',
			'node_modules/a/node_modules/b/version.js',
			'node_modules/b/index.js',
			'node_modules/b/same.js',
			'node_modules/b/version.js',
		]);
		const { handler } = createRequire(join(root, 'out', 'index.js'))(join(root, 'out', 'index.js')) as { handler: () => Promise<unknown> };
		expect(await handler()).toEqual({ a: ['1.0.0', 'same:a'], b: ['2.0.0', 'same:b'] });
	});

	it("the e-mail functions' bundles carry one copy of Powertools commons but for Idempotency's own version", async () => {
		const result = await build(lambdaBuildOptions(join(ROOT, 'lambdas/handlers/digestEmail.ts'), join(dir, 'digest', 'index.js')));
		const nested = Object.keys(result.metafile?.inputs ?? {}).filter((f) => /idempotency\/node_modules\/@aws-lambda-powertools\/commons\//.test(f));
		// version.js differs (2.35.0, the user agent's), and the two modules that read it stay with it.
		expect(nested.map((f) => f.replace(/^.*\/commons\//, '')).sort()).toEqual(['lib/esm/awsSdkUtils.js', 'lib/esm/index.js', 'lib/esm/version.js']);
	});
});
