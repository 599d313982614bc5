/**
 * The client core's redirect rules and the token redaction, with in-test request functions (the
 * reliability tests run the same rules over real HTTP on every face). Here also the cases a local
 * test cannot serve over real HTTP: a download handed to another host over https, fetched there
 * by the anonymous request function (never the token's).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, ServiceClient, ServiceError, redactResponse, redactSecret, type HttpResponse, type RequestFn } from '../../client';
import { VirtualClock } from '../support/virtualClock';
import { API, BASE, json, router, text } from './helpers';

const redirect = (status: number, location: string): HttpResponse => ({ status, headers: { location }, body: '' });

function client(request: RequestFn, requestAnonymous?: RequestFn) {
	return new ServiceClient({ baseUrl: BASE, request, requestAnonymous, clock: new VirtualClock(), retry: { maxAttempts: 1 } });
}

describe('redirects in the client core', () => {
	it('follows a relative same-origin redirect of a GET', async () => {
		const r = router({ now: () => 0 }, (req, i) => (i === 0 ? redirect(302, '/api/v1/device/detail/2/') : json(200, { id: 2 })));
		expect(await client(r.request).call('device.get', { pathParams: { id: 1 } })).toEqual({ id: 2 });
		expect(r.calls.map((c) => c.url)).toEqual([`${API}/device/detail/1/`, `${API}/device/detail/2/`]);
	});

	it('a redirect loop ends after 5 redirects with a clear error', async () => {
		const r = router({ now: () => 0 }, (req) => redirect(307, req.url));
		await expect(client(r.request).call('device.get', { pathParams: { id: 1 } })).rejects.toThrow(/redirect \(HTTP 307\) for the 6th time; not followed/);
		expect(r.calls).toHaveLength(6);
	});

	it.each(['javascript:alert(1)', 'file:///etc/passwd', 'http://[bad'])('refuses a redirect to %s', async (location) => {
		const r = router({ now: () => 0 }, () => redirect(302, location));
		const error = await client(r.request).call('device.get', { pathParams: { id: 1 } }).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(ServiceError);
		expect((error as ServiceError).kind).toBe('redirect');
		expect(r.calls).toHaveLength(1);
	});

	it('a 3xx without Location is an error answer, not a redirect', async () => {
		const r = router({ now: () => 0 }, () => text(302, ''));
		await expect(client(r.request).call('device.get', { pathParams: { id: 1 } })).rejects.toThrow(/HTTP 302/);
	});

	it('https to http on the same host is another origin: refused', async () => {
		const r = router({ now: () => 0 }, () => redirect(301, 'http://tec.example.com/api/v1/device/detail/1/'));
		await expect(client(r.request).call('device.get', { pathParams: { id: 1 } })).rejects.toThrow(
			'to another origin (http://tec.example.com); refusing to follow it: the access token is only sent to https://tec.example.com',
		);
	});

	it('a download redirected to another https host is fetched there without the token; to plain http it is refused', async () => {
		const withToken = router({ now: () => 0 }, (req) =>
			req.pathname.includes('download_link') ? json(200, { url: `${API}/files/download/k/` }) : redirect(302, 'https://files.example.net/k?sig=1'),
		);
		const anonymous = router({ now: () => 0 }, () => ({ status: 200, headers: { 'content-type': 'text/csv' }, body: new TextEncoder().encode('a,b') }));
		const file = await client(withToken.request, anonymous.request).downloadFile(7);
		expect(new TextDecoder().decode(file.data)).toBe('a,b');
		expect(withToken.calls.map((c) => new URL(c.url).origin)).toEqual([BASE, BASE]);
		expect(anonymous.calls.map((c) => c.url)).toEqual(['https://files.example.net/k?sig=1']);

		const toHttp = router({ now: () => 0 }, (req) =>
			req.pathname.includes('download_link') ? json(200, { url: `${API}/files/download/k/` }) : redirect(302, 'http://files.example.net/k'),
		);
		const none = router({ now: () => 0 }, () => text(200, 'x'));
		await expect(client(toHttp.request, none.request).downloadFile(7)).rejects.toThrow(/to another origin \(http:\/\/files\.example\.net\)/);
		expect(none.calls).toEqual([]);
	});

	it('an anonymous download on another host follows https redirects only', async () => {
		const withToken = router({ now: () => 0 }, () => json(200, { url: 'https://files.example.net/k' }));
		const anonymous = router({ now: () => 0 }, (req) => (req.url.startsWith('https://files.') ? redirect(302, 'http://cdn.example.net/k') : text(200, 'x')));
		await expect(client(withToken.request, anonymous.request).downloadFile(7)).rejects.toThrow(/downloads from other hosts must use https, so it was not followed/);
		expect(anonymous.calls).toHaveLength(1);
	});
});

describe('redactSecret / redactResponse', () => {
	const token = 'a1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6a7b8c9d0';

	it('property: no text keeps the token, and text without it is unchanged', () => {
		fc.assert(
			fc.property(fc.string(), fc.string(), fc.string(), (a, b, c) => {
				const text = `${a}${token}${b}Token ${token}${c}`;
				const out = redactSecret(text, token);
				expect(out.includes(token)).toBe(false);
				expect(out).toContain(REDACTED);
				if (!`${a}${b}${c}`.includes(token)) expect(redactSecret(`${a}${b}${c}`, token)).toBe(`${a}${b}${c}`);
			}),
		);
	});

	it('answers: headers and text bodies are redacted, a downloaded file is not', () => {
		const echoed = redactResponse({ status: 400, headers: { 'x-echo': `Token ${token}` }, body: `{"description":"${token}"}` }, token);
		expect(JSON.stringify(echoed)).not.toContain(token);
		const errorBytes = redactResponse({ status: 500, headers: {}, body: new TextEncoder().encode(token) }, token);
		expect(new TextDecoder().decode(errorBytes.body as Uint8Array)).toBe(REDACTED);
		const file = new TextEncoder().encode(`report ${token}`);
		expect(redactResponse({ status: 200, headers: {}, body: file }, token).body).toBe(file);
		expect(redactSecret('short', 'abc')).toBe('short');
	});
});
