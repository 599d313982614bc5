import {
	FAILURE_RATE_GROUP_BY,
	FAILURE_RATE_MONTHS,
	INTERVAL_DECISION_NOTE,
	type FailureRateGroup,
	type FailureRateGroupBy,
	type FailureRateMonths,
	type FailureRates,
	type FailureRateVerdict,
} from '../client/failureRates';
import { percentBeside } from '../client/percent';
import { csvFile } from './csv';
import { C, esc } from './render';
import { DEFAULT_LOCALE, fill, formatCount, formatDay, textsFor, type Catalog, type Locale } from './texts';

/**
 * The failure rates of the monthly compliance report: an HTML fragment (tables of table cells, as
 * the rest of the report), plain-text lines and CSV, for the 12- and 24-month windows per device
 * type, department and customer, with the exact 95 % bounds and the 2 % marks of DGUV V3 Table 1B
 * (client/failureRates.ts, client/binomial.ts). Every rendering says
 * that setting the interval is the employer's decision and these figures its evidence. Pure: the
 * figures come from client/failureRates.ts (`allFailureRates`).
 */

/**
 * Why the recycle bin was not read: the token may not read it (413: the node's only case), or the
 * due-date poller's last read failed or none was made yet (the Lambdas).
 */
export type ScrappedNotRead = 'forbidden' | 'failed';

/** What the report shows: months → group by → rates (as `allFailureRates` returns them). */
export type FailureRateTables = Record<FailureRateMonths, Record<FailureRateGroupBy, FailureRates>>;

/** Groups listed per table in the e-mail; the CSV has every one. */
export const MAX_RATE_ROWS = 40;

const heading = (by: FailureRateGroupBy, t: Catalog) => ({ designation: t.failureRates.perDeviceType, department: t.common.perDepartment, customer: t.common.perCustomer })[by];
const none = (by: FailureRateGroupBy, t: Catalog) => ({ designation: t.failureRates.noDesignation, department: t.common.noDepartment, customer: t.common.noCustomer })[by];

const COLORS: Record<FailureRateVerdict, string> = { below: C.green, above: C.red, undecided: C.muted };
const mark = (g: FailureRateGroup, locale: Locale) => {
	const t = textsFor(locale).failureRates;
	return g.verdict === 'undecided' ? fill(t.undecided, { count: formatCount(g.testsNeeded, locale) }) : t[g.verdict];
};

/** What the marks mean, in one sentence. */
export const marksText = (locale: Locale = DEFAULT_LOCALE) => textsFor(locale).failureRates.marks;
export const MARKS_TEXT = marksText('en');

/** How the rates are computed, for the report's footer. */
export const methodText = (locale: Locale = DEFAULT_LOCALE) => textsFor(locale).failureRates.method;

/**
 * A bound in per cent with one decimal, more when one decimal would show 2.0 % or the wrong side
 * of it (a bound is never exactly 2 %: "2.0 %" beside "below 2 %" would contradict its mark); the
 * rule of client/percent.ts, as the interval reasons show reliabilities beside their target.
 */
export function boundPercent(value: number, locale: Locale = DEFAULT_LOCALE): string {
	const s = percentBeside(value, 0.02);
	return locale === 'en' ? `${s} %` : `${s.replace('.', ',')}\u00a0%`;
}

/**
 * The rate in per cent with one decimal, more when one decimal would show 2.0 % for a rate that
 * is not exactly 2 % (1 in 51 is 1.96 %: "2.0 %" beside "below 2 %" would contradict its mark).
 * German with a decimal comma and a no-break space before the sign.
 */
export function ratePercent(g: { tests: number; failedTests: number }, locale: Locale = DEFAULT_LOCALE): string {
	if (g.tests === 0) return '–';
	const form = (s: string) => (locale === 'en' ? `${s} %` : `${s.replace('.', ',')}\u00a0%`);
	const exact = g.failedTests * 50 === g.tests;
	const value = (g.failedTests / g.tests) * 100;
	for (let digits = 1; digits <= 6; digits++) {
		const s = value.toFixed(digits);
		if (exact || Number(s) !== 2) return form(s);
	}
	return form(String(value));
}

