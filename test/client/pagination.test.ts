import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { PAGING_BOUNDS, ServiceClient, ServiceError, ValidationError, itemBound, refusesPageSize, itemKey, pageBound, pageSignature, readPage, sharedPageSizes, smallerPageSize, valueDeeperThan, type ClientEvent, type ItemKey, type PageMemory, type RememberedPage } from '../../client';
import { API, BASE, collect, json, newClock, rejected, router, type Handler } from './helpers';

// A page size a test taught the process is forgotten even when the test fails before its own cleanup.
afterEach(() => sharedPageSizes.forget(`${BASE}/api/v1`));

const LIST = `${API}/data/devices/all/`;
const items = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ id: from + i + 1, designation: `D${from + i + 1}` }));

function setup(handler: Handler) {
	const clock = newClock();
	const r = router(clock, handler);
	const events: ClientEvent[] = [];
	const client = new ServiceClient({ baseUrl: BASE, request: r.request, clock, onEvent: (e) => events.push(e) });
	return { clock, r, client, events };
}

/** A list server over `data` honouring limit/offset and answering bare arrays. */
const arrayServer =
	(data: unknown[]): Handler =>
	(req) => {
		const limit = Number(req.query.get('limit'));
		const offset = Number(req.query.get('offset') ?? 0);
		return json(200, data.slice(offset, offset + limit));
	};

describe('pages: bare arrays', () => {
	it('asks for the next offset after a full page and stops on a short one', async () => {
		const { clock, r, client } = setup(arrayServer(items(7)));
		const pages = await clock.run(collect(client.pages('device.list', {}, { pageSize: 3 })));
		expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
		expect(pages.flat()).toEqual(items(7));
		expect(r.calls.map((c) => c.url)).toEqual([`${LIST}?limit=3`, `${LIST}?limit=3&offset=3`, `${LIST}?limit=3&offset=6`]);
	});

	it('stops on an empty page', async () => {
		const { clock, r, client } = setup(arrayServer(items(6)));
		const pages = await clock.run(collect(client.pages('device.list', {}, { pageSize: 3 })));
		expect(pages.map((p) => p.length)).toEqual([3, 3]);
		expect(r.calls).toHaveLength(3);
		const empty = setup(() => json(200, []));
		expect(await empty.clock.run(collect(empty.client.pages('device.list')))).toEqual([]);
		expect(empty.r.calls).toHaveLength(1);
	});

	it('uses the default page size of 100', async () => {
		const { clock, r, client } = setup(arrayServer(items(150)));
		const all = await clock.run(collect(client.items('device.list')));
		expect(all).toHaveLength(150);
		expect(r.calls.map((c) => c.query.toString())).toEqual(['limit=100', 'limit=100&offset=100']);
	});

	it('carries the validated query on every page', async () => {
		const { clock, r, client } = setup(arrayServer(items(5)));
		await clock.run(collect(client.pages('device.list', { enabled: [1, 2], ordering: { key: 3, direction: 'desc' }, filters: [{ key: 4, conditions: [{ keyword: 'contains', value: 'a b' }] }] }, { pageSize: 2 })));
		expect(r.calls).toHaveLength(3);
		for (const [i, c] of r.calls.entries()) {
			expect(c.query.get('enabled')).toBe('[1,2]');
			expect(c.query.get('ordering')).toBe('-3');
			expect(c.query.get('4')).toBe('contains"a b"');
			expect(c.query.get('limit')).toBe('2');
			expect(c.query.get('offset')).toBe(i === 0 ? null : String(2 * i));
		}
	});

	it('property: yields every item exactly once, in order, for any list size and page size', async () => {
		await fc.assert(
			fc.asyncProperty(fc.nat(60), fc.integer({ min: 1, max: 25 }), fc.option(fc.integer({ min: 1, max: 80 }), { nil: undefined }), async (n, pageSize, maxItems) => {
				const { clock, r, client } = setup(arrayServer(items(n)));
				const all = await clock.run(collect(client.items('device.list', {}, { pageSize, maxItems })));
				const want = items(Math.min(n, maxItems ?? Infinity));
				expect(all).toEqual(want);
				// never more requests than pages needed + one to see the end
				expect(r.calls.length).toBeLessThanOrEqual(Math.floor(want.length / pageSize) + 1);
			}),
			{ numRuns: 150 },
		);
	});
});

