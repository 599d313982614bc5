import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LIMIT, table, type BenchRow } from './lib';

/**
 * The documents written from the last full `npm run bench` (bench/results.json): bench/results.md
 * and the table in docs/performance.md, between the markers below. `npm run
 * bench:docs` writes them again from the stored results; a test fails when they differ from it.
 */
export interface BenchResults {
	/** Start of the run, ISO 8601 UTC. */
	started: string;
	machineAtStart: string;
	machineAtEnd: string;
	rows: BenchRow[];
	/** Benches measured again on their own since the full run, their rows replacing its rows (ISO 8601 UTC). */
	reruns?: Array<{ bench: string; started: string }>;
}

export const RESULTS_JSON = join(__dirname, 'results.json');
export const RESULTS_MD = join(__dirname, 'results.md');
export const PERFORMANCE_MD = join(__dirname, '..', 'docs', 'performance.md');
export const TABLE_START = '<!-- bench results: written by `npm run bench:docs` from bench/results.json; edit nothing between these markers -->';
export const TABLE_END = '<!-- end of bench results -->';

export function readResults(path = RESULTS_JSON): BenchResults {
	return JSON.parse(readFileSync(path, 'utf8')) as BenchResults;
}

const minute = (iso: string) => iso.slice(0, 16).replace('T', ' ');
/** "load average 1.45 (1 min) 2.30 (5 min)" → "1.45". */
const load = (machine: string) => /load average ([\d.]+)/.exec(machine)?.[1] ?? '?';
/** The machine without its load: "linux x64, 2 cores (AMD EPYC), Node v20.20.2". */
const host = (machine: string) => machine.replace(/, load average .*$/, '');

/** " Rows measured again on their own since: e-mails 2026-11-29 22:22 UTC, …" (empty without). */
const rerunsNote = (r: BenchResults) => (r.reruns?.length ? ` Rows measured again on their own since: ${r.reruns.map((x) => `${x.bench} ${minute(x.started)} UTC`).join(', ')}.` : '');

/** bench/results.md. */
export function resultsMarkdown(r: BenchResults): string {
	return [
		table(r.rows),
		'',
		`Limit: ${LIMIT.ratePerSecond} requests/s per token, pages of up to ${LIMIT.largestPage} items (the default service profile's largest page); ideal = ceil(N / ${LIMIT.largestPage}) / ${LIMIT.ratePerSecond} s. ` +
			`The sandbox's limiter admits a burst of ${LIMIT.burst} requests in any ${LIMIT.windowMs} ms (measured on the limiter), so a run can end up to one window before the ideal ("burst floor").`,
		`Run ${minute(r.started)} UTC.${rerunsNote(r)}`,
		`Machine at the start: ${r.machineAtStart}.`,
		`Machine at the end: ${r.machineAtEnd}.`,
		'',
	].join('\n');
}

/** What stands between the markers of docs/performance.md. */
export function tableBlock(r: BenchResults): string {
	return [
		TABLE_START,
		`Figures of the last full \`npm run bench\`, ${minute(r.started)} UTC on ${host(r.machineAtStart)}, load average ${load(r.machineAtStart)} at the start and ${load(r.machineAtEnd)} at the end ([bench/results.md](../bench/results.md)).${rerunsNote(r)}`,
		'',
		table(r.rows),
		TABLE_END,
	].join('\n');
}

/** docs/performance.md's text between (and with) the markers; throws when they are missing. */
export function tableBlockOf(doc: string): string {
	const start = doc.indexOf(TABLE_START);
	const end = doc.indexOf(TABLE_END);
	if (start < 0 || end < start) throw new Error(`docs/performance.md: the bench markers are missing (${TABLE_START} … ${TABLE_END})`);
	return doc.slice(start, end + TABLE_END.length);
}

export function writeDocs(r: BenchResults): void {
	writeFileSync(RESULTS_MD, resultsMarkdown(r));
	const doc = readFileSync(PERFORMANCE_MD, 'utf8');
	writeFileSync(PERFORMANCE_MD, doc.replace(tableBlockOf(doc), tableBlock(r)));
}

if (require.main === module) writeDocs(readResults());