function intervalsText(g: FailureRateGroup, locale: Locale): string {
	const t = textsFor(locale).failureRates;
	if (g.testIntervalsMonths.length === 0) return '–';
	const intervals = g.testIntervalsMonths.map((m) => formatCount(m, locale)).join(', ');
	return g.devicesWithoutInterval > 0 ? fill(t.intervalsWithout, { intervals, count: formatCount(g.devicesWithoutInterval, locale) }) : fill(t.intervals, { intervals });
}
const groupName = (g: FailureRateGroup, t: Catalog) => (g.id === null ? none(g.group, t) : (g.name ?? String(g.id)));
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
function notCounted(t: FailureRateTables, locale: Locale, scrappedCounted: boolean, notRead: ScrappedNotRead): string[] {
	const totals = t[24].designation.totals;
	const tx = textsFor(locale).failureRates;
	return [
		totals.unknownDevices > 0 ? fill(tx.unknownDevices, { count: formatCount(totals.unknownDevices, locale) }) : '',
		totals.unknownStatus > 0 ? fill(tx.unknownStatus, { count: formatCount(totals.unknownStatus, locale) }) : '',
		scrappedCounted ? '' : notRead === 'failed' ? tx.scrappedReadFailed : tx.scrappedNotRead,
	].filter(Boolean);
}

function periodText(t: FailureRateTables, locale: Locale): string {
	const a = t[12].designation;
	const b = t[24].designation;
	const d = (day: string) => formatDay(day, locale);
	return fill(textsFor(locale).failureRates.period, { from12: d(a.from), to12: d(a.to), from24: d(b.from), to24: d(b.to) });
}

/** The employer's-decision sentence; the English one is the client's (INTERVAL_DECISION_NOTE, also in the CSV). */
const decisionText = (locale: Locale) => (locale === 'en' ? INTERVAL_DECISION_NOTE : textsFor(locale).failureRates.intervalDecision);

// ---- plain text ------------------------------------------------------------------------------

export function failureRatesText(t: FailureRateTables, locale: Locale = DEFAULT_LOCALE, shown = MAX_RATE_ROWS, scrappedCounted = true, notRead: ScrappedNotRead = 'forbidden'): string[] {
	const tx = textsFor(locale);
	const n = (v: number) => formatCount(v, locale);
	const lines = [tx.failureRates.textTitle, periodText(t, locale), marksText(locale), ...notCounted(t, locale, scrappedCounted, notRead), decisionText(locale), ''];
	for (const by of FAILURE_RATE_GROUP_BY) {
		const rows = rowsOf(t, by);
		if (rows.length === 0) continue;
		lines.push(heading(by, tx).toUpperCase());
		for (const { group, per } of rows.slice(0, shown)) {
			const window = (months: FailureRateMonths) => {
				const g = per[months];
				return g === undefined
					? fill(tx.failureRates.windowNone, { months })
					: fill(tx.failureRates.window, { months, rate: ratePercent(g, locale), lower: boundPercent(g.lowerBound95, locale), upper: boundPercent(g.upperBound95, locale), failed: n(g.failedTests), tests: n(g.tests), devices: n(g.devicesTested), mark: mark(g, locale) });
			};
			lines.push(`  ${fill(tx.failureRates.line, { name: groupName(group, tx), intervals: intervalsText(group, locale), window12: window(12), window24: window(24) })}`);
		}
		if (rows.length > shown) lines.push(`  ${fill(tx.common.moreCsvText, { count: n(rows.length - shown) })}`);
		lines.push('');
	}
	return lines;
}

// ---- HTML --------------------------------------------------------------------------------------

const th = (label: string, align = 'left') =>
	`<th align="${align}" style="padding:6px 5px;font-size:11px;line-height:15px;font-weight:600;color:${C.muted};text-transform:uppercase;letter-spacing:.03em;border-bottom:2px solid ${C.line};">${esc(label)}</th>`;
const TD = `padding:6px 5px;border-bottom:1px solid ${C.line};vertical-align:middle;font-size:13px;line-height:18px;`;
const note = (text: string) => `<p style="margin:4px 0;font-size:13px;line-height:18px;color:${C.muted};">${esc(text)}</p>`;

/** Both one-sided 95 % bounds, "6.9 %–28.1 %": an "above 2 %" is read from the lower one, a "below 2 %" from the upper. */
const boundsText = (g: FailureRateGroup, locale: Locale) => `${boundPercent(g.lowerBound95, locale)}–${boundPercent(g.upperBound95, locale)}`;

