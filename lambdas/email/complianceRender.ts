import type { MonthFigures } from '../../client';
import type { ComplianceReportContent, CsvRow, LateDevice } from './compliance';
import { csvCell } from './csv';
import { failureRatesCsv, failureRatesHtml, failureRatesText } from './failureRatesRender';
import { forecastCsv, forecastHtml, forecastText } from './forecastRender';
import { C, esc, page, type RenderedEmail } from './render';
import { DEFAULT_LOCALE, type Locale } from './texts';

export { csvCell };

/**
 * The monthly compliance report as HTML, plain text and CSV. The chart is made of table cells
 * with background colours and widths (no SVG, no script, no image): Gmail, Outlook and Apple Mail
 * draw it the same, and it reads as rows of figures where colours are off. Pure.
 */

/** Devices listed in the late table; the count covers all, the CSV has every one. */
export const MAX_LATE_ROWS = 40;

/** The overdue bars: slate, apart from the rate's traffic-light colours. */
const OVERDUE_BAR = '#475569';

const pct = (rate: number | null) => (rate === null ? '–' : `${Math.round(rate * 1000) / 10}%`);
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function monthName(month: string): string {
	const d = new Date(`${month}-15T12:00:00Z`);
	return Number.isNaN(d.getTime()) ? month : new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', month: 'long', year: 'numeric' }).format(d);
}

function shortMonth(month: string): string {
	const d = new Date(`${month}-15T12:00:00Z`);
	return new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', month: 'short', year: '2-digit' }).format(d);
}

const changeText = (c: ComplianceReportContent) => (c.change === null ? 'no rate the month before' : `${c.change > 0 ? '+' : c.change < 0 ? '−' : '±'}${Math.abs(c.change)} points from ${monthName(c.previous.month)}`);

