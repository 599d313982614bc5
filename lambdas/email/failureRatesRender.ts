import {
	FAILURE_RATE_GROUP_BY,
	FAILURE_RATE_MONTHS,
	INTERVAL_DECISION_NOTE,
	MIN_TESTS_FOR_BELOW,
	type FailureRateGroup,
	type FailureRateGroupBy,
	type FailureRateMonths,
	type FailureRates,
	type FailureRateVerdict,
} from '../../client';
import { csvCell } from './csv';
import { C, esc } from './render';

/**
 * The failure rates of the monthly compliance report: an HTML fragment (tables of table cells, as
 * the rest of the report), plain-text lines and CSV, for the 12- and 24-month windows per device
 * type, department and customer, with the 2 % marks of DGUV V3 Table 1B. Every rendering says
 * that setting the interval is the employer's decision and these figures its evidence. Pure: the
 * figures come from client/failureRates.ts (`allFailureRates`).
 */

/** What the report shows: months → group by → rates (as `allFailureRates` returns them). */
export type FailureRateTables = Record<FailureRateMonths, Record<FailureRateGroupBy, FailureRates>>;

/** Groups listed per table in the e-mail; the CSV has every one. */
export const MAX_RATE_ROWS = 40;

const HEADINGS: Record<FailureRateGroupBy, string> = { designation: 'Per device type', department: 'Per department', customer: 'Per customer' };
const NONE: Record<FailureRateGroupBy, string> = { designation: 'No designation', department: 'No department', customer: 'No customer' };

const MARKS: Record<FailureRateVerdict, { text: string; color: string }> = {
	below: { text: 'below 2 %', color: C.green },
	above: { text: 'above 2 %', color: C.red },
	at: { text: 'at 2 %', color: C.amber },
	tooFewTests: { text: `under ${MIN_TESTS_FOR_BELOW} tests`, color: C.muted },
};

/** What the marks mean, in one sentence. */
export const MARKS_TEXT = `Marked: below 2 % with at least ${MIN_TESTS_FOR_BELOW} tests (below ${MIN_TESTS_FOR_BELOW} tests one failure is already 2 % or more, so "below" would only mean "no failure yet"); above 2 % with any number of tests.`;

/**
 * The rate in per cent with one decimal, more when one decimal would show 2.0 % for a rate that
 * is not exactly 2 % (1 in 51 is 1.96 %: "2.0 %" beside "below 2 %" would contradict its mark).
 */
export function ratePercent(g: { tests: number; failedTests: number }): string {
	if (g.tests === 0) return '–';
	const exact = g.failedTests * 50 === g.tests;
	const value = (g.failedTests / g.tests) * 100;
	for (let digits = 1; digits <= 6; digits++) {
		const s = value.toFixed(digits);
		if (exact || Number(s) !== 2) return `${s} %`;
	}
	return `${value} %`;
}

const intervalsText = (g: FailureRateGroup) =>
	g.testIntervalsMonths.length === 0 ? '–' : `${g.testIntervalsMonths.join(', ')} months${g.devicesWithoutInterval > 0 ? ` (${g.devicesWithoutInterval} without)` : ''}`;
const groupName = (g: FailureRateGroup) => (g.id === null ? NONE[g.group] : (g.name ?? String(g.id)));
const keyOf = (g: FailureRateGroup) => `${typeof g.id}:${String(g.id)}`;

/** The rows of one grouping: each group with its 12- and 24-month figures (the 24-month list's order). */
function rowsOf(t: FailureRateTables, by: FailureRateGroupBy): Array<{ group: FailureRateGroup; per: Partial<Record<FailureRateMonths, FailureRateGroup>> }> {
	const rows = new Map<string, { group: FailureRateGroup; per: Partial<Record<FailureRateMonths, FailureRateGroup>> }>();
	for (const months of [...FAILURE_RATE_MONTHS].reverse()) {
		for (const g of t[months][by].groups) {
			const row = rows.get(keyOf(g)) ?? { group: g, per: {} };
			row.per[months] = g;
			rows.set(keyOf(g), row);
		}
	}
	return [...rows.values()];
}

/** Results not counted in any rate, in words (from the widest window). */
function notCounted(t: FailureRateTables): string[] {
	const totals = t[24].designation.totals;
	return [
		totals.unknownDevices > 0 ? `${totals.unknownDevices} test results of devices no longer in the device list are not counted.` : '',
		totals.unknownStatus > 0 ? `${totals.unknownStatus} test results of a status this version does not know are not counted.` : '',
	].filter(Boolean);
}

function periodText(t: FailureRateTables): string {
	const a = t[12].designation;
	const b = t[24].designation;
	return `Tests of the last 12 months (${a.from} to ${a.to}) and the last 24 months (${b.from} to ${b.to}); a failed test and its re-test count as two tests.`;
}

// ---- plain text ------------------------------------------------------------------------------

