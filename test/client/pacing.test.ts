import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Pacer, PacerRegistry, SERVICE_RATE, ServiceClient, pacingKey } from '../../client';
import type { HttpResponse, RequestFn } from '../../client';
import { RateLimiter } from '../../sandbox/rateLimit';
import { BASE, json, newClock, router, text } from './helpers';

/** No `max + 1` starts within any window of `windowMs`. */
function assertPaced(times: number[], max = 5, windowMs = 1000): void {
	const sorted = [...times].sort((a, b) => a - b);
	for (let i = 0; i + max < sorted.length; i++) {
		expect(sorted[i + max] - sorted[i], `starts ${i}..${i + max}`).toBeGreaterThanOrEqual(windowMs);
	}
}

describe('Pacer', () => {
	it('lets 5 start at once, then one window later', () => {
		const clock = newClock();
		const pacer = new Pacer(clock);
		const waits = Array.from({ length: 11 }, () => pacer.reserve());
		expect(waits.slice(0, 5)).toEqual([0, 0, 0, 0, 0]);
		for (const w of waits.slice(5, 10)) expect(w).toBeGreaterThanOrEqual(1000);
		expect(waits[10]).toBeGreaterThanOrEqual(2000);
		expect(waits[10]).toBeLessThanOrEqual(2100);
	});

	it('20 concurrent callers × 5 calls through one client: ≤ 5 starts per second, close to the ideal time', async () => {
		const clock = newClock();
		const t0 = clock.now();
		const r = router(clock, () => json(200, { ok: true }));
		const client = new ServiceClient({ baseUrl: BASE, request: r.request, clock, pacer: new Pacer(clock) });
		const caller = async (c: number) => {
			for (let k = 0; k < 5; k++) await client.call('device.get', { pathParams: { id: c * 10 + k } });
		};
		await clock.run(Promise.all(Array.from({ length: 20 }, (_, c) => caller(c))));
		const times = r.calls.map((c) => c.at);
		expect(times).toHaveLength(100);
		assertPaced(times);
		// every call was made once
		expect(new Set(r.calls.map((c) => c.url)).size).toBe(100);
		const ideal = (100 / 5 - 1) * 1000;
		const total = Math.max(...times) - t0;
		expect(total).toBeGreaterThanOrEqual(ideal);
		expect(total).toBeLessThanOrEqual(ideal * 1.1);
		expect(Math.min(...times)).toBe(t0);
	});

	it('property: callers woken late (a busy event loop) still start at most 5 in any second, as they really left', async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(fc.nat(600), { minLength: 1, maxLength: 40 }), fc.integer({ min: 2, max: 12 }), async (lags, callers) => {
				const clock = newClock();
				// Each sleep wakes up to 600 ms after it was due, in turn, as a loaded process's timers do.
				let n = 0;
				const sleep = clock.sleep.bind(clock);
				clock.sleep = (ms: number) => sleep(ms + lags[n++ % lags.length]);
				const pacer = new Pacer(clock);
				const starts: number[] = [];
				await clock.run(
					Promise.all(
						Array.from({ length: callers }, async () => {
							for (let k = 0; k < 4; k++) {
								await pacer.acquire();
								starts.push(clock.now());
							}
						}),
					),
				);
				expect(starts).toHaveLength(callers * 4);
				assertPaced(starts);
			}),
			{ numRuns: 200 },
		);
	});

	it('property: any mix of concurrent callers stays within 5 starts per second', async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(fc.record({ delay: fc.nat(3000), calls: fc.integer({ min: 1, max: 6 }) }), { minLength: 1, maxLength: 12 }), async (callers) => {
				const clock = newClock();
				const r = router(clock, () => json(200, {}));
				const client = new ServiceClient({ baseUrl: BASE, request: r.request, clock, pacer: new Pacer(clock) });
				await clock.run(
					Promise.all(
						callers.map(async ({ delay, calls }) => {
							await clock.sleep(delay);
							for (let k = 0; k < calls; k++) await client.call('device.list');
						}),
					),
				);
				expect(r.calls).toHaveLength(callers.reduce((n, c) => n + c.calls, 0));
				assertPaced(r.calls.map((c) => c.at));
			}),
			{ numRuns: 40 },
		);
	});

	it('two clients with the same pacer share the budget; with different pacers they do not', async () => {
		const clock = newClock();
		const t0 = clock.now();
		const r = router(clock, () => json(200, {}));
		const shared = new Pacer(clock);
		const a = new ServiceClient({ baseUrl: BASE, request: r.request, clock, pacer: shared });
		const b = new ServiceClient({ baseUrl: BASE, request: r.request, clock, pacer: shared });
		await clock.run(Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).call('device.list'))));
		assertPaced(r.calls.map((c) => c.at));
		expect(r.calls.filter((c) => c.at === t0)).toHaveLength(5);

		const clock2 = newClock();
		const t1 = clock2.now();
		const r2 = router(clock2, () => json(200, {}));
		const c = new ServiceClient({ baseUrl: BASE, request: r2.request, clock: clock2, pacer: new Pacer(clock2) });
		const d = new ServiceClient({ baseUrl: BASE, request: r2.request, clock: clock2, pacer: new Pacer(clock2) });
		await clock2.run(Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? c : d).call('device.list'))));
		expect(r2.calls.map((x) => x.at)).toEqual(Array(10).fill(t1));
	});

	it('a registry hands out one pacer per key', () => {
		const clock = newClock();
		const reg = new PacerRegistry();
		const p1 = reg.forKey(pacingKey('token-a'), clock);
		expect(reg.forKey(pacingKey('token-a'), clock)).toBe(p1);
		expect(reg.forKey(pacingKey('token-b'), clock)).not.toBe(p1);
		expect(reg.size).toBe(2);
		expect(p1.options).toEqual(SERVICE_RATE);
	});

	it('rateLimited delays callers that arrive later', async () => {
		const clock = newClock();
		const t0 = clock.now();
		const pacer = new Pacer(clock);
		pacer.rateLimited(t0 + 5000);
		pacer.rateLimited(t0 + 2000); // an earlier pause does not shorten it
		const r = router(clock, () => json(200, {}));
		const client = new ServiceClient({ baseUrl: BASE, request: r.request, clock, pacer });
		await clock.run(Promise.all([client.call('device.list'), client.call('customer.list')]));
		for (const c of r.calls) expect(c.at).toBeGreaterThanOrEqual(t0 + 5000);
	});

	it('each 429 widens the margin a step, up to a bound, so late departures stop tripping the limit', async () => {
		const clock = newClock();
		// The 429s forgotten at once (the grid of test/client/adaptiveRate.test.ts off): the window alone.
		const pacer = new Pacer(clock, undefined, { forgetMs: 0 });
		expect(pacer.marginMs).toBe(SERVICE_RATE.marginMs);
		pacer.rateLimited(clock.now());
		expect(pacer.marginMs).toBe(SERVICE_RATE.marginMs + 25);
		for (let i = 0; i < 20; i++) pacer.rateLimited(clock.now());
		expect(pacer.marginMs).toBe(SERVICE_RATE.marginMs + 200);
		// The wider margin spaces the sixth start from the first.
		const t0 = clock.now();
		const waits = Array.from({ length: 6 }, () => pacer.reserve());
		expect(waits.slice(0, 5)).toEqual([0, 0, 0, 0, 0]);
		expect(t0 + waits[5]).toBe(t0 + SERVICE_RATE.windowMs + SERVICE_RATE.marginMs + 200);
	});

	it('rateLimited also delays callers already waiting for a slot', async () => {
		const clock = newClock();
		const t0 = clock.now();
		const pacer = new Pacer(clock);
		const r = router(clock, (req, i) => {
			if (i === 0) pacer.rateLimited(t0 + 3000);
			return json(200, {});
		});
		const client = new ServiceClient({ baseUrl: BASE, request: r.request, clock, pacer });
		// all 12 reserve their slots at t0, before the pause
		await clock.run(Promise.all(Array.from({ length: 12 }, () => client.call('device.list'))));
		const times = r.calls.map((c) => c.at);
		expect(times.filter((t) => t === t0)).toHaveLength(5);
		for (const t of times.filter((t) => t !== t0)) expect(t).toBeGreaterThanOrEqual(t0 + 3000);
		assertPaced(times);
	});

	it('a 429 pauses the other callers of the same pacer for Retry-After', async () => {
		const clock = newClock();
		const t0 = clock.now();
		const pacer = new Pacer(clock);
		const r = router(clock, (req, i) => (i === 0 ? text(429, '', { 'retry-after': '4' }) : json(200, {})));
		const client = new ServiceClient({ baseUrl: BASE, request: r.request, clock, pacer });
		await clock.run(Promise.all(Array.from({ length: 8 }, () => client.call('device.list'))));
		const times = r.calls.map((c) => c.at);
		expect(times).toHaveLength(9);
		// the 5 first slots start at once; everything after the 429 waits for it
		expect(times.filter((t) => t === t0)).toHaveLength(5);
		for (const t of times.filter((t) => t !== t0)) expect(t).toBeGreaterThanOrEqual(t0 + 4000);
		assertPaced(times);
	});
});