export function renderComplianceReport(c: ComplianceReportContent, locale: Locale = DEFAULT_LOCALE): RenderedEmail & { csv: string; failureRatesCsv: string; forecastCsv: string } {
	const a = c.all;
	const subject = `Calibration compliance ${monthName(c.month)}: ${pct(a.onTimeRate)} tested on time (${plural(a.due, 'due date')})${c.environment === 'sandbox' ? ' (sandbox)' : ''}`;
	const lateTested = c.late.filter((d) => d.testedOn !== null);
	const stillOverdue = c.late.filter((d) => d.testedOn === null);
	const notes = [
		a.firstSeenOverdue > 0 ? `${plural(a.firstSeenOverdue, 'due date was', 'due dates were')} already overdue when the history first saw ${a.firstSeenOverdue === 1 ? 'it' : 'them'} (the history starts ${c.historySince ?? 'then'}; earlier lateness is not known).` : '',
		a.closedWithoutTest > 0 ? `${plural(a.closedWithoutTest, 'due date')} ended without a test (device deleted or due date moved): not counted in the rate.` : '',
		c.withoutDueDate > 0 ? `${plural(c.withoutDueDate, 'device has', 'devices have')} no due date: not counted.` : '',
	].filter(Boolean);

	// ---- plain text ----
	const t: string[] = [
		`Calibration compliance, ${monthName(c.month)}${c.environment === 'sandbox' ? ' (sandbox account)' : ''}`,
		`On time: ${pct(a.onTimeRate)} (${changeText(c)})`,
		`${plural(a.due, 'due date')}: ${a.testedOnTime} tested on time, ${a.testedLate} tested late${a.maxDaysLate === null ? '' : ` (median ${a.medianDaysLate} days, at most ${a.maxDaysLate})`}, ${a.stillOverdue} still overdue${a.closedWithoutTest ? `, ${a.closedWithoutTest} ended without a test` : ''}.`,
		...notes,
		'',
		'LAST 12 MONTHS (on-time rate, overdue at month end)',
		...c.trend.map((m) => `  ${m.month}${c.rebuiltMonths.includes(m.month) ? '*' : ' '} ${pct(m.onTimeRate).padStart(6)}  ${'#'.repeat(m.onTimeRate === null ? 0 : Math.round(m.onTimeRate * 20)).padEnd(20)}  ${String(m.overdue).padStart(4)} overdue`),
		'',
		...forecastText(c.forecast, locale),
	];
	const textTable = (title: string, groups: MonthFigures[]) => {
		if (groups.length === 0) return;
		t.push(title.toUpperCase());
		for (const g of groups) t.push(`  ${groupName(g)}: ${pct(g.onTimeRate)} on time; ${g.due} due, ${g.testedOnTime} on time, ${g.testedLate} late, ${g.stillOverdue} overdue`);
		t.push('');
	};
	textTable('Per customer', c.customers);
	textTable('Per department', c.departments);
	const textLate = (title: string, list: LateDevice[]) => {
		if (list.length === 0) return;
		t.push(`${title.toUpperCase()} (${list.length})`);
		for (const d of list.slice(0, MAX_LATE_ROWS)) t.push(`- ${deviceText(d)}: due ${d.due}, ${d.testedOn === null ? `${plural(d.daysLate, 'day')} overdue` : `tested ${d.testedOn}, ${plural(d.daysLate, 'day')} late`}${d.firstSeenOverdue ? ' (first seen overdue)' : ''}`);
		if (list.length > MAX_LATE_ROWS) t.push(`  …and ${list.length - MAX_LATE_ROWS} more (see the attached CSV)`);
		t.push('');
	};
	textLate('Tested late', lateTested);
	textLate('Still overdue', stillOverdue);
	t.push(...failureRatesText(c.failureRates), '');
	t.push('--', footer(c), '');

	// ---- HTML ----
	const stats = [
		[pct(a.onTimeRate), 'on time', a.onTimeRate === null ? C.muted : a.onTimeRate >= 0.95 ? C.green : a.onTimeRate >= 0.8 ? C.amber : C.red],
		[String(a.due), a.due === 1 ? 'due date' : 'due dates', C.ink],
		[String(a.testedLate), 'tested late', a.testedLate ? C.amber : C.muted],
		[String(a.stillOverdue), 'still overdue', a.stillOverdue ? C.red : C.muted],
	]
		.map(([value, label, color], i) => `<td width="25%" align="center" style="padding:12px 4px;border-right:${i < 3 ? `1px solid ${C.line}` : '0'};"><div style="font-size:22px;line-height:28px;font-weight:700;color:${color};">${esc(value)}</div><div style="font-size:12px;line-height:16px;color:${C.muted};">${esc(label)}</div></td>`)
		.join('');
	const headline = `<p style="margin:16px 0 4px 0;font-size:15px;line-height:22px;"><strong>${esc(pct(a.onTimeRate))}</strong> of the devices due in ${esc(monthName(c.month))} were tested by their due date (${esc(changeText(c))}).${a.maxDaysLate === null ? '' : ` Late tests came a median of ${esc(String(a.medianDaysLate))} days late, at most ${esc(String(a.maxDaysLate))}.`}</p>${notes.map((n) => `<p style="margin:4px 0;font-size:13px;line-height:18px;color:${C.muted};">${esc(n)}</p>`).join('')}`;
	const html = page(
		subject,
		`${pct(a.onTimeRate)} on time, ${a.testedLate} late, ${a.stillOverdue} still overdue`,
		`<tr><td style="background:${C.brand};padding:20px 24px;border-radius:8px 8px 0 0;"><div style="font-size:13px;line-height:18px;color:#cfe0f1;letter-spacing:.04em;text-transform:uppercase;">Test Equipment Cloud${c.environment === 'sandbox' ? ' · sandbox' : ''}</div><div style="font-size:22px;line-height:28px;font-weight:700;color:#ffffff;">Calibration compliance</div><div style="font-size:14px;line-height:20px;color:#e6eef7;">${esc(monthName(c.month))}</div></td></tr>
<tr><td style="padding:0 12px;border-bottom:1px solid ${C.line};"><table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr>${stats}</tr></table></td></tr>
<tr><td style="padding:0 16px 16px 16px;">${headline}${chart(c)}${forecastHtml(c.forecast, locale)}${groupTable('Per customer', c.customers)}${groupTable('Per department', c.departments)}${lateTable('Tested late', lateTested)}${lateTable('Still overdue', stillOverdue)}${failureRatesHtml(c.failureRates)}</td></tr>
<tr><td style="padding:16px 24px;border-top:1px solid ${C.line};font-size:12px;line-height:18px;color:${C.muted};">${esc(footer(c))}</td></tr>`,
	);
	return { subject, text: t.join('\n'), html, csv: toCsv(c.rows), failureRatesCsv: failureRatesCsv(c.failureRates), forecastCsv: forecastCsv(c.forecast) };
}

