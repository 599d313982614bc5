import { ADAPTIVE_RATE, AdaptiveRate, type AdaptiveRateOptions } from './adaptiveRate';
import type { BaseUrl } from './baseUrl';
import { ServiceError, describeWait } from './errors';
import type { Clock } from './http';

/**
 * Client-side pacing: at most `maxRequests` request starts in any `windowMs` window, per token,
 * shared by every caller in the process that uses the same token. Slots are reserved
 * synchronously, so concurrent callers can never both take the fifth slot. Other processes on the
 * same token are heard only through 429s: after one, this process starts only on its own slots of
 * a wall-clock grid (`AdaptiveRate`) until the token is quiet again.
 */

export interface PacingOptions {
	maxRequests: number;
	windowMs: number;
	/**
	 * Added to the window so that network jitter (an earlier request arriving late) does not put
	 * six arrivals into one server-side second.
	 */
	marginMs: number;
}

const MARGIN_STEP_MS = 25;
const MAX_LEARNED_MARGIN_MS = 200;
/** Slots remembered beyond the window's `maxRequests` (callers waiting at once). */
const SLOTS_KEPT = 256;

/** The service's published limit: 5 requests per second per access token. */
export const SERVICE_RATE: PacingOptions = { maxRequests: 5, windowMs: 1000, marginMs: 25 };

/**
 * A reserved start: planned until its caller wakes, then when the request was handed to the request
 * function; once answered, how long the answer took and what kind of request it was.
 */
export interface Slot {
	at: number;
	roundTripMs?: number;
	kind?: string;
}

/** Round trips remembered per kind of request (the fastest of them is that kind's usual). */
const ROUND_TRIPS_KEPT = 8;
/** Kinds of request remembered at once (a detail per id is a kind of its own). */
const KINDS_KEPT = 64;
/** The most a slow answer moves its start in the window: as far as 429s may widen the margin. */
const MAX_LATE_MS = 200;

export class Pacer {
	/** The last reserved slots in the order they were reserved: planned starts, then actual ones. */
	private readonly starts: Slot[] = [];
	private pausedUntil = 0;
	/** Grows with each 429 this token meets: requests that leave later than planned need room. */
	private learnedMarginMs = 0;
	private lastCutAt = Number.NEGATIVE_INFINITY;
	private lone429At = Number.NEGATIVE_INFINITY;
	/** The last round trips of each kind of request, newest last. */
	private readonly roundTrips = new Map<string, number[]>();
	readonly adaptive: AdaptiveRate;

	constructor(
		private readonly clock: Clock,
		readonly options: PacingOptions = SERVICE_RATE,
		adaptive: Partial<AdaptiveRateOptions> = {},
	) {
		// A grid slot per fifth of the window plus two margins: no window ever holds six slots.
		const slotMs = Math.ceil((options.windowMs + 2 * options.marginMs) / options.maxRequests);
		this.adaptive = new AdaptiveRate({ ...ADAPTIVE_RATE, slotMs, ...adaptive });
	}

	/** Reserves the next free slot and returns how long to wait for it (ms). */
	reserve(): number {
		return this.reserveSlot().at - this.clock.now();
	}

	private reserveSlot(): Slot {
		const now = this.clock.now();
		const { maxRequests, windowMs } = this.options;
		const marginMs = this.marginMs;
		let at = Math.max(now, this.pausedUntil);
		const last = this.starts[this.starts.length - 1];
		if (last !== undefined) at = Math.max(at, last.at);
		if (this.starts.length >= maxRequests) {
			at = Math.max(at, this.windowEnd(this.starts[this.starts.length - maxRequests], windowMs, marginMs));
		}
		// After a 429: this process's next slot on the shared grid, after the one it last took.
		if (last !== undefined && this.adaptive.stride(now) !== undefined) at = Math.max(at, this.adaptive.next(last.at + 1));
		at = this.adaptive.next(at);
		const slot = { at };
		this.starts.push(slot);
		// Kept beyond the window: a waking caller checks its start against the slot maxRequests before it.
		if (this.starts.length > maxRequests + SLOTS_KEPT) this.starts.shift();
		return slot;
	}

