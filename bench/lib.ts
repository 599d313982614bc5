/** Small helpers shared by the benchmarks: timing, percentiles and a plain table. */
export function percentile(samples: number[], p: number): number {
	const sorted = [...samples].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export async function timed<T>(f: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
	const start = performance.now();
	const value = await f();
	return { ms: performance.now() - start, value };
}

export interface BenchRow {
	bench: string;
	measure: string;
	value: string;
	baseline?: string;
	ratio?: string;
	target?: string;
}

export function table(rows: BenchRow[]): string {
	const head = ['bench', 'measure', 'value', 'baseline', 'ratio', 'target'] as const;
	const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
	for (const r of rows) lines.push(`| ${head.map((h) => r[h] ?? '').join(' | ')} |`);
	return lines.join('\n');
}