describe('pacingKey', () => {
	it('is stable and differs per token and per scope', () => {
		expect(pacingKey('abc123')).toBe(pacingKey('abc123'));
		expect(pacingKey('abc123', 'prod')).toBe(pacingKey('abc123', 'prod'));
		expect(pacingKey('abc123')).not.toBe(pacingKey('abc124'));
		expect(pacingKey('abc123', 'sandbox')).not.toBe(pacingKey('abc123', 'production'));
		expect(pacingKey('abc123', '')).not.toBe(pacingKey('abc123', 'x'));
		// scope and token do not run together
		expect(pacingKey('bc', 'a')).not.toBe(pacingKey('c', 'ab'));
	});

	it('property: does not contain the token and distinguishes tokens', () => {
		fc.assert(
			fc.property(fc.string({ minLength: 8, maxLength: 80 }), fc.string({ minLength: 8, maxLength: 80 }), fc.string({ maxLength: 10 }), (t1, t2, scope) => {
				const k1 = pacingKey(t1, scope);
				expect(k1).toMatch(/^tec:[0-9a-f]{16}$/);
				expect(k1).not.toContain(t1);
				expect(pacingKey(t1, scope)).toBe(k1);
				if (t1 !== t2) expect(pacingKey(t2, scope)).not.toBe(k1);
			}),
		);
	});

	it('a realistic 40-character hex token is not recoverable from the key', () => {
		const token = '9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b';
		const key = pacingKey(token);
		expect(key).not.toContain(token);
		expect(key).not.toContain(token.slice(0, 12));
		expect(key.length).toBeLessThan(token.length);
	});
});

