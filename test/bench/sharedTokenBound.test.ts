import { describe, expect, it } from 'vitest';
import { ADAPTIVE_RATE } from '../../client';
import { ToldRate, type Board, type Knowledge } from '../../bench/sharedTokenBound';
import { simulateSharedToken } from '../support/sharedToken';

/**
 * The grids the bench tells more than a 429 (bench/sharedTokenBound.ts) must be what they claim,
 * or the bound they give means nothing: told where to go, processes stop meeting 429s once placed.
 */
const run = (knowledge: Knowledge, processes: number, seed: number) => {
	const board: Board = new Map();
	return simulateSharedToken({ processes, requests: 24, seed, rate: (p, options) => new ToldRate(options, knowledge, p, processes, board) });
};

describe('the grids of the shared-token bound', () => {
	it('given a phase of its own at its first 429, no process is refused after the start', async () => {
		for (const processes of [4, 16]) {
			const r = await run('own', processes, processes);
			expect(r.failed).toBe(0);
			expect(r.accepted).toBe(processes * 24);
			// The start: every process's first 429 comes before it has a phase; one window later all are placed.
			expect(r.refusedAt.length).toBeGreaterThan(0);
			expect(r.refusedAt.length).toBeLessThanOrEqual(2 * processes);
			expect(Math.max(...r.refusedAt)).toBeLessThan(3000);
		}
	});

	it('told the free phases, 16 processes hold 16 different ones at the end', async () => {
		const board: Board = new Map();
		const r = await simulateSharedToken({ processes: 16, requests: 24, seed: 5, rate: (p, options) => new ToldRate(options, 'phases', p, 16, board) });
		expect(r.failed).toBe(0);
		expect(r.pacers.every((p) => p.adaptive instanceof ToldRate && p.adaptive.stride() === 16)).toBe(true);
		expect(board.size).toBe(16);
		expect(new Set(board.values()).size).toBe(16);
		for (const phase of board.values()) expect(phase >= 0 && phase < 16).toBe(true);
	});

	it('told the free phases, a refused process moves to the first slot after the Retry-After that no other process holds', () => {
		const board: Board = new Map([
			[1, 2],
			[2, 3],
		]);
		const rate = new ToldRate({ ...ADAPTIVE_RATE, slotMs: 210, random: () => 0 }, 'phases', 0, 4, board);
		const phaseAt = (t: number) => (rate.next(t) / 210) % 4;
		rate.throttled(0); // its first phase is drawn: 0
		expect(phaseAt(0)).toBe(0);
		// Refused at 1 s: slot 10 (phase 2) and 11 (phase 3) are held, slot 12 is phase 0, its own and free.
		rate.throttled(1000);
		expect(phaseAt(1000)).toBe(0);
		board.set(3, 0);
		// Now 0, 2 and 3 are held by others: only 1 is left.
		rate.throttled(2000);
		expect(phaseAt(2000)).toBe(1);
		expect(board.get(0)).toBe(1);
	});

	it('learning from its own 429s, a process moves to the first slot after the Retry-After whose phase it was not refused on lately', () => {
		const rate = new ToldRate({ ...ADAPTIVE_RATE, slotMs: 210, random: () => 0 }, 'stride', 0, 4, new Map());
		const phaseAt = (t: number) => (rate.next(t) / 210) % 4;
		rate.throttled(0);
		expect(phaseAt(0)).toBe(0);
		// Refused on 0 at 1 s: the first slot after 2 s is slot 10, phase 2.
		rate.throttled(1000);
		expect(phaseAt(1000)).toBe(2);
		rate.throttled(2000); // refused on 2: slot 15, phase 3
		expect(phaseAt(2000)).toBe(3);
		rate.throttled(3000); // refused on 3: slot 20 is phase 0, refused lately: slot 21, phase 1
		expect(phaseAt(3000)).toBe(1);
		// 30 s on, the old refusals are forgotten: refused on 1, slot 196 (phase 0) is free again.
		rate.throttled(40_000);
		expect(phaseAt(40_000)).toBe(0);
		expect(rate.stride()).toBe(4);
	});
});