export function failureRatesText(t: FailureRateTables): string[] {
	const lines = ['FAILURE RATES (DGUV V3 TABLE 1B: 2 %)', periodText(t), MARKS_TEXT, ...notCounted(t), INTERVAL_DECISION_NOTE, ''];
	for (const by of FAILURE_RATE_GROUP_BY) {
		const rows = rowsOf(t, by);
		if (rows.length === 0) continue;
		lines.push(HEADINGS[by].toUpperCase());
		for (const { group, per } of rows.slice(0, MAX_RATE_ROWS)) {
			const window = (months: FailureRateMonths) => {
				const g = per[months];
				return g === undefined ? `${months} months: –` : `${months} months: ${ratePercent(g)} (${g.failedTests} of ${g.tests} failed, ${g.devicesTested} devices) ${MARKS[g.verdict].text}`;
			};
			lines.push(`  ${groupName(group)} [interval ${intervalsText(group)}]: ${window(12)}; ${window(24)}`);
		}
		if (rows.length > MAX_RATE_ROWS) lines.push(`  …and ${rows.length - MAX_RATE_ROWS} more (see the attached CSV)`);
		lines.push('');
	}
	return lines;
}

// ---- HTML --------------------------------------------------------------------------------------

const th = (label: string, align = 'left') =>
	`<th align="${align}" style="padding:6px 5px;font-size:11px;line-height:15px;font-weight:600;color:${C.muted};text-transform:uppercase;letter-spacing:.03em;border-bottom:2px solid ${C.line};">${esc(label)}</th>`;
const TD = `padding:6px 5px;border-bottom:1px solid ${C.line};vertical-align:middle;font-size:13px;line-height:18px;`;
const note = (text: string) => `<p style="margin:4px 0;font-size:13px;line-height:18px;color:${C.muted};">${esc(text)}</p>`;

function windowCells(g: FailureRateGroup | undefined): string {
	if (g === undefined) return `<td align="right" style="${TD}">–</td><td align="right" style="${TD}">–</td><td style="${TD}">–</td>`;
	const mark = MARKS[g.verdict];
	const strong = g.verdict === 'below' || g.verdict === 'above' ? 'font-weight:700;' : '';
	return `<td align="right" style="${TD}white-space:nowrap;">${esc(`${g.failedTests} / ${g.tests}`)}</td><td align="right" style="${TD}white-space:nowrap;font-weight:600;">${esc(ratePercent(g))}</td><td style="${TD}white-space:nowrap;color:${mark.color};${strong}">${esc(mark.text)}</td>`;
}

function table(t: FailureRateTables, by: FailureRateGroupBy): string {
	const rows = rowsOf(t, by);
	if (rows.length === 0) return '';
	const body = rows
		.slice(0, MAX_RATE_ROWS)
		.map(({ group, per }) => `<tr><td style="${TD}font-weight:600;">${esc(groupName(group))}</td><td style="${TD}color:${C.muted};">${esc(intervalsText(group))}</td>${windowCells(per[12])}${windowCells(per[24])}</tr>`)
		.join('');
	const more = rows.length > MAX_RATE_ROWS ? note(`…and ${rows.length - MAX_RATE_ROWS} more (the attached CSV has them all).`) : '';
	return `<h3 style="margin:16px 0 8px 0;font-size:14px;line-height:20px;font-weight:700;color:${C.ink};">${esc(HEADINGS[by])}</h3><table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;"><tr>${th('Name')}${th('Interval')}${th('12 mo. failed', 'right')}${th('Rate', 'right')}${th('')}${th('24 mo. failed', 'right')}${th('Rate', 'right')}${th('')}</tr>${body}</table>${more}`;
}

/** The HTML fragment: a heading, what the marks mean, the employer's-decision sentence, three tables. */
export function failureRatesHtml(t: FailureRateTables): string {
	const head = `<h2 style="margin:24px 0 8px 0;font-size:16px;line-height:22px;font-weight:700;color:${C.ink};">${esc('Failure rates (DGUV V3 Table 1B: 2 %)')}</h2>`;
	const decision = `<p style="margin:8px 0;font-size:13px;line-height:18px;color:${C.ink};"><strong>${esc(INTERVAL_DECISION_NOTE)}</strong></p>`;
	return `${head}${note(periodText(t))}${note(MARKS_TEXT)}${notCounted(t).map(note).join('')}${decision}${FAILURE_RATE_GROUP_BY.map((by) => table(t, by)).join('')}`;
}

// ---- CSV ---------------------------------------------------------------------------------------

export const FAILURE_RATES_CSV_HEAD = [
	'months',
	'from',
	'to',
	'group_by',
	'group_id',
	'group_name',
	'devices',
	'devices_tested',
	'tests',
	'failed_tests',
	'unknown_status',
	'failure_rate',
	'verdict',
	'min_tests',
	'test_intervals_months',
	'devices_without_interval',
	'note',
];

/** One CSV line per window, grouping and group (cells escaped as the report's CSV escapes them). */
export function failureRatesCsvLines(t: FailureRateTables): string[] {
	const lines: string[] = [];
	for (const months of FAILURE_RATE_MONTHS) {
		for (const by of FAILURE_RATE_GROUP_BY) {
			const f = t[months][by];
			for (const g of f.groups) {
				const cells = [months, f.from, f.to, by, g.id, g.name, g.devices, g.devicesTested, g.tests, g.failedTests, g.unknownStatus, g.failureRate, g.verdict, f.minTests, g.testIntervalsMonths.join(';'), g.devicesWithoutInterval, INTERVAL_DECISION_NOTE];
				lines.push(cells.map(csvCell).join(','));
			}
		}
	}
	return lines;
}

/** The whole CSV (RFC 4180, CRLF): the head, then every line. */
export function failureRatesCsv(t: FailureRateTables): string {
	return `${[FAILURE_RATES_CSV_HEAD.join(','), ...failureRatesCsvLines(t)].join('\r\n')}\r\n`;
}
