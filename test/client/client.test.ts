import { describe, expect, it } from 'vitest';
import {
	DEFAULT_TIMEOUT_MS,
	ServiceClient,
	ServiceError,
	ValidationError,
	errorFromResponse,
	type ClientEvent,
	type HttpResponse,
	type OperationId,
	type RetryOptions,
} from '../../client';
import { API, BASE, json, newClock, rejected, router, sequence, text, type Handler } from './helpers';

function setup(handler: Handler, retry: Partial<RetryOptions> = {}) {
	const clock = newClock();
	const r = router(clock, handler);
	const events: ClientEvent[] = [];
	const client = new ServiceClient({ baseUrl: BASE, request: r.request, clock, retry: { random: () => 0.5, ...retry }, onEvent: (e) => events.push(e) });
	return { clock, r, client, events, t0: clock.now() };
}

const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]);

describe('ServiceClient.call', () => {
	it('sends the operation to the base URL + /api/v1 with JSON headers and body', async () => {
		const { clock, r, client } = setup(() => json(201, { id: 9 }));
		const body = { designation: 'Pump "A"', tags: ['x'] };
		await expect(clock.run(client.call('device.create', { body }))).resolves.toEqual({ id: 9 });
		await clock.run(client.call('device.get', { pathParams: { id: 1042 }, params: [['a', 'b c']] }));
		expect(r.calls[0]).toMatchObject({
			method: 'POST',
			url: `${API}/data/devices/create/`,
			headers: { accept: 'application/json', 'content-type': 'application/json' },
			responseType: 'text',
		});
		expect(JSON.parse(r.calls[0].body!)).toEqual(body);
		expect(r.calls[1]).toMatchObject({ method: 'GET', url: `${API}/device/detail/1042/?a=b+c`, body: undefined, headers: { accept: 'application/json' } });
		expect(r.calls[1].headers['content-type']).toBeUndefined();
	});

	it('passes the timeout to the request function', async () => {
		const clock = newClock();
		const seen: number[] = [];
		const request = async (req: { timeoutMs: number }): Promise<HttpResponse> => (seen.push(req.timeoutMs), json(200, {}));
		await clock.run(new ServiceClient({ baseUrl: BASE, request, clock }).call('device.list'));
		await clock.run(new ServiceClient({ baseUrl: BASE, request, clock, timeoutMs: 1234 }).call('device.list'));
		expect(seen).toEqual([DEFAULT_TIMEOUT_MS, 1234]);
	});

	it('an empty 2xx body is null', async () => {
		const { clock, client } = setup(() => text(204, ''));
		await expect(clock.run(client.call('device.delete', { pathParams: { id: 1 } }))).resolves.toBeNull();
	});

	it('keeps a sub-path of the base URL', async () => {
		const clock = newClock();
		const r = router(clock, () => json(200, []));
		await clock.run(new ServiceClient({ baseUrl: 'https://tec.example.com/tenant/api/v1/', request: r.request, clock }).call('project.list'));
		expect(r.calls[0].url).toBe('https://tec.example.com/tenant/api/v1/project/viewset/');
	});

	it('send refuses a URL on another origin without calling the request function', async () => {
		const { clock, r, client } = setup(() => json(200, {}));
		for (const url of ['https://evil.example.com/api/v1/x/', 'http://tec.example.com/api/v1/x/', 'https://tec.example.com:8443/api/v1/x/']) {
			const e = await rejected(clock.run(client.send('GET', url, undefined, 'text')));
			expect(e).toBeInstanceOf(ValidationError);
		}
		expect(r.calls).toHaveLength(0);
	});

	it('a 200 with truncated JSON is an invalidResponse with an excerpt', async () => {
		const body = '{"id": 1042, "designation": "Pump';
		const { clock, client } = setup(() => text(200, body));
		const e = (await rejected(clock.run(client.call('device.get', { pathParams: { id: 1042 } })))) as ServiceError;
		expect(e).toBeInstanceOf(ServiceError);
		expect(e.kind).toBe('invalidResponse');
		expect(e.status).toBe(200);
		expect(e.bodyExcerpt).toBe(body);
		expect(e.message).toContain(body);
		expect(e.message).toContain('/device/detail/1042/');
	});

	it('an HTML error page is reported with its status and an excerpt', async () => {
		const { clock, client } = setup(() => text(400, '<html><h1>Bad Request</h1></html>'));
		const e = (await rejected(clock.run(client.call('device.list')))) as ServiceError;
		expect(e).toMatchObject({ kind: 'badRequest', status: 400, description: undefined });
		expect(e.message).toContain('<h1>Bad Request</h1>');
	});

	it('reports the service description', async () => {
		const { clock, client } = setup(() => json(413, { description: 'Token has no access to devices' }));
		const e = (await rejected(clock.run(client.call('device.list')))) as ServiceError;
		expect(e).toMatchObject({ kind: 'permission', status: 413, description: 'Token has no access to devices', method: 'GET', path: '/data/devices/all/' });
		expect(e.message).toMatch(/API Access tab/);
	});
});

