/** The service's limit, enforced as a sliding log: 5 accepted requests in any 1000 ms, per token. */
export class RateLimiter {
	private readonly log = new Map<string | number, number[]>();

	constructor(
		private readonly max = 5,
		private readonly windowMs = 1000,
		private readonly now: () => number = () => performance.now(),
	) {}

	/** Undefined when accepted; else ms until a slot frees. */
	take(tokenId: string | number): number | undefined {
		const t = this.now();
		const times = this.log.get(tokenId) ?? [];
		while (times.length > 0 && times[0] <= t - this.windowMs) times.shift();
		if (times.length >= this.max) return Math.max(1, times[0] + this.windowMs - t);
		times.push(t);
		this.log.set(tokenId, times);
		return undefined;
	}
}
