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
 * (the share of 5 rounded down; the window with the pacer's margin). The rounding keeps under the
 * share, never over it (0.3 gives 1 per 1,025 ms, about 19.5 %). A share under a fifth (less
 * than one request per window) gets 1 request per window stretched by 1 ÷ (share × 5), rounded up
 * to the millisecond: 0.1 gives 1 per 2,050 ms.
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
		const window = rate.windowMs + rate.marginMs;
		const perWindow = share * rate.maxRequests;
		if (perWindow >= 1) return new SharePacer(clock, Math.floor(perWindow), window, onGrant);
		return new SharePacer(clock, 1, Math.ceil(window / perWindow), onGrant);
	}

	/** How long `run` would wait now before its request (0: at once); a caller short of time asks first. */
	nextWaitMs(): number {
		if (this.ends.length < this.perWindow) return 0;
		return Math.max(0, this.ends[this.ends.length - this.perWindow] + this.windowMs - this.clock.now());
	}

	/**
	 * At most how long `run` waits in all for `n` more requests, each ending as it is granted: the
	 * first perWindow within a window from now, each next perWindow within a window of those.
	 */
	waitForMs(n: number): number {
		return Math.ceil(n / this.perWindow) * this.windowMs;
	}

	/** Runs one request in the share: waits until the request `perWindow` before it ended a window ago. */
	async run<T>(request: () => Promise<T>): Promise<T> {
		const wait = this.nextWaitMs();
		if (wait > 0) await this.clock.sleep(wait);
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