describe('retries', () => {
	it('429 with Retry-After in seconds waits that long, then succeeds', async () => {
		const { clock, r, client, t0 } = setup(sequence(text(429, '', { 'retry-after': '3' }), json(200, { ok: 1 })));
		await expect(clock.run(client.call('device.list'))).resolves.toEqual({ ok: 1 });
		expect(r.calls.map((c) => c.at - t0)).toEqual([0, 3000]);
	});

	it('429 with Retry-After as an HTTP date waits until then', async () => {
		const clock = newClock();
		const t0 = clock.now();
		const r = router(clock, sequence(text(429, '', { 'retry-after': new Date(t0 + 7000).toUTCString() }), json(200, [])));
		const client = new ServiceClient({ baseUrl: BASE, request: r.request, clock });
		await clock.run(client.call('device.list'));
		expect(r.calls.map((c) => c.at - t0)).toEqual([0, 7000]);
	});

	it('429 without Retry-After backs off exponentially with jitter', async () => {
		for (const [random, expected] of [
			[0, [250, 500, 1000, 2000]],
			[1, [500, 1000, 2000, 4000]],
			[0.5, [375, 750, 1500, 3000]],
		] as Array<[number, number[]]>) {
			const { clock, r, client } = setup(sequence(text(429, ''), text(429, ''), text(429, ''), text(429, ''), json(200, {})), { random: () => random });
			await clock.run(client.call('device.list'));
			expect(gaps(r.calls.map((c) => c.at))).toEqual(expected);
		}
	});

	it('451 waits longer than 429 for the same attempt', async () => {
		const a = setup(sequence(text(429, ''), json(200, {})));
		await a.clock.run(a.client.call('device.list'));
		const b = setup(sequence(text(451, '{"description":"maintenance until 03:00"}'), json(200, {})));
		await b.clock.run(b.client.call('device.list'));
		const wait429 = a.r.calls[1].at - a.r.calls[0].at;
		const wait451 = b.r.calls[1].at - b.r.calls[0].at;
		expect(wait429).toBeGreaterThan(0);
		expect(wait451).toBeGreaterThan(wait429 * 4);
		expect(wait451).toBeGreaterThanOrEqual(5000);
	});

	const idempotent: Array<[OperationId, Record<string, unknown> | undefined]> = [
		['device.list', undefined],
		['device.update', { id: 1 }],
		['device.delete', undefined],
	];
	for (const failure of [text(500, 'oops'), text(502, '<html>bad gateway</html>'), json(503, { description: 'busy' }), new Error('ECONNRESET')]) {
		const label = failure instanceof Error ? 'a network error' : `HTTP ${failure.status}`;
		for (const [op, body] of idempotent) {
			it(`retries ${op} after ${label}`, async () => {
				const { clock, r, client } = setup(sequence(failure, failure, json(200, { done: true })));
				const pathParams = op === 'device.delete' ? { id: 5 } : undefined;
				await expect(clock.run(client.call(op, { body, pathParams }))).resolves.toEqual({ done: true });
				expect(r.calls).toHaveLength(3);
				expect(new Set(r.calls.map((c) => `${c.method} ${c.url} ${c.body}`)).size).toBe(1);
			});
		}
		it(`sends a POST exactly once on ${label}`, async () => {
			const { clock, r, client } = setup(sequence(failure, json(201, { id: 1 })));
			const e = (await rejected(clock.run(client.call('customer.create', { body: { name: 'ACME' } })))) as ServiceError;
			expect(e).toBeInstanceOf(ServiceError);
			expect(e.kind).toBe(failure instanceof Error ? 'network' : 'server');
			if (failure instanceof Error) expect(e.message).toContain('ECONNRESET');
			expect(r.calls).toHaveLength(1);
			expect(r.calls[0].method).toBe('POST');
		});
	}

	for (const status of [429, 451]) {
		it(`retries a POST on ${status} (the service refused before acting)`, async () => {
			const { clock, r, client } = setup(sequence(text(status, ''), json(201, { id: 1 })));
			await expect(clock.run(client.call('device.create', { body: [{ designation: 'x' }] }))).resolves.toEqual({ id: 1 });
			expect(r.calls.map((c) => c.method)).toEqual(['POST', 'POST']);
		});
	}

	for (const status of [400, 401, 404, 412, 413, 426, 427]) {
		it(`does not retry ${status}`, async () => {
			const { clock, r, client } = setup(sequence(json(status, { description: 'no' }), json(200, {})));
			const e = (await rejected(clock.run(client.call('device.list')))) as ServiceError;
			expect(e.status).toBe(status);
			expect(r.calls).toHaveLength(1);
		});
	}

	it('stops after maxAttempts; the last error surfaces unchanged', async () => {
		const responses = [json(503, { description: 'first' }), json(502, { description: 'second' }), json(500, { description: 'third' }), json(200, {})];
		const { clock, r, client } = setup(sequence(...responses), { maxAttempts: 3 });
		const e = (await rejected(clock.run(client.call('device.list')))) as ServiceError;
		expect(r.calls).toHaveLength(3);
		const expected = errorFromResponse({ status: 500, bodyText: '{"description":"third"}', method: 'GET', path: '/data/devices/all/' });
		expect(e).toBeInstanceOf(ServiceError);
		expect({ kind: e.kind, status: e.status, description: e.description, message: e.message, retryable: e.retryable }).toEqual({
			kind: 'server',
			status: 500,
			description: 'third',
			message: expected.message,
			retryable: true,
		});
	});

	it('stops when the next wait would exceed maxTotalWaitMs', async () => {
		const { clock, r, client, t0 } = setup(
			sequence(
				json(429, { description: 'slow down 1' }, { 'retry-after': '10' }),
				json(429, { description: 'slow down 2' }, { 'retry-after': '10' }),
				json(429, { description: 'slow down 3' }, { 'retry-after': '10' }),
				json(200, {}),
			),
			{ maxTotalWaitMs: 25_000, maxAttempts: 10 },
		);
		const e = (await rejected(clock.run(client.call('device.list')))) as ServiceError;
		expect(r.calls.map((c) => c.at - t0)).toEqual([0, 10_000, 20_000]);
		expect(e).toMatchObject({ kind: 'rateLimit', status: 429, description: 'slow down 3', retryAfterMs: 10_000 });
		expect(clock.now() - t0).toBeLessThanOrEqual(25_000);
	});

	it('a Retry-After beyond maxTotalWaitMs fails at once instead of waiting', async () => {
		const { clock, r, client, t0 } = setup(sequence(text(451, '', { 'retry-after': '3600' }), json(200, {})));
		const e = (await rejected(clock.run(client.call('device.list')))) as ServiceError;
		expect(e.kind).toBe('maintenance');
		expect(r.calls).toHaveLength(1);
		expect(clock.now()).toBe(t0);
	});

	it('with defaults, the total wait stays within maxTotalWaitMs and attempts within maxAttempts', async () => {
		const { clock, r, client, t0 } = setup(() => text(451, ''), { random: () => 1 });
		const e = (await rejected(clock.run(client.call('device.list')))) as ServiceError;
		expect(e.kind).toBe('maintenance');
		expect(r.calls.length).toBeLessThanOrEqual(6);
		expect(r.calls.length).toBeGreaterThan(1);
		expect(clock.now() - t0).toBeLessThanOrEqual(90_000);
	});

	it('onEvent reports every response and retry, without the query string', async () => {
		const { clock, client, events } = setup(sequence(json(503, {}), text(429, '', { 'retry-after': '2' }), json(200, [])));
		await clock.run(client.call('device.list', { params: [['search', 'secret customer name']] }));
		expect(events).toEqual([
			{ type: 'response', method: 'GET', path: '/data/devices/all/', status: 503, durationMs: 0, attempt: 1 },
			{ type: 'retry', method: 'GET', path: '/data/devices/all/', kind: 'server', status: 503, waitMs: 375, attempt: 1 },
			{ type: 'response', method: 'GET', path: '/data/devices/all/', status: 429, durationMs: 0, attempt: 2 },
			{ type: 'retry', method: 'GET', path: '/data/devices/all/', kind: 'rateLimit', status: 429, waitMs: 2000, attempt: 2 },
			{ type: 'response', method: 'GET', path: '/data/devices/all/', status: 200, durationMs: 0, attempt: 3 },
		]);
		expect(JSON.stringify(events)).not.toContain('secret');
	});

	it('onEvent reports a network failure as a retry without a status', async () => {
		const { clock, client, events } = setup(sequence(new Error('socket hang up'), json(200, {})));
		await clock.run(client.call('device.list'));
		expect(events.map((e) => e.type)).toEqual(['retry', 'response']);
		expect(events[0]).toMatchObject({ type: 'retry', kind: 'network', status: undefined, attempt: 1 });
	});
});