function title(text: string, count?: number): string {
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

function chart(c: ComplianceReportContent): string {
	const most = Math.max(1, ...c.trend.map((m) => m.overdue));
	const rows = c.trend
		.map((m) => {
			const color = m.onTimeRate === null ? C.line : m.onTimeRate >= 0.95 ? C.green : m.onTimeRate >= 0.8 ? C.amber : C.red;
			const current = m.month === c.month ? 'font-weight:700;' : '';
			return `<tr><td style="${TD}${current}white-space:nowrap;">${esc(shortMonth(m.month))}${c.rebuiltMonths.includes(m.month) ? '*' : ''}</td><td style="${TD}">${bar(m.onTimeRate ?? 0, color)}</td><td align="right" style="${TD}${current}white-space:nowrap;">${esc(pct(m.onTimeRate))}</td><td style="${TD}">${bar(m.overdue / most, OVERDUE_BAR)}</td><td align="right" style="${TD}${current}white-space:nowrap;">${m.overdue}</td></tr>`;
		})
		.join('');
	return `${title('The last 12 months')}<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;"><tr>${th('Month', 'left', '14%')}${th('Tested on time', 'left', '34%')}${th('', 'right', '12%')}${th('Overdue at month end', 'left', '30%')}${th('', 'right', '10%')}</tr>${rows}</table>`;
}

const groupName = (g: MonthFigures) => g.name ?? (g.group === 'customer' ? 'No customer' : 'No department');

function groupTable(heading: string, groups: MonthFigures[]): string {
	if (groups.length === 0) return '';
	const rows = groups
		.map((g) => `<tr><td style="${TD}font-weight:600;">${esc(groupName(g))}</td><td align="right" style="${TD}">${g.due}</td><td align="right" style="${TD}">${g.testedOnTime}</td><td align="right" style="${TD}${g.testedLate ? `color:${C.amber};` : ''}">${g.testedLate}</td><td align="right" style="${TD}${g.stillOverdue ? `color:${C.red};font-weight:600;` : ''}">${g.stillOverdue}</td><td align="right" style="${TD}font-weight:600;">${esc(pct(g.onTimeRate))}</td></tr>`)
		.join('');
	return `${title(heading)}<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;"><tr>${th('Name')}${th('Due', 'right')}${th('On time', 'right')}${th('Late', 'right')}${th('Overdue', 'right')}${th('Rate', 'right')}</tr>${rows}</table>`;
}

function lateTable(heading: string, list: LateDevice[]): string {
	if (list.length === 0) return '';
	const rows = list
		.slice(0, MAX_LATE_ROWS)
		.map((d) => {
			const where = [d.customerName, d.department].filter(Boolean).join(' · ') || 'no customer or department';
			const when = d.testedOn === null ? `due ${d.due}` : `due ${d.due}, tested ${d.testedOn}`;
			return `<tr><td style="${TD}"><div style="font-weight:600;">${esc(d.designation?.trim() || '(no designation)')} <span style="font-weight:400;color:${C.muted};">#${d.deviceId}</span></div><div style="font-size:12px;line-height:16px;color:${C.muted};">${esc(where)} · ${esc(when)}${d.firstSeenOverdue ? ' · first seen overdue' : ''}</div></td><td align="right" style="${TD}white-space:nowrap;color:${d.testedOn === null ? C.red : C.amber};font-weight:600;">${esc(plural(d.daysLate, 'day'))}</td></tr>`;
		})
		.join('');
	const more = list.length > MAX_LATE_ROWS ? `<p style="margin:8px 0 0 0;font-size:13px;color:${C.muted};">…and ${list.length - MAX_LATE_ROWS} more (the attached CSV has them all).</p>` : '';
	return `${title(heading, list.length)}<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;"><tr>${th('Device')}${th(list[0].testedOn === null ? 'Overdue' : 'Late', 'right')}</tr>${rows}</table>${more}`;
}

function deviceText(d: LateDevice): string {
	const where = [d.customerName, d.department].filter(Boolean).join(' / ');
	return `${d.designation?.trim() || '(no designation)'} #${d.deviceId}${where ? `, ${where}` : ''}`;
}

/** The rules of the rebuilt history (client/rebuild.ts, docs/compliance.md), said wherever a report rests on it. */
export const REBUILD_RULES =
	'Months marked * rest on the history rebuilt from the test results: after a test on day t (any result) a device is next due on t plus its test interval in months; that due date ends with its next test (on time when on or before it, late after it) or is still open. The current interval, customer and department of each device are used throughout (an approximation where they changed); a deleted device ends with its last result. Where the history recorded a due date while watching, its record is used.';

function footer(c: ComplianceReportContent): string {
	return `${c.rebuiltMonths.length > 0 ? `${REBUILD_RULES} ` : ''}Sent to ${c.recipient} for the devices routed to this address, counted where each was on its due date. Figures as of ${c.asOf}: a device counts as on time when tested on or before its due date. One report a month, on the first day at the digest hour (${c.timeZone} time); the attached CSVs list every due date of the month and its outcome, and the failure rates.`;
}

const CSV_HEAD = ['month', 'device_id', 'designation', 'customer_id', 'customer', 'department', 'due_date', 'outcome', 'tested_on', 'days_late', 'first_seen_overdue', 'history_opened_on', 'closed_on', 'rebuilt'];

function toCsv(rows: CsvRow[]): string {
	const lines = [CSV_HEAD.join(',')];
	for (const r of rows) {
		lines.push([r.due.slice(0, 7), r.deviceId, r.designation, r.customerId, r.customerName, r.department, r.due, r.outcome, r.testedOn, r.daysLate, r.firstSeenOverdue, r.openedOn, r.closedOn, r.rebuilt].map(csvCell).join(','));
	}
	return `${lines.join('\r\n')}\r\n`;
}
