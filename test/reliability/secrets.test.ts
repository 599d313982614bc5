/**
 * Secrets (issue 8): representative flows of every face run with recognisable tokens (created
 * through the sandbox's admin API, then searched for verbatim), successes and failures alike.
 * The test fails if a token appears in any captured log line, error (message, description,
 * stack, JSON), event, n8n execution data, sandbox log line, state file, temporary file written
 * during the test, or snapshot file. The credential's token field is a password field.
 * The CDK template is covered by test/infra/stack.test.ts ("no template holds a secret value or
 * anything token-like"): the stack never receives the token (it is put into the secret after
 * deployment), so there is nothing to mark there.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TestEquipmentCloudApi } from '../../credentials/TestEquipmentCloudApi.credentials';
import { ServiceError } from '../../client';
import { DEVICE } from '../../sandbox/properties';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { handler as overdue } from '../../lambdas/handlers/overdueDevices';
import { handler as results } from '../../lambdas/handlers/testResults';
import { LocalAws, startDynamo, useLambdaEnvironment } from '../support/localAws';
import { credentialsFor } from '../node/helpers';
import type { IDataObject } from 'n8n-workflow';
import { runNode, type RunNodeOptions } from '../support/n8n';
import { NO_BACKFILL, ROOT, START, pollerClient } from './support';

const run = promisify(execFile);
const started = Date.now();
let sandbox: Sandbox;
let aws: LocalAws;
let dynamo: Awaited<ReturnType<typeof startDynamo>>;
const sandboxLog: string[] = [];
/** Everything captured, by where it came from. */
const captured: Array<{ where: string; text: string }> = [];
const capture = (where: string, value: unknown) =>
	captured.push({ where, text: typeof value === 'string' ? value : (JSON.stringify(value, (_k, v) => (v instanceof Error ? { ...v, message: v.message, stack: v.stack } : v)) ?? String(value)) });
const tokens: Array<{ label: string; token: string }> = [];
const work = mkdtempSync(join(tmpdir(), 'tec-secrets-'));

