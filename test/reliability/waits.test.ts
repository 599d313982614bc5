/**
 * Waits are bounded by the caller's budget. A front (test/support/front.ts) answers the first
 * request with 429 and a Retry-After of seconds (a day), hours (7200 s) or an HTTP date a day
 * ahead: every face fails at once with an error naming the wait the service asked for, and the
 * next caller with the same token is not held up (the shared pacer was not parked). A Retry-After
 * inside the budget is waited out.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pacer, ServiceClient, ServiceError, describeWait, parseBaseUrl, sharedPacers, tokenPacingKey } from '../../client';
import { connectService, systemClock, undiciRequestFn } from '../../lambdas/adapters/undiciService';
import { readConfig } from '../../lambdas/config';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { credentialsFor } from '../node/helpers';
import { startFront, type Front } from '../support/front';
import { withRecordedWaits } from '../support/instantWaits';
import { runNode, runPoll } from '../support/n8n';
import { recordingWaits } from '../support/virtualClock';
import { FAST_RETRY, NO_BACKFILL, ROOT, START, pollerClient } from './support';

const exec = promisify(execFile);
let sandbox: Sandbox;
let front: Front;
beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, size: { devices: 30, customers: 3, testResults: 10 } });
	front = await startFront(sandbox.url);
});
afterAll(async () => {
	await front.stop();
	await sandbox.stop();
});

const DAY_AHEAD = () => new Date(Date.now() + 86_400_000).toUTCString();
const CASES = [
	{ name: 'seconds (a day)', value: () => '86400', shown: /asked to wait 24 h before retrying \(Retry-After\)/ },
	{ name: 'hours (7200 s)', value: () => '7200', shown: /asked to wait 2 h before retrying \(Retry-After\)/ },
	{ name: 'an HTTP date a day ahead', value: DAY_AHEAD, shown: /asked to wait until \w{3}, \d{2} \w{3} \d{4} [\d:]{8} GMT \(24 h\) before retrying \(Retry-After\)/ },
];
const observed: string[] = [];
/** How long a Retry-After beyond the budget pauses the token: no longer than a plain 429 (client/client.ts). */
const PLAIN_429_PAUSE_MS = 1000;

