import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_RETRY, ServiceClient, ServiceError, budgetRetry, isRetryable, parseRetryAfter, retryDelay, type HttpMethod, type RetryOptions, type ServiceErrorKind } from '../../client';
import { undiciRequestFn } from '../../lambdas/adapters/undiciService';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { SteppingClock } from '../support/virtualClock';
import { json, newClock, router } from './helpers';

const err = (kind: ServiceErrorKind, retryAfterMs?: number) => new ServiceError({ kind, message: kind, retryAfterMs });
const opts = (random: number, extra: Partial<RetryOptions> = {}): RetryOptions => ({ ...DEFAULT_RETRY, random: () => random, ...extra });

describe('isRetryable', () => {
	const METHODS: HttpMethod[] = ['GET', 'PUT', 'DELETE', 'POST', 'PATCH'];
	it('429 and 451 for every method', () => {
		for (const m of METHODS) {
			expect(isRetryable(err('rateLimit'), m)).toBe(true);
			expect(isRetryable(err('maintenance'), m)).toBe(true);
		}
	});
	it('5xx, network and unreadable answers only for GET, PUT, DELETE', () => {
		for (const kind of ['server', 'network', 'invalidResponse'] as const) {
			expect(isRetryable(err(kind), 'GET')).toBe(true);
			expect(isRetryable(err(kind), 'PUT')).toBe(true);
			expect(isRetryable(err(kind), 'DELETE')).toBe(true);
			expect(isRetryable(err(kind), 'POST')).toBe(false);
			expect(isRetryable(err(kind), 'PATCH')).toBe(false);
		}
	});
	it('never the client errors', () => {
		for (const kind of ['badRequest', 'auth', 'notFound', 'precondition', 'permission', 'license'] as const) {
			for (const m of METHODS) expect(isRetryable(err(kind), m)).toBe(false);
		}
	});
});

