/**
 * The share pacer (client/sharePacing.ts) on a virtual clock: over a long run its grants stay at or
 * under its share of the service's 5 requests a second, whatever the share in (0, 1] and however
 * long each request takes, including shares under a fifth (less than one request per window).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SERVICE_RATE, SharePacer } from '../../client';

/** A virtual clock: sleeps move it on at once. */
function virtualClock() {
	let t = 1_000_000;
	return { now: () => t, sleep: async (ms: number) => void (t += Math.max(0, ms)), advance: (ms: number) => void (t += ms) };
}

/** Runs `count` requests one after another through a share's pacer; each takes `durations[i % n]` ms. */
async function grantsOf(share: number, count: number, durations: number[]): Promise<{ pacer: SharePacer; grants: number[] }> {
	const clock = virtualClock();
	const grants: number[] = [];
	const pacer = SharePacer.forShare(clock, share, SERVICE_RATE, (at) => grants.push(at));
	for (let i = 0; i < count; i++) await pacer.run(async () => clock.advance(durations[i % durations.length]));
	return { pacer, grants };
}

/**
 * The share kept: after the first window's burst (perWindow grants at once), the grants per
 * millisecond of the run are at most share × 5 ÷ 1,000 (the service's budget).
 */
function expectWithinShare(share: number, pacer: SharePacer, grants: number[]): void {
	const span = grants[grants.length - 1] - grants[0];
	const beyondBurst = grants.length - pacer.perWindow;
	const budget = (share * SERVICE_RATE.maxRequests * span) / SERVICE_RATE.windowMs;
	expect(beyondBurst, `share ${share}: ${grants.length} grants in ${span} ms`).toBeLessThanOrEqual(budget);
}

describe('SharePacer.forShare', () => {
	for (const share of [0.05, 0.1, 0.15, 0.3, 0.5, 1]) {
		it(`share ${share}: 400 requests (instant) stay at or under ${share * 100} % of 5 a second`, async () => {
			const { pacer, grants } = await grantsOf(share, 400, [0]);
			expectWithinShare(share, pacer, grants);
		});
	}

	it('a share under a fifth stretches the window: 0.1 is one request per 2,050 ms, 0.05 one per 4,100 ms; a fifth and more keep 1,025 ms and round down', () => {
		const clock = virtualClock();
		expect([0.1, 0.05, 0.2, 0.3, 0.5, 1].map((s) => [SharePacer.forShare(clock, s).perWindow, SharePacer.forShare(clock, s).windowMs])).toEqual([
			[1, 2050],
			[1, 4100],
			[1, 1025],
			[1, 1025],
			[2, 1025],
			[5, 1025],
		]);
	});

	it('property: for any share a deployment takes (0.05 to 1), nextWaitMs() is the wait run() then sleeps, never more than 4,100 ms (so a caller short of time can stop before it), and waitForMs(n) bounds the waits of the next n requests', async () => {
		await fc.assert(
			fc.asyncProperty(fc.double({ min: 0.05, max: 1, noNaN: true }), fc.array(fc.integer({ min: 0, max: 3000 }), { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 12 }), async (share, durations, n) => {
				let t = 1_000_000;
				const slept: number[] = [];
				const pacer = SharePacer.forShare({ now: () => t, sleep: async (ms: number) => void (slept.push(ms), (t += ms)) }, share);
				for (let i = 0; i < 40; i++) {
					const told = pacer.nextWaitMs();
					const before = slept.length;
					await pacer.run(async () => void (t += durations[i % durations.length]));
					expect(slept.slice(before)).toEqual(told > 0 ? [told] : []);
					expect(told).toBeLessThanOrEqual(4100);
				}
				const bound = pacer.waitForMs(n);
				const before = slept.length;
				for (let i = 0; i < n; i++) await pacer.run(async () => undefined);
				expect(slept.slice(before).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(bound);
			}),
			{ numRuns: 200 },
		);
	});

	it('property: any share in (0, 1] and any request durations, grants stay at or under the share', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.double({ min: 0.001, max: 1, noNaN: true }),
				fc.array(fc.integer({ min: 0, max: 3000 }), { minLength: 1, maxLength: 8 }),
				fc.integer({ min: 20, max: 200 }),
				async (share, durations, count) => {
					const { pacer, grants } = await grantsOf(share, count, durations);
					expectWithinShare(share, pacer, grants);
				},
			),
			{ numRuns: 200 },
		);
	});
});
