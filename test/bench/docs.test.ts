import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PERFORMANCE_MD, RESULTS_MD, readResults, resultsMarkdown, tableBlock, tableBlockOf } from '../../bench/docs';
import { table } from '../../bench/lib';

/**
 * The bench figures in the docs come from one place, bench/results.json (the last full
 * `npm run bench`): bench/results.md and docs/performance.md's table are what bench/docs.ts writes
 * from it, and no bench row stands anywhere else in the README or the docs (a hand-copied row is
 * how the cost table once lost its Lambda line). Fix a failure with `npm run bench:docs`.
 */
const ROOT = join(__dirname, '../..');
const results = readResults();
const performance = readFileSync(PERFORMANCE_MD, 'utf8');
const others = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)].filter((f) => join(ROOT, f) !== PERFORMANCE_MD);

describe('the bench figures in the docs', () => {
	it('bench/results.md is what bench/results.json gives', () => {
		expect(readFileSync(RESULTS_MD, 'utf8')).toBe(resultsMarkdown(results));
	});

	it("docs/performance.md's table is what bench/results.json gives", () => {
		expect(tableBlockOf(performance)).toBe(tableBlock(results));
	});

	it('no bench row stands in the README or the docs outside the generated table', () => {
		const rows = table(results.rows).split('\n').slice(2);
		const benches = new Set(results.rows.map((r) => `| ${r.bench} |`));
		for (const [file, text] of [['docs/performance.md', performance.replace(tableBlockOf(performance), '')], ...others.map((f) => [f, readFileSync(join(ROOT, f), 'utf8')])]) {
			expect(rows.filter((row) => text.includes(row)), file).toEqual([]);
			expect(text.split('\n').filter((line) => [...benches].some((b) => line.startsWith(b))), file).toEqual([]);
		}
	});

	it('the cost table adds up its lines, the Lambda line among them', () => {
		const deployment = readFileSync(join(ROOT, 'docs/aws-deployment.md'), 'utf8');
		const section = deployment.slice(deployment.indexOf('## Costs at 1 poll every 5 minutes'), deployment.indexOf('## Remove'));
		const lines = section.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| service') && !l.startsWith('| ---') && !l.startsWith('| **total**'));
		expect(lines.map((l) => l.split(' | ')[0].slice(2))).toContain('Lambda (arm64, 512 MB)');
		const dollars = lines.map((l) => /\*\*(?:< )?\$([\d.]+)\*\*/.exec(l.split(' | ').pop()!)?.[1]);
		expect(dollars.every((d) => d !== undefined), 'every line ends in a bold amount').toBe(true);
		const total = /\*\*≈ \$([\d.]+) a month\*\*/.exec(section)?.[1];
		// "< $0.01" lines count as a cent each: the total is rounded to five cents.
		expect(Math.abs(dollars.reduce((sum, d) => sum + Number(d), 0) - Number(total))).toBeLessThanOrEqual(0.05);
	});
});
