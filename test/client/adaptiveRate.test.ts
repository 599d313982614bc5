import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ADAPTIVE_RATE, AdaptiveRate, Pacer, ServiceClient } from '../../client';
import { simulateSharedToken } from '../support/sharedToken';
import { BASE, json, newClock, router, text } from './helpers';

/** Most starts in any window of `windowMs`. */
function busiestWindow(times: number[], windowMs = 1000): number {
	const sorted = [...times].sort((a, b) => a - b);
	let most = 0;
	for (let i = 0, j = 0; j < sorted.length; j++) {
		while (sorted[j] - sorted[i] >= windowMs) i++;
		most = Math.max(most, j - i + 1);
	}
	return most;
}

const options = (random = () => 0.5) => ({ ...ADAPTIVE_RATE, random });

describe('AdaptiveRate (a grid of the wall clock after a 429)', () => {
	it('property: a 429 never shortens the stride (a free token is the shortest) nor widens it past the longest; quiet time never goes below one slot', () => {
		fc.assert(
			fc.property(
				fc.array(fc.record({ gap: fc.nat(20_000), throttled: fc.boolean(), share: fc.double({ min: 0, max: 1, noNaN: true }), random: fc.double({ min: 0, max: 0.999, noNaN: true }) }), { maxLength: 60 }),
				(steps) => {
					let next = 0.5;
					const rate = new AdaptiveRate(options(() => next));
					let now = 0;
					for (const s of steps) {
						now += s.gap;
						next = s.random;
						const before = rate.stride(now) ?? 0;
						if (s.throttled) {
							rate.throttled(now, s.share);
							expect(rate.stride(now)!).toBeLessThanOrEqual(ADAPTIVE_RATE.maxStride);
							expect(rate.stride(now)!).toBeGreaterThanOrEqual(before);
						} else {
							expect(rate.stride(now) ?? 1).toBeGreaterThanOrEqual(1);
						}
					}
				},
			),
		);
	});

	it('property: two processes whose phases differ never share a slot, whatever their strides', () => {
		fc.assert(
			fc.property(fc.integer({ min: 1, max: 7 }), fc.integer({ min: 1, max: 7 }), fc.double({ min: 0, max: 0.999, noNaN: true }), fc.double({ min: 0, max: 0.999, noNaN: true }), (a, b, pa, pb) => {
				// Strides 2^a and 2^b, reached by 429s at 0.
				const slots = (stride: number, phase: number) => {
					const r = new AdaptiveRate({ ...options(() => phase), quietMs: 1e9 });
					// The first 429 with half the window's requests (stride 2), then 429s at once: each doubles it.
					for (let s = 1; s < stride; s *= 2) r.throttled(0, 0.5);
					expect(r.stride(0)).toBe(stride);
					const own = new Set<number>();
					// Two periods of the longest stride: every slot of either process shows.
					for (let at = r.next(0); at < 2 * 2 ** 7 * ADAPTIVE_RATE.slotMs; at = r.next(at)) {
						own.add(Math.round(at / ADAPTIVE_RATE.slotMs));
						at += 1;
					}
					return { own, first: Math.floor(phase * stride) };
				};
				const x = slots(2 ** a, pa);
				const y = slots(2 ** b, pb);
				const shorter = Math.min(2 ** a, 2 ** b);
				const meet = [...x.own].some((s) => y.own.has(s));
				// Nested strides meet exactly when their phases agree on the shorter stride.
				expect(meet).toBe(x.first % shorter === y.first % shorter);
			}),
		);
	});

	it('the first stride follows the share; a refused phase moves, the stride doubles when refused again at once; a try of half the stride is kept or given back', () => {
		const { quietMs, tryMs, slotMs, forgetMs } = ADAPTIVE_RATE;
		const rate = new AdaptiveRate(options());
		expect(rate.stride(0)).toBeUndefined();
		expect(rate.next(123)).toBe(123);
		rate.throttled(1000, 1 / 5); // a fifth of the window's requests: about four others
		expect(rate.stride(1000)).toBe(4);
		expect(Math.round(rate.next(1000) / slotMs) % 4).toBe(2);
		rate.throttled(6000, 1); // phase 2 refused: another phase, same stride
		expect(rate.stride(6000)).toBe(4);
		expect(Math.round(rate.next(6000) / slotMs) % 4).toBe(1);
		rate.throttled(7000, 1); // refused again at once: the grid is full at stride 4
		expect(rate.stride(7000)).toBe(8);
		expect(rate.stride(7000 + quietMs - 1)).toBe(8);
		const tried = 7000 + quietMs;
		expect(rate.stride(tried)).toBe(4); // a try of half the stride
		expect(rate.stride(tried + tryMs)).toBe(2); // kept, and the next halving at once
		rate.throttled(tried + tryMs + 1000, 1); // refused during the try: back, twice the wait
		expect(rate.stride(tried + tryMs + 1000)).toBe(4);
		expect(rate.stride(tried + tryMs + 1000 + 2 * quietMs - 1)).toBe(4);
		expect(rate.stride(tried + tryMs + 1000 + 2 * quietMs)).toBe(2);
		expect(rate.stride(tried + tryMs + 1000 + forgetMs)).toBeUndefined();
	});

	it('a try sends its sibling slots later in the slot than the owner of those slots sends them', () => {
		const owner = new AdaptiveRate(options(() => 0.75)); // stride 4, phase 3
		const trier = new AdaptiveRate(options(() => 0.25)); // stride 4, phase 1, trying stride 2 (phases 1 and 3)
		owner.throttled(0, 1 / 5);
		trier.throttled(0, 1 / 5);
		const at = ADAPTIVE_RATE.quietMs;
		expect(trier.stride(at)).toBe(2);
		const own = owner.next(at);
		const theirs = [trier.next(at), trier.next(trier.next(at) + 1)].find((t) => Math.round(t / ADAPTIVE_RATE.slotMs) === Math.round(own / ADAPTIVE_RATE.slotMs))!;
		expect(theirs - own).toBe(ADAPTIVE_RATE.tryOffsetMs);
	});
});

