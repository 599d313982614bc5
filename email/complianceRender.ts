import type { MonthFigures } from '../client/compliance';
import type { ComplianceReportContent, CsvRow, LateDevice } from './compliance';
import { csvCell, csvFile } from './csv';
import { failureRatesCsv, failureRatesHtml, failureRatesText, MAX_RATE_ROWS, methodText } from './failureRatesRender';
import { forecastCsv, forecastHtml, forecastText } from './forecastRender';
import { intervalsCsv, intervalsHtml, intervalsText, MAX_INTERVAL_ROWS, MAX_OUTLIER_ROWS, outliersCsv, outliersHtml, outliersText } from './intervalsRender';
import { withinBudget } from './budget';
import { MAX_WARNING_ROWS, warningsCsv, warningsReportHtml, warningsReportText } from './warningsRender';
import { brand, C, esc, page, type RenderedEmail } from './render';
import { DEFAULT_LOCALE, fill, formatCount, formatDay, formatMonth, formOf, plural, textsFor, type Catalog, type Locale } from './texts';

export { csvCell };

/**
 * The monthly compliance report as HTML, plain text and CSV. The chart is made of table cells
 * with background colours and widths (no SVG, no script, no image): Gmail, Outlook and Apple Mail
 * draw it the same, and it reads as rows of figures where colours are off. Pure.
 */

/** Devices listed in the late table; the count covers all, the CSV has every one. */
export const MAX_LATE_ROWS = 40;
/** Customers or departments listed per table; the CSV of due dates names every one. Keeps the HTML under 100 KB (Gmail clips longer bodies). */
export const MAX_GROUP_ROWS = 40;

/** The overdue bars: slate, apart from the rate's traffic-light colours. */
const OVERDUE_BAR = '#475569';

interface Lang {
	locale: Locale;
	t: Catalog;
}

/** The on-time rate: "97.5%" in English (as before), "97,5 %" in German. */
function pct(rate: number | null, l: Lang): string {
	if (rate === null) return '–';
	const value = Math.round(rate * 1000) / 10;
	return l.locale === 'en' ? `${value}%` : `${formatCount(value, l.locale)}\u00a0%`;
}

const monthName = (month: string, l: Lang) => formatMonth(month, l.locale);

/** English as before (the platform's en-GB short month, e.g. "Sept 26"); German "Sep 26", "Mär 27". */
function shortMonth(month: string, l: Lang): string {
	if (l.locale !== 'en') return formatMonth(month, l.locale, 'short');
	const d = new Date(`${month}-15T12:00:00Z`);
	return new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', month: 'short', year: '2-digit' }).format(d);
}

function changeText(c: ComplianceReportContent, l: Lang): string {
	if (c.change === null) return l.t.compliance.noPreviousRate;
	return fill(l.t.compliance.change, { sign: c.change > 0 ? '+' : c.change < 0 ? '−' : '±', points: formatCount(Math.abs(c.change), l.locale), month: monthName(c.previous.month, l) });
}

/** The report's CSV attachments, by what they hold. */
export interface ComplianceCsvs {
	csv: string;
	failureRatesCsv: string;
	forecastCsv: string;
	intervalsCsv: string;
	outliersCsv: string;
	/** Only when the report lists measured-value warnings. */
	measurementWarningsCsv?: string;
}

export function renderComplianceReport(c: ComplianceReportContent, locale: Locale = DEFAULT_LOCALE): RenderedEmail & ComplianceCsvs {
	const body = withinBudget((rows) => reportWith(c, locale, rows), Math.max(MAX_GROUP_ROWS, MAX_LATE_ROWS, MAX_RATE_ROWS, MAX_INTERVAL_ROWS, MAX_OUTLIER_ROWS, MAX_WARNING_ROWS));
	return {
		...body,
		csv: toCsv(c.rows, locale),
		failureRatesCsv: failureRatesCsv(c.failureRates, locale),
		forecastCsv: forecastCsv(c.forecast, locale),
		intervalsCsv: intervalsCsv(c.intervals, locale),
		outliersCsv: outliersCsv(c.outliers, locale),
		...(c.measurementWarnings ? { measurementWarningsCsv: warningsCsv(c.measurementWarnings, locale) } : {}),
	};
}

