import { Pacer, SERVICE_RATE, ServiceClient, historyReach, monthBefore, parseBaseUrl, type ListQuery } from '../client';
import { historyDeviceOf } from '../client/complianceHistoryRead';
import { wholeList } from '../client/complianceSnapshot';
import { REPORT_ROLES } from '../client/complianceReportRead';
import { enabledLists } from '../client/enabledLists';
import { NOTICE_ROLES } from '../client/noticesRead';
import { systemClock, undiciRequestFn } from '../lambdas/adapters/undiciService';
import { getHeapStatistics } from 'node:v8';
import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';
import type { RequestFn } from '../client';
import setup from '../test/support/globalSetup';

/**
 * One process = one measurement of an E-mail operation on a large account, so its CPU and heap are
 * its own (the sandbox runs in the parent). Three contenders, each at the service's 5 requests/s:
 *   - `node`: the operation through n8n's real engine (n8n-core, the built package), warmed up;
 *   - `read`: the baseline, the client reading the same lists at the largest page and keeping nothing;
 *   - `n8nRead`: the same read in an n8n-core process (its heap loaded, warmed up) through n8n's own
 *     HTTP client (what n8n-core's request helpers call): the least CPU any node reading these lists
 *     in n8n spends, before it keeps or makes anything.
 * Prints one JSON line: items, wall time, CPU, heap before and at its peak, peak RSS.
 *
 * Run: node --expose-gc --require tsx/cjs bench/emailsChild.ts <node|read|n8nRead> <operation> <url> <token> <month> [warm-up token]
 */

export type EmailOperation = 'customerNotices' | 'complianceReport';

export interface ChildRun {
	items: number;
	ms: number;
	cpuMs: number;
	heapBefore: number;
	peakHeap: number;
	maxRss: number;
}

export function parametersOf(operation: EmailOperation, month: string): IDataObject {
	return operation === 'customerNotices'
		? { resource: 'email', operation, month, language: 'en', options: { replyTo: 'booking@lab.example.com', companyName: 'Lab service' } }
		: // The row times the report's list reads; its measured-value warnings cost one detail per passed result of the month on top (docs/emails.md), left out here.
			{ resource: 'email', operation, month, to: 'quality@lab.example.com', language: 'en', measurementWarnings: false };
}

/** The baseline: the lists the operation reads, read whole at the largest page, nothing kept past its page. */
async function plainRead(url: string, request: RequestFn, operation: EmailOperation, month: string): Promise<number> {
	const client = new ServiceClient({
		baseUrl: parseBaseUrl(url, 'url'),
		request,
		clock: systemClock,
		pacer: new Pacer(systemClock, SERVICE_RATE),
	});
	let n = 0;
	// Each list asks only for the properties the operation reads, as the operation does (client/enabledLists.ts).
	const enabled = await enabledLists(client, operation === 'customerNotices' ? NOTICE_ROLES : REPORT_ROLES);
	for await (const page of client.pages('customer.list', { enabled: enabled.customer }, wholeList(client))) n += page.length;
	let longest = 0;
	const names = new Map<number, string>();
	for await (const page of client.pages('device.list', { enabled: enabled.device }, wholeList(client))) {
		n += page.length;
		// The report's results reach back by the longest test interval (as the operation reads them).
		if (operation === 'complianceReport') for (const raw of page) longest = Math.max(longest, historyDeviceOf(raw, names, client.profile)?.testIntervalMonths ?? 0);
	}
	if (operation === 'customerNotices') return n;
	// The report's results: from the earlier of the trend's rebuild reach and 24 months of failure rates.
	const reach = historyReach(monthBefore(month, 12), [{ testIntervalMonths: longest }]);
	const ratesFrom = `${monthBefore(month, 23)}-01`;
	const since = reach < ratesFrom ? reach : ratesFrom;
	const query: ListQuery = { filters: [{ key: 'test_date', conditions: [{ keyword: 'newerOrSame', value: since }] }], ordering: { key: 'id', direction: 'asc' } };
	for await (const page of client.pages('testResult.list', query, wholeList(client))) n += page.length;
	return n;
}

