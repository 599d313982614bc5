/**
 * Hostile and bad input (issue 8). CASES below IS the table: one row per input, the face it
 * enters through (the client core directly, or the node through n8n-core), and the expected
 * outcome. Every row also asserts how many requests reached the sandbox (0 = caught before any
 * request) and, at the end, that the "foreign host" (a second local server that links point to)
 * received nothing. Nothing may crash: every row settles into a value or a typed error.
 */
import { copyFileSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE, ServiceError, ValidationError, parseBaseUrl, type ListQuery, type ServiceClient } from '../../client';
import { readProfileFile } from '../../client/node/profileSchema';
import { undiciRequestFn } from '../../lambdas/adapters/undiciService';
import { EventBridgePublisher } from '../../lambdas/adapters/eventBridgePublisher';
import { FileStateStore } from '../../lambdas/adapters/fileStateStore';
import { makeEvent, entrySize, MAX_ENTRY_BYTES } from '../../lambdas/events/event';
import { DETAIL_TYPES } from '../../lambdas/events/schemas';
import { buildDigest } from '../../lambdas/pollers/digest';
import type { IDataObject } from 'n8n-workflow';
import type { TecEvent } from '../../lambdas/events/event';
import { DEFAULT_SETTINGS } from '../../lambdas/pollers/context';
import { pollOverdueDevices } from '../../lambdas/pollers/overdueDevices';
import { pollTestResults } from '../../lambdas/pollers/testResults';
import { unreadableRecords, type FaultInput, type OddAnswer } from '../../sandbox/faults';
import { PublishError } from '../../lambdas/ports';
import { DEVICE } from '../../sandbox/properties';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { LocalAws } from '../support/localAws';
import { variantFile } from '../support/profiles';
import { soaked } from '../support/soak';
import { credentialsFor } from '../node/helpers';
import { captureLogs, runNode, runPoll } from '../support/n8n';
import { FAST_RETRY, makeOverdue, pollerClient, spawnRunner, startForeignHost, trackUnhandled, type ForeignHost } from './support';

let sandbox: Sandbox;
let foreign: ForeignHost;
let stub: { url: string; server: Server; written: number; closed: Promise<void> | undefined };
let aws: LocalAws;
const sandboxLog: string[] = [];
const unhandled = trackUnhandled();

const MB = 1024 * 1024;

/**
 * A misbehaving "service" on loopback (base URL `${url}/<case>`): list answers whose `next`
 * points elsewhere, a download link to the foreign host, a 50 MB answer streamed chunk by chunk.
 */