	/**
	 * Waits for a slot. A pause that another caller's 429 put on the token and that lasts longer
	 * than `maxPauseMs` (this caller's own retry budget) fails at once instead of hanging.
	 */
	async acquire(maxPauseMs = Number.POSITIVE_INFINITY): Promise<Slot> {
		const paused = this.pausedUntil - this.clock.now();
		if (paused > maxPauseMs) {
			const advice = `the service asked this access token to wait ${describeWait(paused)} (Retry-After of an earlier request), longer than the retry budget of ${describeWait(maxPauseMs)}; try again later`;
			throw new ServiceError({ kind: 'rateLimit', status: 429, advice, message: `Too many requests: ${advice}` });
		}
		let slot = this.reserveSlot();
		for (;;) {
			const wait = slot.at - this.clock.now();
			if (wait > 0) await this.clock.sleep(wait);
			const now = this.clock.now();
			// A pause that began while this caller slept (a 429 seen by another caller) applies
			// to it too: take a new slot after the pause instead of starting inside it.
			if (now < this.pausedUntil) {
				slot = this.reserveSlot();
				continue;
			}
			// A busy event loop wakes callers late, and a late start is still a start: the slot
			// records when the request really left, and a caller whose window that fills waits on.
			slot.at = Math.max(slot.at, now);
			const room = this.roomAfter(slot);
			if (room <= now) return slot;
			slot.at = room;
		}
	}

	/** The earliest time `slot` may start given the starts reserved before it (as they really left). */
	private roomAfter(slot: Slot): number {
		const index = this.starts.indexOf(slot);
		if (index < 0) return slot.at; // shifted out: SLOTS_KEPT callers reserved after it, so it is long due
		const { maxRequests, windowMs } = this.options;
		const earlier = index - maxRequests;
		return earlier < 0 ? slot.at : Math.max(slot.at, this.windowEnd(this.starts[earlier], windowMs, this.marginMs));
	}

	/**
	 * When a start stops counting in the window of the starts after it. The service counts
	 * arrivals: a request handed over at its slot may leave later (n8n's request helper reads the
	 * credential and evaluates its header before it sends; a garbage collection may fall in
	 * between), and arrive within the window of a start five slots on. Its answer tells: a round
	 * trip longer than the usual one of its kind (the fastest of the last few) by more than the
	 * margin moves the start by that much (at most MAX_LATE_MS). Answers slow alike move nothing.
	 */
	private windowEnd(start: Slot, windowMs: number, marginMs: number): number {
		let late = 0;
		if (start.roundTripMs !== undefined && start.kind !== undefined) {
			const usual = Math.min(...(this.roundTrips.get(start.kind) ?? [start.roundTripMs]));
			late = Math.min(MAX_LATE_MS, start.roundTripMs - usual);
		}
		return start.at + windowMs + Math.max(marginMs, late);
	}

	/** The answer to the request started at `slot` came now; `kind`: what request it was (its method and path, ids left out). */
	answered(slot: Slot, kind: string): void {
		const roundTripMs = Math.max(0, this.clock.now() - slot.at);
		slot.roundTripMs = roundTripMs;
		slot.kind = kind;
		let kept = this.roundTrips.get(kind);
		if (!kept) {
			if (this.roundTrips.size >= KINDS_KEPT) this.roundTrips.clear();
			this.roundTrips.set(kind, (kept = []));
		}
		kept.push(roundTripMs);
		if (kept.length > ROUND_TRIPS_KEPT) kept.shift();
	}

	/** The safety margin in use: the configured one plus what 429s have taught. */
	get marginMs(): number {
		return this.options.marginMs + this.learnedMarginMs;
	}

