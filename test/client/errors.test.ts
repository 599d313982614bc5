import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EXCERPT_LENGTH, ServiceError, ValidationError, errorFromResponse, excerpt, ruleForStatus, tryParseJson } from '../../client';

const TABLE: Array<{ status: number; kind: string; retryable: boolean; says: RegExp[] }> = [
	{ status: 400, kind: 'badRequest', retryable: false, says: [/incorrect or missing parameters/i] },
	{ status: 401, kind: 'auth', retryable: false, says: [/invalid/i, /expired/i, /other environment/i] },
	{ status: 404, kind: 'notFound', retryable: false, says: [/does not exist/i] },
	{ status: 412, kind: 'precondition', retryable: false, says: [/precondition/i] },
	{ status: 413, kind: 'permission', retryable: false, says: [/permission/i, /Administration page/, /API Access tab/] },
	{ status: 426, kind: 'license', retryable: false, says: [/licen[cs]e (has )?expired/i] },
	{ status: 427, kind: 'license', retryable: false, says: [/licen[cs]e (has )?expired/i] },
	{ status: 429, kind: 'rateLimit', retryable: true, says: [/too many requests/i, /5 requests per second/] },
	{ status: 451, kind: 'maintenance', retryable: true, says: [/maintenance/i] },
	{ status: 500, kind: 'server', retryable: true, says: [/server error/i] },
	{ status: 502, kind: 'server', retryable: true, says: [/server error/i, /502/] },
	{ status: 503, kind: 'server', retryable: true, says: [/server error/i, /503/] },
];