describe('pages: starting at an offset', () => {
	it('property: from any offset, yields the rest of the list exactly once, in order', async () => {
		await fc.assert(
			fc.asyncProperty(fc.nat(60), fc.integer({ min: 1, max: 25 }), fc.nat(70), async (n, pageSize, offset) => {
				const { clock, r, client } = setup(arrayServer(items(n)));
				const all = await clock.run(collect(client.items('device.list', {}, { pageSize, offset })));
				expect(all).toEqual(items(n).slice(offset));
				expect(r.calls[0].query.get('offset')).toBe(offset === 0 ? null : String(offset));
			}),
			{ numRuns: 150 },
		);
	});

	it('with an envelope count, stops at the end counted from the offset', async () => {
		const data = items(7);
		const { clock, r, client } = setup((req) => {
			const limit = Number(req.query.get('limit'));
			const offset = Number(req.query.get('offset') ?? 0);
			return json(200, { count: data.length, results: data.slice(offset, offset + limit) });
		});
		expect(await clock.run(collect(client.items('device.list', {}, { pageSize: 2, offset: 3 })))).toEqual(data.slice(3));
		expect(r.calls.map((c) => c.query.get('offset'))).toEqual(['3', '5', '7']);
	});

	for (const offset of [-1, 1.5, Number.NaN]) {
		it(`offset ${offset} is refused by name before any request`, async () => {
			const { clock, r, client } = setup(arrayServer(items(3)));
			const e = await rejected(clock.run(collect(client.items('device.list', {}, { offset }))));
			expect(e).toBeInstanceOf(ValidationError);
			expect(e.message).toBe(`offset: must be a whole number of 0 or more, got ${offset}`);
			expect(r.calls).toHaveLength(0);
		});
	}
});

describe('pages: envelopes', () => {
	it('follows next', async () => {
		const next1 = `${LIST}?cursor=p2&limit=2`;
		const next2 = `${LIST}?cursor=p3&limit=2`;
		const { clock, r, client } = setup((req) => {
			const cursor = req.query.get('cursor');
			if (!cursor) return json(200, { count: 5, next: next1, previous: null, results: items(2) });
			if (cursor === 'p2') return json(200, { count: 5, next: next2, results: items(2, 2) });
			return json(200, { count: 5, next: null, results: items(1, 4) });
		});
		const all = await clock.run(collect(client.items('device.list', {}, { pageSize: 2 })));
		expect(all).toEqual(items(5));
		expect(r.calls.map((c) => c.url)).toEqual([`${LIST}?limit=2`, next1, next2]);
	});

	it('with only count, pages by offset until count is reached', async () => {
		const data = items(5);
		const { clock, r, client } = setup((req) => {
			const offset = Number(req.query.get('offset') ?? 0);
			return json(200, { count: 5, results: data.slice(offset, offset + 2) });
		});
		expect(await clock.run(collect(client.items('device.list', {}, { pageSize: 2 })))).toEqual(data);
		expect(r.calls.map((c) => c.query.toString())).toEqual(['limit=2', 'limit=2&offset=2', 'limit=2&offset=4']);
	});

	it('with count, a full last page is checked with one more request (empty: complete)', async () => {
		const data = items(4);
		const { clock, r, client } = setup((req) => {
			const offset = Number(req.query.get('offset') ?? 0);
			return json(200, { count: 4, results: data.slice(offset, offset + 2) });
		});
		const gen = client.pages('device.list', {}, { pageSize: 2 });
		const pages = [];
		let next = await clock.run(gen.next());
		for (; !next.done; next = await clock.run(gen.next())) pages.push(next.value);
		expect(pages.flat()).toEqual(data);
		expect(next.value).toEqual({ complete: true });
		expect(r.calls.map((c) => c.query.get('offset'))).toEqual([null, '2', '4']);
	});

	it('count and next that lie alike at a page boundary are caught by that request', async () => {
		// The service says 4 items and ends next there, but 6 exist.
		const data = items(6);
		const { clock, client } = setup((req) => {
			const offset = Number(req.query.get('offset') ?? 0);
			return json(200, { count: 4, next: null, results: data.slice(offset, offset + 2) });
		});
		const gen = client.pages('device.list', {}, { pageSize: 2 });
		let next = await clock.run(gen.next());
		while (!next.done) next = await clock.run(gen.next());
		expect(next.value).toMatchObject({ complete: false, reason: 'countMismatch' });
	});

	it('next: null stops even after a full page', async () => {
		const { clock, r, client } = setup(() => json(200, { count: 100, next: null, results: items(3) }));
		expect(await clock.run(collect(client.items('device.list', {}, { pageSize: 3 })))).toHaveLength(3);
		expect(r.calls).toHaveLength(1);
	});

	for (const next of [
		'https://evil.example.com/api/v1/data/devices/all/?offset=2',
		'http://tec.example.com/api/v1/data/devices/all/?offset=2',
		'https://tec.example.com:8443/api/v1/data/devices/all/?offset=2',
		'https://tec.example.com.evil.com/api/v1/data/devices/all/?offset=2',
		'/api/v1/data/devices/all/?offset=2',
	]) {
		it(`refuses a next link to ${next} and never requests it`, async () => {
			const { clock, r, client } = setup(() => json(200, { next, results: items(2) }));
			const seen: unknown[][] = [];
			const e = await rejected(
				clock.run(
					(async () => {
						for await (const p of client.pages('device.list', {}, { pageSize: 2 })) seen.push(p);
					})(),
				),
			);
			expect(e).toBeInstanceOf(ServiceError);
			expect((e as ServiceError).kind).toBe('invalidResponse');
			expect(e.message).toMatch(/another origin/);
			expect(e.message).toContain(BASE);
			expect(seen).toEqual([items(2)]);
			expect(r.calls).toHaveLength(1);
			expect(r.calls.every((c) => new URL(c.url).origin === BASE)).toBe(true);
		});
	}

	it('a repeated next stops (no loop)', async () => {
		const loop = `${LIST}?cursor=same`;
		const { clock, r, client, events } = setup((req, i) => json(200, { next: loop, results: items(2, 2 * i) }));
		const pages = await clock.run(collect(client.pages('device.list', {}, { pageSize: 2 })));
		expect(pages).toEqual([items(2), items(2, 2)]);
		expect(r.calls.map((c) => c.url)).toEqual([`${LIST}?limit=2`, loop]);
		expect(events.filter((e) => e.type === 'paginationStopped')).toEqual([{ type: 'paginationStopped', path: '/data/devices/all/', reason: 'repeatedNext', detail: expect.any(String) }]);
	});

	it('a next back to the first page stops', async () => {
		const { clock, r, client } = setup((req, i) => json(200, { next: `${LIST}?limit=2`, results: items(2, 2 * i) }));
		await clock.run(collect(client.pages('device.list', {}, { pageSize: 2 })));
		expect(r.calls).toHaveLength(1);
	});

	it('a repeated page stops (a server ignoring offset)', async () => {
		const { clock, r, client, events } = setup(() => json(200, items(2)));
		const pages = await clock.run(collect(client.pages('device.list', {}, { pageSize: 2 })));
		expect(pages).toEqual([items(2)]);
		expect(r.calls).toHaveLength(2);
		expect(events.filter((e) => e.type === 'paginationStopped').map((e) => (e as { reason: string }).reason)).toEqual(['repeatedPage']);
	});

	it('a repeated page behind distinct next links stops too', async () => {
		const { clock, r, client } = setup((req, i) => json(200, { next: `${LIST}?cursor=${i + 1}`, results: items(3) }));
		const pages = await clock.run(collect(client.pages('device.list', {}, { pageSize: 3 })));
		expect(pages).toHaveLength(1);
		expect(r.calls).toHaveLength(2);
	});

	it('an endless server still ends: a distinct page behind every distinct next', async () => {
		// Not a loop, so the client follows it; maxItems is what bounds it.
		const { clock, r, client } = setup((req, i) => json(200, { next: `${LIST}?cursor=${i + 1}`, results: items(10, 10 * i) }));
		const all = await clock.run(collect(client.items('device.list', {}, { pageSize: 10, maxItems: 35 })));
		expect(all).toEqual(items(35));
		expect(r.calls).toHaveLength(4);
	});

	it('an empty envelope stops even with a next link', async () => {
		const { clock, r, client } = setup(() => json(200, { next: `${LIST}?cursor=2`, results: [] }));
		expect(await clock.run(collect(client.pages('device.list')))).toEqual([]);
		expect(r.calls).toHaveLength(1);
	});

	it('a body that is not a list is an invalidResponse', async () => {
		for (const body of [{ items: [] }, 'text', 42, { results: 'x' }]) {
			const { clock, client } = setup(() => json(200, body));
			const e = (await rejected(clock.run(collect(client.pages('device.list'))))) as ServiceError;
			expect(e).toBeInstanceOf(ServiceError);
			expect(e.kind).toBe('invalidResponse');
		}
	});
});

