import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FETCH_BAD_PORTS, ValidationError, isLoopbackHost, parseBaseUrl, sameOrigin } from '../../client';
import { thrown } from './helpers';

describe('parseBaseUrl: scheme', () => {
	for (const url of ['http://127.0.0.1', 'http://127.0.0.1:3000', 'http://127.1.2.3:8080/x', 'http://localhost', 'http://localhost:5678/', 'http://LOCALHOST', 'http://[::1]', 'http://[::1]:8080']) {
		it(`allows plain http on loopback: ${url}`, () => {
			expect(parseBaseUrl(url).apiRoot.startsWith('http://')).toBe(true);
			expect(parseBaseUrl(url).apiRoot.endsWith('/api/v1')).toBe(true);
		});
	}
	for (const url of ['http://example.com', 'http://tec.example.com/api/v1', 'http://128.0.0.1', 'http://127.0.0.1.evil.com', 'http://localhost.evil.com', 'http://evil.com#@localhost', 'http://[::2]', 'http://10.0.0.1', 'http://0.0.0.0']) {
		it(`rejects plain http on a non-loopback host, naming the parameter: ${url}`, () => {
			const err = thrown(() => parseBaseUrl(url, 'sandboxUrl'));
			expect(err).toBeInstanceOf(ValidationError);
			expect((err as ValidationError).parameter).toBe('sandboxUrl');
			expect(err.message).toMatch(/https/);
		});
	}
	for (const url of ['ftp://tec.example.com', 'file:///etc/passwd', 'javascript:alert(1)', 'tec.example.com', '', '   ', 'https://', 'https://user:pw@tec.example.com', 'https://tec.example.com/?x=1', 'https://tec.example.com/#frag']) {
		it(`rejects ${JSON.stringify(url)}`, () => {
			const err = thrown(() => parseBaseUrl(url, 'baseUrl'));
			expect(err).toBeInstanceOf(ValidationError);
			expect((err as ValidationError).parameter).toBe('baseUrl');
		});
	}
	it('loopback detection', () => {
		expect(isLoopbackHost('127.0.0.1')).toBe(true);
		expect(isLoopbackHost('127.255.0.9')).toBe(true);
		expect(isLoopbackHost('localhost')).toBe(true);
		expect(isLoopbackHost('[::1]')).toBe(true);
		for (const h of ['127.0.0', '1127.0.0.1', '127.0.0.1.x', 'example.com', '::1x', '']) expect(isLoopbackHost(h), h).toBe(false);
	});
});

describe('parseBaseUrl: /api/v1 exactly once', () => {
	const cases: Array<[string, string]> = [
		['https://tec.example.com', 'https://tec.example.com/api/v1'],
		['https://tec.example.com/', 'https://tec.example.com/api/v1'],
		['https://tec.example.com///', 'https://tec.example.com/api/v1'],
		['  https://tec.example.com  ', 'https://tec.example.com/api/v1'],
		['https://tec.example.com/api/v1', 'https://tec.example.com/api/v1'],
		['https://tec.example.com/api/v1/', 'https://tec.example.com/api/v1'],
		['https://tec.example.com/api/v1//', 'https://tec.example.com/api/v1'],
		['https://tec.example.com/tenant', 'https://tec.example.com/tenant/api/v1'],
		['https://tec.example.com/tenant/', 'https://tec.example.com/tenant/api/v1'],
		['https://tec.example.com/tenant/x/api/v1/', 'https://tec.example.com/tenant/x/api/v1'],
		['https://tec.example.com/xapi/v1', 'https://tec.example.com/xapi/v1/api/v1'],
		['https://TEC.Example.com:443/', 'https://tec.example.com/api/v1'],
		['https://tec.example.com:8443', 'https://tec.example.com:8443/api/v1'],
		['http://127.0.0.1:3000/api/v1', 'http://127.0.0.1:3000/api/v1'],
	];
	for (const [input, apiRoot] of cases) {
		it(`${input} → ${apiRoot}`, () => {
			const b = parseBaseUrl(input);
			expect(b.apiRoot).toBe(apiRoot);
			expect(b.origin).toBe(new URL(apiRoot).origin);
			expect(b.apiRoot.endsWith('/')).toBe(false);
		});
	}

	const host = fc.oneof(fc.domain(), fc.constantFrom('127.0.0.1', 'localhost', '[::1]'));
	const segment = fc.oneof(fc.webSegment(), fc.constantFrom('api', 'v1', 'api/v1', '.', '..', '%2e%2e', '%2F', 'a b', 'é'));
	const candidate = fc
		.record({
			scheme: fc.constantFrom('https', 'http'),
			host,
			port: fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
			segments: fc.array(segment, { maxLength: 4 }),
			prefix: fc.boolean(),
			slashes: fc.nat(3),
			space: fc.boolean(),
		})
		.map(({ scheme, host, port, segments, prefix, slashes, space }) => {
			const path = [...segments, ...(prefix ? ['api', 'v1'] : [])].map((s) => `/${s}`).join('');
			const url = `${scheme}://${host}${port ? `:${port}` : ''}${path}${'/'.repeat(slashes)}`;
			return space ? ` ${url} ` : url;
		});

	it('property: parsing an apiRoot again gives the same apiRoot', () => {
		let accepted = 0;
		fc.assert(
			fc.property(fc.oneof(candidate, fc.webUrl()), (input) => {
				let first;
				try {
					first = parseBaseUrl(input);
				} catch (e) {
					expect(e).toBeInstanceOf(ValidationError);
					return;
				}
				accepted++;
				expect(parseBaseUrl(first.apiRoot).apiRoot).toBe(first.apiRoot);
				expect(parseBaseUrl(`${first.apiRoot}/`).apiRoot).toBe(first.apiRoot);
				expect(first.apiRoot.endsWith('/api/v1')).toBe(true);
				expect(first.apiRoot.startsWith(first.origin)).toBe(true);
				expect(first.apiRoot.startsWith('https://') || isLoopbackHost(new URL(first.apiRoot).hostname)).toBe(true);
			}),
			{ numRuns: 1000 },
		);
		expect(accepted).toBeGreaterThan(300);
	});
});

