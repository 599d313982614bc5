/** A small seeded generator (xorshift32 over a splitmix-style seed) so demo data is reproducible. */
export class Random {
	private state: number;

	constructor(seed: number) {
		let s = (seed ^ 0x9e3779b9) >>> 0;
		s = Math.imul(s ^ (s >>> 16), 0x85ebca6b) >>> 0;
		s = Math.imul(s ^ (s >>> 13), 0xc2b2ae35) >>> 0;
		this.state = (s ^ (s >>> 16)) >>> 0 || 0x1234567;
	}

	/** Uniform in [0, 1). */
	next(): number {
		let x = this.state;
		x ^= x << 13;
		x >>>= 0;
		x ^= x >>> 17;
		x ^= x << 5;
		x >>>= 0;
		this.state = x;
		return x / 0x100000000;
	}

	int(min: number, max: number): number {
		return min + Math.floor(this.next() * (max - min + 1));
	}

	pick<T>(items: readonly T[]): T {
		return items[Math.floor(this.next() * items.length)];
	}

	chance(p: number): boolean {
		return this.next() < p;
	}
}
