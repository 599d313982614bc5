/**
 * Paging against the sandbox: the client adapts to a service that refuses large pages (400 naming
 * `limit`) and remembers the size per base URL; whatever odd answer the sandbox gives, a scan ends,
 * and a scan that says it is complete holds exactly the list.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedPageSizes, type PagingOutcome, type ServiceClient } from '../../client';
import { ODD_ANSWERS, type OddAnswer } from '../../sandbox/faults';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { pollerClient } from '../reliability/support';

let sandbox: Sandbox;
const lines: string[] = [];
const SIZE = { devices: 130, customers: 5, testResults: 10 };
/** The property's sandbox answers this many requests per second per token, and its client paces to it. */
const QUICK_RATE = 50;

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, size: SIZE, maxPageSize: 60, log: (l) => lines.push(l) });
});
afterAll(async () => {
	await sandbox.stop();
});

const client = (): ServiceClient => pollerClient(sandbox, sandbox.sandboxToken, { retry: { maxAttempts: 3, baseDelayMs: 50, maxDelayMs: 200 } });
const limits = (from: number) => lines.slice(from).map((l) => [Number(new URL(l.split(' ')[2], 'http://x').searchParams.get('limit')), Number(l.split(' ')[3])]);

async function scan(c: ServiceClient, pageSize: number): Promise<{ ids: unknown[]; outcome?: PagingOutcome; error?: Error }> {
	const ids: unknown[] = [];
	const gen = c.pages('device.list', {}, { pageSize });
	try {
		for (;;) {
			const next = await gen.next();
			if (next.done) return { ids, outcome: next.value };
			ids.push(...next.value.map((d) => (d && typeof d === 'object' && 'id' in d ? d.id : d)));
		}
	} catch (error) {
		return { ids, error: error as Error };
	}
}

describe('page-size adaptation', () => {
	it('a refused page size (400 naming limit) is retried smaller, then remembered for the base URL', async () => {
		sharedPageSizes.forget(`${sandbox.url}/api/v1`);
		const all = [...sandbox.account.data.devices.keys()].sort((a, b) => a - b);
		let from = lines.length;
		const first = await scan(client(), 1000);
		expect(first.outcome).toEqual({ complete: true });
		expect(first.ids).toEqual(all);
		// One refusal, then the size the description names (60), three pages.
		expect(limits(from)).toEqual([[1000, 400], [60, 200], [60, 200], [60, 200]]);
		from = lines.length;
		expect((await scan(client(), 1000)).ids).toEqual(all);
		// Remembered: every request asks for 60 and none is refused for its size (a 429 on a loaded
		// machine is retried, and is not what this test is about).
		expect(limits(from).every(([limit, status]) => limit === 60 && status !== 400)).toBe(true);
		expect(limits(from).filter(([, status]) => status === 200)).toHaveLength(3);

		// The maximum lowered through the admin API: the client adapts again.
		const put = await fetch(`${sandbox.adminUrl}/paging`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ max_page_size: 25 }) });
		expect(await put.json()).toEqual({ max_page_size: 25 });
		from = lines.length;
		const third = await scan(client(), 1000);
		expect(third.ids).toEqual(all);
		expect(limits(from)[0]).toEqual([60, 400]);
		expect(limits(from).slice(1).every(([limit]) => limit === 25)).toBe(true);
		await fetch(`${sandbox.adminUrl}/paging`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ max_page_size: 60 }) });
	}, 60_000);

	it('the admin API refuses a page size that is not a whole number of at least 1', async () => {
		for (const bad of [0, -1, 1.5, 'x']) {
			const r = await fetch(`${sandbox.adminUrl}/paging`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ max_page_size: bad }) });
			expect(r.status).toBe(400);
		}
	});
});

describe('odd answers against the sandbox', () => {
	// Paging, not pacing (that is the next test's): a sandbox of its own that answers 50 requests
	// per second, so 25 scans of up to 17 pages do not wait on the service's 5.
	let quick: Sandbox;
	beforeAll(async () => {
		quick = await startSandbox({ port: 0, size: SIZE, maxPageSize: 60, ratePerSecond: QUICK_RATE });
	});
	afterAll(() => quick.stop());

	it('property: every scan ends; a complete one holds exactly the list, once and in order', async () => {
		const sandbox = quick;
		const quickClient = () => pollerClient(sandbox, sandbox.sandboxToken, { retry: { maxAttempts: 3, baseDelayMs: 50, maxDelayMs: 200 }, ratePerSecond: QUICK_RATE });
		const all = [...sandbox.account.data.devices.keys()].sort((a, b) => a - b);
		await fc.assert(
			fc.asyncProperty(
				// A consistent empty list is a well-formed answer no paging can tell from the truth (the overdue poller confirms a mass exit instead).
				fc.constantFrom(...ODD_ANSWERS.filter((a) => a !== 'pageTooLarge' && a !== 'deepRecord' && a !== 'emptyList'), 'none' as const),
				fc.integer({ min: 20, max: 60 }),
				fc.nat(3),
				fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
				async (answer, pageSize, skip, count) => {
					sandbox.faults.clear();
					// Unreadable records are a lasting part of the list (struck on some pages only, they would shift it).
					const bounds = answer === 'wrongShape' ? {} : { skip, count };
					if (answer !== 'none') sandbox.faults.add({ kind: answer as OddAnswer, path: '/data/devices/all/', ...bounds });
					const before = sandbox.stats.requests;
					const r = await scan(quickClient(), pageSize);
					sandbox.faults.clear();
					expect(sandbox.stats.requests - before, 'paging ends within bounds').toBeLessThanOrEqual(Math.ceil(all.length / pageSize) * 2 + 4);
					// Unreadable records are listed as they come (the readers skip them); the rest is the list.
					if (r.outcome?.complete) expect(r.ids.filter((id) => answer !== 'wrongShape' || (typeof id === 'number' && all.includes(id)))).toEqual(all);
					if (answer === 'none') expect(r.outcome).toEqual({ complete: true });
				},
			),
			{ numRuns: 25 },
		);
	}, 120_000);
});

describe('odd answers and the rate limit', () => {
	it('a request throttled with a 429 neither uses up an odd answer nor counts toward its skip', async () => {
		sandbox.faults.clear();
		const token = sandbox.account.createToken({ label: 'odd and throttled' }).token;
		const get = async () => {
			const r = await fetch(`${sandbox.url}/api/v1/data/devices/all/?limit=5`, { headers: { authorization: `Token ${token}` } });
			return { status: r.status, results: r.status === 200 ? ((await r.json()) as { results: unknown[] }).results.length : undefined };
		};
		// The token's five requests of this second are spent; then the fault is set.
		expect((await Promise.all(Array.from({ length: 5 }, get))).map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
		const fault = sandbox.faults.add({ kind: 'emptyPage', path: '/data/devices/all/', skip: 1, count: 1 });
		const throttled = [await get(), await get(), await get()];
		expect(throttled.map((a) => a.status)).toEqual([429, 429, 429]);
		expect(fault.hits).toBe(0);
		await new Promise((r) => setTimeout(r, 1100));
		// The first served request is the skipped one, the second gets the empty page.
		expect([await get(), await get()]).toEqual([
			{ status: 200, results: 5 },
			{ status: 200, results: 0 },
		]);
		expect(fault.remaining).toBe(0);
		sandbox.faults.clear();
	});
});