/** The report's subject, text and HTML with at most `rows` rows per table (each table's own maximum aside). */
function reportWith(c: ComplianceReportContent, locale: Locale, most: number): RenderedEmail {
	const groupRows = Math.min(most, MAX_GROUP_ROWS);
	const lateRows = Math.min(most, MAX_LATE_ROWS);
	const rateRows = Math.min(most, MAX_RATE_ROWS);
	const intervalRows = Math.min(most, MAX_INTERVAL_ROWS);
	const outlierRows = Math.min(most, MAX_OUTLIER_ROWS);
	const warningRows = Math.min(most, MAX_WARNING_ROWS);
	const l: Lang = { locale, t: textsFor(locale) };
	const tx = l.t.compliance;
	const n = (v: number) => formatCount(v, locale);
	const day = (d: string) => formatDay(d, locale);
	const a = c.all;
	const month = monthName(c.month, l);
	const subject = `${fill(tx.subject, { month, rate: pct(a.onTimeRate, l), dueDates: plural(a.due, tx.dueDates, locale) })}${c.environment === 'sandbox' ? l.t.common.sandboxSubject : ''}`;
	const lateTested = c.late.filter((d) => d.testedOn !== null);
	const stillOverdue = c.late.filter((d) => d.testedOn === null);
	const notes = [
		a.firstSeenOverdue > 0 ? fill(formOf(a.firstSeenOverdue, tx.firstSeenOverdue), { count: n(a.firstSeenOverdue), since: c.historySince ? day(c.historySince) : tx.historyStartUnknown }) : '',
		a.closedWithoutTest > 0 ? plural(a.closedWithoutTest, tx.closedWithoutTest, locale) : '',
		c.withoutDueDate > 0 ? plural(c.withoutDueDate, tx.withoutDueDate, locale) : '',
	].filter(Boolean);

	// ---- plain text ----
	const t: string[] = [
		`${fill(tx.textTitle, { month })}${c.environment === 'sandbox' ? ` ${l.t.common.sandboxAccount}` : ''}`,
		fill(tx.onTimeLine, { rate: pct(a.onTimeRate, l), change: changeText(c, l) }),
		fill(tx.summaryLine, {
			dueDates: plural(a.due, tx.dueDates, locale),
			onTime: n(a.testedOnTime),
			late: n(a.testedLate),
			lateness: a.maxDaysLate === null ? '' : fill(tx.summaryLateness, { median: n(a.medianDaysLate ?? 0), max: n(a.maxDaysLate) }),
			overdue: n(a.stillOverdue),
			closed: a.closedWithoutTest ? fill(tx.summaryClosed, { count: n(a.closedWithoutTest) }) : '',
		}),
		...notes,
		'',
		tx.trendTitle,
		...c.trend.map((m) => `  ${m.month}${c.rebuiltMonths.includes(m.month) ? '*' : ' '} ${pct(m.onTimeRate, l).padStart(6)}  ${'#'.repeat(m.onTimeRate === null ? 0 : Math.round(m.onTimeRate * 20)).padEnd(20)}  ${fill(tx.trendOverdue, { count: n(m.overdue).padStart(4) })}`),
		'',
		...forecastText(c.forecast, locale),
	];
	const textTable = (title: string, groups: MonthFigures[]) => {
		if (groups.length === 0) return;
		t.push(title.toUpperCase());
		for (const g of groups.slice(0, groupRows)) t.push(`  ${fill(tx.groupLine, { name: groupName(g, l), rate: pct(g.onTimeRate, l), due: n(g.due), onTime: n(g.testedOnTime), late: n(g.testedLate), overdue: n(g.stillOverdue) })}`);
		if (groups.length > groupRows) t.push(`  ${fill(l.t.common.moreCsvText, { count: n(groups.length - groupRows) })}`);
		t.push('');
	};
	textTable(l.t.common.perCustomer, c.customers);
	textTable(l.t.common.perDepartment, c.departments);
	const textLate = (title: string, list: LateDevice[]) => {
		if (list.length === 0) return;
		t.push(`${title.toUpperCase()} (${n(list.length)})`);
		for (const d of list.slice(0, lateRows)) {
			const values = { device: deviceText(d, l), due: day(d.due), days: plural(d.daysLate, l.t.common.days, locale) };
			const line = d.testedOn === null ? fill(tx.lateLineOverdue, values) : fill(tx.lateLineTested, { ...values, tested: day(d.testedOn) });
			t.push(`- ${line}${d.firstSeenOverdue ? ` (${tx.firstSeenTag})` : ''}`);
		}
		if (list.length > lateRows) t.push(`  ${fill(l.t.common.moreCsvText, { count: n(list.length - lateRows) })}`);
		t.push('');
	};
	textLate(tx.testedLate, lateTested);
	textLate(tx.stillOverdue, stillOverdue);
	t.push(...failureRatesText(c.failureRates, locale, rateRows, c.scrappedCounted, c.scrappedNotRead), '');
	t.push(...intervalsText(c.intervals, locale, intervalRows), ...outliersText(c.outliers, locale, outlierRows));
	if (c.measurementWarnings) t.push(...warningsReportText(c.measurementWarnings, c.month, locale, warningRows));
	t.push('--', footer(c, l), '');

	// ---- HTML ----
	const stats = [
		[pct(a.onTimeRate, l), tx.onTime, a.onTimeRate === null ? C.muted : a.onTimeRate >= 0.95 ? C.green : a.onTimeRate >= 0.8 ? C.amber : C.red],
		[n(a.due), formOf(a.due, tx.dueDate), C.ink],
		[n(a.testedLate), tx.testedLateStat, a.testedLate ? C.amber : C.muted],
		[n(a.stillOverdue), tx.stillOverdueStat, a.stillOverdue ? C.red : C.muted],
	]
		.map(([value, label, color], i) => `<td width="25%" align="center" style="padding:12px 4px;border-right:${i < 3 ? `1px solid ${C.line}` : '0'};"><div style="font-size:22px;line-height:28px;font-weight:700;color:${color};">${esc(value)}</div><div style="font-size:12px;line-height:16px;color:${C.muted};">${esc(label)}</div></td>`)
		.join('');
	// The rate in bold: the sentence around it escaped piece by piece.
	const [before, after] = tx.headline.split('{rate}');
	const rest = fill(after, { month, change: changeText(c, l) }) + (a.maxDaysLate === null ? '' : fill(tx.headlineLateness, { median: n(a.medianDaysLate ?? 0), max: n(a.maxDaysLate) }));
	const headline = `<p style="margin:16px 0 4px 0;font-size:15px;line-height:22px;">${esc(fill(before, { month }))}<strong>${esc(pct(a.onTimeRate, l))}</strong>${esc(rest)}</p>${notes.map((note) => `<p style="margin:4px 0;font-size:13px;line-height:18px;color:${C.muted};">${esc(note)}</p>`).join('')}`;
	const html = page(
		subject,
		fill(tx.preheader, { rate: pct(a.onTimeRate, l), late: n(a.testedLate), overdue: n(a.stillOverdue) }),
		`<tr><td style="background:${C.brand};padding:20px 24px;border-radius:8px 8px 0 0;"><div style="font-size:13px;line-height:18px;color:#cfe0f1;letter-spacing:.04em;text-transform:uppercase;">${esc(brand(c.environment, l))}</div><div style="font-size:22px;line-height:28px;font-weight:700;color:#ffffff;">${esc(tx.heading)}</div><div style="font-size:14px;line-height:20px;color:#e6eef7;">${esc(month)}</div></td></tr>
<tr><td style="padding:0 12px;border-bottom:1px solid ${C.line};"><table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr>${stats}</tr></table></td></tr>
<tr><td style="padding:0 16px 16px 16px;">${headline}${chart(c, l)}${forecastHtml(c.forecast, locale)}${groupTable(l.t.common.perCustomer, c.customers, l, groupRows)}${groupTable(l.t.common.perDepartment, c.departments, l, groupRows)}${lateTable(tx.testedLate, lateTested, l, lateRows)}${lateTable(tx.stillOverdue, stillOverdue, l, lateRows)}${failureRatesHtml(c.failureRates, locale, rateRows, c.scrappedCounted, c.scrappedNotRead)}${intervalsHtml(c.intervals, locale, intervalRows)}${outliersHtml(c.outliers, locale, outlierRows)}${c.measurementWarnings ? warningsReportHtml(c.measurementWarnings, c.month, locale, warningRows) : ''}</td></tr>
<tr><td style="padding:16px 24px;border-top:1px solid ${C.line};font-size:12px;line-height:18px;color:${C.muted};">${esc(footer(c, l))}</td></tr>`,
		locale,
	);
	return { subject, text: t.join('\n'), html };
}