describe('errorFromResponse', () => {
	for (const { status, kind, retryable, says } of TABLE) {
		it(`${status} → ${kind}`, () => {
			const e = errorFromResponse({ status, bodyText: JSON.stringify({ description: `detail for ${status}` }), method: 'GET', path: '/data/devices/all/' });
			expect(e).toBeInstanceOf(ServiceError);
			expect(e).toBeInstanceOf(Error);
			expect(e.kind).toBe(kind);
			expect(e.retryable).toBe(retryable);
			expect(e.status).toBe(status);
			expect(e.description).toBe(`detail for ${status}`);
			expect(e.method).toBe('GET');
			expect(e.path).toBe('/data/devices/all/');
			expect(e.message).toContain(`detail for ${status}`);
			expect(e.message).toContain(`HTTP ${status}`);
			expect(e.message).toContain('GET /data/devices/all/');
			for (const re of says) expect(e.message).toMatch(re);
			expect(ruleForStatus(status).kind).toBe(kind);
		});
	}

	it('keeps each status distinct (401 is not reported as a permission problem and vice versa)', () => {
		const m401 = errorFromResponse({ status: 401, bodyText: '', method: 'GET', path: '/' }).message;
		const m413 = errorFromResponse({ status: 413, bodyText: '', method: 'GET', path: '/' }).message;
		expect(m401).not.toMatch(/API Access tab/);
		expect(m413).not.toMatch(/other environment/);
	});

	it('reads a non-string description without failing', () => {
		const e = errorFromResponse({ status: 400, bodyText: JSON.stringify({ description: { limit: ['too big'] } }), method: 'GET', path: '/' });
		expect(e.description).toBe('{"limit":["too big"]}');
		expect(e.message).toContain('too big');
	});

	it('without a description, shows the status and an excerpt of the body', () => {
		const e = errorFromResponse({ status: 502, bodyText: '<html><body>Bad   gateway\n from proxy</body></html>', method: 'PUT', path: '/x/' });
		expect(e.kind).toBe('server');
		expect(e.description).toBeUndefined();
		expect(e.message).toContain('HTTP 502');
		expect(e.message).toContain('<html><body>Bad gateway from proxy</body></html>');
		expect(e.bodyExcerpt).toBe('<html><body>Bad gateway from proxy</body></html>');
	});

	it('a truncated JSON body gives the status and an excerpt, never a JSON.parse error', () => {
		const body = '{"description": "the filter 5 is not val';
		const e = errorFromResponse({ status: 400, bodyText: body, method: 'GET', path: '/data/devices/all/' });
		expect(e).toBeInstanceOf(ServiceError);
		expect(e.kind).toBe('badRequest');
		expect(e.description).toBeUndefined();
		expect(e.message).toContain('HTTP 400');
		expect(e.message).toContain(body);
		expect(e.message).not.toMatch(/JSON\.parse|Unexpected end|Unterminated/);
	});

	it('a long body is cut to a short excerpt', () => {
		const body = `${'x'.repeat(EXCERPT_LENGTH)}TAIL-THAT-MUST-NOT-APPEAR${'y'.repeat(10_000)}`;
		const e = errorFromResponse({ status: 500, bodyText: body, method: 'GET', path: '/' });
		expect(e.message).not.toContain('TAIL-THAT-MUST-NOT-APPEAR');
		expect(e.message.length).toBeLessThan(EXCERPT_LENGTH + 200);
		expect(e.bodyExcerpt!.length).toBeLessThanOrEqual(EXCERPT_LENGTH + 1);
	});

	it('an empty body gives the rule message only', () => {
		const e = errorFromResponse({ status: 451, bodyText: '', method: 'GET', path: '/p/' });
		expect(e.message).toMatch(/maintenance.*\(HTTP 451 on GET \/p\/\)$/);
		expect(e.bodyExcerpt).toBeUndefined();
	});

	it('keeps Retry-After', () => {
		expect(errorFromResponse({ status: 429, bodyText: '', method: 'GET', path: '/', retryAfterMs: 1500 }).retryAfterMs).toBe(1500);
	});

	it('property: never throws, whatever the status and body', () => {
		fc.assert(
			fc.property(
				fc.integer({ min: 100, max: 599 }),
				fc.oneof(
					fc.string({ unit: 'binary' }),
					fc.json(),
					fc.json().map((j) => j.slice(0, Math.floor(j.length / 2))),
					fc.anything().map((a) => JSON.stringify({ description: a }) ?? ''),
				),
				(status, body) => {
					const e = errorFromResponse({ status, bodyText: body, method: 'POST', path: '/p/' });
					expect(e).toBeInstanceOf(ServiceError);
					expect(e.status).toBe(status);
					expect(e.message).toContain(`HTTP ${status}`);
					if (status >= 500) expect([e.kind, e.retryable]).toEqual(['server', true]);
					else expect(e.retryable).toBe(status === 429 || status === 451);
					if (e.bodyExcerpt !== undefined) expect(e.bodyExcerpt.length).toBeLessThanOrEqual(EXCERPT_LENGTH + 1);
				},
			),
		);
	});

	it('unknown statuses: 5xx are server errors, 4xx rejections', () => {
		expect(ruleForStatus(504)).toMatchObject({ kind: 'server', retryable: true });
		expect(ruleForStatus(418)).toMatchObject({ kind: 'badRequest', retryable: false });
	});
});

describe('helpers', () => {
	it('excerpt flattens whitespace and cuts', () => {
		expect(excerpt('  a\n\tb  ')).toBe('a b');
		expect(excerpt('z'.repeat(EXCERPT_LENGTH + 5))).toBe(`${'z'.repeat(EXCERPT_LENGTH)}…`);
	});
	it('tryParseJson never throws', () => {
		expect(tryParseJson('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
		expect(tryParseJson('{"a":').ok).toBe(false);
		expect(tryParseJson('').ok).toBe(false);
	});
	it('ValidationError names the parameter in its message', () => {
		const e = new ValidationError('limit', 'must be positive');
		expect(e.parameter).toBe('limit');
		expect(e.message).toBe('limit: must be positive');
		expect(e.name).toBe('ValidationError');
	});
});