describe('delete after a lost answer', () => {
	const inBin = json(412, { description: 'Device 5 is already in the recycle bin; use direct_delete to remove it completely.' });
	const gone = json(404, { description: 'Device 5 does not exist.' });
	const lost: Array<[string, HttpResponse | Error]> = [
		['no answer', new Error('socket hang up')],
		['an unreadable 200', text(200, '{"id":5,"del')],
		['a 502', text(502, '<html>bad gateway</html>')],
	];
	for (const [label, first] of lost) {
		it(`after ${label}, a repeat answering 412 (already in the recycle bin) is the delete succeeding, with its recycle bin entry`, async () => {
			const bin = json(200, { count: 1, next: null, results: [{ id: 9, resource: 'device', item_id: 5, name: 'Drill', deleted_time: '2026-03-01T10:00:00Z' }] });
			const { clock, r, client } = setup(sequence(first, inBin, bin));
			await expect(clock.run(client.delete('device.delete', '5', false))).resolves.toEqual({ id: 5, deleted: true, direct_delete: false, recycle_bin_id: 9, already_deleted: true });
			expect(r.calls.slice(0, 2).map((c) => `${c.method} ${c.url}`)).toEqual([`DELETE ${API}/data/devices/delete/5/`, `DELETE ${API}/data/devices/delete/5/`]);
			expect(r.calls[2].method).toBe('GET');
			expect(r.calls[2].url).toContain('/recycle_bin/all/');
		});
		// Only a cut 2xx answer shows that the first attempt arrived and was accepted: after no answer
		// or a 502, a 404 may as well be an ID that does not exist (nothing left to look up).
		const accepted = label === 'an unreadable 200';
		it(`after ${label}, a permanent delete whose repeat answers 404 ${accepted ? 'succeeded' : 'is the 404 error, marked as after an uncertain attempt'}`, async () => {
			const { clock, client } = setup(sequence(first, gone));
			const deleting = clock.run(client.delete('device.delete', 5, true));
			if (accepted) await expect(deleting).resolves.toEqual({ id: 5, deleted: true, direct_delete: true, recycle_bin_id: null, already_deleted: true });
			else {
				const e = (await rejected(deleting)) as ServiceError;
				expect({ status: e.status, afterUncertainAttempt: e.afterUncertainAttempt, afterAcceptedAttempt: e.afterAcceptedAttempt }).toEqual({ status: 404, afterUncertainAttempt: true, afterAcceptedAttempt: false });
			}
		});
	}

	it('a 412 to the first attempt is an error: the item was in the recycle bin before', async () => {
		const { clock, r, client } = setup(sequence(inBin));
		const e = (await rejected(clock.run(client.delete('device.delete', 5, false)))) as ServiceError;
		expect({ status: e.status, afterUncertainAttempt: e.afterUncertainAttempt }).toEqual({ status: 412, afterUncertainAttempt: false });
		expect(e.description).toContain('already in the recycle bin');
		expect(r.calls).toHaveLength(1);
	});

	for (const status of [429, 451]) {
		it(`a 412 after a ${status} is an error: ${status} refuses before acting`, async () => {
			const { clock, client } = setup(sequence(text(status, '', { 'retry-after': '1' }), inBin));
			const e = (await rejected(clock.run(client.delete('device.delete', 5, false)))) as ServiceError;
			expect(e.status).toBe(412);
		});
	}

	it('a permanent delete whose repeat answers 412 is an error (412 does not mean "gone" there)', async () => {
		const { clock, client } = setup(sequence(new Error('socket hang up'), inBin));
		const e = (await rejected(clock.run(client.delete('device.delete', 5, true)))) as ServiceError;
		expect({ status: e.status, afterUncertainAttempt: e.afterUncertainAttempt }).toEqual({ status: 412, afterUncertainAttempt: true });
	});

	it('other errors after a lost answer still surface (a 413 is not a delete)', async () => {
		const { clock, client } = setup(sequence(new Error('socket hang up'), json(413, { description: 'scope' })));
		const e = (await rejected(clock.run(client.delete('device.delete', 5, false)))) as ServiceError;
		expect(e.kind).toBe('permission');
	});
});

