import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { builtNodeClock } from '../support/instantWaits';
import { CREDENTIAL_TYPE, paceNodeFaster, runNode, type RunNodeOptions } from '../support/n8n';

export { CREDENTIAL_TYPE };

export interface SandboxForTestsOptions {
	ratePerSecond?: number;
	/**
	 * The instant (ms) the sandbox's clock and the built node's clock start at, both running on
	 * from it: the demo's dates, and the node's today, are then those of that day on every run
	 * (FIXED_NOW: the tests' day), not of the day the suite happens to run.
	 */
	at?: number;
	/** The largest page the sandbox answers (a larger one is a 400 naming `limit`). */
	maxPageSize?: number;
}

/** A clock that starts at `at` and runs at the real clock's pace (pacing and rate limits still work on it). */
function shiftedNow(at: number): () => number {
	const offset = at - Date.now();
	return () => Date.now() + offset;
}

/**
 * Starts a sandbox on a free port with the demo account, and warms n8n's HTTP stack up: the
 * first request of a process spends ~40 ms in n8n's lazy set-up between the pacer's slot and the
 * wire, more than the pacer's 25 ms margin, so a burst right after it can meet one 429 (which the
 * client waits out). Tests that count requests should not depend on that.
 */
export async function sandboxForTests(options: SandboxForTestsOptions = {}): Promise<Sandbox> {
	const now = options.at === undefined ? undefined : shiftedNow(options.at);
	if (now) builtNodeClock().now = now;
	const sandbox = await startSandbox({ port: 0, ratePerSecond: options.ratePerSecond, maxPageSize: options.maxPageSize, now });
	if (options.ratePerSecond) paceNodeFaster(sandbox.url, sandbox.sandboxToken, options.ratePerSecond);
	await runNode({
		credentials: credentialsFor(sandbox),
		parameters: { resource: 'subUser', operation: 'getAll', limit: 1 },
	});
	await new Promise((resolve) => setTimeout(resolve, 1100));
	return sandbox;
}

/**
 * The preamble of a node test file: one sandbox for the file (filled in `beforeAll`), and before
 * each test the demo account reset, no faults, no maintenance. `ratePerSecond`: the sandbox's
 * rate, and the node's with the sandbox's token (for files that test what is read, not pacing);
 * `maxPageSize`: the largest page the sandbox answers; `at`: the day the file runs on (the node's
 * clock is given back after it).
 */
export function useSandbox(options: SandboxForTestsOptions = {}): Sandbox {
	const sandbox = {} as Sandbox;
	let realNow: (() => number) | undefined;
	beforeAll(async () => {
		realNow = builtNodeClock().now;
		Object.assign(sandbox, await sandboxForTests(options));
	});
	afterAll(async () => {
		if (realNow) builtNodeClock().now = realNow;
		await sandbox.stop();
	});
	beforeEach(() => {
		sandbox.account.reset();
		sandbox.faults.clear();
		sandbox.account.maintenance = false;
	});
	return sandbox;
}

/** An ID in a resource locator's By ID mode. */
export const byId = (id: string | number) => ({ __rl: true, mode: 'id', value: String(id) });

/** The json of each item. */
export const jsonOf = (items: Array<{ json: IDataObject }>) => items.map((i) => i.json);

/** Every item is paired with input item `item`. */
export function expectPaired(items: Array<{ pairedItem?: unknown }>, item = 0) {
	expect(items.length).toBeGreaterThan(0);
	for (const it of items) expect(it.pairedItem).toEqual({ item });
}

export function credentialsFor(sandbox: Sandbox, token = sandbox.sandboxToken, extra: IDataObject = {}) {
	return {
		[CREDENTIAL_TYPE]: { accessToken: token, environment: 'sandbox', sandboxBaseUrl: sandbox.url, productionBaseUrl: '', ...extra },
	};
}

/** Runs the node in n8n's engine against the sandbox with its all-scopes token. */
export async function run(sandbox: Sandbox, parameters: IDataObject, options: Partial<RunNodeOptions> = {}) {
	return await runNode({ credentials: credentialsFor(sandbox), ...options, parameters });
}

/**
 * `run` in a workflow whose time zone is UTC: its today (client/dates.ts, todayOf) is then the
 * sandbox's day, the one the tests count the sandbox's records by (n8n's default zone is New York's).
 */
export async function runUtc(sandbox: Sandbox, parameters: IDataObject, options: Partial<RunNodeOptions> = {}) {
	return await run(sandbox, parameters, { ...options, workflowSettings: { timezone: 'UTC', ...options.workflowSettings } });
}

/** `properties: [{key_id, value}]` of a record as a map key id → value. */
export function valuesOf(record: IDataObject): Record<number, unknown> {
	return Object.fromEntries(((record.properties ?? []) as IDataObject[]).map((p) => [Number(p.key_id), p.value]));
}

/**
 * The sandbox counts a request in fastify's onResponse hook, which may run just after the
 * client already has the answer: let it settle before reading `sandbox.stats`.
 */
export async function settledRequests(sandbox: Sandbox): Promise<number> {
	await new Promise((resolve) => setTimeout(resolve, 30));
	return sandbox.stats.requests;
}

/** Requests the sandbox answered with 2xx (after settling). */
export async function settledOkRequests(sandbox: Sandbox): Promise<number> {
	await settledRequests(sandbox);
	return Object.entries(sandbox.stats.byStatus)
		.filter(([status]) => status.startsWith('2'))
		.reduce((sum, [, n]) => sum + n, 0);
}

/** The execution hints the node under test gave in a run (their messages). */
export function hintsOf(result: { run: { data: { resultData: { runData: Record<string, Array<{ hints?: Array<{ message: string }> }>> } } } }, nodeName = 'Test Equipment Cloud'): string[] {
	return (result.run.data.resultData.runData[nodeName]?.[0]?.hints ?? []).map((h) => h.message);
}
