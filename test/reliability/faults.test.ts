/**
 * The fault matrix (issue 8): every fault the sandbox can inject × every face of the product.
 * MATRIX below IS the matrix: one row per fault, one expected outcome per face:
 *
 *   ok        waited out and succeeded (and the fault really struck: it was hit at least once)
 *   error     a clear error naming the cause (node: the n8n error the user sees)
 *   nextRun   the run fails naming the cause, and the next run (fault gone) delivers the fact
 *
 * Faces: the action node through n8n-core (Get Many with Return All, Get, Create, Update, Delete;
 * Max Retry Wait 4 s, 1 s for outage rows; Timeout 1 s on the timeout rows), both pollers on real adapters (sandbox over HTTP,
 * DynamoDB = dynalite, EventBridge = the local wire endpoint; retry budget ~2 s and a 500 ms
 * timeout through the client's options), and the `npm start` runner as a child process
 * (default retry bounds: it has no option for them), and the trigger's poll() through n8n-core's
 * poll context (event Device Overdue, Max Retry Wait and Timeout as the node's). Each column has its own
 * sandbox, so the columns run side by side.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { IDataObject } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientEvent } from '../../client';
import { DynamoStateStore } from '../../lambdas/adapters/dynamoStateStore';
import { EventBridgePublisher } from '../../lambdas/adapters/eventBridgePublisher';
import { DEFAULT_SETTINGS, type PollerContext, type RunReport } from '../../lambdas/pollers/context';
import { pollOverdueDevices } from '../../lambdas/pollers/overdueDevices';
import { pollTestResults } from '../../lambdas/pollers/testResults';
import { DEVICE } from '../../sandbox/properties';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { newTable } from '../support/pollers';
import { LocalAws, startDynamo } from '../support/localAws';
import { schemaErrors } from '../support/eventSchemas';
import { credentialsFor } from '../node/helpers';
import { runNode, runPoll } from '../support/n8n';
import { FAST_RETRY, delay, makeOverdue, pollerClient, spawnRunner, trackUnhandled, waitFor, type RunnerChild } from './support';

type Outcome = { type: 'ok' } | { type: 'error'; match: RegExp } | { type: 'nextRun'; match: RegExp };
const ok: Outcome = { type: 'ok' };
const error = (match: RegExp): Outcome => ({ type: 'error', match });
const nextRun = (match: RegExp): Outcome => ({ type: 'nextRun', match });

const FACES = ['nodeGetManyAll', 'nodeGet', 'nodeCreate', 'nodeUpdate', 'nodeDelete', 'triggerPoll', 'overduePoller', 'testResultsPoller', 'runner'] as const;
type Face = (typeof FACES)[number];
type Cells = [Outcome, Outcome, Outcome, Outcome, Outcome, Outcome, Outcome, Outcome, Outcome];

/** One row of the table: an outcome per face, in the order of FACES. */
function cells(...outcomes: Cells): Record<Face, Outcome> {
	return Object.fromEntries(FACES.map((face, i) => [face, outcomes[i]])) as Record<Face, Outcome>;
}

interface Injected {
	/** Resolves when the fault is over (outage windows end on their own) and cleared. */
	end(): Promise<void>;
	/** Whether the fault really hit a request (so an "ok" cell cannot pass without a fault). */
	struck(): boolean;
}

interface Row {
	fault: string;
	inject(sandbox: Sandbox): Injected;
	/** The retry kind the client reports while waiting it out (checked on the poller and runner faces). */
	retryKind?: ClientEvent extends infer E ? (E extends { type: 'retry'; kind: infer K } ? K : never) : never;
	nodeMaxRetryWait?: number;
	/** The node's and the trigger's Timeout (Seconds) option for this row. */
	nodeTimeout?: number;
	/** A repeated DELETE finds the device already in the recycle bin (the first attempt acted). */
	deleteRepeatFindsItDeleted?: boolean;
	expect: Record<Face, Outcome>;
}

/** A sandbox fault (sandbox.faults.add); `count` bounds it, else it lasts until the cell ends. */
function fault(input: Parameters<Sandbox['faults']['add']>[0]): Row['inject'] {
	return (sandbox) => {
		const f = sandbox.faults.add(input);
		return { struck: () => f.hits > 0, end: async () => sandbox.faults.clear() };
	};
}