describe('pages: limits and streaming', () => {
	it('maxItems slices and stops without extra requests', async () => {
		const { clock, r, client } = setup(arrayServer(items(20)));
		const all = await clock.run(collect(client.items('device.list', {}, { pageSize: 4, maxItems: 6 })));
		expect(all).toEqual(items(6));
		expect(r.calls.map((c) => c.query.toString())).toEqual(['limit=4', 'limit=2&offset=4']);
	});

	it('a page larger than asked is refused whole (pageTooLarge), even with maxItems', async () => {
		const { clock, r, client, events } = setup(() => json(200, { count: 50, results: items(10) }));
		const gen = client.pages('device.list', {}, { pageSize: 10, maxItems: 3 });
		const first = await clock.run(gen.next());
		expect(first).toEqual({ done: true, value: { complete: false, reason: 'pageTooLarge', detail: 'the page at offset 0 has 10 items; 3 were asked for' } });
		expect(r.calls).toHaveLength(1);
		expect(r.calls[0].query.get('limit')).toBe('3');
		expect(events.filter((e) => e.type === 'paginationStopped')).toHaveLength(1);
	});

	it('maxItems stops following next links', async () => {
		const { clock, r, client } = setup((req, i) => json(200, { next: `${LIST}?cursor=${i + 1}`, results: items(2, 2 * i) }));
		expect(await clock.run(collect(client.items('device.list', {}, { pageSize: 2, maxItems: 3 })))).toEqual(items(3));
		expect(r.calls).toHaveLength(2);
	});

	it('streams: after the first page only one request was made', async () => {
		const { clock, r, client } = setup(arrayServer(items(10)));
		const gen = client.pages('device.list', {}, { pageSize: 3 });
		expect(r.calls).toHaveLength(0);
		const first = await clock.run(gen.next());
		expect(first.value).toEqual(items(3));
		expect(r.calls).toHaveLength(1);
		const second = await clock.run(gen.next());
		expect(second.value).toEqual(items(3, 3));
		expect(r.calls).toHaveLength(2);
		await gen.return({ complete: true });
		expect(r.calls).toHaveLength(2);
	});

	it('items streams too', async () => {
		const { clock, r, client } = setup(arrayServer(items(10)));
		const it1 = client.items('device.list', {}, { pageSize: 4 });
		expect((await clock.run(it1.next())).value).toEqual(items(1)[0]);
		expect(r.calls).toHaveLength(1);
	});

	it('validation errors are thrown before any request', async () => {
		const { clock, r, client } = setup(arrayServer(items(10)));
		const bad: Array<() => AsyncGenerator<unknown>> = [
			() => client.pages('device.list', { filters: [{ key: 5, conditions: [{ keyword: 'greaterThan', value: 'abc' }] }] }),
			() => client.pages('device.list', { filters: [{ key: 'updated_time', conditions: [{ keyword: 'newer', value: '2026-01-01' }] }] }),
			() => client.pages('project.list', { enabled: [1] }),
			() => client.pages('device.list', {}, { pageSize: 0 }),
			() => client.pages('device.list', {}, { pageSize: 1001 }),
			() => client.pages('device.list', {}, { maxItems: 0 }),
			() => client.pages('device.list', {}, { maxItems: 1.5 }),
			() => client.pages('device.get'),
			() => client.items('device.list', { ordering: { key: 'x y', direction: 'asc' } }),
		];
		for (const make of bad) {
			const e = await rejected(clock.run(make().next()));
			expect(e).toBeInstanceOf(ValidationError);
		}
		expect(r.calls).toHaveLength(0);
	});

	it('an error response surfaces from the page that failed', async () => {
		const { clock, r, client } = setup((req, i) => (i === 0 ? json(200, items(2)) : json(401, { description: 'Invalid token.' })));
		const gen = client.pages('device.list', {}, { pageSize: 2 });
		expect((await clock.run(gen.next())).value).toEqual(items(2));
		const e = (await rejected(clock.run(gen.next()))) as ServiceError;
		expect(e).toMatchObject({ kind: 'auth', status: 401, description: 'Invalid token.' });
		expect(r.calls).toHaveLength(2);
	});
});

