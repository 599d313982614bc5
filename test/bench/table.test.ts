import { describe, expect, it } from 'vitest';
import { misses, table, type BenchRow } from '../../bench/lib';

/** A row past its goal says so in the table the README shows; a target never moves to fit. */
const row = (ratio: number | undefined, goal: number | undefined): BenchRow => ({ bench: 'b', measure: 'm', value: 'v', ratio, target: '≤ 2', goal });

describe('the bench table', () => {
	it('writes "misses" beside the target of a row whose ratio is past its goal, or not measured', () => {
		expect(table([row(2.5, 2)])).toContain('| ≤ 2: **misses** |');
		expect(table([row(Number.NaN, 2)])).toContain('misses');
		expect(misses(row(undefined, 2))).toBe(true);
	});

	it('writes the target alone for a row that meets its goal, or has none', () => {
		expect(table([row(2, 2)])).not.toContain('misses');
		expect(table([row(1.2, 2)])).toContain('| 1.20 | ≤ 2 |');
		expect(table([row(9, undefined)])).not.toContain('misses');
	});
});
