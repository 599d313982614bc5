import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ServiceClient, ServiceError, ValidationError, pageSignature, readPage, type ClientEvent } from '../../client';
import { API, BASE, collect, json, newClock, rejected, router, type Handler } from './helpers';

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
		expect(r.calls.map((c) => c.query.get('offset'))).toEqual(['3', '5']);
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

	it('with count, a full last page does not cause another request', async () => {
		const { clock, r, client } = setup((req) => json(200, { count: 4, results: items(2, Number(req.query.get('offset') ?? 0)) }));
		expect(await clock.run(collect(client.items('device.list', {}, { pageSize: 2 })))).toHaveLength(4);
		expect(r.calls).toHaveLength(2);
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
		expect(events.filter((e) => e.type === 'paginationStopped')).toEqual([{ type: 'paginationStopped', path: '/data/devices/all/', reason: 'repeatedNext' }]);
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

	it('maxItems slices a page larger than asked', async () => {
		const { clock, r, client } = setup(() => json(200, { count: 50, results: items(10) }));
		expect(await clock.run(collect(client.items('device.list', {}, { pageSize: 10, maxItems: 3 })))).toEqual(items(3));
		expect(r.calls).toHaveLength(1);
		expect(r.calls[0].query.get('limit')).toBe('3');
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