async function startStub(foreignUrl: string) {
	const state = { url: '', server: undefined as unknown as Server, written: 0, closed: undefined as Promise<void> | undefined };
	state.server = createServer((req, res) => {
		const [, name] = /^\/([^/]+)\//.exec(req.url ?? '') ?? [];
		const port = (state.server.address() as AddressInfo).port;
		const next: Record<string, string> = {
			nextForeign: `${foreignUrl}/api/v1/data/devices/all/?limit=1&offset=1`,
			nextHttps: `https://127.0.0.1:${port}/nextHttps/api/v1/data/devices/all/?offset=1`,
			nextFile: 'file:///etc/passwd',
			nextRelative: `//127.0.0.1:${new URL(foreignUrl).port}/x`,
		};
		if (name in next) {
			res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ count: 5, next: next[name], results: [{ id: 1 }] }));
			return;
		}
		if (name === 'linkForeign') {
			res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: `${foreignUrl}/file.pdf` }));
			return;
		}
		if (name === 'big') {
			// 50 MB, generated chunk by chunk with back-pressure: never held in memory here either.
			const chunk = Buffer.alloc(64 * 1024, 0x61);
			state.written = 0;
			state.closed = new Promise((r) => res.on('close', () => r()));
			res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(50 * MB) });
			const pump = () => {
				while (state.written < 50 * MB) {
					state.written += chunk.length;
					if (!res.write(chunk)) return void res.once('drain', pump);
				}
				res.end();
			};
			pump();
			return;
		}
		res.writeHead(404).end('{}');
	});
	await new Promise<void>((r) => state.server.listen(0, '127.0.0.1', r));
	state.url = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}`;
	return state;
}

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, log: (line) => sandboxLog.push(line) });
	foreign = await startForeignHost();
	stub = await startStub(foreign.url);
	aws = await new LocalAws().start();
});
afterAll(async () => {
	unhandled.stop();
	await sandbox.stop();
	await foreign.stop();
	await new Promise((r) => stub.server.close(r));
	await aws.stop();
});

const settle = () => new Promise((r) => setTimeout(r, 30));
const client = (baseUrl?: string): ServiceClient => pollerClient(sandbox, sandbox.sandboxToken, { retry: { maxAttempts: 1 }, baseUrl });
const list = async (c: ServiceClient, operation: Parameters<ServiceClient['pages']>[0], query: ListQuery, options?: Parameters<ServiceClient['pages']>[2]) => {
	const out: unknown[] = [];
	for await (const page of c.pages(operation, query, options)) out.push(...page);
	return out;
};
const textFilter = (value: unknown): ListQuery => ({ filters: [{ key: DEVICE.designation, dataType: 'Text', conditions: [{ keyword: 'contains', value: value as string }] }] });
const nodeList = (extra: Record<string, unknown>) => runNode({ credentials: credentialsFor(sandbox), parameters: { resource: 'device', operation: 'getAll', limit: 5, ...extra } });
const nodeText = (value: unknown) => nodeList({ filters: { text: [{ key: DEVICE.designation, conditions: { condition: [{ keyword: 'contains', value }] } }] } });
const nodeGet = (id: unknown) => runNode({ credentials: credentialsFor(sandbox), parameters: { resource: 'device', operation: 'get', deviceId: { __rl: true, mode: 'id', value: id } } });
const nodeJson = (operation: 'create' | 'update', json: string) => runNode({ credentials: credentialsFor(sandbox), parameters: { resource: 'device', operation, inputMode: 'json', json } });

/** What the sandbox received for the designation filter in its last logged list request. */
function lastDesignationFilter(): string | undefined {
	const line = [...sandboxLog].reverse().find((l) => l.includes('/data/devices/all/'));
	const url = line?.split(' ')[2];
	return url ? (new URL(url, 'http://x').searchParams.get(String(DEVICE.designation)) ?? undefined) : undefined;
}

type Expected =
	| { refused: RegExp; name?: 'ValidationError' | 'ServiceError' | 'NodeOperationError' | 'NodeApiError' | 'TypeError' | 'PublishError' | 'WorkflowHasIssuesError'; requests: number }
	| { accepted: (value: unknown) => void; requests: number | 'some' };

interface Case {
	input: string;
	face: 'client' | 'node' | 'adapter' | 'publisher' | 'poller';
	run: () => Promise<unknown>;
	expect: Expected;
}

const long = 'x'.repeat(5000);
const unicode = 'Prüfgerät 测试 🔧 ‮rtl';

export const CASES: Case[] = [
	// ---- filter values ----------------------------------------------------------------------------
	{ input: 'filter value with `"`', face: 'client', run: () => list(client(), 'device.list', textFilter('a"b')), expect: { refused: /double quote/, name: 'ValidationError', requests: 0 } },
	{ input: 'filter value with `\\`', face: 'client', run: () => list(client(), 'device.list', textFilter('a\\b')), expect: { refused: /backslash/, name: 'ValidationError', requests: 0 } },
	{ input: 'filter value with `"` (node)', face: 'node', run: () => nodeText('say "hi"'), expect: { refused: /Text Filter 1.*double quote/, name: 'NodeOperationError', requests: 0 } },
	...['a&limit=1', 'a=b', 'line1\nline2', unicode, long].map(
		(value): Case => ({
			input: `filter value ${JSON.stringify(value.length > 20 ? `${value.slice(0, 8)}… (${value.length} chars)` : value)} arrives verbatim`,
			face: 'node',
			run: async () => {
				const r = await nodeText(value);
				if (r.error) throw new Error(r.error.message);
				return lastDesignationFilter();
			},
			expect: { accepted: (v) => expect(v).toBe(`contains"${value}"`), requests: 1 },
		}),
	),
	{ input: 'filter value with an unpaired surrogate', face: 'client', run: () => list(client(), 'device.list', textFilter('a\uD800b')), expect: { refused: /unpaired UTF-16 surrogate/, name: 'ValidationError', requests: 0 } },
	{
		input: 'filter value of 100,000 characters (over the server\'s URL limit)',
		face: 'client',
		run: () => list(client(), 'device.list', textFilter('y'.repeat(100_000))),
		expect: { refused: /HTTP 431|No response from the service/, name: 'ServiceError', requests: 0 },
	},
	// ---- wrong types, dates, numbers -------------------------------------------------------------------
	{ input: 'filter value of the wrong type (an object)', face: 'client', run: () => list(client(), 'device.list', textFilter({ a: 1 })), expect: { refused: /must be text, got object/, name: 'ValidationError', requests: 0 } },
	{ input: 'filter key of the wrong type (an object)', face: 'client', run: () => list(client(), 'device.list', { filters: [{ key: {} as never, conditions: [{ keyword: 'equals', value: '1' }] }] }), expect: { refused: /positive whole number/, name: 'ValidationError', requests: 0 } },
	{ input: 'unknown filter keyword', face: 'client', run: () => list(client(), 'device.list', { filters: [{ key: DEVICE.designation, conditions: [{ keyword: 'like', value: 'x' }] }] }), expect: { refused: /unknown keyword "like"/, name: 'ValidationError', requests: 0 } },
	{
		input: 'invalid date 2026-02-30 (node, Date filter)',
		face: 'node',
		run: () => nodeList({ filters: { date: [{ key: DEVICE.lastTested, conditions: { condition: [{ keyword: 'olderThan', value: '2026-02-30' }] } }] } }),
		expect: { refused: /"2026-02-30" is not a calendar date/, name: 'NodeOperationError', requests: 0 },
	},
	{ input: 'invalid date 2026-13-01 (client)', face: 'client', run: () => list(client(), 'testResult.list', { filters: [{ key: 'test_date', conditions: [{ keyword: 'newer', value: '2026-13-01' }] }] }), expect: { refused: /not a calendar date/, name: 'ValidationError', requests: 0 } },
	...(['abc', '1e999', '0x10', ''] as const).map(
		(value): Case => ({
			input: `non-numeric number ${JSON.stringify(value)} (Number filter)`,
			face: 'client',
			run: () => list(client(), 'device.list', { filters: [{ key: DEVICE.nextTest, dataType: 'Number', conditions: [{ keyword: 'greaterThan', value }] }] }),
			expect: { refused: /not a finite number/, name: 'ValidationError', requests: 0 },
		}),
	),
	...[Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY].map(
		(value): Case => ({
			input: `${value} as a Number filter value (node)`,
			face: 'node',
			run: () => nodeList({ filters: { number: [{ key: DEVICE.nextTest, conditions: { condition: [{ keyword: 'greaterThan', value }] } }] } }),
			expect: { refused: /is not a finite number/, name: 'NodeOperationError', requests: 0 },
		}),
	),
	// ---- limits --------------------------------------------------------------------------------------------
	...[-1, 0, 2.5, 1e20, Number.NaN].map(
		(limit): Case => ({
			input: `Limit ${limit} (node)`,
			face: 'node',
			run: () => nodeList({ limit }),
			expect: { refused: /limit: must be a whole number from 1/, name: 'NodeOperationError', requests: 0 },
		}),
	),
	...[0, 0.5, -1, Number.NaN, Number.POSITIVE_INFINITY, 'soon'].map(
		(timeout): Case => ({
			input: `Timeout (Seconds) ${String(timeout)} (node)`,
			face: 'node',
			run: () => nodeList({ options: { timeout } }),
			expect: { refused: /Timeout \(Seconds\): must be a number of seconds, at least 1, got/, name: 'NodeOperationError', requests: 0 },
		}),
	),
	{ input: 'Timeout (Seconds) 2.5 (node)', face: 'node', run: async () => (await nodeList({ options: { timeout: 2.5 } })).items.length, expect: { accepted: (n) => expect(n).toBe(5), requests: 1 } },
	...[-1, Number.NaN, 'later'].map(
		(maxRetryWait): Case => ({
			input: `Max Retry Wait (Seconds) ${String(maxRetryWait)} (node)`,
			face: 'node',
			run: () => nodeList({ options: { maxRetryWait } }),
			expect: { refused: /Max Retry Wait \(Seconds\): must be a number of seconds, 0 or more, got/, name: 'NodeOperationError', requests: 0 },
		}),
	),
	{ input: 'Limit 1e9 (huge but whole: every item, pages of the largest size)', face: 'node', run: async () => (await nodeList({ limit: 1e9 })).items.length, expect: { accepted: (n) => expect(n).toBe(240), requests: 1 } },
	...[0, -5, 1001, 2.5, '10'].map(
		(pageSize): Case => ({
			input: `page size ${JSON.stringify(pageSize)} (client)`,
			face: 'client',
			run: () => list(client(), 'device.list', {}, { pageSize: pageSize as number }),
			expect: { refused: /pageSize: must be a whole number from 1 to 1000/, name: 'ValidationError', requests: 0 },
		}),
	),
	// ---- ids ---------------------------------------------------------------------------------------------
	{
		input: 'device id "a/b" typed into the By ID field (node Get)',
		face: 'node',
		run: () => nodeGet('a/b'),
		// n8n itself checks the field's regex before the workflow runs.
		expect: { refused: /node has issues/, name: 'WorkflowHasIssuesError', requests: 0 },
	},
	...['a/b', '../1', '..', '%2F', '1%2F..%2F2', '', ' ', '1?x=1', '1#x', '1/../2'].map(
		(id): Case => ({
			input: `device id ${JSON.stringify(id)} from an expression (node Get)`,
			face: 'node',
			run: () => nodeGet(`={{ ${JSON.stringify(id)} }}`),
			expect: { refused: /^Device: must be an identifier of letters, digits/, name: 'NodeOperationError', requests: 0 },
		}),
	),
	{ input: 'device id "1\\n" from an expression (trimmed to 1)', face: 'node', run: async () => (await nodeGet('={{ "1\\n" }}')).items.map((i) => i.json.id), expect: { accepted: (v) => expect(v).toEqual([1]), requests: 1 } },
	...[-1, 1.5, Number.NaN, null, {}, 'a/b'].map(
		(id): Case => ({
			input: `device id ${typeof id === 'number' ? String(id) : JSON.stringify(id)} (client delete)`,
			face: 'client',
			run: () => client().delete('device.delete', id, false),
			expect: { refused: /id: must be an identifier/, name: 'ValidationError', requests: 0 },
		}),
	),
	// ---- enabled lists ---------------------------------------------------------------------------------
	...[[1.5], ['x'], [-1], [0], [1, '2; DROP']].map(
		(enabled): Case => ({
			input: `enabled ${JSON.stringify(enabled)}`,
			face: 'node',
			run: () => nodeList({ options: { enabled } }),
			expect: { refused: /enabled: the property key id must be a positive whole number/, name: 'NodeOperationError', requests: 0 },
		}),
	),
	{ input: 'enabled on a list without properties (test results)', face: 'client', run: () => list(client(), 'testResult.list', { enabled: [1] }), expect: { refused: /enabled: applies to customers, devices and overdue devices only/, name: 'ValidationError', requests: 0 } },
	// ---- links to elsewhere --------------------------------------------------------------------------------
	...(
		[
			['nextForeign', 'another host (the foreign host)', /Refusing to follow a "next" link to another origin \(http:\/\/127\.0\.0\.1:\d+\)/],
			['nextHttps', 'the same host with another scheme', /Refusing to follow a "next" link to another origin \(https:/],
			['nextFile', 'a file: URL', /Refusing to follow a "next" link to another origin \(null\)/],
			['nextRelative', 'a scheme-relative URL', /Refusing to follow a "next" link to another origin \(an unreadable URL\)/],
		] as const
	).map(
		([name, what, refused]): Case => ({
			input: `a \`next\` link to ${what}`,
			face: 'client',
			run: () => list(client(`${stub.url}/${name}`), 'device.list', {}),
			expect: { refused, name: 'ServiceError', requests: 0 },
		}),
	),
	{
		input: 'a `next` link to another host (node Get Many, Return All)',
		face: 'node',
		run: () =>
			runNode({
				credentials: credentialsFor(sandbox, sandbox.sandboxToken, { sandboxBaseUrl: `${stub.url}/nextForeign` }),
				parameters: { resource: 'device', operation: 'getAll', returnAll: true },
			}),
		expect: { refused: /Refusing to follow a "next" link to another origin/, name: 'NodeApiError', requests: 0 },
	},
	{
		input: 'a download link to another host over http',
		face: 'client',
		run: () => client(`${stub.url}/linkForeign`).downloadFile(1),
		expect: { refused: /Refusing to download from http:\/\/127\.0\.0\.1:\d+: links to other hosts must use https/, name: 'ServiceError', requests: 0 },
	},
	// ---- base URLs ------------------------------------------------------------------------------------------
	...['http://tec.example.com', 'http://10.0.0.5:8787', 'http://127.0.0.1.nip.io', 'http://localhost.evil.com', 'http://0.0.0.0:8787', 'ftp://127.0.0.1', 'https://user:pw@tec.example.com', 'https://tec.example.com/?token=x', 'javascript:alert(1)', 'tec.example.com'].map(
		(baseUrl): Case => ({
			input: `base URL ${baseUrl}`,
			face: 'client',
			run: async () => parseBaseUrl(baseUrl),
			expect: { refused: /^baseUrl: (must use https|must not contain|".*" is not a URL)/, name: 'ValidationError', requests: 0 },
		}),
	),
	{
		input: 'base URL http://tec.example.com in the credential (node)',
		face: 'node',
		run: () => runNode({ credentials: credentialsFor(sandbox, sandbox.sandboxToken, { sandboxBaseUrl: 'http://tec.example.com' }), parameters: { resource: 'device', operation: 'getAll', limit: 1 } }),
		expect: { refused: /Sandbox Base URL \(credential\): must use https; plain http is only allowed for loopback/, name: 'NodeOperationError', requests: 0 },
	},
	// ---- big answers and big events --------------------------------------------------------------------------
	{
		input: 'a 50 MB response (undici adapter, 20 MB cap)',
		face: 'adapter',
		run: async () => {
			const before = process.memoryUsage();
			const error = await undiciRequestFn('t')({ method: 'GET', url: `${stub.url}/big/`, headers: {}, responseType: 'text', timeoutMs: 30_000 }).then(
				() => undefined,
				(e: Error) => e,
			);
			await stub.closed;
			const after = process.memoryUsage();
			// The server could write only what the client read before refusing, plus socket buffers.
			expect(stub.written).toBeLessThan(30 * MB);
			expect(after.rss - before.rss).toBeLessThan(60 * MB);
			throw error ?? new Error('the 50 MB response was accepted');
		},
		expect: { refused: /the response is larger than 20 MB; refusing to read it/, name: 'Error' as never, requests: 0 },
	},
	{
		input: 'a 50 MB response through the client (GET, no retry)',
		face: 'client',
		run: () => client(`${stub.url}/big`).sendJson('GET', `${stub.url}/big/api/v1/x`),
		expect: { refused: /No response from the service for GET \/x: the response is larger than 20 MB/, name: 'ServiceError', requests: 0 },
	},
	{
		input: 'an event of 300 KB (Device Overdue with a huge designation) to EventBridge',
		face: 'publisher',
		run: async () => {
			const event = makeEvent(DETAIL_TYPES.deviceOverdue, 'sandbox', 'device-overdue:sandbox:1:1', {
				device: { id: 1, designation: 'd'.repeat(300 * 1024), idBarcode: null, department: null, customerId: null, customerName: null, lastTestedDate: null, nextTestDate: null, daysOverdue: null },
				episode: 1,
				reminder: 0,
			}, Date.now());
			const calls = aws.calls;
			const error = await new EventBridgePublisher({ busName: 'b', client: aws.eventBridge(), sleep: async () => undefined }).publish([event]).then(() => undefined, (e: Error) => e);
			expect(aws.calls).toBe(calls); // refused before any PutEvents call
			throw error ?? new Error('published');
		},
		expect: { refused: /An event of \d+ bytes is over the 256 KB PutEvents limit \(device-overdue:sandbox:1:1\)/, name: 'PublishError', requests: 0 },
	},
	{
		input: 'a digest of 3,000 overdue devices with 200-character names',
		face: 'publisher',
		run: async () => {
			const entries = Array.from({ length: 3000 }, (_, i) => ({
				device: { id: i + 1, designation: `${'n'.repeat(190)}-${i}`, idBarcode: `B${i}`, department: `dept ${i % 7}`, customerId: i % 13, customerName: `customer ${i % 13}`, lastTestedDate: '2024-01-01', nextTestDate: '2025-01-01', daysOverdue: 100 },
				episode: 1,
			}));
			const digest = buildDigest({ environment: 'sandbox' }, entries, 5000, Date.now());
			return { size: entrySize(digest), data: digest.detail.data as { count: number; listed: number; truncated: number } };
		},
		expect: {
			accepted: (v) => {
				const { size, data } = v as { size: number; data: { count: number; listed: number; truncated: number } };
				expect(size).toBeLessThanOrEqual(MAX_ENTRY_BYTES);
				expect(data.count).toBe(3000);
				expect(data.truncated).toBeGreaterThan(0);
				expect(data.listed + data.truncated).toBe(3000);
			},
			requests: 0,
		},
	},
	{
		input: 'a device whose designation is 300 KB becomes overdue (overdue poller)',
		face: 'poller',
		run: async () => {
			const used = new Set<number>();
			const id = makeOverdue(sandbox, used);
			const other = makeOverdue(sandbox, used);
			sandbox.account.edit('device', { id, properties: { [DEVICE.designation]: 'h'.repeat(300 * 1024) } }, 'test');
			type Published = Array<{ detail: { data: { device?: { id: number; designation: string | null } } }; 'detail-type': string }>;
			const report = await pollOverdueDevices({
				client: pollerClient(sandbox, sandbox.account.createToken().token, { retry: { maxAttempts: 2 } }),
				store: new FileStateStore(join(tmpdir(), `tec-hostile-${process.pid}-${Date.now()}.json`)),
				publisher: new EventBridgePublisher({ busName: 'b', client: aws.eventBridge(), sleep: async () => undefined }),
				environment: 'sandbox',
				now: () => sandbox.account.now(),
				remainingMs: () => 600_000,
				log: { info: () => undefined, warn: () => undefined, error: () => undefined },
				metrics: { count: () => undefined },
				settings: { ...DEFAULT_SETTINGS, safetyMs: 1000 },
				runId: 'hostile',
			});
			const published = aws.events().filter((e) => e['detail-type'] === 'Device Overdue') as unknown as Published;
			const huge = published.find((e) => e.detail.data.device?.id === id);
			return { complete: report.complete, otherDelivered: published.some((e) => e.detail.data.device?.id === other), designationLength: huge?.detail.data.device?.designation?.length };
		},
		expect: {
			accepted: (v) => {
				const r = v as { complete: boolean; otherDelivered: boolean; designationLength?: number };
				expect(r.complete).toBe(true);
				expect(r.otherDelivered).toBe(true);
				expect(r.designationLength).toBeLessThanOrEqual(1001);
			},
			requests: 'some',
		},
	},
	// ---- malformed JSON bodies --------------------------------------------------------------------------------
	...(
		[
			['create', '{"properties": {"1": "Drill"'],
			['create', '[]'],
			['create', '[1, 2]'],
			['create', 'null'],
			['create', '"a string"'],
			['create', "{'properties': {}}"],
			['update', '{"id": 1, "properties": }'],
			['update', '[{"id": 1}, 5]'],
			['update', ''],
		] as const
	).map(
		([operation, json]): Case => ({
			input: `${operation} with JSON ${JSON.stringify(json)}`,
			face: 'node',
			run: () => nodeJson(operation, json),
			expect: { refused: /^JSON: (not valid JSON|give one object or a non-empty array of objects)/, name: 'NodeOperationError', requests: 0 },
		}),
	),
	{
		input: 'create with JSON {"__proto__": {"polluted": true}, "properties": {"1": "P"}}',
		face: 'node',
		run: async () => {
			const r = await nodeJson('create', '{"__proto__": {"polluted": true}, "properties": {"1": "P"}}');
			return { polluted: ({} as Record<string, unknown>).polluted, error: r.error?.message, items: r.items.length };
		},
		expect: { accepted: (v) => expect((v as { polluted: unknown }).polluted).toBeUndefined(), requests: 'some' },
	},
	{
		input: 'a body that cannot be JSON (circular), client',
		face: 'client',
		run: () => {
			const body: Record<string, unknown> = {};
			body.self = body;
			return client().call('device.create', { body });
		},
		expect: { refused: /circular/i, name: 'TypeError', requests: 0 },
	},
];

