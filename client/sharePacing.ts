import type { Clock } from './http';
import { SERVICE_RATE, type PacingOptions } from './pacing';

/**
 * A share of the token's budget for work that must not crowd out the rest (the first run's
 * backfill of measured values): at most `perWindow` of its own requests in any window of
 * `windowMs`, counted from when each request ended, so that however late the token's pacer lets
 * a granted request leave, no window holds more of them. The token's own pacing (client/pacing.ts)
 * still applies to every request; this only holds the share back further.
 *
 * With the service's 5 requests a second and a share of one half: 2 requests per 1,025 ms
 * (the share of 5 rounded down, never less than 1; the window with the pacer's margin).
 */
export class SharePacer {
	/** When the latest requests ended (at most perWindow kept). */
	private readonly ends: number[] = [];
	/** Requests granted so far. */
	granted = 0;

	constructor(
		private readonly clock: Clock,
		readonly perWindow: number,
		readonly windowMs: number,
		/** Told of each grant (tests count them per window). */
		private readonly onGrant?: (at: number) => void,
	) {}

	static forShare(clock: Clock, share: number, rate: PacingOptions = SERVICE_RATE, onGrant?: (at: number) => void): SharePacer {
		return new SharePacer(clock, Math.max(1, Math.floor(share * rate.maxRequests)), rate.windowMs + rate.marginMs, onGrant);
	}

	/** Runs one request in the share: waits until the request `perWindow` before it ended a window ago. */
	async run<T>(request: () => Promise<T>): Promise<T> {
		if (this.ends.length >= this.perWindow) {
			const wait = this.ends[this.ends.length - this.perWindow] + this.windowMs - this.clock.now();
			if (wait > 0) await this.clock.sleep(wait);
		}
		this.granted++;
		this.onGrant?.(this.clock.now());
		try {
			return await request();
		} finally {
			this.ends.push(this.clock.now());
			if (this.ends.length > this.perWindow) this.ends.shift();
		}
	}
}
