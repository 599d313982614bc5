import { AdaptiveRate, type AdaptiveRateOptions } from '../client';
import { simulateSharedToken } from '../test/support/sharedToken';
import { median, type BenchRow, type Scale } from './lib';
import { WALL_GOAL } from './sharedToken';

/**
 * What processes sharing a token could reach if they knew more than a 429 tells them: the
 * shared-token rows' wall-time goal (≤ 1.1 × the ideal) set against the same processes in virtual
 * time (test/support/sharedToken.ts: the sandbox's limiter, each process its own client and pacer),
 * first with this client's pacer, then with grids that are told what no process can know.
 */

/** The phase each simulated process holds: what the 'phases' grid is told, and no real process knows. */
export type Board = Map<number, number>;

const KNOWLEDGE = {
	stride: 'told the stride that fits (one slot in as many as there are processes), phases learnt from its own 429s',
	phases: 'told the stride, and at each 429 after its first a phase no other process holds',
	own: 'given a phase of its own at its first 429',
} as const;
export type Knowledge = keyof typeof KNOWLEDGE;

/** How long a refused phase is avoided by a grid that learns from its own 429s. */
const REFUSED_MS = 30_000;
/** The sandbox's Retry-After (whole seconds, rounded up): a refused process waits at least this. */
const RETRY_AFTER_MS = 1000;

/**
 * A grid of `slots` slots that never widens, tries or forgets. At its first 429 the process takes
 * a phase of its own ('own') or draws one. At a later 429 it moves to the phase whose slot comes
 * first after the Retry-After, among those it has not been refused on lately ('stride') or those
 * no other process holds ('phases').
 */
export class ToldRate extends AdaptiveRate {
	private phase: number | undefined;
	private readonly refusedAt = new Map<number, number>();

	constructor(
		options: AdaptiveRateOptions,
		private readonly knowledge: Knowledge,
		private readonly id: number,
		private readonly slots: number,
		private readonly board: Board,
	) {
		super(options);
	}

	override stride(): number | undefined {
		return this.phase === undefined ? undefined : this.slots;
	}

	override throttled(now: number): void {
		if (this.phase === undefined) {
			this.phase = this.knowledge === 'own' ? this.id % this.slots : Math.floor(this.options.random() * this.slots);
		} else {
			this.refusedAt.set(this.phase, now);
			const held = new Set([...this.board].filter(([id]) => id !== this.id).map(([, phase]) => phase));
			const avoid = (phase: number) => (this.knowledge === 'phases' ? held.has(phase) : now - (this.refusedAt.get(phase) ?? -Infinity) < REFUSED_MS);
			let best: { phase: number; at: number } | undefined;
			for (let phase = 0; phase < this.slots; phase++) {
				const at = this.slotAt(phase, now + RETRY_AFTER_MS);
				if (!avoid(phase) && (best === undefined || at < best.at)) best = { phase, at };
			}
			if (best !== undefined) this.phase = best.phase;
		}
		this.board.set(this.id, this.phase);
	}

	override next(at: number): number {
		return this.phase === undefined ? at : this.slotAt(this.phase, at);
	}

	private slotAt(phase: number, at: number): number {
		const slot = Math.ceil(at / this.options.slotMs);
		return (slot + ((((phase - slot) % this.slots) + this.slots) % this.slots)) * this.options.slotMs;
	}
}

export async function benchSharedTokenBound(scale: Scale): Promise<BenchRow[]> {
	const { processes: counts, seeds, requests } = scale.sharedTokenBound;
	const rows: BenchRow[] = [];
	for (const processes of counts) {
		for (const knowledge of [undefined, 'stride', 'phases', 'own'] as const) {
			const walls: number[] = [];
			const spreads: number[] = [];
			const shares: number[] = [];
			for (let seed = 1; seed <= seeds; seed++) {
				const board: Board = new Map();
				const run = await simulateSharedToken({
					processes,
					requests,
					seed,
					rate: knowledge === undefined ? undefined : (p, options) => new ToldRate(options, knowledge, p, processes, board),
				});
				walls.push(run.wallMs / 1000 / (run.accepted / 5));
				spreads.push(Math.max(...run.durations) / Math.min(...run.durations));
				shares.push(run.rateLimited / (run.rateLimited + run.accepted));
			}
			rows.push({
				bench: 'shared token, virtual time',
				measure: `${processes} processes, ${requests} requests each (the sandbox's limiter, answers in 20–40 ms; ${seeds} seeds, ratio: their median), ${knowledge === undefined ? "this client's pacer" : `a process ${KNOWLEDGE[knowledge]}`}: wall time ÷ ideal`,
				value: `${Math.min(...walls).toFixed(2)}–${Math.max(...walls).toFixed(2)}; medians: slowest ÷ fastest ${median(spreads).toFixed(2)}, 429 share ${median(shares).toFixed(2)}`,
				ratio: median(walls),
				target: knowledge === undefined ? `≤ ${WALL_GOAL}` : `(a bound for ≤ ${WALL_GOAL})`,
				...(knowledge === undefined ? { goal: WALL_GOAL } : {}),
			});
		}
	}
	return rows;
}