const observed: string[] = [];

describe('hostile and bad input', () => {
	it.each(CASES.map((c, i) => [i + 1, c.input, c] as const))('%i. %s', async (_n, _input, c) => {
		await settle();
		const before = sandbox.stats.requests;
		let value: unknown;
		let error: (Error & { name: string }) | undefined;
		try {
			const out = await c.run();
			// runNode resolves with the workflow error instead of throwing it.
			const nodeError = out && typeof out === 'object' && 'error' in out && 'run' in out ? (out as { error?: Error }).error : undefined;
			if (nodeError) error = nodeError;
			else value = out;
		} catch (e) {
			error = e as Error;
		}
		await settle();
		const sent = sandbox.stats.requests - before;
		if ('refused' in c.expect) {
			expect(error, `refused: ${c.input}`).toBeDefined();
			expect(error!.message).toMatch(c.expect.refused);
			if (c.expect.name && c.expect.name !== ('Error' as never)) expect(error!.name).toBe(c.expect.name);
			if (error instanceof ServiceError || error instanceof ValidationError) expect(error.stack).toBeDefined();
			if (c.expect.name === 'PublishError') expect(error).toBeInstanceOf(PublishError);
			expect(sent, 'requests that reached the sandbox').toBe(c.expect.requests);
			observed.push(`| ${c.input} | ${c.face} | ${error!.name}: ${error!.message.replace(/\n/g, ' ').slice(0, 110)} | ${sent} |`);
		} else {
			expect(error?.message, `accepted: ${c.input}`).toBeUndefined();
			c.expect.accepted(value);
			if (c.expect.requests === 'some') expect(sent).toBeGreaterThan(0);
			else expect(sent, 'requests that reached the sandbox').toBe(c.expect.requests);
			observed.push(`| ${c.input} | ${c.face} | accepted | ${sent} |`);
		}
	});

	it('the foreign host received nothing, no request carried the token elsewhere, nothing was left unhandled', () => {
		expect(foreign.received).toEqual([]);
		expect(unhandled.seen).toEqual([]);
		console.info(`bad-input table (observed):\n| input | face | outcome | requests to the sandbox |\n|---|---|---|---|\n${observed.join('\n')}`);
	});
});