describe('readPage and pageSignature', () => {
	it('reads both shapes', () => {
		expect(readPage([1, 2], '/p/')).toEqual({ shape: 'array', items: [1, 2] });
		expect(readPage({ results: [1], next: 'https://x/', count: 9 }, '/p/')).toEqual({ shape: 'envelope', items: [1], next: 'https://x/', count: 9 });
		expect(readPage({ results: [], next: '', count: 'many' }, '/p/')).toEqual({ shape: 'envelope', items: [], next: undefined, count: undefined });
		expect(readPage({ results: [], next: null }, '/p/')).toMatchObject({ next: null });
		expect(() => readPage(null, '/p/')).toThrow(ServiceError);
		expect(() => readPage(undefined, '/p/')).toThrow(ServiceError);
	});
	it('signatures differ for different pages and match for equal ones', () => {
		expect(pageSignature(items(3))).toBe(pageSignature(items(3)));
		expect(pageSignature(items(3))).not.toBe(pageSignature(items(3, 3)));
		expect(pageSignature(items(3))).not.toBe(pageSignature(items(2)));
		expect(pageSignature(['a', 'b'])).not.toBe(pageSignature(['a', 'c']));
	});
});

describe('pages: overlap, on a list that changes while it is read', () => {
	/** A list that deletes and inserts items (at seeded positions) before answering each request. */
	function shiftingList(n: number, changes: Array<{ deletes: number; inserts: number; seed: number }>) {
		let list = items(n);
		let nextId = 10_000;
		const deleted = new Set<number>();
		const handler: Handler = (req, i) => {
			const change = i > 0 ? changes[i - 1] : undefined;
			if (change) {
				let seed = change.seed;
				const rnd = (m: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), m === 0 ? 0 : seed % m);
				for (let k = 0; k < change.deletes && list.length > 0; k++) deleted.add(list.splice(rnd(list.length), 1)[0].id);
				for (let k = 0; k < change.inserts; k++) list.splice(rnd(list.length + 1), 0, { id: ++nextId, designation: `N${nextId}` });
				list = [...list];
			}
			const limit = Number(req.query.get('limit'));
			const offset = Number(req.query.get('offset') ?? 0);
			return json(200, { count: list.length, next: offset + limit < list.length ? `${LIST}?limit=${limit}&offset=${offset + limit}` : null, results: list.slice(offset, offset + limit) });
		};
		return { handler, stable: () => items(n).map((x) => x.id).filter((id) => !deleted.has(id)) };
	}

	async function scan(client: ServiceClient, clock: ReturnType<typeof newClock>, pageSize: number, overlap: number) {
		const gen = client.pages('device.list', {}, { pageSize, overlap });
		const ids: number[] = [];
		let next = await clock.run(gen.next());
		for (; !next.done; next = await clock.run(gen.next())) ids.push(...(next.value as Array<{ id: number }>).map((x) => x.id));
		return { ids, outcome: next.value };
	}

	it('property: no item twice; a complete scan has every item that stayed in the list; an unchanged list is complete', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.nat(60),
				fc.integer({ min: 3, max: 12 }),
				fc.array(fc.record({ deletes: fc.nat(3), inserts: fc.nat(3), seed: fc.nat() }), { maxLength: 25 }),
				async (n, pageSize, changes) => {
					const overlap = Math.min(3, pageSize - 1);
					const list = shiftingList(n, changes);
					const { clock, client } = setup(list.handler);
					const { ids, outcome } = await scan(client, clock, pageSize, overlap);
					expect(new Set(ids).size, 'no item twice').toBe(ids.length);
					if (outcome.complete) {
						const seen = new Set(ids);
						expect(list.stable().filter((id) => !seen.has(id)), 'every item that stayed').toEqual([]);
					}
					if (changes.every((c) => c.deletes === 0 && c.inserts === 0)) {
						expect(outcome).toEqual({ complete: true });
						expect(ids).toEqual(items(n).map((x) => x.id));
					}
				},
			),
			{ numRuns: 2000 },
		);
	});


	/** A page memory that recalls every page answered with the text it had before at that offset. */
	class TextMemory implements PageMemory {
		readonly known = new Map<number, { text: string; page: RememberedPage }>();
		recalledKeys: ItemKey[] = [];
		recalls = 0;
		digest(text: string) {
			return text; // the text itself: no two texts share a digest
		}
		recall(offset: number, digest: string) {
			const known = this.known.get(offset);
			return known?.text === digest ? known.page : undefined;
		}
		read(offset: number, digest: string, page: RememberedPage) {
			this.known.set(offset, { text: digest, page });
		}
		recalled(keys: ItemKey[]) {
			this.recalls++;
			this.recalledKeys.push(...keys);
		}
	}

	it('property: a scan that recalls the pages answered as before yields the same ids, in order, with the same outcome', async () => {
		const changes = fc.array(fc.record({ deletes: fc.nat(2), inserts: fc.nat(2), seed: fc.nat() }), { maxLength: 12 });
		await fc.assert(
			fc.asyncProperty(fc.nat(50), fc.integer({ min: 3, max: 12 }), changes, changes, async (n, pageSize, before, during) => {
				const overlap = Math.min(2, pageSize - 1);
				// A first scan (the list changing under it too) fills the memory.
				const memory = new TextMemory();
				const first = setup(shiftingList(n, before).handler);
				const firstGen = first.client.pages('device.list', {}, { pageSize, overlap, memory });
				while (!(await first.clock.run(firstGen.next())).done);
				// The same later scan twice: with the memory, and without.
				const plain = setup(shiftingList(n, during).handler);
				const expected = await scan(plain.client, plain.clock, pageSize, overlap);
				memory.recalledKeys = [];
				const again = setup(shiftingList(n, during).handler);
				const gen = again.client.pages('device.list', {}, { pageSize, overlap, memory });
				const ids: ItemKey[] = [];
				let next = await again.clock.run(gen.next());
				for (; !next.done; next = await again.clock.run(gen.next())) {
					ids.push(...memory.recalledKeys, ...(next.value as Array<{ id: number }>).map((x) => x.id));
					memory.recalledKeys = [];
				}
				expect(ids).toEqual(expected.ids);
				expect(next.value).toEqual(expected.outcome);
				expect(again.r.calls.map((c) => c.url)).toEqual(plain.r.calls.map((c) => c.url));
				// A list that did not change is recalled page by page (an empty list ends at its empty page).
				if (n > 0 && before.concat(during).every((c) => c.deletes === 0 && c.inserts === 0)) expect(memory.recalls).toBe(again.r.calls.length);
			}),
			{ numRuns: 1000 },
		);
	});

	it('a page cut short by maxItems is not remembered (its caller handled only part of it)', async () => {
		const memory = new TextMemory();
		const { clock, client } = setup(shiftingList(25, []).handler);
		// Without overlap the scan follows `next`, which asks for a whole page of 10 again: 5 of them are used.
		const gen = client.pages('device.list', {}, { pageSize: 10, memory, maxItems: 15 });
		while (!(await clock.run(gen.next())).done);
		expect([...memory.known.keys()]).toEqual([0]);
	});

	it('a list that shrinks past the overlap while it is read ends shifted, never complete without the items that stayed', async () => {
		// 1..7 read as [1,2,3] and [2,3,4]; then 2, 3 and 4 go, so the re-read at offset 2 is [6,7]
		// without the anchor; stepping back, the list has shrunk to [7] and offset 1 is empty.
		const cases = [
			[{ deletes: 0, inserts: 0, seed: 0 }, { deletes: 3, inserts: 0, seed: 15042169 }, { deletes: 3, inserts: 0, seed: 0 }],
			// The re-read itself is empty: 1, 2, 3, 4 and 7 gone at once, [5,6] left, none of them read.
			[{ deletes: 0, inserts: 0, seed: 0 }, { deletes: 5, inserts: 0, seed: 3 }],
		];
		for (const changes of cases) {
			const list = shiftingList(7, changes);
			const { clock, client } = setup(list.handler);
			const { ids, outcome } = await scan(client, clock, 3, 2);
			const missing = list.stable().filter((id) => !ids.includes(id));
			expect(missing.length).toBeGreaterThan(0);
			expect(outcome).toMatchObject({ complete: false, reason: 'shifted' });
		}
	});
	it('without overlap, deletes before the cursor lose items; with it, none are lost', async () => {
		const changes = Array.from({ length: 10 }, (_, i) => ({ deletes: 1, inserts: 0, seed: i }));
		const plain = setup(shiftingList(40, changes).handler);
		const lost = await scan(plain.client, plain.clock, 10, 0);
		const overlapped = shiftingList(40, changes);
		const withOverlap = setup(overlapped.handler);
		const kept = await scan(withOverlap.client, withOverlap.clock, 10, 3);
		expect(kept.outcome).toEqual({ complete: true });
		expect(overlapped.stable().filter((id) => !kept.ids.includes(id))).toEqual([]);
		expect(lost.ids.length).toBeLessThan(kept.ids.length);
	});

	it('a shift larger than the overlap steps back once, then says shifted', async () => {
		// Before every request but the first, the 8 items at the head leave the list.
		let list = items(60);
		const { clock, client, events } = setup((req, i) => {
			if (i > 0) list = list.slice(8);
			const limit = Number(req.query.get('limit'));
			const offset = Number(req.query.get('offset') ?? 0);
			return json(200, { count: list.length, next: offset + limit < list.length ? `${LIST}?offset=${offset + limit}` : null, results: list.slice(offset, offset + limit) });
		});
		const { outcome } = await scan(client, clock, 10, 2);
		expect(outcome).toMatchObject({ complete: false, reason: 'shifted' });
		expect(events.filter((e) => e.type === 'paginationStopped').map((e) => (e as { reason: string }).reason)).toEqual(['shifted']);
	});

	it('overlap must be smaller than the page size', async () => {
		const { clock, r, client } = setup(arrayServer(items(3)));
		const e = await rejected(clock.run(collect(client.pages('device.list', {}, { pageSize: 5, overlap: 5 }))));
		expect(e.message).toBe('overlap: must be a whole number from 0 to 4 (less than the page size), got 5');
		expect(r.calls).toHaveLength(0);
	});
});

