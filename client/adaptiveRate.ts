/**
 * How one process uses a token that other processes may share (n8n workers in queue mode, the
 * pollers, the node). They share no memory, only the wall clock and the 429s each one meets.
 *
 * The service admits 5 requests in any second. Processes that send at random moments put six
 * into some seconds while others hold four, so even a total rate under the limit meets many 429s.
 * So after a 429, a process starts only on a grid of the wall clock: slots `slotMs` apart (a fifth
 * of the window plus margins, so no second holds six slots), and of those only every `stride`-th,
 * at its own `phase`. Strides are powers of two, so processes whose phases differ never meet,
 * whatever their strides: together they can fill the grid (½ + ¼ + ¼ …).
 * A 429 means the process's slots were taken: it doubles its stride (from the one it actually
 * used, so a process that sent little is not the one that slows most) and draws a new phase.
 * After `quietMs` without a 429 it halves the stride, taking back capacity that processes which
 * ended left free. At stride 1, or `forgetMs` after the last 429, the token is free: only the
 * window of `Pacer` applies, so a process alone keeps its burst and full speed.
 */

export interface AdaptiveRateOptions {
	/** The grid's step on the wall clock (ms): one start per slot is the most the grid allows. */
	slotMs: number;
	/** The longest stride (slots from one start of this process to its next). */
	maxStride: number;
	/** Time without a 429 after which the stride halves. */
	quietMs: number;
	/** A 429 older than this is forgotten: the token is free again. */
	forgetMs: number;
	random: () => number;
}

export const ADAPTIVE_RATE: AdaptiveRateOptions = {
	slotMs: 210,
	maxStride: 256,
	quietMs: 10_000,
	forgetMs: 60_000,
	random: Math.random,
};

export class AdaptiveRate {
	/** Undefined while the token is free. */
	private strideNow: number | undefined;
	/** A share of the stride, so halving or doubling the stride keeps the slots nested. */
	private phase = 0;
	/** Since when the stride has held without a 429. */
	private since = 0;
	private lastThrottledAt = Number.NEGATIVE_INFINITY;

	constructor(readonly options: AdaptiveRateOptions = ADAPTIVE_RATE) {}

	/** The stride in force at `now` (undefined: free, only the window applies). */
	stride(now: number): number | undefined {
		const { quietMs, forgetMs } = this.options;
		if (this.strideNow !== undefined && now - this.lastThrottledAt >= forgetMs) this.strideNow = undefined;
		while (this.strideNow !== undefined && now - this.since >= quietMs) {
			this.since += quietMs;
			this.strideNow /= 2;
			if (this.strideNow < 2) this.strideNow = undefined;
		}
		return this.strideNow;
	}

	/** Requests per second this process allows itself at `now` (undefined: free). */
	rate(now: number): number | undefined {
		const stride = this.stride(now);
		return stride === undefined ? undefined : 1000 / (stride * this.options.slotMs);
	}

	/**
	 * A 429 at `now`; `sentRate` is what this process sent just before (requests per second). The
	 * stride doubles from the longer of the one in force and the one it used, and a new phase is drawn.
	 */
	throttled(now: number, sentRate: number): void {
		const { slotMs, maxStride, random } = this.options;
		// From what it used, but at most a quarter of its rate away from the rate in force: a process
		// that sent little (a node run, a retry after a storm of 429s) was not crowding the token.
		const used = 2 ** Math.max(0, Math.ceil(Math.log2(1000 / slotMs / Math.max(sentRate, 1e-3))));
		const current = this.stride(now) ?? 1;
		this.strideNow = Math.min(maxStride, 2 * Math.min(Math.max(current, used), 4 * current));
		this.phase = random();
		this.since = now;
		this.lastThrottledAt = now;
	}

	/** The first of this process's slots at or after `at` (`at` itself while free). */
	next(at: number): number {
		const stride = this.stride(at);
		if (stride === undefined) return at;
		const { slotMs } = this.options;
		const slot = Math.ceil(at / slotMs);
		const own = Math.floor(this.phase * stride);
		return (slot + ((((own - slot) % stride) + stride) % stride)) * slotMs;
	}
}
