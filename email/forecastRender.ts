import { COMPLIANCE_GROUP_BY, type ComplianceGroupBy } from '../client/compliance';
import type { Forecast, ForecastGroup } from '../client/forecast';
import { csvFile } from './csv';
import { C, esc } from './render';
import { DEFAULT_LOCALE, fill, formatDay, formatMonth, formatNumber, plural, textsFor, type Locale } from './texts';

/**
 * The forecast of the monthly compliance report: the recipient's devices falling due in each of
 * the next 12 months and overdue now (client/forecast.ts), as an HTML chart of table cells (bars
 * like the report's 12-month chart), plain-text lines and a CSV per customer and department.
 * Texts from the `forecast` section of the catalogues (texts/en.ts, texts/de.ts). Pure.
 */

/** What the report holds: group by → forecast (as `allForecasts` returns it). */
export type ForecastTables = Record<ComplianceGroupBy, Forecast>;

/** The due bars: the brand colour; the overdue bar red, as elsewhere in the report. */
const DUE_BAR = C.brand;

const account = (t: ForecastTables): ForecastGroup => t.all.groups[0];

/** The sentences under the heading: what is counted from when, totals, devices not counted, the assumption. */
function notes(t: ForecastTables, locale: Locale): string[] {
	const x = textsFor(locale).forecast;
	const g = account(t);
	return [
		fill(x.intro, { day: formatDay(t.all.from, locale) }),
		`${plural(g.dueInHorizon, x.dueDates, locale)}; ${plural(g.overdue, x.overdueDevices, locale)}.`,
		g.withoutDueDate > 0 ? plural(g.withoutDueDate, x.withoutDueDate, locale) : '',
		g.withoutInterval > 0 ? plural(g.withoutInterval, x.withoutInterval, locale) : '',
		x.rule,
	].filter(Boolean);
}

// ---- plain text ------------------------------------------------------------------------------

export function forecastText(t: ForecastTables, locale: Locale = DEFAULT_LOCALE): string[] {
	const x = textsFor(locale).forecast;
	const g = account(t);
	const most = Math.max(1, g.overdue, ...g.months.map((m) => m.due));
	const line = (label: string, n: number) => `  ${label.padEnd(16)} ${'#'.repeat(Math.round((n / most) * 20)).padEnd(20)}  ${formatNumber(n, locale).padStart(5)}`;
	return [x.textHeading, ...notes(t, locale), line(x.overdueNow, g.overdue), ...g.months.map((m) => line(formatMonth(m.month, locale, 'short'), m.due)), ''];
}

// ---- HTML --------------------------------------------------------------------------------------

const TD = `padding:6px 5px;border-bottom:1px solid ${C.line};vertical-align:middle;font-size:13px;line-height:18px;`;
const th = (label: string, align = 'left', width?: string) =>
	`<th align="${align}"${width ? ` width="${width}"` : ''} style="padding:6px 5px;font-size:11px;line-height:15px;font-weight:600;color:${C.muted};text-transform:uppercase;letter-spacing:.03em;border-bottom:2px solid ${C.line};">${esc(label)}</th>`;

/** One horizontal bar: a table whose first cell is `share` of its width (a grey line when 0). */
function bar(share: number, color: string): string {
	const w = Math.max(0, Math.min(100, Math.round(share * 100)));
	if (w === 0) return `<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td height="12" style="height:12px;font-size:0;line-height:0;background:${C.line};">&nbsp;</td></tr></table>`;
	const rest = w === 100 ? '' : `<td width="${100 - w}%" height="12" style="height:12px;font-size:0;line-height:0;background:${C.page};">&nbsp;</td>`;
	return `<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td width="${w}%" height="12" bgcolor="${color}" style="height:12px;font-size:0;line-height:0;background:${color};">&nbsp;</td>${rest}</tr></table>`;
}

/** The HTML fragment: a heading, the notes, and a bar per month after the bar of the overdue now. */
export function forecastHtml(t: ForecastTables, locale: Locale = DEFAULT_LOCALE): string {
	const x = textsFor(locale).forecast;
	const g = account(t);
	const most = Math.max(1, g.overdue, ...g.months.map((m) => m.due));
	const row = (label: string, n: number, color: string, strong = false) =>
		`<tr><td style="${TD}white-space:nowrap;${strong ? 'font-weight:700;' : ''}">${esc(label)}</td><td style="${TD}">${bar(n / most, color)}</td><td align="right" style="${TD}white-space:nowrap;${strong ? 'font-weight:700;' : ''}">${esc(formatNumber(n, locale))}</td></tr>`;
	const rows = [row(x.overdueNow, g.overdue, g.overdue > 0 ? C.red : C.line, g.overdue > 0), ...g.months.map((m) => row(formatMonth(m.month, locale, 'short'), m.due, DUE_BAR))].join('');
	const head = `<h2 style="margin:24px 0 8px 0;font-size:16px;line-height:22px;font-weight:700;color:${C.ink};">${esc(x.heading)}</h2>`;
	const text = notes(t, locale)
		.map((n) => `<p style="margin:4px 0;font-size:13px;line-height:18px;color:${C.muted};">${esc(n)}</p>`)
		.join('');
	return `${head}${text}<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;"><tr>${th(x.month, 'left', '22%')}${th(x.due, 'left', '63%')}${th('', 'right', '15%')}</tr>${rows}</table>`;
}

// ---- CSV ---------------------------------------------------------------------------------------

export const FORECAST_CSV_HEAD = ['group_by', 'group_id', 'group_name', 'month', 'due', 'overdue_now', 'devices', 'without_due_date', 'without_interval', 'from', 'to'];

/** One line per grouping, group and month (the account, each customer, each department). */
export function forecastCsv(t: ForecastTables, locale: Locale = DEFAULT_LOCALE): string {
	const rows: Array<Array<string | number | null>> = [FORECAST_CSV_HEAD];
	for (const by of COMPLIANCE_GROUP_BY) {
		const f = t[by];
		for (const g of f.groups) for (const m of g.months) rows.push([by, g.id, g.name, m.month, m.due, g.overdue, g.devices, g.withoutDueDate, g.withoutInterval, f.from, f.to]);
	}
	return csvFile(rows, locale);
}
