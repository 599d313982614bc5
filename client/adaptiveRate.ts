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
 *
 * - The first stride follows the share of the token the process had when it met its first 429:
 *   a fifth of the window's requests tells of about four others (stride 4), none of many (16).
 * - A refused phase is taken by another process: the process moves to a phase not refused in the
 *   last moments and keeps one that works, so the processes settle, each on its own slots. Only
 *   when `widenAfter` phases were refused, or the request is refused again at once, is the grid
 *   full at this stride: the stride doubles.
 * - After a quiet time (drawn per process, so they do not try together) the process tries half
 *   its stride: its sibling slots too, a little after their start, so that where they are taken it
 *   is the one refused. Refused, it goes back to the slots it had and waits twice as long; free for
 *   `tryMs`, it keeps them and tries the next halving at once (others have left).
 * - Requests leave the later in their slot the larger the process's share: where two meet, the one
 *   with more is refused and moves, so the shares even out.
 * - `forgetMs` after the last 429 the token is free: only the window of `Pacer` applies.
 */

export interface AdaptiveRateOptions {
	/** The grid's step on the wall clock (ms): one start per slot is the most the grid allows. */
	slotMs: number;
	/** The stride taken at the first 429 of a free token by a process that had none of its window. */
	firstStride: number;
	/** The longest stride (slots from one start of this process to its next). */
	maxStride: number;
	/** Phases refused (each within `refusedMs` of the one before) before the stride doubles. */
	widenAfter: number;
	/** How long a refused phase is avoided. */
	refusedMs: number;
	/** Time without a 429 after which the process tries half its stride (drawn ±25 % per try). */
	quietMs: number;
	/** A try of half the stride that met no 429 for this long keeps the slots. */
	tryMs: number;
	/** How much later in its slot a try's sibling request leaves (ms, within the grid's margins). */
	tryOffsetMs: number;
	/** Per halving of the stride below 16, how much later in its slot a request leaves (ms). */
	offsetStepMs: number;
	/** A 429 older than this is forgotten: the token is free again. */
	forgetMs: number;
	random: () => number;
}

export const ADAPTIVE_RATE: AdaptiveRateOptions = {
	slotMs: 210,
	firstStride: 16,
	maxStride: 256,
	widenAfter: 4,
	refusedMs: 2_000,
	quietMs: 20_000,
	tryMs: 6_000,
	tryOffsetMs: 15,
	offsetStepMs: 5,
	forgetMs: 60_000,
	random: Math.random,
};

/** Which slots a process starts on: every `stride`-th, from `phase`. */
interface Place {
	stride: number;
	phase: number;
}

/** The latest a request leaves in its slot: a try's sibling at the largest share. */
const latest = (o: AdaptiveRateOptions) => o.tryOffsetMs + 4 * o.offsetStepMs;

export class AdaptiveRate {
	/** Undefined while the token is free. */
	private place: Place | undefined;
	/** While trying half the stride: the place that worked before, and when the try began. */
	private trying: { before: Place; at: number } | undefined;
	/** When the next try begins. */
	private tryAt = 0;
	/** How many quiet times the next try waits (doubles after a try that failed). */
	private patience = 1;
	/** Phases refused lately at this stride. */
	private readonly refused = new Set<number>();
	private lastThrottledAt = Number.NEGATIVE_INFINITY;

	constructor(readonly options: AdaptiveRateOptions = ADAPTIVE_RATE) {}

	/** The stride in force at `now` (undefined: free, only the window applies). */
	stride(now: number): number | undefined {
		return this.placeAt(now)?.stride;
	}

	private placeAt(now: number): Place | undefined {
		if (this.place === undefined) return undefined;
		const { forgetMs, tryMs } = this.options;
		if (now - this.lastThrottledAt >= forgetMs) {
			this.place = undefined;
			this.trying = undefined;
			this.patience = 1;
			return undefined;
		}
		if (this.trying !== undefined && now - this.trying.at >= tryMs) {
			// The sibling slots were free: others have left, so the next halving is tried at once.
			this.tryAt = this.trying.at + tryMs;
			this.trying = undefined;
			this.patience = 1;
		}
		if (this.trying === undefined && this.place.stride > 1 && now >= this.tryAt) {
			const before = this.place;
			this.trying = { before, at: this.tryAt };
			this.place = { stride: before.stride / 2, phase: before.phase % (before.stride / 2) };
			this.refused.clear();
		}
		return this.place;
	}

	/**
	 * A 429 at `now`: this process's phase was taken. `share`: the part of the window's requests
	 * this process had sent before it (what its first stride follows on a free token).
	 */
	throttled(now: number, share: number): void {
		const { firstStride, maxStride, widenAfter, refusedMs, slotMs, random } = this.options;
		const place = this.placeAt(now);
		const sinceLast = now - this.lastThrottledAt;
		this.lastThrottledAt = now;
		if (place === undefined) {
			this.refused.clear();
			const stride = share <= 0 ? firstStride : Math.min(firstStride, Math.max(2, 2 ** Math.round(Math.log2(1 / share))));
			this.settle(now, { stride, phase: Math.floor(random() * stride) });
			return;
		}
		if (this.trying !== undefined) {
			// The sibling slots are taken: back to the slots that worked, and try again later.
			const { before } = this.trying;
			this.trying = undefined;
			this.patience = Math.min(this.patience * 2, 64);
			this.settle(now, before);
			return;
		}
		if (sinceLast > refusedMs) this.refused.clear();
		this.refused.add(place.phase);
		let { stride } = place;
		// Refused again within two of its periods: its requests keep meeting others.
		const again = sinceLast < 2 * stride * slotMs;
		if ((again || this.refused.size >= Math.min(widenAfter, stride)) && stride < maxStride) {
			stride *= 2;
			this.refused.clear();
		}
		this.settle(now, { stride, phase: this.freePhase(stride) });
	}

	/** Takes `place` from `now`; the next try waits this process's quiet time. */
	private settle(now: number, place: Place): void {
		this.place = place;
		this.tryAt = now + this.options.quietMs * this.patience * (0.75 + this.options.random() / 2);
	}

	/** A phase of `stride` not refused lately, drawn at random. */
	private freePhase(stride: number): number {
		const free: number[] = [];
		for (let p = 0; p < stride; p++) if (!this.refused.has(p)) free.push(p);
		const pick = Math.floor(this.options.random() * (free.length || stride));
		return free.length === 0 ? pick : free[pick];
	}

	/** The first of this process's starts at or after `at` (`at` itself while free). */
	next(at: number): number {
		const place = this.placeAt(at);
		if (place === undefined) return at;
		const { slotMs } = this.options;
		const { stride, phase } = place;
		let slot = Math.ceil(Math.max(0, at - latest(this.options)) / slotMs);
		for (;;) {
			slot += (((phase - slot) % stride) + stride) % stride;
			const start = slot * slotMs + this.offset(slot);
			if (start >= at) return start;
			slot += 1;
		}
	}

	/**
	 * How late in its slot a request leaves: the larger the process's share, the later, so where
	 * two meet, the one with more is refused; a try's sibling slots later still, so a try does not
	 * displace the slots' owner.
	 */
	private offset(slot: number): number {
		const { tryOffsetMs, offsetStepMs } = this.options;
		const before = this.trying?.before;
		const stride = before?.stride ?? this.place?.stride ?? 16;
		const byShare = offsetStepMs * Math.max(0, 4 - Math.log2(stride));
		return before !== undefined && slot % before.stride !== before.phase ? byShare + tryOffsetMs : byShare;
	}
}