function windowCells(g: FailureRateGroup | undefined, locale: Locale): string {
	if (g === undefined) return `<td align="right" style="${TD}">–</td><td align="right" style="${TD}">–</td><td style="${TD}">–</td>`;
	const strong = g.verdict === 'below' || g.verdict === 'above' ? 'font-weight:700;' : '';
	return `<td align="right" style="${TD}white-space:nowrap;">${esc(`${formatCount(g.failedTests, locale)} / ${formatCount(g.tests, locale)}`)}</td><td align="right" style="${TD}white-space:nowrap;"><span style="font-weight:600;">${esc(ratePercent(g, locale))}</span><br><span style="color:${C.muted};">${esc(boundsText(g, locale))}</span></td><td style="${TD}white-space:nowrap;color:${COLORS[g.verdict]};${strong}">${esc(mark(g, locale))}</td>`;
}

function table(t: FailureRateTables, by: FailureRateGroupBy, locale: Locale, shown: number): string {
	const rows = rowsOf(t, by);
	if (rows.length === 0) return '';
	const tx = textsFor(locale);
	const body = rows
		.slice(0, shown)
		.map(({ group, per }) => `<tr><td style="${TD}font-weight:600;">${esc(groupName(group, tx))}</td><td style="${TD}color:${C.muted};">${esc(intervalsText(group, locale))}</td>${windowCells(per[12], locale)}${windowCells(per[24], locale)}</tr>`)
		.join('');
	const more = rows.length > shown ? note(fill(tx.common.moreCsvHtml, { count: formatCount(rows.length - shown, locale) })) : '';
	const f = tx.failureRates;
	return `<h3 style="margin:16px 0 8px 0;font-size:14px;line-height:20px;font-weight:700;color:${C.ink};">${esc(heading(by, tx))}</h3><table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;"><tr>${th(tx.common.name)}${th(f.interval)}${th(f.failed12, 'right')}${th(tx.common.rate, 'right')}${th('')}${th(f.failed24, 'right')}${th(tx.common.rate, 'right')}${th('')}</tr>${body}</table>${more}`;
}

/** The HTML fragment: a heading, what the marks mean, the employer's-decision sentence, three tables. */
export function failureRatesHtml(t: FailureRateTables, locale: Locale = DEFAULT_LOCALE, shown = MAX_RATE_ROWS, scrappedCounted = true, notRead: ScrappedNotRead = 'forbidden'): string {
	const head = `<h2 style="margin:24px 0 8px 0;font-size:16px;line-height:22px;font-weight:700;color:${C.ink};">${esc(textsFor(locale).failureRates.title)}</h2>`;
	const decision = `<p style="margin:8px 0;font-size:13px;line-height:18px;color:${C.ink};"><strong>${esc(decisionText(locale))}</strong></p>`;
	return `${head}${note(periodText(t, locale))}${note(marksText(locale))}${notCounted(t, locale, scrappedCounted, notRead).map(note).join('')}${decision}${FAILURE_RATE_GROUP_BY.map((by) => table(t, by, locale, shown)).join('')}`;
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
	'scrapped_devices',
	'failure_rate',
	'lower_bound_95',
	'upper_bound_95',
	'verdict',
	'tests_needed',
	'test_intervals_months',
	'devices_without_interval',
	'note',
];

/** One CSV row per window, grouping and group. */
export function failureRatesCsvRows(t: FailureRateTables): Array<Array<string | number | boolean | null>> {
	const lines: Array<Array<string | number | boolean | null>> = [];
	for (const months of FAILURE_RATE_MONTHS) {
		for (const by of FAILURE_RATE_GROUP_BY) {
			const f = t[months][by];
			for (const g of f.groups) {
				const cells = [months, f.from, f.to, by, g.id, g.name, g.devices, g.devicesTested, g.tests, g.failedTests, g.unknownStatus, g.scrappedDevices, g.failureRate, g.lowerBound95, g.upperBound95, g.verdict, g.testsNeeded, g.testIntervalsMonths.join(';'), g.devicesWithoutInterval, INTERVAL_DECISION_NOTE];
				lines.push(cells);
			}
		}
	}
	return lines;
}

/** The whole CSV (RFC 4180, CRLF): the head, then every line. */
export function failureRatesCsv(t: FailureRateTables, locale: Locale = DEFAULT_LOCALE): string {
	return csvFile([FAILURE_RATES_CSV_HEAD, ...failureRatesCsvRows(t)], locale);
}