	/**
	 * After a 429, no caller starts before `until`, and the margin widens a step: a busy process
	 * (or n8n's own request set-up) can send a request later than its slot, and the service
	 * counts arrivals, not plans. The widening is bounded. A `crowded` 429 (one the caller waits
	 * out) also cuts the adaptive rate: other processes use the token. One whose Retry-After is
	 * beyond the caller's budget does not: it says "not now", not "slower", and the next caller
	 * must not be held up by it.
	 */
	rateLimited(until: number, crowded = true): void {
		// Callers pass a pause already bounded by their retry budget (see ServiceClient).
		this.pausedUntil = Math.max(this.pausedUntil, until);
		this.learnedMarginMs = Math.min(MAX_LEARNED_MARGIN_MS, this.learnedMarginMs + MARGIN_STEP_MS);
		const now = this.clock.now();
		// Concurrent callers refused together tell of one crowding: the rate is cut once for them.
		if (!crowded || now - this.lastCutAt < this.options.windowMs) return;
		// This process's other starts in the window before the 429: all five means the 429 may be its
		// own lateness (a loaded event loop sent a request after its slot), forgiven once per
		// LONE_429_MS while the token is free and no other process has been heard within the adaptive
		// rate's memory. Fewer than five: other processes took the rest, a cut at once.
		const own = this.startsBefore(now) - 1;
		const heardOthers = now - this.lastCutAt < this.adaptive.options.forgetMs;
		if (own >= this.options.maxRequests && !heardOthers && this.adaptive.stride(now) === undefined && now - this.lone429At >= LONE_429_MS) {
			this.lone429At = now;
			return;
		}
		this.lastCutAt = now;
		this.adaptive.throttled(now, Math.max(0, Math.min(own, this.options.maxRequests)) / this.options.maxRequests);
	}

	/** This process's starts in the window before `now`, the refused one included (a quarter window more: the answer may come late). */
	private startsBefore(now: number): number {
		const from = now - 1.25 * this.options.windowMs - this.marginMs;
		return this.starts.filter((s) => s.at > from && s.at <= now).length;
	}
}

/** How long a forgiven lone 429 is remembered (Pacer.rateLimited). */
const LONE_429_MS = 10_000;

/** One pacer per key; keys are hashes, so the map never holds a token in clear. */
export class PacerRegistry {
	private readonly pacers = new Map<string, Pacer>();

	constructor(private readonly options: PacingOptions = SERVICE_RATE) {}

	forKey(key: string, clock: Clock): Pacer {
		let pacer = this.pacers.get(key);
		if (!pacer) {
			pacer = new Pacer(clock, this.options);
			this.pacers.set(key, pacer);
		}
		return pacer;
	}

	get size(): number {
		return this.pacers.size;
	}

	/** Forgets every pacer (a test file sharing a process starts as a process of its own would). */
	clear(): void {
		this.pacers.clear();
	}
}

/** The process-wide registry: every face in one process shares a token's budget through it. */
export const sharedPacers = new PacerRegistry();

/**
 * The token's pacing key for a base URL: the one way every face (node, trigger, Lambdas, runner)
 * keys a token's budget, from the parsed base URL, so "https://x" and "https://x/api/v1/" share
 * one budget of 5 requests per second.
 */
export function tokenPacingKey(token: string, environment: 'sandbox' | 'production', base: BaseUrl): string {
	return pacingKey(token, `${environment} ${base.apiRoot}`);
}

/**
 * A stable, non-reversible key for a token (two independent 32-bit FNV-1a passes). It only
 * groups callers by token; a collision would merely make two tokens share one budget.
 */
export function pacingKey(token: string, scope = ''): string {
	const text = `${scope}\u0000${token}`;
	let a = 0x811c9dc5;
	let b = 0x01000193 ^ 0x5bd1e995;
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		a = Math.imul(a ^ c, 0x01000193) >>> 0;
		b = Math.imul(b ^ c ^ (i & 0xff), 0x01000193) >>> 0;
	}
	return `tec:${a.toString(16).padStart(8, '0')}${b.toString(16).padStart(8, '0')}`;
}