function title(text: string, count?: string): string {
	return `<h2 style="margin:24px 0 8px 0;font-size:16px;line-height:22px;font-weight:700;color:${C.ink};">${esc(text)}${count === undefined ? '' : ` <span style="color:${C.muted};font-weight:400;">(${count})</span>`}</h2>`;
}

const th = (label: string, align = 'left', width?: string) =>
	`<th align="${align}"${width ? ` width="${width}"` : ''} style="padding:6px 5px;font-size:11px;line-height:15px;font-weight:600;color:${C.muted};text-transform:uppercase;letter-spacing:.03em;border-bottom:2px solid ${C.line};">${esc(label)}</th>`;
const TD = `padding:6px 5px;border-bottom:1px solid ${C.line};vertical-align:middle;font-size:13px;line-height:18px;`;

/** One horizontal bar: a table whose first cell is `share` of its width (at least 1 px when above 0). */
function bar(share: number, color: string): string {
	const w = Math.max(0, Math.min(100, Math.round(share * 100)));
	if (w === 0) return `<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td height="12" style="height:12px;font-size:0;line-height:0;background:${C.line};">&nbsp;</td></tr></table>`;
	const rest = w === 100 ? '' : `<td width="${100 - w}%" height="12" style="height:12px;font-size:0;line-height:0;background:${C.page};">&nbsp;</td>`;
	return `<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td width="${w}%" height="12" bgcolor="${color}" style="height:12px;font-size:0;line-height:0;background:${color};">&nbsp;</td>${rest}</tr></table>`;
}