// ---- odd list answers on every face -----------------------------------------------------------------------
/**
 * Each odd answer the sandbox can give to a list (`sandbox/faults.ts`, OddAnswer) against every face
 * that reads whole lists. The sandbox refuses pages above 50 (`maxPageSize`), so every face first
 * adapts its page size and every list spans several pages. Asserted for every cell: paging ends
 * within a bounded number of requests, nothing that needs a complete scan is announced (no
 * `Device Overdue Resolved`, no new episode, no re-emitted device, the test-results watermark
 * unmoved), and the run ends with a clear error or an incomplete report naming the reason.
 */
const ODD: Array<{ answer: OddAnswer; what: string; fault: Partial<FaultInput>; reason?: RegExp }> = [
	{ answer: 'countLow', what: '`count` half the truth', fault: {}, reason: /countMismatch/ },
	{ answer: 'countHigh', what: '`count` twice the truth', fault: {}, reason: /countMismatch/ },
	{ answer: 'nextLoop', what: '`next` pointing to the page just read', fault: {}, reason: /repeatedNext/ },
	{ answer: 'nextBack', what: '`next` of page 2 pointing back to page 1', fault: { skip: 1, count: 1 }, reason: /repeatedNext|countMismatch/ },
	// The first anomaly seen is named: where the list ends on a page boundary, `next` contradicts `count` first.
	{ answer: 'endlessNext', what: 'endless `next`, pages alternating', fault: {}, reason: /repeatedPage|countMismatch/ },
	// On the last page the sandbox's empty page has no `next`: then `count` is what contradicts it.
	{ answer: 'emptyPage', what: 'an empty 200 page (page 2)', fault: { skip: 1, count: 1 }, reason: /emptyPage|countMismatch/ },
	{ answer: 'pageTooLarge', what: '10^6 items when 50 were asked', fault: { count: 1 }, reason: /more than a page of this size can hold/ },
	{ answer: 'wrongShape', what: 'records of the wrong shape (ids −3, 0, 2^53, "abc", 1.5; null, a string; bad dates)', fault: {} },
	{ answer: 'deepRecord', what: 'a record nested 100,000 levels deep', fault: { count: 1 }, reason: /nested deeper than 100 levels/ },
];
const MAX_PAGE = 50;
/** A faulted run may need: adaptation + up to one page per 50 items + the bounds' margin. */
const MAX_REQUESTS = 40;
/** Requests per second the odd sandbox answers per token (and its pollers pace to). */
const ODD_RATE = 50;
/**
 * The runner face (a child process per answer): in `npm test` one answer of each kind (a reason
 * the scan names, the overlap's `next` case, records of the wrong shape, an answer refused
 * whole); every answer in `npm run soak`.
 */