describe('sameOrigin', () => {
	const base = parseBaseUrl('https://tec.example.com/tenant');
	it('compares scheme, host and port', () => {
		expect(sameOrigin('https://tec.example.com/other/path?x=1', base)).toBe(true);
		expect(sameOrigin('https://tec.example.com:443/x', base)).toBe(true);
		expect(sameOrigin('http://tec.example.com/x', base)).toBe(false);
		expect(sameOrigin('https://tec.example.com:8443/x', base)).toBe(false);
		expect(sameOrigin('https://evil.example.com/x', base)).toBe(false);
		expect(sameOrigin('https://tec.example.com.evil.com/x', base)).toBe(false);
		expect(sameOrigin('https://tec.example.com@evil.com/x', base)).toBe(false);
		expect(sameOrigin('/relative', base)).toBe(false);
		expect(sameOrigin('not a url', base)).toBe(false);
	});
});

describe('parseBaseUrl: ports that fetch refuses', () => {
	/** What Node's own fetch does with a port: refuse it ("bad port", the WHATWG Fetch list) or try it. */
	const fetchRefuses = async (port: number) =>
		(await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(2000) }).then(
			(r) => void r.body?.cancel(),
			(e: Error & { cause?: Error }) => e.cause?.message,
		)) === 'bad port';
	const refused = (url: string) => {
		try {
			parseBaseUrl(url, 'baseUrl');
			return undefined;
		} catch (e) {
			expect(e).toBeInstanceOf(ValidationError);
			return e as ValidationError;
		}
	};

	for (const port of [10080, 2049, 4045, 5060, 5061, 6000, 6665, 6666, 6667, 6668, 6669, 6697, 1, 25, 587]) {
		it(`refuses :${port}, naming the parameter, the port and why, for https and loopback http alike`, () => {
			for (const url of [`https://tec.example.com:${port}`, `http://127.0.0.1:${port}/api/v1`]) {
				const err = refused(url);
				expect(err?.parameter, url).toBe('baseUrl');
				expect(err?.message).toMatch(new RegExp(`port ${port}\\b.*fetch.*bad port`));
			}
		});
	}

	it('property: a port is refused exactly when Node.js fetch refuses it', async () => {
		const ports = fc.oneof(fc.integer({ min: 1, max: 65535 }), fc.constantFrom(...FETCH_BAD_PORTS), fc.constantFrom(443, 8443, 3000, 8080, 6664, 6670, 10081));
		await fc.assert(
			fc.asyncProperty(ports, async (port) => {
				expect(refused(`https://tec.example.com:${port}`) !== undefined, `port ${port}`).toBe(await fetchRefuses(port));
			}),
			{ numRuns: 150 },
		);
	});

	it('every port of the list is one fetch refuses', async () => {
		for (const port of FETCH_BAD_PORTS) expect(await fetchRefuses(port), `port ${port}`).toBe(true);
	});
});
