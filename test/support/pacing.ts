import type { Pacer } from '../../client';

/**
 * Paces `pacer` at `ratePerSecond` (its window's count raised), for a sandbox started with that
 * rate: for tests of what is read, not of pacing. Make the token's pacer with the clock its
 * callers use before their first request.
 */
export function paceFaster(pacer: Pacer, ratePerSecond: number): void {
	Object.assign(pacer, { options: { ...pacer.options, maxRequests: (ratePerSecond * pacer.options.windowMs) / 1000 } });
}