/** A fault that lasts `ms` and then clears by itself. */
/**
 * The service refuses for `ms` from the first refused request. Timed from the first refusal, not
 * from injection: the runner cycles on its own clock and may be idle between cycles for longer
 * than the window, which would then close unseen.
 */
function outage(ms: number, on: (s: Sandbox) => void, off: (s: Sandbox) => void, hits: (s: Sandbox) => number): Row['inject'] {
	return (sandbox) => {
		const before = hits(sandbox);
		const struck = () => hits(sandbox) > before;
		on(sandbox);
		const over = waitFor(struck, 30_000, 'the first refused request')
			.then(() => delay(ms))
			.finally(() => off(sandbox));
		over.catch(() => undefined); // reported by end(), which every cell awaits
		return { struck, end: () => over };
	};
}
const statusCount = (status: number) => (s: Sandbox) => s.stats.byStatus[status] ?? 0;

/** Until the cell ends (the licence is renewed by the test after the first attempt). */
function licence(state: 'expired' | 'expired427'): Row['inject'] {
	const status = state === 'expired' ? 426 : 427;
	return (sandbox) => {
		const before = statusCount(status)(sandbox);
		sandbox.account.license = state;
		return {
			struck: () => statusCount(status)(sandbox) > before,
			end: async () => {
				sandbox.account.license = 'active';
			},
		};
	};
}

// The errors the table expects, by name.
const server = /Unexpected server error \(HTTP (500|502|503)\)/;
const serverStatus = (status: number) => new RegExp(`Unexpected server error \\(HTTP ${status}\\)`);
const licenceError = /licence has expired.*HTTP 42[67]/;
// A create whose 201 answer is unreadable: it may have been made (issue 43, defect 8), said so.
const notJson = /Device Create may have been accepted: the service answered POST \/data\/devices\/create\/ with HTTP 201 \(success\), but the answer was cut off or unreadable/;
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** "No response from the service for <method> <path>…: no answer within the timeout of <within>". */
function noAnswer(method: string, path: string, pathTail = '', within: string | '' = '1 s'): RegExp {
	const tail = within === '' ? '' : `: no answer within the timeout of ${within}`;
	return new RegExp(`No response from the service for ${method} ${escaped(path)}${pathTail}${tail}`);
}

/**
 * The table. Each row's `cells(…)` lists one outcome per face, in this order:
 * Get Many (Return All) | Get | Create | Update | Delete | Trigger poll | Overdue poller | Test-results poller | `npm start` runner
 */