describe('a Retry-After beyond the budget fails at once, naming the wait; the next caller is not held up', () => {
	it.each(CASES)('$name', async ({ name, value, shown }) => {
		const row: string[] = [];
		// The client core as the pollers and Lambdas use it (retry budget 2 s).
		{
			const token = sandbox.account.createToken().token;
			front.rule = { kind: 'retryAfter', value: value(), times: 1 };
			const clock = recordingWaits(systemClock);
			const started = Date.now();
			const error = await pollerClient(sandbox, token, { baseUrl: front.url, retry: FAST_RETRY, clock }).call('device.get', { pathParams: { id: 1 } }).catch((e: unknown) => e);
			const ms = Date.now() - started;
			expect(error).toBeInstanceOf(ServiceError);
			expect((error as Error).message).toMatch(shown);
			expect((error as Error).message).toMatch(/longer than the retry budget of 2 s; try again later/);
			expect(clock.waits, 'waits before the error').toEqual([]);
			clock.waits.length = 0;
			const next = Date.now();
			await pollerClient(sandbox, token, { baseUrl: front.url, retry: FAST_RETRY, clock }).call('device.get', { pathParams: { id: 1 } });
			const nextMs = Date.now() - next;
			expect(Math.max(0, ...clock.waits), 'the next caller with the same token waits no longer than the pause of a plain 429').toBeLessThanOrEqual(PLAIN_429_PAUSE_MS);
			row.push(`error in ${ms} ms; next call ${nextMs} ms`);
		}
		// The node (Max Retry Wait 4 s), twice with the same token in one process.
		{
			const token = sandbox.account.createToken().token;
			const credentials = credentialsFor(sandbox, token, { sandboxBaseUrl: front.url });
			const parameters = { resource: 'device', operation: 'get', deviceId: { __rl: true, mode: 'id', value: '1' }, options: { maxRetryWait: 4 } };
			front.rule = { kind: 'retryAfter', value: value(), times: 1 };
			const started = Date.now();
			const { result: first, waits } = await withRecordedWaits(async () => await runNode({ credentials, parameters }));
			const ms = Date.now() - started;
			expect(first.error?.name).toBe('NodeApiError');
			expect(first.error?.message).toMatch(/^Too many requests: the limit is 5 requests per second per access token \(HTTP 429\): the service asked to wait/);
			expect(first.error?.message).toMatch(shown);
			expect(waits, 'waits before the error').toEqual([]);
			const next = Date.now();
			const { result: second, waits: nextWaits } = await withRecordedWaits(async () => await runNode({ credentials, parameters }));
			const nextMs = Date.now() - next;
			expect(second.error).toBeUndefined();
			expect(Math.max(0, ...nextWaits), 'the next run with the same token waits no longer than the pause of a plain 429').toBeLessThanOrEqual(PLAIN_429_PAUSE_MS);
			row.push(`error in ${ms} ms; next run ${nextMs} ms`);
		}
		// The trigger's poll.
		{
			const token = sandbox.account.createToken().token;
			front.rule = { kind: 'retryAfter', value: value(), times: 1 };
			const started = Date.now();
			const { result: r, waits } = await withRecordedWaits(async () => await runPoll({ parameters: { event: 'deviceOverdue', options: { maxRetryWait: 4 } }, credentials: credentialsFor(sandbox, token, { sandboxBaseUrl: front.url }), staticData: {} }));
			const ms = Date.now() - started;
			expect(r.error?.message).toMatch(shown);
			expect(waits, 'waits before the error').toEqual([]);
			row.push(`error in ${ms} ms`);
		}
		// `npm start --once` (default budget 90 s): exits 1 at once, naming the wait.
		{
			const token = sandbox.account.createToken().token;
			front.rule = { kind: 'retryAfter', value: value(), times: 1 };
			const state = join(mkdtempSync(join(tmpdir(), 'tec-waits-')), 'state.json');
			const started = Date.now();
			const out = await exec(process.execPath, [...START, '--once', '--state', state], { cwd: ROOT, env: { ...process.env, ...NO_BACKFILL, TEC_BASE_URL: front.url, TEC_TOKEN: token } }).then(
				() => ({ code: 0, stderr: '' }),
				(e: { code: number; stderr: string }) => e,
			);
			const ms = Date.now() - started;
			expect(out.code).toBe(1);
			expect(out.stderr).toMatch(shown);
			expect(out.stderr).toMatch(/longer than the retry budget of 90 s/);
			expect(out.stderr).not.toContain(token);
			row.push(`exit 1 in ${ms} ms (process start included)`);
		}
		front.rule = undefined;
		observed.push(`| ${name} | ${row.join(' | ')} |`);
	}, 120_000);

	it('a Retry-After inside the budget is waited out (1 s, budget 2 s)', async () => {
		const token = sandbox.account.createToken().token;
		front.rule = { kind: 'retryAfter', value: '1', times: 1 };
		const clock = recordingWaits(systemClock);
		await pollerClient(sandbox, token, { baseUrl: front.url, retry: FAST_RETRY, clock }).call('device.get', { pathParams: { id: 1 } });
		expect(clock.waits, 'the wait before the second attempt').toContain(1000);
		front.rule = undefined;
	});

	it("a pause another caller accepted (within its own budget) fails a caller with a smaller budget at once instead of hanging", async () => {
		const clock = recordingWaits(systemClock);
		const pacer = new Pacer(clock);
		pacer.rateLimited(Date.now() + 30_000); // a caller with 90 s of budget accepted a 30 s Retry-After
		const client = new ServiceClient({ baseUrl: front.url, request: undiciRequestFn(sandbox.sandboxToken), clock, pacer, retry: { maxTotalWaitMs: 2000 } });
		const error = await client.call('device.get', { pathParams: { id: 1 } }).catch((e: unknown) => e);
		expect(clock.waits, 'waits before the error').toEqual([]);
		expect((error as Error).message).toMatch(/asked this access token to wait 30 s \(Retry-After of an earlier request\), longer than the retry budget of 2 s/);
	});

	it('describeWait names seconds, minutes and hours', () => {
		expect([describeWait(1000), describeWait(90_000), describeWait(600_000), describeWait(86_400_000)]).toEqual(['1 s', '90 s', '10 min', '24 h']);
	});
});

describe('one base URL, one budget: "https://x" and "https://x/api/v1/" share the token\'s pacer', () => {
	it('in the client key, the Lambdas (config → connectService) and the node', async () => {
		const token = sandbox.account.createToken().token;
		const forms = [sandbox.url, `${sandbox.url}/`, `${sandbox.url}/api/v1`, `${sandbox.url}/api/v1/`];
		expect(new Set(forms.map((f) => tokenPacingKey(token, 'sandbox', parseBaseUrl(f)))).size).toBe(1);
		expect(tokenPacingKey(token, 'sandbox', parseBaseUrl(sandbox.url))).not.toBe(tokenPacingKey(token, 'production', parseBaseUrl(sandbox.url)));
		// The Lambdas: the configuration holds the parsed base URL, and the client keys by it.
		const env = { TEC_TOKEN_SECRET_ARN: 'arn', STATE_TABLE: 't', EVENT_BUS_NAME: 'b' };
		const before = sharedPacers.size;
		for (const f of forms) {
			const config = readConfig({ ...env, TEC_BASE_URL: f });
			expect(config.TEC_BASE_URL).toEqual(parseBaseUrl(sandbox.url));
			connectService({ baseUrl: config.TEC_BASE_URL ?? '', token, environment: 'sandbox' });
		}
		expect(sharedPacers.size - before, 'pacers made by four spellings in the Lambdas').toBe(1);
		// The node with the same token and each spelling: still that one pacer.
		for (const f of forms) {
			const r = await runNode({
				credentials: credentialsFor(sandbox, token, { sandboxBaseUrl: f }),
				parameters: { resource: 'device', operation: 'get', deviceId: { __rl: true, mode: 'id', value: '1' } },
			});
			expect(r.error).toBeUndefined();
		}
		expect(sharedPacers.size - before, 'pacers after the node ran with four spellings').toBe(1);
	});
});

afterAll(() => {
	console.info(`Retry-After beyond the budget (observed):\n| Retry-After | client core (budget 2 s) | node (Max Retry Wait 4 s) | trigger | npm start --once (90 s) |\n|---|---|---|---|---|\n${observed.join('\n')}`);
});