// the window check itself must be able to fail
describe('assertPaced', () => {
	it('detects six starts within a second', () => {
		expect(() => assertPaced([0, 100, 200, 300, 400, 999])).toThrow();
		expect(() => assertPaced([0, 100, 200, 300, 400, 1000])).not.toThrow();
	});
});

describe('Pacer: requests that leave after their slot', () => {
	/**
	 * A caller whose request leaves some time after its slot (n8n's request helper works before it
	 * sends: credentials, the authentication expression; a garbage collection between slot and send),
	 * against the sandbox's limiter in virtual time: the service counts arrivals, not slots.
	 */
	const serialRun = async (lateMs: (i: number) => number, answerMs = 30, requests = 40) => {
		const clock = newClock();
		const limiter = new RateLimiter(5, 1000, () => clock.now());
		let refused = 0;
		const arrivals: number[] = [];
		const request: RequestFn = async (req) => {
			const i = arrivals.length + refused;
			await clock.sleep(lateMs(i));
			const wait = limiter.take('token');
			if (wait !== undefined) {
				refused++;
				return text(429, '', { 'retry-after': '1' });
			}
			arrivals.push(clock.now());
			await clock.sleep(answerMs);
			return { ...json(200, []), url: req.url } as HttpResponse;
		};
		const client = new ServiceClient({ baseUrl: BASE, request, clock, pacer: new Pacer(clock, undefined, { random: () => 0.5 }) });
		const t0 = clock.now();
		await clock.run(
			(async () => {
				for (let k = 0; k < requests; k++) await client.call('device.list');
			})(),
		);
		return { refused, arrivals, ms: clock.now() - t0 };
	};

	it('the first requests leave 60 ms after their slots (a cold start): the starts of the next window wait for them, no 429', async () => {
		const run = await serialRun((i) => (i < 3 ? 60 : 2));
		expect(run.refused).toBe(0);
		expect(run.arrivals).toHaveLength(40);
	});

	it('one request in twenty leaves 60 ms late (a collection between slot and send): no 429', async () => {
		const run = await serialRun((i) => (i % 20 === 7 ? 60 : 2));
		expect(run.refused).toBe(0);
	});

	it('answers that are slow alike (a loaded service, requests leaving on time) wait no longer than the window asks', async () => {
		const slow = await serialRun(() => 2, 150);
		expect(slow.refused).toBe(0);
		// Eight windows of five serial starts: seven windows, then five answers of 152 ms (the run's end).
		expect(slow.ms).toBeLessThanOrEqual(7 * (1000 + SERVICE_RATE.marginMs) + 5 * 152 + 10);
	});
});