function chart(c: ComplianceReportContent, l: Lang): string {
	const tx = l.t.compliance;
	const most = Math.max(1, ...c.trend.map((m) => m.overdue));
	const rows = c.trend
		.map((m) => {
			const color = m.onTimeRate === null ? C.line : m.onTimeRate >= 0.95 ? C.green : m.onTimeRate >= 0.8 ? C.amber : C.red;
			const current = m.month === c.month ? 'font-weight:700;' : '';
			return `<tr><td style="${TD}${current}white-space:nowrap;">${esc(shortMonth(m.month, l))}${c.rebuiltMonths.includes(m.month) ? '*' : ''}</td><td style="${TD}">${bar(m.onTimeRate ?? 0, color)}</td><td align="right" style="${TD}${current}white-space:nowrap;">${esc(pct(m.onTimeRate, l))}</td><td style="${TD}">${bar(m.overdue / most, OVERDUE_BAR)}</td><td align="right" style="${TD}${current}white-space:nowrap;">${formatCount(m.overdue, l.locale)}</td></tr>`;
		})
		.join('');
	return `${title(tx.chartTitle)}<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;"><tr>${th(tx.month, 'left', '14%')}${th(tx.testedOnTime, 'left', '34%')}${th('', 'right', '12%')}${th(tx.overdueAtMonthEnd, 'left', '30%')}${th('', 'right', '10%')}</tr>${rows}</table>`;
}

const groupName = (g: MonthFigures, l: Lang) => g.name ?? (g.group === 'customer' ? l.t.common.noCustomer : l.t.common.noDepartment);

function groupTable(heading: string, groups: MonthFigures[], l: Lang, shown: number): string {
	if (groups.length === 0) return '';
	const n = (v: number) => formatCount(v, l.locale);
	const rows = groups
		.slice(0, shown)
		.map((g) => `<tr><td style="${TD}font-weight:600;">${esc(groupName(g, l))}</td><td align="right" style="${TD}">${n(g.due)}</td><td align="right" style="${TD}">${n(g.testedOnTime)}</td><td align="right" style="${TD}${g.testedLate ? `color:${C.amber};` : ''}">${n(g.testedLate)}</td><td align="right" style="${TD}${g.stillOverdue ? `color:${C.red};font-weight:600;` : ''}">${n(g.stillOverdue)}</td><td align="right" style="${TD}font-weight:600;">${esc(pct(g.onTimeRate, l))}</td></tr>`)
		.join('');
	const c = l.t.common;
	return `${title(heading)}<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;"><tr>${th(c.name)}${th(l.t.compliance.due, 'right')}${th(l.t.compliance.onTimeColumn, 'right')}${th(c.late, 'right')}${th(c.overdue, 'right')}${th(c.rate, 'right')}</tr>${rows}</table>${groups.length > shown ? `<p style="margin:8px 0 0 0;font-size:13px;color:${C.muted};">${esc(fill(c.moreCsvHtml, { count: n(groups.length - shown) }))}</p>` : ''}`;
}