/** A token made the way a user makes one: through the (admin) API, then searched for verbatim. */
async function markedToken(label: string, body: Record<string, unknown> = {}): Promise<{ id: number; token: string }> {
	const res = await fetch(`${sandbox.adminUrl}/tokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ label, ...body }) });
	const created = (await res.json()) as { id: number; token: string };
	expect(created.token).toMatch(/^[0-9a-f]{40}$/);
	tokens.push({ label, token: created.token });
	return created;
}

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, size: { devices: 60, customers: 4, testResults: 30 }, log: (l) => sandboxLog.push(l) });
	aws = await new LocalAws().start();
	dynamo = await startDynamo('tec-secrets-state');
});
afterAll(async () => {
	await sandbox.stop();
	await aws.stop();
	await dynamo.stop();
});

describe('no token leaves its place', () => {
	it('the node through n8n-core: successes, service errors, a deleted token, continueOnFail', async () => {
		const { token } = await markedToken('secrets-node');
		const credentials = credentialsFor(sandbox, token);
		const flows: Array<[string, IDataObject, Partial<RunNodeOptions>?]> = [
			['getAll', { resource: 'device', operation: 'getAll', returnAll: true }],
			['get 404', { resource: 'device', operation: 'get', deviceId: { __rl: true, mode: 'id', value: '99999' } }],
			['create 400', { resource: 'device', operation: 'create', propertyValues: { property: [{ key: DEVICE.lastTested, value: 'yesterday' }] } }],
			['get continueOnFail', { resource: 'device', operation: 'get', deviceId: { __rl: true, mode: 'id', value: '={{ $json.id }}' } }, { nodeSettings: { onError: 'continueRegularOutput' }, inputItems: [{ json: { id: 1 } }, { json: { id: 99999 } }, { json: { id: '../x' } }] }],
		];
		for (const [name, parameters, extra] of flows) {
			const r = await runNode({ credentials, parameters, ...(extra ?? {}) });
			capture(`node ${name}: run data`, r.run);
			capture(`node ${name}: error`, r.error ? { message: r.error.message, description: r.error.description, stack: r.error.stack, json: r.error } : null);
		}
		sandbox.faults.add({ kind: 'status', status: 500, count: 1 });
		const failed = await runNode({ credentials, parameters: { resource: 'device', operation: 'create', propertyValues: { property: [{ key: DEVICE.designation, value: 'x' }] } } });
		expect(failed.error?.message).toMatch(/HTTP 500/);
		capture('node create 500: error', { message: failed.error?.message, stack: failed.error?.stack, json: failed.error, run: failed.run });
		sandbox.faults.clear();

		// A deleted token: 401, the error names the cause, never the token.
		const gone = await markedToken('secrets-node-deleted');
		await fetch(`${sandbox.adminUrl}/tokens/${gone.id}`, { method: 'DELETE' });
		const denied = await runNode({ credentials: credentialsFor(sandbox, gone.token), parameters: { resource: 'device', operation: 'getAll', limit: 1 } });
		expect(denied.error).toMatchObject({ httpCode: '401' });
		capture('node 401: error', { message: denied.error?.message, description: denied.error?.description, stack: denied.error?.stack, json: denied.error, run: denied.run });
		// The admin listing shows tokens without their values.
		capture('admin token list', await (await fetch(`${sandbox.adminUrl}/tokens`)).text());
	});

	it('the client core: every error kind it builds', async () => {
		const { token } = await markedToken('secrets-client');
		const client = pollerClient(sandbox, token, { retry: { maxAttempts: 2, baseDelayMs: 10, maxTotalWaitMs: 100 } });
		for (const f of [{ kind: 'drop' }, { kind: 'nonJson' }, { kind: 'truncate' }, { kind: 'status', status: 503 }] as const) {
			sandbox.faults.add({ ...f, count: 2 });
			const error = await client.call('device.get', { pathParams: { id: 1 } }).then(() => undefined, (e: unknown) => e);
			expect(error).toBeInstanceOf(ServiceError);
			capture(`client ${f.kind}: error`, { error, message: (error as Error).message, stack: (error as Error).stack, cause: String((error as Error).cause) });
			sandbox.faults.clear();
		}
	});

	it('the Lambda handlers (token from Secrets Manager): a run with retries, a failed run, events', async () => {
		const { token } = await markedToken('secrets-lambda');
		const ARN = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:tec-secrets-AbCdEf';
		aws.secrets.set(ARN, JSON.stringify({ token }));
		useLambdaEnvironment({ baseUrl: sandbox.url, secretArn: ARN, table: dynamo.table, bus: 'tec-secrets', aws, dynamoUrl: dynamo.url });
		const context = { awsRequestId: 'req-secrets', getRemainingTimeInMillis: () => 120_000, functionName: 'test' } as unknown as Context;
		const lines: string[] = [];
		const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) => vi.spyOn(console, m).mockImplementation((...a: unknown[]) => void lines.push(a.map(String).join(' '))));
		const out = vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => (lines.push(String(c)), true));
		const err = vi.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => (lines.push(String(c)), true));
		try {
			sandbox.faults.add({ kind: 'status', status: 503, count: 2 });
			expect((await overdue({}, context)).complete).toBe(true);
			expect((await results({}, context)).complete).toBe(true);
			sandbox.account.license = 'expired';
			const failure = await overdue({}, context).then(() => undefined, (e: Error) => e);
			expect(failure?.message).toMatch(/licence/);
			capture('lambda failure', { message: failure?.message, stack: failure?.stack, json: failure });
		} finally {
			sandbox.account.license = 'active';
			sandbox.faults.clear();
			for (const s of [...spies, out, err]) s.mockRestore();
		}
		expect(lines.some((l) => l.includes('Retrying a request'))).toBe(true);
		capture('lambda logs', lines.join('\n'));
		capture('events (PutEvents entries)', aws.accepted);
	});

	it('the `npm start` runner (child process): a cycle with retries, a failed cycle, the state file', async () => {
		const { token } = await markedToken('secrets-runner');
		const state = join(work, 'runner-state.json');
		const env = { ...process.env, ...NO_BACKFILL, TEC_BASE_URL: sandbox.url, TEC_TOKEN: token };
		sandbox.faults.add({ kind: 'status', status: 429, count: 2 });
		const ok = await run(process.execPath, [...START, '--once', '--state', state], { cwd: ROOT, env });
		sandbox.faults.clear();
		expect(ok.stdout).toContain('Device Overdue');
		expect(ok.stderr).toContain('Retrying a request');
		sandbox.account.license = 'expired427';
		// A failed run: `--once` exits 1 (documented), with the cause on stderr.
		const failed = await run(process.execPath, [...START, '--once', '--state', state], { cwd: ROOT, env })
			.then(
				(r) => ({ ...r, code: 0 }),
				(e: { stdout: string; stderr: string; code: number }) => e,
			)
			.finally(() => {
				sandbox.account.license = 'active';
			});
		expect(failed.code).toBe(1);
		expect(failed.stderr).toContain('A poll run failed');
		capture('runner stdout', ok.stdout + failed.stdout);
		capture('runner stderr', ok.stderr + failed.stderr);
		// A bad base URL: the refusal names the variable, not the token.
		const refused = await run(process.execPath, [...START, '--once', '--state', state], { cwd: ROOT, env: { ...env, TEC_BASE_URL: 'http://tec.example.com' } }).then(
			(r) => r,
			(e: { stdout: string; stderr: string; code: number }) => e,
		);
		expect(refused.stderr).toMatch(/must use https/);
		capture('runner refusal', refused.stdout + refused.stderr);
		expect(existsSync(state)).toBe(true);
	}, 60_000);

	it('no marked token in anything captured, the sandbox log, files written, or snapshots', () => {
		expect(tokens.length).toBeGreaterThanOrEqual(5);
		capture('sandbox log', sandboxLog.join('\n'));
		expect(sandboxLog.length).toBeGreaterThan(20);
		const files = [
			...walk(work),
			...walk(process.env.N8N_USER_FOLDER ?? work),
			...walk(tmpdir(), 2).filter((f) => safeMtime(f) >= started),
			...walk(join(ROOT, 'test')).filter((f) => f.includes('__snapshots__')),
			...walk(join(ROOT, '.state')),
		];
		for (const f of new Set(files)) {
			try {
				if (statSync(f).size > 20 * 1024 * 1024) continue;
				captured.push({ where: `file ${f}`, text: readFileSync(f, 'latin1') });
			} catch {
				/* unreadable, or gone since the walk (another test's lock or temporary file): not ours */
			}
		}
		const leaks = captured.flatMap(({ where, text }) => tokens.filter((t) => text.includes(t.token)).map((t) => `${t.label} in ${where}`));
		expect(leaks).toEqual([]);
		console.info(`secrets: ${tokens.length} marked tokens, ${captured.length} captures (${files.length} files) scanned, ${leaks.length} leaks`);
		// The scan can fail: a capture holding a token is found.
		expect([{ where: 'probe', text: `x${tokens[0].token}x` }].flatMap(({ text }) => tokens.filter((t) => text.includes(t.token)))).toHaveLength(1);
	});

	it('the n8n credential keeps the token in a password field', () => {
		const field = new TestEquipmentCloudApi().properties.find((p) => p.name === 'accessToken');
		expect(field).toMatchObject({ type: 'string', typeOptions: { password: true } });
	});
});

function safeMtime(file: string): number {
	try {
		return statSync(file).mtimeMs;
	} catch {
		return 0;
	}
}

/** Files under `dir` (to `depth` levels), skipping what cannot be read. */
function walk(dir: string, depth = 8): string[] {
	if (depth < 0 || !existsSync(dir)) return [];
	let entries;
	try {
		entries = readdirSync(dir, { withFileTypes: true });
	} catch {
		return [];
	}
	return entries.flatMap((e) => {
		const path = join(dir, e.name);
		if (e.isDirectory()) return e.name === 'node_modules' ? [] : walk(path, depth - 1);
		return e.isFile() ? [path] : [];
	});
}
