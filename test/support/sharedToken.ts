import { Pacer, ServiceClient, ServiceError, type AdaptiveRate, type AdaptiveRateOptions } from '../../client';
import { RateLimiter } from '../../sandbox/rateLimit';
import { Random } from '../../sandbox/random';
import { VirtualClock } from './virtualClock';

/**
 * Several processes on one token, in virtual time: each has its own client and pacer (no shared
 * memory, its own random numbers), all meet the sandbox's own limiter (a sliding log, 5 in any
 * second). Each reads `requests` answers one after the other, as a scan reads its pages.
 */
export interface SharedTokenRun {
	/** Per process: virtual ms from the start to its last answer. */
	durations: number[];
	/** Answers accepted by the limiter, and refused with 429. */
	accepted: number;
	rateLimited: number;
	/** Operations that failed (retries exhausted). */
	failed: number;
	/** Virtual ms from the start to the last answer of all. */
	wallMs: number;
	/** Start times of the accepted requests, and of the refused ones. */
	acceptedAt: number[];
	refusedAt: number[];
	/** Each process's pacer, as it ended. */
	pacers: Pacer[];
}

export async function simulateSharedToken(a: {
	processes: number;
	requests: number;
	seed: number;
	latencyMs?: number;
	adaptive?: Partial<AdaptiveRateOptions>;
	/** Another grid for process `p` in place of the pacer's own (bench/sharedTokenBound.ts: what knowledge would reach). */
	rate?: (p: number, options: AdaptiveRateOptions) => AdaptiveRate;
}): Promise<SharedTokenRun> {
	const clock = new VirtualClock(0);
	const limiter = new RateLimiter(5, 1000, () => clock.now());
	const latency = a.latencyMs ?? 20;
	const acceptedAt: number[] = [];
	const refusedAt: number[] = [];
	const pacers: Pacer[] = [];
	let rateLimited = 0;
	let failed = 0;
	const durations: number[] = [];
	const one = async (p: number) => {
		const random = new Random(a.seed * 1000 + p);
		const pacer = new Pacer(clock, undefined, { ...a.adaptive, random: () => random.next() });
		// The pacer builds its own grid; a replacement takes its place before the first request.
		if (a.rate) Object.assign(pacer, { adaptive: a.rate(p, pacer.adaptive.options) });
		pacers[p] = pacer;
		const client = new ServiceClient({
			baseUrl: 'https://tec.example.com',
			clock,
			pacer,
			retry: { random: () => random.next() },
			request: async () => {
				await clock.sleep(latency / 2 + random.next() * latency);
				const wait = limiter.take('token');
				if (wait !== undefined) {
					rateLimited++;
					refusedAt.push(clock.now());
					return { status: 429, headers: { 'retry-after': String(Math.ceil(wait / 1000)) }, body: '{}' };
				}
				acceptedAt.push(clock.now());
				await clock.sleep(latency / 2);
				return { status: 200, headers: {}, body: '{}' };
			},
		});
		for (let i = 0; i < a.requests; i++) {
			try {
				await client.call('device.list');
			} catch (error) {
				if (!(error instanceof ServiceError)) throw error;
				failed++;
			}
		}
		durations[p] = clock.now();
	};
	await clock.run(Promise.all(Array.from({ length: a.processes }, (_, p) => one(p))));
	return { durations, accepted: acceptedAt.length, rateLimited, failed, wallMs: Math.max(...durations), acceptedAt, refusedAt, pacers };
}