export const MATRIX: Row[] = [
	{
		fault: '429 storm: 3 × 429 without Retry-After',
		inject: fault({ kind: 'status', status: 429, count: 3 }),
		retryKind: 'rateLimit',
		expect: cells(ok, ok, ok, ok, ok, ok, ok, ok, ok),
	},
	...[500, 502, 503].map(
		(status): Row => ({
			fault: `${status} × 2`,
			inject: fault({ kind: 'status', status, count: 2 }),
			retryKind: 'server',
			expect: cells(ok, ok, error(serverStatus(status)), ok, ok, ok, ok, ok, ok), // a POST is never sent twice
		}),
	),
	{
		fault: '503 outage of 3 s (longer than the node and poller retry budgets)',
		inject: outage(3000, (s) => s.faults.add({ kind: 'status', status: 503 }), (s) => s.faults.clear(), statusCount(503)),
		nodeMaxRetryWait: 1,
		expect: cells(error(server), error(server), error(server), error(server), error(server), nextRun(server), nextRun(server), nextRun(server), ok), // runner: default budget 90 s
	},
	{
		fault: '451 maintenance window of 1 s',
		inject: outage(1000, (s) => (s.account.maintenance = true), (s) => (s.account.maintenance = false), statusCount(451)),
		retryKind: 'maintenance',
		// The first maintenance wait (5-10 s) is longer than Max Retry Wait (4 s): the node waits what is left of it (4 s)
		// and tries once more; the runner waits 5-10 s.
		expect: cells(ok, ok, ok, ok, ok, ok, ok, ok, ok),
	},
	...(['expired', 'expired427'] as const).map(
		(state): Row => ({
			fault: `licence ${state === 'expired' ? 426 : 427}`,
			inject: licence(state),
			expect: cells(error(licenceError), error(licenceError), error(licenceError), error(licenceError), error(licenceError), nextRun(licenceError), nextRun(licenceError), nextRun(licenceError), nextRun(/licence has expired/)),
		}),
	),
	{
		fault: 'slow responses: +300 ms on every request',
		inject: fault({ kind: 'latency', latencyMs: 300 }),
		expect: cells(ok, ok, ok, ok, ok, ok, ok, ok, ok),
	},
	{
		// 3 s: undici times out from 1 s on with a coarse (~0.5 s tick) timer, so a 1 s timeout may
		// fire up to ~2 s late; the answer must come later than that.
		fault: 'timeout: one response 3 s late (poller timeout 500 ms, node and runner 1 s)',
		inject: fault({ kind: 'latency', latencyMs: 3000, count: 1 }),
		retryKind: 'network',
		nodeTimeout: 1,
		// The service may still act on a POST whose answer timed out: never sent twice.
		expect: cells(ok, ok, error(noAnswer('POST', '/data/devices/create/')), ok, ok, ok, ok, ok, ok),
	},
	{
		fault: 'timeout: every response 3 s late (poller timeout 500 ms, node and runner 1 s)',
		inject: fault({ kind: 'latency', latencyMs: 3000 }),
		nodeTimeout: 1,
		expect: cells(
			error(noAnswer('GET', '/data/devices/all/')),
			error(noAnswer('GET', '/device/detail/1/')),
			error(noAnswer('POST', '/data/devices/create/')),
			error(noAnswer('PUT', '/data/devices/edit/')),
			error(noAnswer('DELETE', '/data/devices/delete/', '\\d+/')),
			nextRun(noAnswer('GET', '/data/devices/overdue/')),
			nextRun(noAnswer('GET', '/data/devices/overdue/', '', '0.5 s \\(Headers Timeout Error\\)')),
			nextRun(noAnswer('GET', '/tests_performed/all/', '', '0.5 s')),
			nextRun(/No response from the service for GET .*: no answer within the timeout of 1 s/),
		),
	},
	{
		fault: 'dropped connection × 2 (socket destroyed; the service may still act)',
		inject: fault({ kind: 'drop', count: 2 }),
		deleteRepeatFindsItDeleted: true,
		retryKind: 'network',
		// Delete: the sandbox drops the socket but still runs the handler; the repeat finds the device in
		// the bin (412), which after a lost answer means the delete succeeded.
		expect: cells(ok, ok, error(noAnswer('POST', '/data/devices/create/', '', '')), ok, ok, ok, ok, ok, ok), // a POST is never sent twice
	},
	{
		fault: 'truncated JSON × 2 (half the body, after the service acted)',
		inject: fault({ kind: 'truncate', count: 2 }),
		deleteRepeatFindsItDeleted: true,
		retryKind: 'invalidResponse',
		// PUT re-sent (same edit again); the DELETE had moved the device to the recycle bin, the repeat finds it there.
		expect: cells(ok, ok, error(notJson), ok, ok, ok, ok, ok, ok), // a POST is never sent twice
	},
	{
		fault: 'non-JSON body × 2 (an HTML proxy page with status 200/201)',
		inject: fault({ kind: 'nonJson', count: 2 }),
		deleteRepeatFindsItDeleted: true,
		retryKind: 'invalidResponse',
		expect: cells(ok, ok, error(notJson), ok, ok, ok, ok, ok, ok), // a POST is never sent twice
	},
	{
		fault: 'unknown extra fields and enum values (versioning drill)',
		inject: (sandbox) => {
			sandbox.account.extraFields = true;
			return {
				struck: () => true, // the drill has no hit counter; the cells assert the extra fields arrived
				end: async () => {
					sandbox.account.extraFields = false;
				},
			};
		},
		expect: cells(ok, ok, ok, ok, ok, ok, ok, ok, ok),
	},
];

/** What each cell observed, printed as the matrix at the end (copied into docs/reliability.md). */
const observed = new Map<string, string>();
const note = (row: Row, face: Face, text: string) => observed.set(`${row.fault}|${face}`, text);
const unhandled = trackUnhandled();

function describeOutcome(o: Outcome): string {
	return o.type === 'ok' ? 'waited out, succeeded' : o.type === 'error' ? 'clear error' : 'failed, next run delivered';
}