/** n8n's own HTTP client as the request function, with the options the node's transport gives it (nodes/…/transport). */
function n8nRequestFn(token: string): RequestFn {
	/* eslint-disable @typescript-eslint/no-require-imports -- loaded after setup(), as n8n-core is */
	const { Container } = require('@n8n/di') as { Container: { get<T>(c: new (...a: never[]) => T): T } };
	const { OutboundHttp } = require('@n8n/backend-network') as { OutboundHttp: new () => { requests(): { request(o: IHttpRequestOptions): Promise<unknown> } } };
	/* eslint-enable @typescript-eslint/no-require-imports */
	const http = Container.get(OutboundHttp).requests();
	return async (r) => {
		const res = (await http.request({
			method: r.method,
			url: r.url,
			headers: { ...r.headers, Authorization: `Token ${token}` },
			body: r.body,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			json: false,
			encoding: 'text',
			timeout: r.timeoutMs,
		})) as { statusCode: number; headers: Record<string, unknown>; body: unknown };
		const headers = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k.toLowerCase(), String(v)]));
		return { status: res.statusCode, headers, body: typeof res.body === 'string' ? res.body : '' };
	};
}

async function main(): Promise<void> {
	const [mode, operation, url, token, month, warmToken] = process.argv.slice(2) as [string, EmailOperation, string, string, string, string | undefined];
	let run: () => Promise<number>;
	if (mode === 'node' || mode === 'n8nRead') {
		setup();
		/* eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded after setup(): n8n-core reads its environment when first loaded */
		const { runNode } = require('../test/support/n8n') as typeof import('../test/support/n8n');
		const credentials = (t: string) => ({ testEquipmentCloudApi: { accessToken: t, environment: 'sandbox', sandboxBaseUrl: url } });
		// n8n initialises its HTTP stack lazily: one small call first, on a token of its own.
		await runNode({ credentials: credentials(warmToken ?? token), parameters: { resource: 'subUser', operation: 'getAll', limit: 1 } });
		if (mode === 'n8nRead') {
			const request = n8nRequestFn(token);
			run = () => plainRead(url, request, operation, month);
		} else run = async () => {
			const { items, error } = await runNode({ credentials: credentials(token), parameters: parametersOf(operation, month), workflowSettings: { timezone: 'UTC' } });
			if (error) throw new Error(`the node failed: ${String(error.message)} ${String(error.description ?? '')}`);
			return items.length;
		};
	} else if (mode === 'read') {
		run = () => plainRead(url, undiciRequestFn(token), operation, month);
	} else throw new Error(`mode must be node, read or n8nRead, got ${mode}`);

	const gc = (globalThis as { gc?: () => void }).gc;
	if (!gc) throw new Error('run with --expose-gc');
	gc();
	const heapBefore = process.memoryUsage().heapUsed;
	let peakHeap = heapBefore;
	// getHeapStatistics, not memoryUsage (which reads the RSS from the system each time: 1.6 s of CPU in a run).
	const sampler = setInterval(() => void (peakHeap = Math.max(peakHeap, getHeapStatistics().used_heap_size)), 5);
	const cpu = process.cpuUsage();
	const started = performance.now();
	const items = await run();
	const ms = performance.now() - started;
	const used = process.cpuUsage(cpu);
	clearInterval(sampler);
	peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
	const result: ChildRun = { items, ms, cpuMs: (used.user + used.system) / 1000, heapBefore, peakHeap, maxRss: process.resourceUsage().maxRSS * 1024 };
	process.stdout.write(`${JSON.stringify(result)}\n`);
}

if (require.main === module) {
	main().catch((e) => {
		process.stderr.write(`${(e as Error).stack}\n`);
		process.exit(1);
	});
}