describe('Pacer with the adaptive rate', () => {
	it('property: alone, any mix of callers and 429s never puts more than 5 starts in one second', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.array(fc.record({ delay: fc.nat(3000), calls: fc.integer({ min: 1, max: 8 }) }), { minLength: 1, maxLength: 10 }),
				fc.array(fc.nat(40), { maxLength: 4 }),
				async (callers, refused) => {
					const clock = newClock();
					const r = router(clock, (_req, i) => (refused.includes(i) ? text(429, '', { 'retry-after': '1' }) : json(200, {})));
					const client = new ServiceClient({ baseUrl: BASE, request: r.request, clock, pacer: new Pacer(clock) });
					await clock.run(
						Promise.all(
							callers.map(async ({ delay, calls }) => {
								await clock.sleep(delay);
								for (let k = 0; k < calls; k++) await client.call('device.list');
							}),
						),
					);
					expect(busiestWindow(r.calls.map((c) => c.at))).toBeLessThanOrEqual(5);
				},
			),
			{ numRuns: 40 },
		);
	});

	const sixty = async (refused: number[]) => {
		const clock = newClock();
		const pacer = new Pacer(clock, undefined, { random: () => 0.5 });
		const r = router(clock, (_req, i) => (refused.includes(i) ? text(429, '', { 'retry-after': '1' }) : json(200, {})));
		const client = new ServiceClient({ baseUrl: BASE, request: r.request, clock, pacer });
		await clock.run(
			(async () => {
				for (let k = 0; k < 60; k++) await client.call('device.list');
			})(),
		);
		const times = r.calls.map((c) => c.at);
		return { times, rate: (from: number, to: number) => (to - from) / ((times[to] - times[from]) / 1000) };
	};

	it('after a second 429 within 10 s the token starts on its own grid slots, slower than before, and full speed returns when it is quiet', async () => {
		const { times, rate } = await sixty([10, 13]);
		expect(rate(0, 10)).toBeGreaterThan(4);
		expect(rate(15, 21)).toBeLessThan(rate(0, 10) / 2);
		// On the grid: every start at the same point of its slot.
		expect(new Set(times.slice(14, 19).map((t) => t % ADAPTIVE_RATE.slotMs)).size).toBe(1);
		const last = times.length - 1;
		expect(rate(last - 5, last)).toBeGreaterThan(2);
	});

	it('a lone 429 (a request of a loaded process that left after its slot) is waited out but does not slow the token', async () => {
		const { times, rate } = await sixty([10]);
		expect(rate(0, 10)).toBeGreaterThan(4);
		expect(rate(12, 22)).toBeGreaterThan(4);
		expect(new Set(times.slice(12, 22).map((t) => t % ADAPTIVE_RATE.slotMs)).size).toBeGreaterThan(1);
	});

	it('a Retry-After beyond the budget does not slow the token: the next caller starts at the end of the short pause', async () => {
		const clock = newClock();
		const pacer = new Pacer(clock);
		const r = router(clock, (_req, i) => (i === 0 ? text(429, '', { 'retry-after': '86400' }) : json(200, {})));
		const client = new ServiceClient({ baseUrl: BASE, request: r.request, clock, pacer, retry: { maxTotalWaitMs: 2000 } });
		await clock.run(client.call('device.list').catch(() => undefined));
		const t = clock.now();
		await clock.run(Promise.all([client.call('device.list'), client.call('device.list'), client.call('device.list')]));
		expect(pacer.adaptive.stride(clock.now())).toBeUndefined();
		expect(Math.max(...r.calls.slice(1).map((c) => c.at)) - t).toBeLessThanOrEqual(1000);
	});

	it('four processes on one token settle each on its own slots: over six runs, the median wall time and spread stay near the ideal', async () => {
		const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
		const walls: number[] = [];
		const spreads: number[] = [];
		for (let seed = 1; seed <= 6; seed++) {
			const run = await simulateSharedToken({ processes: 4, requests: 33, seed });
			expect(run.failed).toBe(0);
			expect(run.rateLimited / (run.rateLimited + run.accepted)).toBeLessThan(0.15);
			walls.push(run.wallMs / 1000 / (run.accepted / 5));
			spreads.push(Math.max(...run.durations) / Math.min(...run.durations));
		}
		// Drawing a new phase at every 429 (the first version) gave medians of 1.7 and 1.8 here.
		expect(median(walls)).toBeLessThan(1.4);
		expect(median(spreads)).toBeLessThan(1.3);
	});

	it('several processes on one token (virtual time, the sandbox limiter): no operation fails, every request is answered, the 429s stay a minority', async () => {
		for (const processes of [4, 8]) {
			const run = await simulateSharedToken({ processes, requests: 20, seed: processes });
			expect(run.failed).toBe(0);
			expect(run.accepted).toBe(processes * 20);
			expect(run.rateLimited / (run.rateLimited + run.accepted)).toBeLessThan(0.3);
			expect(busiestWindow(run.acceptedAt)).toBeLessThanOrEqual(5);
		}
	});
});