afterAll(() => {
	unhandled.stop();
	const header = `| fault | ${FACES.join(' | ')} |`;
	const lines = MATRIX.map((row) => `| ${row.fault} | ${FACES.map((f) => observed.get(`${row.fault}|${f}`) ?? '—').join(' | ')} |`);
	console.info(`fault matrix (observed):\n${header}\n|${'---|'.repeat(FACES.length + 1)}\n${lines.join('\n')}`);
});

// Every column at once (each has its own sandbox): the file takes as long as its slowest column.
describe.concurrent('fault matrix', () => {
	// ---- the node through n8n-core -------------------------------------------------------------------
	type NodeFace = Extract<Face, `node${string}`>;
	const NODE_FACES: NodeFace[] = ['nodeGetManyAll', 'nodeGet', 'nodeCreate', 'nodeUpdate', 'nodeDelete'];

	describe('fault matrix: the node through n8n-core', () => {
		it.each(NODE_FACES)('%s', async (face) => {
			const sandbox = await startSandbox({ port: 0 });
			try {
				const deleted = new Set<number>();
				for (const [r, row] of MATRIX.entries()) {
					const expected = row.expect[face];
					const name = `matrix-${r}`;
					const options = { maxRetryWait: row.nodeMaxRetryWait ?? 4, ...(row.nodeTimeout ? { timeout: row.nodeTimeout } : {}) };
					const deleteId = [...sandbox.account.data.devices.keys()].reverse().find((id) => !deleted.has(id))!;
					const parameters = {
						nodeGetManyAll: { resource: 'device', operation: 'getAll', returnAll: true, options },
						nodeGet: { resource: 'device', operation: 'get', deviceId: { __rl: true, mode: 'id', value: '1' }, options },
						nodeCreate: { resource: 'device', operation: 'create', propertyValues: { property: [{ key: DEVICE.designation, value: name }] }, options },
						nodeUpdate: {
							resource: 'device',
							operation: 'update',
							deviceId: { __rl: true, mode: 'id', value: '1' },
							propertyValues: { property: [{ key: DEVICE.designation, value: name }] },
							options,
						},
						nodeDelete: { resource: 'device', operation: 'delete', deviceId: { __rl: true, mode: 'id', value: String(deleteId) }, options },
					}[face];
					const cell = `${row.fault} × ${face}`;
					const injected = row.inject(sandbox);
					const started = Date.now();
					let result: Awaited<ReturnType<typeof runNode>>;
					try {
						result = await runNode({ credentials: credentialsFor(sandbox), parameters });
					} finally {
						await injected.end();
					}
					const ms = Date.now() - started;
					expect(injected.struck(), `${cell}: the fault struck`).toBe(true);
					if (expected.type === 'ok') {
						expect(result.error, cell).toBeUndefined();
						if (face === 'nodeGetManyAll') expect(result.items.length, cell).toBe(sandbox.account.data.devices.size);
						else expect(result.items.length, cell).toBe(1);
						if (face === 'nodeCreate' || face === 'nodeUpdate') {
							const values = (result.items[0].json.properties as Array<{ key_id: number; value: unknown }>).find((p) => p.key_id === DEVICE.designation);
							expect(values?.value, cell).toBe(name);
						}
						if (face === 'nodeDelete') {
							expect(sandbox.account.data.devices.has(deleteId), cell).toBe(false);
							const inBin = [...sandbox.account.recycleBin.values()].filter((e) => e.resource === 'device' && e.item_id === deleteId);
							expect(inBin, `${cell}: in the recycle bin once`).toHaveLength(1);
							// A repeat after a lost answer found it there: the node says so instead of failing.
							const alreadyDeleted = result.items[0].json.already_deleted;
							if (row.deleteRepeatFindsItDeleted) expect(alreadyDeleted, cell).toBe(true);
							// A late answer races its repeat: either may have moved the device.
							else if (!row.nodeTimeout) expect(alreadyDeleted, cell).toBeUndefined();
						}
						if (row.fault.startsWith('unknown extra')) {
							expect(JSON.stringify(result.items[0].json), cell).toMatch(face === 'nodeDelete' ? /deleted/ : /"revision"|"visible"/);
						}
						note(row, face, `ok (${ms} ms)`);
					} else {
						expect(result.error, cell).toBeDefined();
						expect(result.error!.name, cell).toBe('NodeApiError');
						const text = `${result.error!.message} ${String(result.error!.description ?? '')}`;
						expect(text, cell).toMatch((expected as { match: RegExp }).match);
						note(row, face, `error: ${result.error!.message.slice(0, 90)} (${ms} ms)`);
					}
					if (face === 'nodeCreate') {
						// Never two devices from one Create, whatever the fault.
						const made = [...sandbox.account.data.devices.values()].filter((d) => d.values[DEVICE.designation] === name);
						expect(made.length, `${cell}: devices created`).toBeLessThanOrEqual(1);
					}
					if (face === 'nodeDelete') deleted.add(deleteId);
					sandbox.faults.clear();
				}
			} finally {
				await sandbox.stop();
			}
		}, 120_000);
	});

	// ---- the trigger's poll() through n8n-core ---------------------------------------------------------
	describe('fault matrix: the trigger poll through n8n-core', () => {
		it('triggerPoll', async () => {
			const sandbox = await startSandbox({ port: 0, size: { devices: 80, customers: 6, testResults: 40 } });
			const poll = (staticData: IDataObject, maxRetryWait: number, timeout?: number) =>
				runPoll({ parameters: { event: 'deviceOverdue', options: { maxRetryWait, ...(timeout ? { timeout } : {}) } }, credentials: credentialsFor(sandbox), staticData });
			try {
				const activation = await poll({}, 4); // first activation: remembers the list, emits nothing
				expect(activation.error).toBeUndefined();
				let state = activation.staticData;
				const used = new Set<number>();
				for (const row of MATRIX) {
					const expected = row.expect.triggerPoll;
					const cell = `${row.fault} × triggerPoll`;
					const id = makeOverdue(sandbox, used);
					const emitted = (r: Awaited<ReturnType<typeof poll>>) => (r.items ?? []).filter((i) => i.json.id === id).length;
					const injected = row.inject(sandbox);
					const started = Date.now();
					let first: Awaited<ReturnType<typeof poll>>;
					try {
						first = await poll(state, row.nodeMaxRetryWait ?? 4, row.nodeTimeout);
					} finally {
						await injected.end();
					}
					const ms = Date.now() - started;
					expect(injected.struck(), `${cell}: the fault struck`).toBe(true);
					if (expected.type === 'ok') {
						expect(first.error, cell).toBeUndefined();
						expect(emitted(first), cell).toBe(1);
						state = first.staticData;
						note(row, 'triggerPoll', `ok (${ms} ms)`);
					} else if (expected.type === 'nextRun') {
						expect(first.error, cell).toBeDefined();
						expect(first.error!.name, cell).toBe('NodeApiError');
						expect(`${first.error!.message} ${String(first.error!.description ?? '')}`, cell).toMatch(expected.match);
						expect(first.staticData, `${cell}: a failed poll leaves the state as it was`).toEqual(state);
						const second = await poll(state, 4);
						expect(second.error, `${cell}: next poll`).toBeUndefined();
						expect(emitted(second), `${cell}: next poll`).toBe(1);
						state = second.staticData;
						note(row, 'triggerPoll', `poll failed (${first.error!.message.slice(0, 60)}), next poll emitted`);
					} else {
						throw new Error(`${cell}: unexpected outcome ${describeOutcome(expected)}`);
					}
					sandbox.faults.clear();
				}
			} finally {
				await sandbox.stop();
			}
		}, 120_000);
	});

	// ---- the pollers on real adapters ------------------------------------------------------------------
	describe('fault matrix: the pollers (sandbox over HTTP, dynalite, EventBridge endpoint)', () => {
		let aws: LocalAws;
		let dynamo: { client: DynamoDBClient; stop: () => Promise<void> };
		beforeAll(async () => {
			aws = await new LocalAws().start();
			dynamo = await startDynamo();
		});
		afterAll(async () => {
			await aws.stop();
			await dynamo.stop();
		});

		it.each(['overduePoller', 'testResultsPoller'] as const)('%s', async (face) => {
			const sandbox = await startSandbox({ port: 0, size: { devices: 80, customers: 6, testResults: 40 } });
			const table = await newTable(dynamo.client);
			const retries: ClientEvent[] = [];
			const poll = face === 'overduePoller' ? pollOverdueDevices : pollTestResults;
			const context = (): PollerContext => ({
				client: pollerClient(sandbox, sandbox.sandboxToken, { retry: FAST_RETRY, timeoutMs: 500, onEvent: (e) => e.type === 'retry' && retries.push(e) }),
				store: new DynamoStateStore(table, dynamo.client, async () => undefined),
				publisher: new EventBridgePublisher({ busName: `bus-${face}`, client: aws.eventBridge(), sleep: async () => undefined }),
				environment: 'sandbox',
				now: () => sandbox.account.now(),
				remainingMs: () => 600_000,
				log: { info: () => undefined, warn: () => undefined, error: () => undefined },
				metrics: { count: () => undefined },
				settings: { ...DEFAULT_SETTINGS, pageSize: 25, safetyMs: 1000 },
				runId: `run-${Math.random().toString(36).slice(2)}`,
			});
			const attempt = async (): Promise<{ report?: RunReport; error?: Error }> => {
				try {
					return { report: await poll(context()) };
				} catch (e) {
					return { error: e as Error };
				}
			};
			const events = () => aws.events().filter((e) => aws.accepted.find((a) => a.Detail === JSON.stringify(e.detail))?.EventBusName === `bus-${face}`);
			try {
				expect((await attempt()).report?.complete).toBe(true); // baseline (test results: records the window)
				const used = new Set<number>();
				for (const row of MATRIX) {
					const expected = row.expect[face];
					const cell = `${row.fault} × ${face}`;
					// A new business fact for this cell.
					let fact: (e: ReturnType<typeof events>[number]) => boolean;
					if (face === 'overduePoller') {
						const id = makeOverdue(sandbox, used);
						fact = (e) => e['detail-type'] === 'Device Overdue' && (e.detail.data.device as { id: number }).id === id;
					} else {
						let r = sandbox.account.syncTestResult({ device_id: 1, status: 'passed', test_date: sandbox.account.today() });
						// Every 5th passed result carries an unknown status under the versioning drill.
						while (row.fault.startsWith('unknown extra') && r.id % 5 !== 0) r = sandbox.account.syncTestResult({ device_id: 1, status: 'passed', test_date: sandbox.account.today() });
						const id = r.id;
						fact = (e) => e['detail-type'] === 'Test Result Recorded' && (e.detail.data.testResult as { id: number }).id === id;
					}
					retries.length = 0;
					const injected = row.inject(sandbox);
					const started = Date.now();
					let first: Awaited<ReturnType<typeof attempt>>;
					try {
						first = await attempt();
					} finally {
						await injected.end();
					}
					const ms = Date.now() - started;
					expect(injected.struck(), `${cell}: the fault struck`).toBe(true);
					if (expected.type === 'ok') {
						expect(first.error?.message, cell).toBeUndefined();
						expect(first.report?.complete, cell).toBe(true);
						expect(events().filter(fact), cell).toHaveLength(1);
						if (row.retryKind) expect(retries.map((e) => (e as { kind: string }).kind), cell).toContain(row.retryKind);
						if (row.fault.startsWith('unknown extra') && face === 'testResultsPoller') {
							expect(events().find(fact)!.detail.data.testResult, cell).toMatchObject({ status: 'passed_with_remarks', passed: null });
						}
						note(row, face, `ok (${ms} ms, ${retries.length} retries)`);
					} else if (expected.type === 'nextRun') {
						expect(first.error, cell).toBeDefined();
						expect(first.error!.message, cell).toMatch(expected.match);
						expect(events().filter(fact), `${cell}: nothing emitted by the failed run`).toHaveLength(0);
						const second = await attempt();
						expect(second.error?.message, `${cell}: next run`).toBeUndefined();
						expect(second.report?.complete, `${cell}: next run`).toBe(true);
						expect(events().filter(fact), `${cell}: next run`).toHaveLength(1);
						note(row, face, `run failed (${first.error!.message.slice(0, 70)}), next run delivered`);
					} else {
						throw new Error(`${cell}: unexpected outcome ${describeOutcome(expected)}`);
					}
					sandbox.faults.clear();
				}
				for (const e of events()) expect(schemaErrors(e), e['detail-type']).toEqual([]);
			} finally {
				await sandbox.stop();
			}
		}, 120_000);
	});

	// ---- the `npm start` runner, a child process --------------------------------------------------------
	describe('fault matrix: the `npm start` runner (child process, --interval 1)', () => {
		// The rows in three runners side by side, each on a sandbox of its own: the slowest row
		// (every answer late: six attempts with backoff, about 25 s) alone, the others in two halves.
		const slowest = MATRIX.findIndex((row) => row.fault.startsWith('timeout: every response'));
		const rest = MATRIX.filter((_, i) => i !== slowest);
		const GROUPS = [[MATRIX[slowest]], rest.filter((_, i) => i % 2 === 0), rest.filter((_, i) => i % 2 === 1)];
		it.each(GROUPS.map((rows, i) => [i + 1, rows.length, rows] as const))('keeps going through every fault and delivers each fact (runner %i, %i rows)', async (_n, _count, rows) => {
			const sandbox = await startSandbox({ port: 0, size: { devices: 80, customers: 6, testResults: 40 } });
			const statePath = join(mkdtempSync(join(tmpdir(), 'tec-matrix-')), 'state.json');
			let runner: RunnerChild | undefined;
			try {
				runner = spawnRunner(['--interval', '1', '--timeout', '1', '--state', statePath], { TEC_BASE_URL: sandbox.url, TEC_TOKEN: sandbox.sandboxToken });
				const r = runner;
				await waitFor(() => r.logs().some((l) => l.message === 'Poll run' && l.poller === 'testResults'), 30_000, 'the first cycle');
				const used = new Set<number>();
				for (const row of rows) {
					const expected = row.expect.runner;
					const cell = `${row.fault} × runner`;
					const logsBefore = r.stderr.length;
					const id = makeOverdue(sandbox, used);
					const started = Date.now();
					const delivered = () => r.events().some((e) => e['detail-type'] === 'Device Overdue' && (e.detail.data.device as { id: number }).id === id);
					const injected = row.inject(sandbox);
					const newLogs = () => r.logs().slice(logsBefore);
					// The runner cycles on its own clock: a request already past the sandbox's fault hook
					// may deliver the fact first, so the checks below wait for each part.
					try {
						if (expected.type === 'nextRun') {
							// Up to 6 attempts and ~16 s of backoff before a cycle gives up on a request.
							const failure = await waitFor(() => newLogs().find((l) => l.message === 'A poll run failed; the next cycle retries it'), 45_000, `${cell}: the failure log`);
							expect(String(failure.error), cell).toMatch(expected.match);
							expect(delivered(), `${cell}: nothing delivered while failing`).toBe(false);
						} else {
							await waitFor(() => injected.struck(), 15_000, `${cell}: the fault struck`);
							if (row.retryKind) {
								await waitFor(() => newLogs().some((l) => l.message === 'Retrying a request' && l.kind === row.retryKind), 15_000, `${cell}: a "${row.retryKind}" retry logged`);
							}
							await waitFor(delivered, 30_000, `${cell}: Device Overdue for ${id}`);
						}
					} finally {
						await injected.end();
					}
					await waitFor(delivered, 30_000, `${cell}: Device Overdue for ${id}`);
					const ms = Date.now() - started;
					expect(injected.struck(), `${cell}: the fault struck`).toBe(true);
					expect(r.child.exitCode, `${cell}: the runner is still running`).toBeNull();
					note(row, 'runner', expected.type === 'ok' ? `ok (${ms} ms)` : `cycle failed, next cycle delivered (${ms} ms)`);
					sandbox.faults.clear();
				}
				expect(r.stderr.join('\n')).not.toMatch(/Unhandled|UnhandledPromiseRejection|TypeError|at .*\.ts:\d+/);
				// Documented exit: SIGTERM ends the loop after the cycle, exit code 0.
				r.child.kill('SIGTERM');
				expect(await r.exited()).toBe(0);
				// Each fact once: the state file prevented re-announcements across all cycles.
				const keys = r.events().map((e) => e.detail.metadata.dedupeKey);
				expect(keys.length).toBe(new Set(keys).size);
			} finally {
				if (runner && runner.child.exitCode === null) runner.child.kill('SIGKILL');
				await sandbox.stop();
			}
		}, 150_000);
	});
});

afterAll(() => {
	expect(unhandled.seen).toEqual([]);
});