const RUNNER_ROWS = soaked(
	ODD.filter((o) => ['countLow', 'nextBack', 'wrongShape', 'deepRecord'].includes(o.answer)),
	ODD,
);

type Face = 'overdue poller' | 'test-results poller' | 'trigger poll' | 'node Return All' | 'npm start';

/**
 * The odd answers on the faces given, against a sandbox laid out as `profileFile` says (every face
 * told the same profile): the same guarantees with page numbers and a largest page below 1000.
 */
function oddAnswers(layout: string, profileFile: string | undefined, faces: ReadonlySet<Face>): void {
	const profile = profileFile === undefined ? undefined : readProfileFile(profileFile);
	const { operations } = profile ?? DEFAULT_PROFILE;
	const OVERDUE_PATH = operations['overdueDevice.list'].path;
	const RESULTS_PATH = operations['testResult.list'].path;
	const DEVICES_PATH = operations['device.list'].path;
	/** The faces' credential (n8n) with the profile, when there is one. */
	const withProfile: IDataObject = profile ? { serviceProfile: JSON.stringify(profile) } : {};
	const faceIt = (face: Face, name: string, fn: () => Promise<void>, timeout?: number) => {
		if (faces.has(face)) it(name, fn, timeout);
	};

	// Every face at once, each on a sandbox of its own (the same data): the table takes as long as its slowest face.
	describe.concurrent(`odd list answers on every face (${layout})`, () => {
		const oddTable = new Map<string, string[]>();
		const memory = () => {
			const events: TecEvent[] = [];
			return { events, publish: async (e: TecEvent[]) => void events.push(...e) };
		};
		const bareOutcome = (r: { complete?: boolean; incomplete?: { reason: string } } | undefined, e: Error | undefined) =>
			e ? `error: ${e.message}` : r?.complete ? 'complete' : `incomplete: ${r?.incomplete?.reason ?? 'stopped'}`;

		afterAll(() => {
			const rows = [...oddTable.values()].flat();
			console.info(`odd-answer table (observed, ${layout}):\n| odd answer | face | outcome | requests | announced |\n|---|---|---|---|---|\n${rows.join('\n')}`);
		});

		/**
		 * A sandbox refusing pages above 50, with 130 devices overdue, for one face. It answers 50
		 * requests per second per token and the pollers' clients pace to that: the table is about
		 * paging, not pacing (the node and the runner pace themselves at the service's 5).
		 */
		async function withOdd(face: string, body: (w: ReturnType<typeof oddWorld>) => Promise<void>): Promise<void> {
			const rows: string[] = [];
			oddTable.set(face, rows);
			const odd = await startSandbox({ port: 0, size: { devices: 300, customers: 8, testResults: 60 }, maxPageSize: MAX_PAGE, ratePerSecond: ODD_RATE, profile });
			try {
				const used = new Set<number>();
				const overdueCount = () => [...odd.account.data.devices.values()].filter((d) => odd.account.isOverdue(d)).length;
				while (overdueCount() < 130) makeOverdue(odd, used);
				await body(oddWorld(odd, rows));
			} finally {
				await odd.stop();
			}
		}

		function oddWorld(odd: Sandbox, rows: string[]) {
			return {
				odd,
				/** Requests the odd sandbox answered, less its 429s: paging bounds count reads, not pacing on a busy machine. */
				answered: () => odd.stats.requests - (odd.stats.byStatus['429'] ?? 0),
				overdueReads: () => odd.stats.byPath[`/api/v1${OVERDUE_PATH}`] ?? 0,
				row: (answer: string, face: string, outcome: string, requests: number, announced: string) =>
					rows.push(`| ${answer} | ${face} | ${outcome.replace(/\n/g, ' ').replace(/\|/g, '/').slice(0, 150)} | ${requests} | ${announced} |`),
				inject: (answer: OddAnswer, fault: Partial<FaultInput>, path: string) => odd.faults.add({ ...fault, kind: answer, path }),
				pollerCtx: (store: FileStateStore, publisher: ReturnType<typeof memory>, counted: Record<string, number>, logs: string[]) => ({
					client: pollerClient(odd, odd.sandboxToken, { retry: FAST_RETRY, ratePerSecond: ODD_RATE, profile }),
					store,
					publisher,
					environment: 'sandbox' as const,
					now: () => odd.account.now(),
					remainingMs: () => 600_000,
					log: { info: () => undefined, warn: (m: string, x?: Record<string, unknown>) => void logs.push(`${m} ${JSON.stringify(x)}`), error: () => undefined },
					metrics: { count: (name: string, value = 1) => void (counted[name] = (counted[name] ?? 0) + value) },
					settings: { ...DEFAULT_SETTINGS, safetyMs: 0 },
					runId: 'odd',
				}),
			};
		}

		faceIt('overdue poller', 'overdue poller: no false Resolved, no new episode, the run says why', () =>
			withOdd('overdue poller', async ({ answered, inject, odd, pollerCtx, row }) => {
				for (const o of ODD) {
					const store = new FileStateStore(join(tmpdir(), `tec-odd-${process.pid}-${layout.split(' ')[0]}-${o.answer}.json`));
					const publisher = memory();
					const counted: Record<string, number> = {};
					const logs: string[] = [];
					const ctx = pollerCtx(store, publisher, counted, logs);
					const first = await pollOverdueDevices(ctx);
					expect(first.complete, o.answer).toBe(true);
					const announcedFirst = publisher.events.length;
					inject(o.answer, o.fault, OVERDUE_PATH);
					const before = answered();
					const rssBefore = process.memoryUsage().rss;
					const second = await pollOverdueDevices(ctx).then((r) => ({ r, e: undefined }), (e: Error) => ({ r: undefined, e }));
					await settle();
					const requests = answered() - before;
					const rssGrowth = process.memoryUsage().rss - rssBefore;
					odd.faults.clear();
					const duringFault = publisher.events.slice(announcedFirst);
					expect(requests, `${o.answer}: paging ended within bounds`).toBeLessThanOrEqual(MAX_REQUESTS);
					expect(rssGrowth, `${o.answer}: memory`).toBeLessThan(256 * MB);
					expect(duringFault.filter((e) => e['detail-type'] === 'Device Overdue Resolved'), `${o.answer}: no false Resolved`).toEqual([]);
					if (o.reason) {
						expect(second.r?.complete ?? false, o.answer).toBe(false);
						expect(bareOutcome(second.r, second.e), o.answer).toMatch(o.reason);
						if (second.r) expect(counted.ScanIncomplete, `${o.answer}: metric`).toBe(1);
					} else {
						expect(second.e, o.answer).toBeUndefined();
						expect(second.r?.complete, o.answer).toBe(true);
						expect(counted.RecordsSkipped, `${o.answer}: counted`).toBe(unreadableRecords('overdueDevice').length);
						expect(logs.filter((l) => l.startsWith('Skipped a record')).length).toBe(unreadableRecords('overdueDevice').length);
						expect(logs.find((l) => l.startsWith('Skipped a record')), 'logged with its position').toMatch(/"position":0/);
					}
					// Every device is still overdue in the state; the next clean run resolves nothing and starts no episode.
					const states = [];
					for await (const item of store.list<{ overdue: boolean; episode: number }>('overdue:sandbox')) states.push(item.value);
					expect(states.every((s) => s.overdue && s.episode === 1), `${o.answer}: state untouched`).toBe(true);
					const third = await pollOverdueDevices(ctx);
					expect(third.complete).toBe(true);
					const later = publisher.events.slice(announcedFirst);
					expect(later.filter((e) => e['detail-type'] === 'Device Overdue Resolved' || (e['detail-type'] === 'Device Overdue' && (e.detail.data as { episode: number }).episode > 1))).toEqual([]);
					expect(duringFault.filter((e) => e['detail-type'] === 'Device Overdue'), `${o.answer}: nothing re-announced`).toEqual([]);
					row(o.what, 'overdue poller', bareOutcome(second.r, second.e), requests, `0 Resolved, 0 new episodes (RSS +${Math.round(rssGrowth / MB)} MB)`);
				}
			}), 240_000);

		faceIt('test-results poller', 'test-results poller: each uploaded result announced once, the watermark moves only after a complete run', () =>
			withOdd('test-results poller', async ({ answered, inject, odd, pollerCtx, row }) => {
				const store = new FileStateStore(join(tmpdir(), `tec-odd-results-${process.pid}-${layout.split(' ')[0]}.json`));
				const publisher = memory();
				const counted: Record<string, number> = {};
				const ctx = pollerCtx(store, publisher, counted, []);
				expect((await pollTestResults(ctx)).complete).toBe(true); // the first run records the window
				const listReads = () => odd.stats.byPath[`/api/v1${RESULTS_PATH}`] ?? 0;
				let pagesRead = 0;
				// Uploads for devices that are not overdue, so the overdue list the other faces read stays as it is.
				const devices = [...odd.account.data.devices.values()].filter((d) => !odd.account.isOverdue(d)).map((d) => d.id);
				for (const o of ODD) {
					const uploaded = Array.from({ length: 60 }, (_, i) => odd.account.syncTestResult({ device_id: devices[i % devices.length], status: i % 3 ? 'passed' : 'failed' }).id);
					const cursor = await store.get('cursor:sandbox', 'testResults');
					inject(o.answer, o.fault, RESULTS_PATH);
					const before = answered();
					const pagesBefore = listReads();
					const second = await pollTestResults(ctx).then((r) => ({ r, e: undefined }), (e: Error) => ({ r: undefined, e }));
					const requests = answered() - before;
					odd.faults.clear();
					// The bound is on the list's pages: a failed result's evidence (its detail and its device) comes on top.
					const pages = listReads() - pagesBefore;
					pagesRead += pages;
					expect(pages, `${o.answer}: paging ended within bounds`).toBeLessThanOrEqual(MAX_REQUESTS);
					if (o.reason) {
						expect(bareOutcome(second.r, second.e), o.answer).toMatch(o.reason);
						expect(await store.get('cursor:sandbox', 'testResults'), `${o.answer}: watermark unmoved`).toEqual(cursor);
					} else {
						expect(second.r?.complete, o.answer).toBe(true);
					}
					const third = await pollTestResults(ctx);
					expect(third.complete).toBe(true);
					const keys = publisher.events.map((e) => e.detail.metadata.dedupeKey);
					expect(keys.length, 'no duplicate dedupe key').toBe(new Set(keys).size);
					const announced = new Set(publisher.events.map((e) => (e.detail.data as { testResult: { id: number } }).testResult.id));
					expect(uploaded.filter((id) => !announced.has(id)), `${o.answer}: every uploaded result announced`).toEqual([]);
					expect([...announced].filter((id) => id >= 900_000_000), 'no unreadable record announced').toEqual([]);
					row(o.what, 'test-results poller', bareOutcome(second.r, second.e), requests, '60 of 60 once (across this and the next run)');
				}
				expect(counted.RecordsSkipped).toBe(unreadableRecords('testResult').length);
				expect(pagesRead, 'the list reads are counted').toBeGreaterThan(ODD.length);
			}), 240_000);

		faceIt('trigger poll', 'trigger poll (n8n-core, Device Overdue): nothing emitted, a failed poll leaves the state as it was', () =>
			withOdd('trigger poll', async ({ answered, inject, odd, row }) => {
				const token = odd.account.createToken({ label: 'odd trigger' }).token;
				const poll = (staticData: IDataObject) => runPoll({ parameters: { event: 'deviceOverdue' }, credentials: credentialsFor(odd, token, withProfile), staticData });
				let state = (await poll({})).staticData;
				for (const o of ODD) {
					inject(o.answer, o.fault, OVERDUE_PATH);
					const before = answered();
					const { result: faulted, logs } = await captureLogs(() => poll(state));
					const requests = answered() - before;
					odd.faults.clear();
					expect(requests, `${o.answer}: paging ended within bounds`).toBeLessThanOrEqual(MAX_REQUESTS);
					expect(faulted.items ?? [], `${o.answer}: nothing emitted`).toEqual([]);
					// A poll that read the list only in part says why in n8n's log.
					if (!faulted.error && o.reason) expect(logs.some((l) => l.level === 'warn' && o.reason!.test(l.message)), `${o.answer}: logged why`).toBe(true);
					if (faulted.error) {
						expect(faulted.error.name).toBe('NodeApiError');
						expect(faulted.staticData, `${o.answer}: state unchanged`).toEqual(state);
					} else state = faulted.staticData;
					const clean = await poll(state);
					expect(clean.error).toBeUndefined();
					expect(clean.items ?? [], `${o.answer}: no device re-emitted`).toEqual([]);
					state = clean.staticData;
					row(o.what, 'trigger poll', faulted.error ? `NodeApiError: ${faulted.error.message}` : 'poll ok, scan kept as incomplete or complete', requests, '0 items; next poll 0 items');
				}
			}), 240_000);

		faceIt('node Return All', 'node Get Many, Return All (n8n-core): a clear error naming why, never a silent part of the list', () =>
			withOdd('node Return All', async ({ answered, inject, odd, row }) => {
				const token = odd.account.createToken({ label: 'odd node' }).token;
				const total = odd.account.data.devices.size;
				for (const o of ODD) {
					inject(o.answer, o.fault, DEVICES_PATH);
					const before = answered();
					const r = await runNode({ credentials: credentialsFor(odd, token, withProfile), parameters: { resource: 'device', operation: 'getAll', returnAll: true } });
					const requests = answered() - before;
					odd.faults.clear();
					expect(requests, `${o.answer}: paging ended within bounds`).toBeLessThanOrEqual(MAX_REQUESTS);
					if (o.reason) {
						expect(r.error?.name, o.answer).toBe('NodeApiError');
						expect(`${r.error?.message} ${String(r.error?.description ?? '')}`, o.answer).toMatch(o.reason);
						row(o.what, 'node Return All', `NodeApiError: ${r.error!.message}`, requests, '—');
					} else {
						// The action node lists what the service holds, unreadable records included.
						expect(r.error).toBeUndefined();
						expect(r.items).toHaveLength(total + unreadableRecords('device').length);
						row(o.what, 'node Return All', `accepted: ${r.items.length} items`, requests, '—');
					}
				}
			}), 240_000);

		faceIt('npm start', `\`npm start --once\` (child process, ${RUNNER_ROWS.length} of ${ODD.length} answers): ends, no false Resolved, the log names why`, () =>
			withOdd('npm start', async ({ inject, odd, overdueReads, row }) => {
				const dir = mkdtempSync(join(tmpdir(), 'tec-odd-runner-'));
				const baseline = join(dir, 'baseline.json');
				const env = { TEC_BASE_URL: odd.url, TEC_TOKEN: odd.account.createToken({ label: 'odd runner' }).token, ...(profileFile ? { TEC_PROFILE: profileFile } : {}) };
				const first = spawnRunner(['--once', '--state', baseline], env);
				await first.exited();
				const overdueNow = [...odd.account.data.devices.values()].filter((d) => odd.account.isOverdue(d)).length;
				expect(first.events().filter((e) => e['detail-type'] === 'Device Overdue').length).toBe(overdueNow);
				for (const o of RUNNER_ROWS) {
					const statePath = join(dir, `${o.answer}.json`);
					copyFileSync(baseline, statePath);
					inject(o.answer, o.fault, OVERDUE_PATH);
					// The runner runs every poller; the bound is on the overdue list's reads.
					const before = overdueReads();
					const r = spawnRunner(['--once', '--state', statePath], env);
					const code = await r.exited();
					const requests = overdueReads() - before;
					odd.faults.clear();
					expect(requests, `${o.answer}: paging ended within bounds`).toBeLessThanOrEqual(2 * MAX_REQUESTS);
					expect(r.events().filter((e) => e['detail-type'] === 'Device Overdue Resolved' || e['detail-type'] === 'Device Overdue'), `${o.answer}: nothing announced`).toEqual([]);
					expect(r.stderr.join('\n')).not.toMatch(/RangeError|Maximum call stack|at .*\.ts:\d+/);
					const run = r.logs().find((l) => l.message === 'Poll run' && l.poller === 'overdueDevices');
					const failed = r.logs().find((l) => l.message === 'A poll run failed; the next cycle retries it');
					const why = r.logs().find((l) => String(l.message).startsWith('The list was not read to its end') && l.poller === 'overdueDevices');
					const outcome = run ? (run.complete ? 'complete' : `incomplete: ${String(why?.reason)} (${String(why?.detail)})`) : `run failed: ${String(failed?.error)}`;
					if (o.answer === 'nextBack' && run?.complete) {
						// The overdue scan overlaps its pages: it reads them by offset and takes from `next` only
						// that more follow, so a `next` pointing back can be harmless to it; complete then means
						// it saw every overdue device.
						expect(Number(run.itemsSeen), o.answer).toBeGreaterThanOrEqual(overdueNow);
					} else if (o.reason) expect(outcome, o.answer).toMatch(o.reason);
					else expect(outcome).toBe('complete');
					row(o.what, '`npm start --once`', `${outcome} (exit ${code})`, requests, '0 events');
				}
			}), 600_000);
	});
}

oddAnswers('default layout', undefined, new Set<Face>(['overdue poller', 'test-results poller', 'trigger poll', 'node Return All', 'npm start']));
// Page numbers, a largest page of 200 (the sandbox refuses above 50), a renamed field and property:
// the faces that page whole lists themselves, kept to the quick ones.
oddAnswers('page-numbers layout', variantFile('page-numbers'), new Set<Face>(['overdue poller', 'node Return All']));