function lateTable(heading: string, list: LateDevice[], l: Lang, shown: number): string {
	if (list.length === 0) return '';
	const tx = l.t.compliance;
	const day = (d: string) => formatDay(d, l.locale);
	const rows = list
		.slice(0, shown)
		.map((d) => {
			const where = [d.customerName, d.department].filter(Boolean).join(' · ') || l.t.common.nowhere;
			const when = d.testedOn === null ? fill(tx.lateDue, { due: day(d.due) }) : fill(tx.lateDueTested, { due: day(d.due), tested: day(d.testedOn) });
			return `<tr><td style="${TD}"><div style="font-weight:600;">${esc(d.designation?.trim() || l.t.common.noDesignation)} <span style="font-weight:400;color:${C.muted};">#${d.deviceId}</span></div><div style="font-size:12px;line-height:16px;color:${C.muted};">${esc(where)} · ${esc(when)}${d.firstSeenOverdue ? ` · ${esc(tx.firstSeenTag)}` : ''}</div></td><td align="right" style="${TD}white-space:nowrap;color:${d.testedOn === null ? C.red : C.amber};font-weight:600;">${esc(plural(d.daysLate, l.t.common.days, l.locale))}</td></tr>`;
		})
		.join('');
	const more = list.length > shown ? `<p style="margin:8px 0 0 0;font-size:13px;color:${C.muted};">${esc(fill(l.t.common.moreCsvHtml, { count: formatCount(list.length - shown, l.locale) }))}</p>` : '';
	return `${title(heading, formatCount(list.length, l.locale))}<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;"><tr>${th(l.t.common.device)}${th(list[0].testedOn === null ? l.t.common.overdue : l.t.common.late, 'right')}</tr>${rows}</table>${more}`;
}

function deviceText(d: LateDevice, l: Lang): string {
	const where = [d.customerName, d.department].filter(Boolean).join(' / ');
	return `${d.designation?.trim() || l.t.common.noDesignation} #${d.deviceId}${where ? `, ${where}` : ''}`;
}

/** The rules of the rebuilt history (client/rebuild.ts, docs/compliance.md), said wherever a report rests on it. */
export const REBUILD_RULES = textsFor('en').compliance.rebuildRules;

function footer(c: ComplianceReportContent, l: Lang): string {
	const text = fill(l.t.compliance.footer, { recipient: c.recipient, asOf: formatDay(c.asOf, l.locale), timeZone: c.timeZone });
	return `${c.rebuiltMonths.length > 0 ? `${l.t.compliance.rebuildRules} ` : ''}${text} ${methodText(l.locale)}`;
}

const CSV_HEAD = ['month', 'device_id', 'designation', 'customer_id', 'customer', 'department', 'due_date', 'outcome', 'tested_on', 'days_late', 'first_seen_overdue', 'history_opened_on', 'closed_on', 'rebuilt'];

function toCsv(rows: CsvRow[], locale: Locale): string {
	return csvFile([CSV_HEAD, ...rows.map((r) => [r.due.slice(0, 7), r.deviceId, r.designation, r.customerId, r.customerName, r.department, r.due, r.outcome, r.testedOn, r.daysLate, r.firstSeenOverdue, r.openedOn, r.closedOn, r.rebuilt])], locale);
}

/** The report's attachments, named as every face sends them. */
export function complianceAttachments(month: string, r: ComplianceCsvs): Array<{ filename: string; contentType: string; content: string }> {
	return [
		{ filename: `calibration-compliance-${month}.csv`, contentType: 'text/csv', content: r.csv },
		{ filename: `failure-rates-${month}.csv`, contentType: 'text/csv', content: r.failureRatesCsv },
		{ filename: `forecast-${month}.csv`, contentType: 'text/csv', content: r.forecastCsv },
		{ filename: `interval-recommendations-${month}.csv`, contentType: 'text/csv', content: r.intervalsCsv },
		{ filename: `devices-out-of-line-${month}.csv`, contentType: 'text/csv', content: r.outliersCsv },
		...(r.measurementWarningsCsv === undefined ? [] : [{ filename: `measurement-warnings-${month}.csv`, contentType: 'text/csv', content: r.measurementWarningsCsv }]),
	];
}
