import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { README, RESULTS_MD, readResults, readmeBlock, readmeBlockOf, resultsMarkdown } from '../../bench/docs';
import { table } from '../../bench/lib';

/**
 * The bench figures in the docs come from one place, bench/results.json (the last full
 * `npm run bench`): bench/results.md and the README's table are what bench/docs.ts writes from it,
 * and no bench row stands anywhere else in the README (a hand-copied row is how the cost table
 * once lost its Lambda line). Fix a failure with `npm run bench:docs`.
 */
const results = readResults();
const readme = readFileSync(README, 'utf8');

describe('the bench figures in the docs', () => {
	it('bench/results.md is what bench/results.json gives', () => {
		expect(readFileSync(RESULTS_MD, 'utf8')).toBe(resultsMarkdown(results));
	});

	it("the README's table is what bench/results.json gives", () => {
		expect(readmeBlockOf(readme)).toBe(readmeBlock(results));
	});

	it('no bench row stands in the README outside the generated table', () => {
		const outside = readme.replace(readmeBlockOf(readme), '');
		const rows = table(results.rows).split('\n').slice(2);
		expect(rows.filter((row) => outside.includes(row))).toEqual([]);
		const benches = new Set(results.rows.map((r) => `| ${r.bench} |`));
		expect(outside.split('\n').filter((line) => [...benches].some((b) => line.startsWith(b)))).toEqual([]);
	});

	it('the cost table adds up its lines, the Lambda line among them', () => {
		const section = readme.slice(readme.indexOf('### Costs at 1 poll every 5 minutes'), readme.indexOf('### Remove'));
		const lines = section.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| service') && !l.startsWith('| ---') && !l.startsWith('| **total**'));
		expect(lines.map((l) => l.split(' | ')[0].slice(2))).toContain('Lambda (arm64, 512 MB)');
		const dollars = lines.map((l) => /\*\*(?:< )?\$([\d.]+)\*\*/.exec(l.split(' | ').pop()!)?.[1]);
		expect(dollars.every((d) => d !== undefined), 'every line ends in a bold amount').toBe(true);
		const total = /\*\*≈ \$([\d.]+) a month\*\*/.exec(section)?.[1];
		// "< $0.01" lines count as a cent each: the total is rounded to five cents.
		expect(Math.abs(dollars.reduce((sum, d) => sum + Number(d), 0) - Number(total))).toBeLessThanOrEqual(0.05);
	});
});
