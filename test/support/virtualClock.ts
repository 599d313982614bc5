import type { Clock } from '../../client';

/**
 * Virtual time for pacing and retry tests: `sleep` parks the caller until `run` advances the
 * clock to its wake time, so concurrent callers interleave as they would in real time.
 */
export class VirtualClock implements Clock {
	private t: number;
	private timers: Array<{ at: number; seq: number; resolve: () => void }> = [];
	private seq = 0;
	readonly sleeps: number[] = [];

	constructor(start = 1_700_000_000_000) {
		this.t = start;
	}

	now(): number {
		return this.t;
	}

	sleep(ms: number): Promise<void> {
		this.sleeps.push(ms);
		return new Promise((resolve) => this.timers.push({ at: this.t + Math.max(0, ms), seq: this.seq++, resolve }));
	}

	/** Drives timers until `work` settles; returns its result (or throws its error). */
	async run<T>(work: Promise<T>): Promise<T> {
		let settled = false;
		const tracked = work.finally(() => {
			settled = true;
		});
		tracked.catch(() => undefined);
		while (!settled) {
			await new Promise((r) => setImmediate(r));
			if (settled) break;
			if (this.timers.length === 0) {
				await new Promise((r) => setImmediate(r));
				if (!settled && this.timers.length === 0) throw new Error('VirtualClock: work is stuck (no timers pending)');
				continue;
			}
			this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
			const next = this.timers.shift()!;
			this.t = Math.max(this.t, next.at);
			next.resolve();
		}
		return tracked;
	}
}

/**
 * Simulated time for one actor at a time (a month of operation): waits pass at once, moving the
 * clock on by what they asked; the scenario moves it to each next appointment.
 */
export class SteppingClock implements Clock {
	constructor(private t: number) {}

	readonly now = (): number => this.t;

	async sleep(ms: number): Promise<void> {
		this.t += Math.max(0, ms);
	}

	/** On to `at` (never back). */
	advanceTo(at: number): void {
		this.t = Math.max(this.t, at);
	}
}

/** `clock` with each wait asked of it recorded (and waited as `clock` waits): what the code asked, not how long it took. */
export function recordingWaits(clock: Clock): Clock & { waits: number[] } {
	const waits: number[] = [];
	return {
		waits,
		now: () => clock.now(),
		sleep: async (ms: number) => {
			waits.push(ms);
			await clock.sleep(ms);
		},
	};
}