describe('pages: bounds and guards', () => {
	it('property: valueDeeperThan agrees with the nesting depth of any JSON value', () => {
		const depth = (v: unknown): number => (v && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v as object).map(depth)) : 0);
		fc.assert(
			fc.property(fc.jsonValue({ maxDepth: 8 }), fc.nat(10), (value, max) => {
				expect(valueDeeperThan(value, max)).toBe(depth(value) > max);
			}),
			{ numRuns: 2000 },
		);
		// Parsed first: V8's JSON.parse takes any depth, and the walk stops at the limit.
		expect(valueDeeperThan(JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`), 100)).toBe(true);
		expect(valueDeeperThan(JSON.parse('{"a":"[[[[[[\\"[[[["}'), 1)).toBe(false); // brackets inside strings are text
	});

	it('property: two items share a key exactly when their ids print alike (5 and "5"), whatever the id', () => {
		const id = fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.constantFrom(0, -0, 2 ** 53, 1.5, '05', '-0', '007', '9007199254740993', true, null), fc.integer().map(String), fc.string(), fc.double());
		const sameKey = (a: unknown, b: unknown) => new Set([itemKey(a), itemKey(b)]).size === 1;
		fc.assert(
			fc.property(id, id, (a, b) => {
				expect(sameKey({ id: a }, { id: b })).toBe(`#${String(a)}` === `#${String(b)}`);
			}),
			{ numRuns: 5000 },
		);
		expect(sameKey({ id: 5 }, { id: '5' })).toBe(true);
		expect(sameKey({ id: 5 }, 5)).toBe(false); // an item without an id is keyed by its JSON
	});

	it('a body nested deeper than the limit is refused before anyone reads it, naming the request, and not retried', async () => {
		const { clock, r, client } = setup(() => ({ status: 200, headers: {}, body: `{"results":[${'['.repeat(5000)}${']'.repeat(5000)}]}` }));
		const e = (await rejected(clock.run(collect(client.pages('device.list'))))) as ServiceError;
		expect(e.message).toBe('The service answered HTTP 200 to GET /data/devices/all/ with JSON nested deeper than 100 levels; refusing to read it');
		expect(r.calls).toHaveLength(1);
	});

	it('a page body larger than the size asked can hold is refused unread', async () => {
		const { clock, client } = setup(() => json(200, { results: [{ id: 1, blob: 'x'.repeat(3 * 64 * 1024) }] }));
		const e = await rejected(clock.run(collect(client.pages('device.list', {}, { pageSize: 1 }))));
		expect(e.message).toMatch(/^The service answered HTTP 200 to GET \/data\/devices\/all\/ with \d+ characters, more than a page of this size can hold \(131072\); refusing to read it$/);
	});

	it('more items than count + margin end tooManyItems; without a count, the hard cap ends it', async () => {
		// A service whose count keeps growing ahead of the reader, with next links forward for ever.
		const { clock, r, client } = setup((req) => {
			const offset = Number(req.query.get('offset') ?? 0);
			return json(200, { count: offset + 100, next: `${LIST}?limit=10&offset=${offset + 10}`, results: items(10, offset) });
		});
		const gen = client.pages('device.list', {}, { pageSize: 10 });
		let next = await clock.run(gen.next());
		while (!next.done) next = await clock.run(gen.next());
		expect(next.value).toEqual({ complete: false, reason: 'tooManyItems', detail: '120 items read; the service announced 100' });
		expect(r.calls).toHaveLength(12);
		expect(itemBound(undefined, 10)).toBe(PAGING_BOUNDS.hardCap.items);
		expect(pageBound(undefined, 10)).toBe(PAGING_BOUNDS.hardCap.pages);
		expect(itemBound(1000, 100)).toBe(1100);
		expect(itemBound(10, 100)).toBe(110);
	});

	it('a 400 naming limit: retried with the size the description names, else half; remembered per base URL', async () => {
		expect(smallerPageSize(new ServiceError({ kind: 'badRequest', status: 400, message: 'x', description: 'limit: must be from 1 to 250' }), 1000)).toBe(250);
		expect(smallerPageSize(new ServiceError({ kind: 'badRequest', status: 400, message: 'x', description: 'limit too large' }), 1000)).toBe(500);
		const base = `${BASE}/api/v1`;
		sharedPageSizes.forget(base);
		const data = items(7);
		const { clock, r, client } = setup((req) => {
			const limit = Number(req.query.get('limit'));
			if (limit > 3) return json(400, { description: 'limit: at most 3' });
			const offset = Number(req.query.get('offset') ?? 0);
			return json(200, { count: 7, results: data.slice(offset, offset + limit) });
		});
		expect(await clock.run(collect(client.items('device.list', {}, { pageSize: 100 })))).toEqual(data);
		expect(r.calls.map((c) => c.query.get('limit'))).toEqual(['100', '3', '3', '3']);
		expect(sharedPageSizes.get(base)).toBe(3);
		await clock.run(collect(client.items('device.list', {}, { pageSize: 100 })));
		expect(r.calls.slice(4).map((c) => c.query.get('limit'))).toEqual(['3', '3', '3']);
		sharedPageSizes.forget(base);
	});

	it('a value echoed in quotes never makes a 400 a refused page size; the parameter named outside quotes does (property)', () => {
		const refusal = (description: string) => new ServiceError({ kind: 'badRequest', status: 400, message: 'x', description });
		// (The name alone in quotes is the service naming it: see the next test.)
		const quotedText = fc.string().map((v) => v.replace(/"/g, '')).filter((v) => v.trim().toLowerCase() !== 'limit');
		fc.assert(
			fc.property(quotedText, quotedText, (before, value) => {
				const plain = before.replace(/limit/gi, 'x');
				expect(refusesPageSize(refusal(`${plain} "${value}" is not a finite number`))).toBe(false);
				expect(refusesPageSize(refusal(`"${value}": limit must be from 1 to 500`))).toBe(true);
			}),
		);
	});

	it('the page size parameter named in quotes ("limit" must be …, \'page_size\' is too large) is a refused page size', () => {
		const refusal = (description: string) => new ServiceError({ kind: 'badRequest', status: 400, message: 'x', description });
		expect(refusesPageSize(refusal('"limit" must be less than or equal to 500'))).toBe(true);
		expect(refusesPageSize(refusal("Invalid value for 'limit': at most 500"))).toBe(true);
		expect(refusesPageSize(refusal('“page_size” is too large (max 200)'), 'page_size')).toBe(true);
		expect(refusesPageSize(refusal('"per_page" must be at most 50'), 'per_page')).toBe(true);
		// A quoted value that merely contains the name is still the caller's own value.
		expect(refusesPageSize(refusal('"no limit" is not a finite number'))).toBe(false);
		expect(refusesPageSize(refusal('"limit" must be at most 500'), 'page_size')).toBe(false);
	});

	it('a 400 that quotes a value with "limit" in it refuses the filter, not the page size; a size never answered is not remembered', async () => {
		const base = `${BASE}/api/v1`;
		sharedPageSizes.forget(base);
		const { clock, r, client } = setup((req) => {
			if (req.query.has('5')) return json(400, { description: `5 (property 5): "no limit" is not a finite number (for example 42 or -3.5)` });
			return json(400, { description: 'limit: must be from 1 to 10' });
		});
		const refused = client.items('device.list', { filters: [{ key: 5, dataType: 'Text', conditions: [{ keyword: 'equals', value: 'no limit' }] }] }, { pageSize: 100 });
		await expect(clock.run(collect(refused))).rejects.toMatchObject({ status: 400, description: expect.stringContaining('no limit') });
		expect(r.calls.map((c) => c.query.get('limit'))).toEqual(['100']);
		// Refused at every size: none was answered, none is remembered.
		await expect(clock.run(collect(client.items('device.list', {}, { pageSize: 100 })))).rejects.toMatchObject({ status: 400 });
		expect(r.calls.slice(1).map((c) => c.query.get('limit'))).toEqual(['100', '10', '1']);
		expect(sharedPageSizes.get(base)).toBeUndefined();
	});

	it('a 400 that echoes a filter value with "limit" in it without quotes refuses the filter at once, not the page size', async () => {
		const base = `${BASE}/api/v1`;
		sharedPageSizes.forget(base);
		const { clock, r, client } = setup((req) => {
			if (req.query.has('5')) return json(400, { description: `5 (property 5): No Limit is not a finite number` });
			return json(200, { count: 0, results: [] });
		});
		const refused = client.items('device.list', { filters: [{ key: 5, dataType: 'Text', conditions: [{ keyword: 'equals', value: 'No Limit' }] }] }, { pageSize: 100 });
		await expect(clock.run(collect(refused))).rejects.toMatchObject({ status: 400, description: expect.stringContaining('No Limit') });
		expect(r.calls.map((c) => c.query.get('limit'))).toEqual(['100']);
		// The same words with the service naming the parameter itself are a refused page size.
		const refusal = (description: string) => new ServiceError({ kind: 'badRequest', status: 400, message: 'x', description });
		expect(refusesPageSize(refusal('no limit is not a finite number; limit must be at most 500'), 'limit', ['no limit'])).toBe(true);
		expect(refusesPageSize(refusal('limit must be at most 500'), 'limit', ['limit'])).toBe(true);
		expect(refusesPageSize(refusal('limit must be at most 500'), 'limit', ['l', 'i'])).toBe(true);
		sharedPageSizes.forget(base);
	});

	it('a filter value that is the parameter\'s name alone ("limit"), echoed in quotes, refuses the filter at once, not the page size', async () => {
		const base = `${BASE}/api/v1`;
		sharedPageSizes.forget(base);
		const { clock, r, client } = setup((req) => {
			if (req.query.has('5')) return json(400, { description: `5 (property 5): Test interval is a Number; "limit" is not a finite number.` });
			return json(200, { count: 0, results: [] });
		});
		for (const value of ['limit', ' LIMIT ']) {
			const from = r.calls.length;
			const refused = client.items('device.list', { filters: [{ key: 5, dataType: 'Text', conditions: [{ keyword: 'equals', value }] }] }, { pageSize: 100 });
			await expect(clock.run(collect(refused))).rejects.toMatchObject({ status: 400, description: expect.stringContaining('"limit"') });
			expect(r.calls.slice(from).map((c) => c.query.get('limit')), value).toEqual(['100']);
		}
		expect(sharedPageSizes.get(base)).toBeUndefined();
		const refusal = (description: string) => new ServiceError({ kind: 'badRequest', status: 400, message: 'x', description });
		expect(refusesPageSize(refusal('“Limit” is not a finite number'), 'limit', ['Limit'])).toBe(false);
		// The service naming the parameter outside quotes is still a refused page size; so is a quoted name no value sent.
		expect(refusesPageSize(refusal('"limit" is not a finite number; limit must be at most 500'), 'limit', ['limit'])).toBe(true);
		expect(refusesPageSize(refusal('"limit" must be at most 500'), 'limit', ['no limit'])).toBe(true);
		sharedPageSizes.forget(base);
	});
});