describe('downloadFile', () => {
	const bytes = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x10]);
	const file = (headers: Record<string, string>): HttpResponse => ({ status: 200, headers, body: bytes });

	function dl(link: unknown, fileResponse: HttpResponse, withAnonymous = true) {
		const clock = newClock();
		const auth = router(clock, (req) => (req.method === 'PUT' ? json(200, link) : fileResponse));
		const anon = router(clock, () => fileResponse);
		const client = new ServiceClient({ baseUrl: BASE, request: auth.request, requestAnonymous: withAnonymous ? anon.request : undefined, clock });
		return { clock, auth, anon, client };
	}

	it('fetches a same-origin link through the authenticated request function, as binary', async () => {
		const { clock, auth, anon, client } = dl(
			{ url: `${BASE}/media/files/77/report.pdf?sig=abc`, expires_at: 'x' },
			file({ 'content-type': 'application/pdf; charset=binary', 'content-disposition': 'attachment; filename="report 2026.pdf"' }),
		);
		const f = await clock.run(client.downloadFile(77));
		expect(auth.calls.map((c) => [c.method, c.url, c.responseType])).toEqual([
			['PUT', `${API}/files/download_link/77/`, 'text'],
			['GET', `${BASE}/media/files/77/report.pdf?sig=abc`, 'binary'],
		]);
		expect(anon.calls).toHaveLength(0);
		expect(Array.from(f.data)).toEqual(Array.from(bytes));
		expect(f.fileName).toBe('report 2026.pdf');
		expect(f.mimeType).toBe('application/pdf');
	});

	it('reads an RFC 5987 file name', async () => {
		const { clock, client } = dl({ url: `${BASE}/media/x` }, file({ 'content-disposition': "attachment; filename*=UTF-8''na%C3%AFve%20r%C3%A9sum%C3%A9.pdf" }));
		expect((await clock.run(client.downloadFile(1))).fileName).toBe('naïve résumé.pdf');
	});

	it('falls back to the link fields for the name and type', async () => {
		const { clock, client } = dl({ download_url: `${BASE}/media/x`, file_name: 'a.csv', mime_type: 'text/csv' }, file({}));
		expect(await clock.run(client.downloadFile('abc_1'))).toMatchObject({ fileName: 'a.csv', mimeType: 'text/csv' });
	});

	it('fetches a link to another https host only through requestAnonymous', async () => {
		const { clock, auth, anon, client } = dl({ link: 'https://files.cdn.example.net/f/77.pdf?X-Sig=1' }, file({ 'content-type': 'application/pdf' }));
		const f = await clock.run(client.downloadFile(77));
		expect(auth.calls.map((c) => c.method)).toEqual(['PUT']);
		expect(anon.calls.map((c) => [c.method, c.url, c.responseType])).toEqual([['GET', 'https://files.cdn.example.net/f/77.pdf?X-Sig=1', 'binary']]);
		expect(f.mimeType).toBe('application/pdf');
		expect(Array.from(f.data)).toEqual(Array.from(bytes));
	});

	it('retries a failed anonymous download (GET)', async () => {
		const clock = newClock();
		const auth = router(clock, () => json(200, { url: 'https://files.cdn.example.net/f' }));
		const anon = router(clock, sequence(text(503, ''), file({})));
		const client = new ServiceClient({ baseUrl: BASE, request: auth.request, requestAnonymous: anon.request, clock, retry: { random: () => 0 } });
		await clock.run(client.downloadFile(1));
		expect(anon.calls).toHaveLength(2);
		expect(auth.calls).toHaveLength(1);
	});

	it('refuses a link to another host without requestAnonymous', async () => {
		const { clock, auth, client } = dl({ url: 'https://files.cdn.example.net/f' }, file({}), false);
		const e = await rejected(clock.run(client.downloadFile(1)));
		expect(e).toBeInstanceOf(ServiceError);
		expect(auth.calls).toHaveLength(1);
	});

	for (const link of ['http://files.cdn.example.net/f.pdf', 'http://tec.example.com/media/f.pdf', 'ftp://files.cdn.example.net/f.pdf']) {
		it(`refuses ${link}`, async () => {
			const { clock, auth, anon, client } = dl({ url: link }, file({}));
			const e = (await rejected(clock.run(client.downloadFile(1)))) as ServiceError;
			expect(e).toBeInstanceOf(ServiceError);
			expect(e.kind).toBe('invalidResponse');
			expect(e.message).toMatch(/https/);
			expect(auth.calls).toHaveLength(1);
			expect(anon.calls).toHaveLength(0);
		});
	}

	for (const link of [null, {}, { url: '' }, { url: 42 }]) {
		it(`a link response without a URL (${JSON.stringify(link)}) is an invalidResponse`, async () => {
			const { clock, auth, client } = dl(link, file({}));
			const e = (await rejected(clock.run(client.downloadFile(1)))) as ServiceError;
			expect(e).toBeInstanceOf(ServiceError);
			expect(e.kind).toBe('invalidResponse');
			expect(auth.calls).toHaveLength(1);
		});
	}

	it('an unreadable or relative link is an invalidResponse, not a TypeError', async () => {
		for (const url of ['/media/files/1.pdf', 'not a url']) {
			const { clock, auth, anon, client } = dl({ url }, file({}));
			const e = (await rejected(clock.run(client.downloadFile(1)))) as ServiceError;
			expect(e).toBeInstanceOf(ServiceError);
			expect(e.kind).toBe('invalidResponse');
			expect(auth.calls).toHaveLength(1);
			expect(anon.calls).toHaveLength(0);
		}
	});

	it('validates the file id before any request', async () => {
		const { clock, auth, client } = dl({ url: `${BASE}/x` }, file({}));
		const e = await rejected(clock.run(client.downloadFile('../etc', 'fileId')));
		expect(e).toBeInstanceOf(ValidationError);
		expect((e as ValidationError).parameter).toBe('fileId');
		expect(auth.calls).toHaveLength(0);
	});

	it('a missing file is a notFound error', async () => {
		const { clock, client } = dl({ url: `${BASE}/media/x` }, json(404, { description: 'gone' }));
		const e = (await rejected(clock.run(client.downloadFile(1)))) as ServiceError;
		expect(e).toMatchObject({ kind: 'notFound', status: 404, description: 'gone' });
	});
});