describe('retryDelay', () => {
	it('uses Retry-After when given', () => {
		expect(retryDelay(err('rateLimit', 3000), 1, opts(0.5))).toBe(3000);
		expect(retryDelay(err('maintenance', 0), 4, opts(0.5))).toBe(0);
	});
	it('backs off exponentially with equal jitter', () => {
		expect([1, 2, 3, 4].map((n) => retryDelay(err('rateLimit'), n, opts(0)))).toEqual([250, 500, 1000, 2000]);
		expect([1, 2, 3, 4].map((n) => retryDelay(err('rateLimit'), n, opts(1)))).toEqual([500, 1000, 2000, 4000]);
		expect([1, 2, 3].map((n) => retryDelay(err('server'), n, opts(0.5)))).toEqual([375, 750, 1500]);
	});
	it('is capped by maxDelayMs', () => {
		expect(retryDelay(err('server'), 30, opts(1))).toBe(DEFAULT_RETRY.maxDelayMs);
		expect(retryDelay(err('server'), 30, opts(0))).toBe(DEFAULT_RETRY.maxDelayMs / 2);
	});
	it('maintenance waits longer than a rate limit for the same attempt', () => {
		fc.assert(
			fc.property(fc.integer({ min: 1, max: 10 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (n, r1, r2) => {
				const m = retryDelay(err('maintenance'), n, opts(r1));
				const r = retryDelay(err('rateLimit'), n, opts(r2));
				if (n < 6) expect(m).toBeGreaterThan(r);
				else expect(m).toBeGreaterThanOrEqual(r / 2);
			}),
		);
	});
	it('property: within [cap/2, cap] and never zero', () => {
		fc.assert(
			fc.property(fc.integer({ min: 1, max: 40 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), fc.constantFrom<ServiceErrorKind>('server', 'network', 'rateLimit', 'maintenance'), (n, r, kind) => {
				const base = kind === 'maintenance' ? DEFAULT_RETRY.maintenanceDelayMs : DEFAULT_RETRY.baseDelayMs;
				const cap = Math.min(DEFAULT_RETRY.maxDelayMs, base * 2 ** (n - 1));
				const d = retryDelay(err(kind), n, opts(r));
				expect(d).toBeGreaterThanOrEqual(Math.floor(cap / 2));
				expect(d).toBeLessThanOrEqual(cap);
				expect(d).toBeGreaterThan(0);
			}),
		);
	});
});

describe('parseRetryAfter', () => {
	const now = Date.parse('2026-03-01T12:00:00Z');
	it('reads seconds and HTTP dates', () => {
		expect(parseRetryAfter('3', now)).toBe(3000);
		expect(parseRetryAfter(' 120 ', now)).toBe(120_000);
		expect(parseRetryAfter('0', now)).toBe(0);
		expect(parseRetryAfter('1.5', now)).toBe(1500);
		expect(parseRetryAfter('Sun, 01 Mar 2026 12:00:07 GMT', now)).toBe(7000);
		expect(parseRetryAfter(new Date(now + 90_000).toUTCString(), now)).toBe(90_000);
		// a date in the past means "now"
		expect(parseRetryAfter('Sun, 01 Mar 2026 11:00:00 GMT', now)).toBe(0);
	});
	it('ignores what it cannot read', () => {
		expect(parseRetryAfter(undefined, now)).toBeUndefined();
		expect(parseRetryAfter('soon', now)).toBeUndefined();
		expect(parseRetryAfter('', now)).toBeUndefined();
	});
	it('property: never negative, never NaN', () => {
		fc.assert(
			fc.property(fc.oneof(fc.string(), fc.nat().map(String), fc.date({ noInvalidDate: true }).map((d) => d.toUTCString())), (h) => {
				const ms = parseRetryAfter(h, now);
				if (ms !== undefined) {
					expect(Number.isNaN(ms)).toBe(false);
					expect(ms).toBeGreaterThanOrEqual(0);
				}
			}),
		);
	});
});

describe('a wait budget (Max Retry Wait) ends the retries, not a count of attempts', () => {
	// The sandbox on the test's simulated clock (its outages and rate limit included): the client's
	// waits pass at once, moving the clock on, so 30 s of outage take milliseconds.
	const clock = new SteppingClock(Date.parse('2026-03-02T12:00:00Z'));
	let waits: number[] = [];
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, now: () => clock.now(), rateLimitNow: () => clock.now() });
	});
	afterAll(async () => await sandbox.stop());
	beforeEach(() => {
		sandbox.faults.clear();
		waits = [];
	});
	const client = (budgetMs: number) =>
		new ServiceClient({
			baseUrl: sandbox.url,
			request: undiciRequestFn(sandbox.sandboxToken),
			clock,
			retry: { ...budgetRetry(budgetMs), random: () => 1 },
			onEvent: (e) => void (e.type === 'retry' && waits.push(e.waitMs)),
		});

	it('a 30 s outage (HTTP 503) with a budget of 120 s is waited out', async () => {
		const outage = sandbox.faults.add({ kind: 'status', status: 503, forMs: 30_000 });
		const t0 = clock.now();
		const page = await client(120_000).call('device.list', { params: [['limit', '1']] });
		expect(page).toMatchObject({ count: expect.any(Number) });
		// Attempts: the failed ones and the one answered, more than a count of attempts allowed.
		expect(outage.hits + 1).toBeGreaterThan(DEFAULT_RETRY.maxAttempts);
		expect(clock.now() - t0).toBeGreaterThanOrEqual(30_000);
		expect(clock.now() - t0).toBeLessThanOrEqual(120_000);
	});

	it('a 150 s maintenance (HTTP 451) with a budget of 300 s is waited out, each wait at most maxDelayMs', async () => {
		sandbox.faults.add({ kind: 'status', status: 451, forMs: 150_000 });
		const t0 = clock.now();
		await client(300_000).call('device.list', { params: [['limit', '1']] });
		expect(clock.now() - t0).toBeGreaterThanOrEqual(150_000);
		expect(waits.length).toBeGreaterThan(DEFAULT_RETRY.maxAttempts);
		expect(Math.max(...waits)).toBeLessThanOrEqual(DEFAULT_RETRY.maxDelayMs);
	});

	it('an outage longer than the budget fails once the budget is spent, not before', async () => {
		const outage = sandbox.faults.add({ kind: 'status', status: 503, forMs: 600_000 });
		const t0 = clock.now();
		const error = await client(120_000).call('device.list').catch((e: unknown) => e);
		expect(error).toMatchObject({ kind: 'server', status: 503 });
		// The next wait (at most maxDelayMs) would have overrun the budget.
		expect(clock.now() - t0).toBeGreaterThan(120_000 - DEFAULT_RETRY.maxDelayMs);
		expect(clock.now() - t0).toBeLessThanOrEqual(120_000);
		expect(outage.hits).toBeGreaterThan(DEFAULT_RETRY.maxAttempts);
	});

	it('an outage that ends before the budget is spent is waited out, though the next backoff is longer than what is left', async () => {
		// Waits of 0.5, 1, 2, 4, 8, 16, 20 and 20 s leave 8.5 s of 60: the last wait is what is left.
		sandbox.faults.add({ kind: 'status', status: 503, forMs: 55_000 });
		const t0 = clock.now();
		await client(60_000).call('device.list', { params: [['limit', '1']] });
		expect(clock.now() - t0).toBeGreaterThanOrEqual(55_000);
		expect(clock.now() - t0).toBeLessThanOrEqual(60_000);
	});
});

describe('budgetRetry with a service that asks for no wait at all', () => {
	it('Retry-After: 0 on every answer still ends within the budget (each retry waits a little)', async () => {
		const clock = newClock();
		const r = router(clock, () => json(503, {}, { 'retry-after': '0' }));
		const client = new ServiceClient({ baseUrl: 'https://tec.example.com', request: r.request, clock, retry: budgetRetry(2_000) });
		const error = await clock.run(client.call('device.list')).catch((e: unknown) => e);
		expect(error).toMatchObject({ kind: 'server', status: 503 });
		expect(r.calls.length).toBeGreaterThan(1);
		expect(r.calls.length).toBeLessThanOrEqual(1 + 2_000 / (DEFAULT_RETRY.baseDelayMs / 2));
	});
});
