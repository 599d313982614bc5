import { cpus, loadavg } from 'node:os';
import { DEFAULT_PROFILE, SERVICE_RATE } from '../client';
import { RateLimiter } from '../sandbox/rateLimit';

/** Small helpers shared by the benchmarks: the service's limit, timing, percentiles and a table. */

/**
 * The burst the sandbox's limiter admits, measured on the limiter itself: requests accepted at
 * one instant by a fresh token (its sliding window then holds them for `windowMs`).
 */
function measuredBurst(): { burst: number; windowMs: number } {
	let now = 0;
	const limiter = new RateLimiter(undefined, undefined, () => now);
	let burst = 0;
	while (limiter.take(1) === undefined) burst++;
	const windowMs = limiter.take(1) ?? 0;
	now += windowMs;
	if (limiter.take(1) !== undefined) throw new Error('the sandbox limiter did not free a slot after its window');
	return { burst, windowMs };
}

/**
 * The physical limit every list-reading row is measured against: 5 requests per second per
 * token, the largest page of the default profile per request. `ideal(n)` = ceil(n / largestPage) / 5 s, the sustained
 * rate. The limiter lets a fresh token send `burst` requests at once, so P requests can end as
 * early as (ceil(P / burst) − 1) windows plus the last request's own time: up to one window
 * before the ideal. A ratio a little under 1 on a short run is that burst, not the limit broken.
 */
export const LIMIT = {
	ratePerSecond: (SERVICE_RATE.maxRequests * 1000) / SERVICE_RATE.windowMs,
	largestPage: DEFAULT_PROFILE.paging.maxPageSize,
	...measuredBurst(),
};

export function pagesAtLimit(items: number): number {
	return Math.max(1, Math.ceil(items / LIMIT.largestPage));
}

/** Seconds the limit needs for `requests` requests at the sustained rate. */
export function idealSeconds(requests: number): number {
	return requests / LIMIT.ratePerSecond;
}

/** The earliest end the burst allows (the last request's own time not counted). */
export function burstFloorSeconds(requests: number): number {
	return ((Math.ceil(requests / LIMIT.burst) - 1) * LIMIT.windowMs) / 1000;
}

/** "2.0 s (10 × 1000; burst floor 1.0 s)": the ideal column of a list-reading row. */
export function idealText(items: number): string {
	const pages = pagesAtLimit(items);
	return `${idealSeconds(pages).toFixed(1)} s (${pages} × ${LIMIT.largestPage}; burst floor ${burstFloorSeconds(pages).toFixed(1)} s)`;
}

/**
 * Sizes of one bench run. Quick mode (`BENCH_QUICK=1`) runs every row on small data so that the
 * bench itself can be smoke-tested in seconds; its figures mean nothing.
 */
export interface Scale {
	quick: boolean;
	sandboxDevices: number;
	sandboxRounds: number;
	nodeDevices: number;
	/** Devices in the overdue poller's large and small runs (about a fifth are overdue). */
	overdueDevices: { large: number; small: number };
	resultsPerDay: number;
	lookbackDays: number[];
	initRuns: number;
	/** Pause between contenders (an idle machine and an empty rate window for each). */
	settleMs: number;
	/** Processes whose CPU per item the overdue poller's CPU row takes the median of. */
	cpuRuns: number;
	/** The many-accounts row: accounts in one runner, devices in each. */
	accounts: { count: number; devices: number };
	/** Processes sharing one token (issue 33): how many, devices each reads, and how often. */
	sharedToken: { processes: number[]; devices: number; reads: number };
	/** The same in virtual time, with grids told what no process knows: seeds, and requests per process (a read's pages, times the reads). */
	sharedTokenBound: { processes: number[]; seeds: number; requests: number };
}

export const FULL: Scale = {
	quick: false,
	sandboxDevices: 100_000,
	sandboxRounds: 40,
	nodeDevices: 10_000,
	overdueDevices: { large: 100_000, small: 10_000 },
	resultsPerDay: 2000,
	lookbackDays: [7, 30, 90],
	initRuns: 5,
	settleMs: 1100,
	cpuRuns: 3,
	accounts: { count: 20, devices: 2000 },
	sharedToken: { processes: [4, 16], devices: 10_000, reads: 3 },
	sharedTokenBound: { processes: [4, 16], seeds: 8, requests: 33 },
};

/** Every row on small data: a smoke test of the bench (same lookbacks, everything else small). */
export const QUICK: Scale = {
	...FULL,
	quick: true,
	sandboxDevices: 2000,
	sandboxRounds: 6,
	nodeDevices: 1200,
	overdueDevices: { large: 4000, small: 1000 },
	resultsPerDay: 20,
	initRuns: 1,
	settleMs: 50,
	cpuRuns: 1,
	accounts: { count: 4, devices: 300 },
	sharedToken: { processes: [2], devices: 2000, reads: 1 },
	sharedTokenBound: { processes: [4], seeds: 1, requests: 8 },
};

export function scaleFromEnv(env: NodeJS.ProcessEnv = process.env): Scale {
	return env.BENCH_QUICK === '1' || env.BENCH_QUICK === 'true' ? QUICK : FULL;
}

export function percentile(samples: number[], p: number): number {
	const sorted = [...samples].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function median(samples: number[]): number {
	const sorted = [...samples].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export async function timed<T>(f: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
	const start = performance.now();
	const value = await f();
	return { ms: performance.now() - start, value };
}

export const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface BenchRow {
	bench: string;
	/** What is measured, and what the ratio divides. */
	measure: string;
	value: string;
	/** The physical limit (or target figure) the ratio is taken against. */
	ideal?: string;
	baseline?: string;
	/** A plain number, so that it can be checked; the measure says what it divides. */
	ratio?: number;
	target?: string;
	/** The largest ratio that meets the target; the table says "misses" past it (a target is never moved to fit). */
	goal?: number;
}

/** Whether a row with a goal missed it (a ratio that could not be measured misses too). */
export const misses = (r: BenchRow): boolean => r.goal !== undefined && !(r.ratio !== undefined && r.ratio <= r.goal);

const COLUMNS = ['bench', 'measure', 'value', 'ideal', 'baseline', 'ratio', 'target'] as const;

export function table(rows: BenchRow[]): string {
	const cell = (r: BenchRow, c: (typeof COLUMNS)[number]) =>
		c === 'ratio' ? (r.ratio === undefined ? '' : r.ratio.toFixed(2)) : c === 'target' && misses(r) ? `${r.target ?? ''}: **misses**` : (r[c] ?? '');
	const lines = [`| ${COLUMNS.join(' | ')} |`, `|${COLUMNS.map(() => '---').join('|')}|`];
	for (const r of rows) lines.push(`| ${COLUMNS.map((c) => cell(r, c)).join(' | ')} |`);
	return lines.join('\n');
}

/** The machine and how busy it was: figures from a shared machine are read with its load. */
export function machine(): string {
	const [one, five] = loadavg();
	return `${process.platform} ${process.arch}, ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}, load average ${one.toFixed(2)} (1 min) ${five.toFixed(2)} (5 min)`;
}
