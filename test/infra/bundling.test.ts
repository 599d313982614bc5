import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { XRAY_RECORDED_SERVICES, bundleHandler } from '../../infra/bundling';

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
