import type { DueDevice, FailedStep, OverdueDevice } from '../events/schemas';
import type { FailedDevice } from './facts';

/**
 * The e-mails as a maintenance manager reads them: HTML for mail apps (one column, inline CSS,
 * tables of at most three columns so that they still read on a phone and degrade to rows of
 * text) and a plain-text part with the same content. Pure: no clock, no I/O.
 */
export interface FailedTestItem {
	testResultId: number;
	testDate: string;
	tester: string | null;
	testSequence: string | null;
	device: FailedDevice;
	failedSteps: FailedStep[];
	failedStepCount: number;
	truncatedSteps: number;
}

export interface DigestContent {
	day: string;
	recipient: string;
	environment: 'sandbox' | 'production';
	timeZone: string;
	escalationDays?: number;
	newlyOverdue: OverdueDevice[];
	/** Longest overdue first. */
	stillOverdue: OverdueDevice[];
	/** Soonest first. */
	dueSoon: DueDevice[];
	failedTests: FailedTestItem[];
	/** What the customer re-test notices did today (lambdas/email/notices.ts), when they went out. */
	notices?: string[];
}

export interface RenderedEmail {
	subject: string;
	text: string;
	html: string;
}

/** Rows listed per section; the count always covers all. */
export const MAX_ROWS = 25;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
export const FONT = "-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";
export const C = { ink: '#111827', muted: '#6b7280', line: '#e5e7eb', page: '#f3f4f6', brand: '#0f4c81', red: '#b91c1c', redBg: '#fef2f2', amber: '#b45309', amberBg: '#fffbeb', green: '#047857' };

export function renderDigest(c: DigestContent): RenderedEmail {
	const counts = [
		[c.newlyOverdue.length, 'newly overdue', 'newly overdue'],
		[c.failedTests.length, 'failed test', 'failed tests'],
		[c.dueSoon.length, 'coming due', 'coming due'],
		[c.stillOverdue.length, 'still overdue', 'still overdue'],
	] as const;
	const said = counts.filter(([n]) => n > 0).map(([n, one, many]) => `${n} ${n === 1 ? one : many}`);
	// A digest with nothing but the day's re-test notices is headed by them.
	const subject = `Calibration digest ${longDate(c.day)}: ${said.length > 0 ? said.join(', ') : (c.notices?.[0] ?? '')}${c.environment === 'sandbox' ? ' (sandbox)' : ''}`;

	// ---- plain text ----
	const t: string[] = [`Calibration digest for ${longDate(c.day)}${c.environment === 'sandbox' ? ' (sandbox account)' : ''}`, `${said.join(' · ')}`, ''];
	// Rows, not lines: a failed test takes several lines, and the "more" counts rows as the HTML does.
	const textSection = <T>(title: string, items: T[], lines: (item: T) => string[]) => {
		if (items.length === 0) return;
		t.push(`${title.toUpperCase()} (${items.length})`, ...items.slice(0, MAX_ROWS).flatMap(lines));
		if (items.length > MAX_ROWS) t.push(`  …and ${items.length - MAX_ROWS} more`);
		t.push('');
	};
	const overdueLine = (d: OverdueDevice) => [`- ${textDevice(d)}: ${overdueText(d)}${escalated(c, d) ? ' [escalated]' : ''}`];
	textSection('Newly overdue since the last digest', c.newlyOverdue, overdueLine);
	textSection('Failed tests since the last digest', c.failedTests, textFailed);
	textSection('Coming due', c.dueSoon, (d) => [`- ${textDevice(d)}: ${dueText(d)}`]);
	textSection('Still overdue, longest first', c.stillOverdue, overdueLine);
	if (c.notices?.length) t.push(...c.notices, '');
	t.push('--', footerText(c), '');

	// ---- HTML ----
	const stats = counts
		.map(([n, one, many], i) => {
			const color = n === 0 ? C.muted : i === 0 || i === 1 ? C.red : i === 2 ? C.amber : C.ink;
			return `<td width="25%" align="center" style="padding:12px 4px;border-right:${i < 3 ? `1px solid ${C.line}` : '0'};"><div style="font-size:24px;line-height:28px;font-weight:700;color:${color};">${n}</div><div style="font-size:12px;line-height:16px;color:${C.muted};">${esc(n === 1 ? one : many)}</div></td>`;
		})
		.join('');
	const sections = [
		htmlSection('Newly overdue since the last digest', c.newlyOverdue.length, ['Device', 'Was due', 'Overdue'], c.newlyOverdue.slice(0, MAX_ROWS).map((d) => deviceRow(d, dateCell(d.nextTestDate), overdueCell(c, d)))),
		c.failedTests.length === 0 ? '' : `${sectionTitle('Failed tests since the last digest', c.failedTests.length)}${c.failedTests.slice(0, MAX_ROWS).map(failedBlock).join('')}${more(c.failedTests.length)}`,
		htmlSection('Coming due', c.dueSoon.length, ['Device', 'Due', 'In'], c.dueSoon.slice(0, MAX_ROWS).map((d) => deviceRow(d, dateCell(d.nextTestDate), `<span style="color:${C.amber};font-weight:600;">${d.daysLeft === 0 ? 'today' : plural(d.daysLeft, 'day')}</span>`))),
		htmlSection('Still overdue, longest first', c.stillOverdue.length, ['Device', 'Was due', 'Overdue'], c.stillOverdue.slice(0, MAX_ROWS).map((d) => deviceRow(d, dateCell(d.nextTestDate), overdueCell(c, d)))),
	].join('');
	const html = page(
		subject,
		said.join(', '),
		`<tr><td style="background:${C.brand};padding:20px 24px;border-radius:8px 8px 0 0;"><div style="font-size:13px;line-height:18px;color:#cfe0f1;letter-spacing:.04em;text-transform:uppercase;">Test Equipment Cloud${c.environment === 'sandbox' ? ' · sandbox' : ''}</div><div style="font-size:22px;line-height:28px;font-weight:700;color:#ffffff;">Calibration digest</div><div style="font-size:14px;line-height:20px;color:#e6eef7;">${esc(longDate(c.day))}</div></td></tr>
<tr><td style="padding:0 12px;border-bottom:1px solid ${C.line};"><table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr>${stats}</tr></table></td></tr>
<tr><td style="padding:8px 24px 16px 24px;">${sections}</td></tr>${c.notices?.length ? `\n<tr><td style="padding:12px 24px;border-top:1px solid ${C.line};font-size:14px;line-height:20px;">${c.notices.map((l) => `<p style="margin:0 0 6px 0;">${esc(l)}</p>`).join('')}</td></tr>` : ''}
<tr><td style="padding:16px 24px;border-top:1px solid ${C.line};font-size:12px;line-height:18px;color:${C.muted};">${esc(footerText(c))}</td></tr>`,
	);
	return { subject, text: t.join('\n'), html };
}

/** The immediate e-mail of one failed test. */
export function renderFailedTest(f: FailedTestItem, o: { environment: 'sandbox' | 'production'; timeZone: string }): RenderedEmail {
	const name = deviceName(f.device);
	const subject = `Test failed: ${name}${f.device.idBarcode ? ` (${f.device.idBarcode})` : ''}, ${plural(f.failedStepCount, 'failed step')}${o.environment === 'sandbox' ? ' (sandbox)' : ''}`;
	const text = ['A test failed.', '', ...textFailed(f), '', '--', `Sent when the failed test was recorded; it is also in the next daily digest.`, ''].join('\n');
	const html = page(
		subject,
		`${name}: ${plural(f.failedStepCount, 'failed step')}`,
		`<tr><td style="background:${C.red};padding:20px 24px;border-radius:8px 8px 0 0;"><div style="font-size:13px;line-height:18px;color:#fde2e2;letter-spacing:.04em;text-transform:uppercase;">Test Equipment Cloud${o.environment === 'sandbox' ? ' · sandbox' : ''}</div><div style="font-size:22px;line-height:28px;font-weight:700;color:#ffffff;">A test failed</div></td></tr>
<tr><td style="padding:8px 24px 16px 24px;">${failedBlock(f)}</td></tr>
<tr><td style="padding:16px 24px;border-top:1px solid ${C.line};font-size:12px;line-height:18px;color:${C.muted};">Sent when the failed test was recorded; it is also in the next daily digest.</td></tr>`,
	);
	return { subject, text, html };
}

// ---- pieces ----

export function page(title: string, preheader: string, rows: string): string {
	return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>${esc(title)}</title>
</head>
<body style="margin:0;padding:0;background:${C.page};font-family:${FONT};color:${C.ink};">
<div style="display:none;max-height:0;overflow:hidden;">${esc(preheader)}</div>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:${C.page};"><tr><td align="center" style="padding:24px 8px;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:640px;background:#ffffff;border:1px solid ${C.line};border-radius:8px;font-family:${FONT};color:${C.ink};">
${rows}
</table>
</td></tr></table>
</body>
</html>
`;
}

function sectionTitle(title: string, count: number): string {
	return `<h2 style="margin:20px 0 8px 0;font-size:16px;line-height:22px;font-weight:700;color:${C.ink};">${esc(title)} <span style="color:${C.muted};font-weight:400;">(${count})</span></h2>`;
}

const more = (total: number) => (total > MAX_ROWS ? `<p style="margin:8px 0 0 0;font-size:13px;color:${C.muted};">…and ${total - MAX_ROWS} more (the lists in Test Equipment Cloud have them all).</p>` : '');

function htmlSection(title: string, total: number, head: [string, string, string], rows: string[]): string {
	if (total === 0) return '';
	const th = (label: string, align: string) => `<th align="${align}" style="padding:6px 8px;font-size:12px;line-height:16px;font-weight:600;color:${C.muted};text-transform:uppercase;letter-spacing:.04em;border-bottom:2px solid ${C.line};">${esc(label)}</th>`;
	return `${sectionTitle(title, total)}<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;font-size:14px;line-height:20px;"><tr>${th(head[0], 'left')}${th(head[1], 'left')}${th(head[2], 'right')}</tr>${rows.join('')}</table>${more(total)}`;
}

function deviceRow(d: { designation: string | null; idBarcode: string | null; customerName: string | null; department: string | null }, middle: string, right: string): string {
	const where = [d.customerName, d.department].filter(Boolean).join(' · ') || 'no customer or department';
	const td = `padding:8px;border-bottom:1px solid ${C.line};vertical-align:top;`;
	return `<tr><td style="${td}"><div style="font-weight:600;">${esc(deviceName(d))}</div><div style="font-size:12px;line-height:16px;color:${C.muted};">${d.idBarcode ? `ID ${esc(d.idBarcode)} · ` : ''}${esc(where)}</div></td><td style="${td}white-space:nowrap;">${middle}</td><td align="right" style="${td}white-space:nowrap;">${right}</td></tr>`;
}

const dateCell = (date: string | null) => (date ? esc(date) : `<span style="color:${C.muted};">unknown</span>`);

function overdueCell(c: DigestContent, d: OverdueDevice): string {
	const days = d.daysOverdue === null ? 'overdue' : d.daysOverdue <= 0 ? 'due today' : plural(d.daysOverdue, 'day');
	const badge = escalated(c, d) ? `<div style="display:inline-block;margin-top:2px;padding:0 6px;border-radius:9px;background:${C.redBg};color:${C.red};font-size:11px;line-height:18px;font-weight:600;">escalated</div>` : '';
	return `<span style="color:${C.red};font-weight:600;">${esc(days)}</span>${badge ? `<br>${badge}` : ''}`;
}

function failedBlock(f: FailedTestItem): string {
	const where = [f.device.customerName, f.device.department].filter(Boolean).join(' · ');
	const meta = [`tested ${f.testDate.slice(0, 10)}`, f.tester ? `by ${f.tester}` : '', f.testSequence ? `sequence ${f.testSequence}` : '', where].filter(Boolean).join(' · ');
	const td = `padding:6px 8px;border-bottom:1px solid ${C.line};vertical-align:top;font-size:13px;line-height:18px;`;
	const rows = f.failedSteps
		.flatMap((s) => {
			const failing = s.measurements.filter((m) => m.passed === false);
			const shown = failing.length > 0 ? failing : s.measurements.slice(0, 1);
			if (shown.length === 0) return [`<tr><td style="${td}">${esc(stepName(s))}</td><td colspan="2" style="${td}color:${C.muted};">no measurement recorded</td></tr>`];
			return shown.map((m, i) => `<tr><td style="${td}">${i === 0 ? esc(stepName(s)) : ''}${m.name ? `<div style="color:${C.muted};font-size:12px;">${esc(m.name)}</div>` : ''}</td><td align="right" style="${td}color:${C.red};font-weight:600;white-space:nowrap;">${esc(value(m.value, m.unit))}</td><td align="right" style="${td}white-space:nowrap;">${esc(limits(m))}</td></tr>`);
		})
		.join('');
	const left = f.failedStepCount - f.failedSteps.length;
	const th = (label: string, align: string) => `<th align="${align}" style="padding:4px 8px;font-size:11px;font-weight:600;color:${C.muted};text-transform:uppercase;letter-spacing:.04em;border-bottom:2px solid ${C.line};">${label}</th>`;
	return `<div style="margin:0 0 16px 0;padding:12px;border:1px solid #fecaca;border-left:4px solid ${C.red};border-radius:6px;background:#ffffff;">
<div style="font-size:15px;line-height:20px;font-weight:700;">${esc(deviceName(f.device))}${f.device.idBarcode ? ` <span style="font-weight:400;color:${C.muted};">ID ${esc(f.device.idBarcode)}</span>` : ''}</div>
<div style="font-size:12px;line-height:18px;color:${C.muted};margin-bottom:8px;">${esc(meta)} · ${esc(plural(f.failedStepCount, 'failed step'))}</div>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;"><tr>${th('Step', 'left')}${th('Measured', 'right')}${th('Limits', 'right')}</tr>${rows}</table>${left > 0 ? `<div style="font-size:12px;color:${C.muted};margin-top:6px;">…and ${plural(left, 'more failed step')} (see the test result in Test Equipment Cloud).</div>` : ''}
</div>`;
}

function textFailed(f: FailedTestItem): string[] {
	const lines = [`- ${textDevice(f.device)}: failed test ${f.testDate.slice(0, 10)}${f.tester ? ` by ${f.tester}` : ''}, ${plural(f.failedStepCount, 'failed step')}`];
	for (const s of f.failedSteps) {
		const failing = s.measurements.filter((m) => m.passed === false);
		if (failing.length === 0) lines.push(`    ${stepName(s)}: failed${s.measurements.length === 0 ? ' (no measurement recorded)' : ''}`);
		for (const m of failing) lines.push(`    ${stepName(s)}${m.name ? `, ${m.name}` : ''}: measured ${value(m.value, m.unit)}, limits ${limits(m)}`);
	}
	const left = f.failedStepCount - f.failedSteps.length;
	if (left > 0) lines.push(`    …and ${plural(left, 'more failed step')}`);
	return lines;
}

const deviceName = (d: { designation: string | null }) => d.designation?.trim() || '(no designation)';
const stepName = (s: FailedStep) => `${s.step === null ? 'Step' : `Step ${s.step}`}${s.name ? ` ${s.name}` : ''}`;

function textDevice(d: { designation: string | null; idBarcode: string | null; customerName: string | null; department: string | null }): string {
	const where = [d.customerName, d.department].filter(Boolean).join(' / ');
	return `${deviceName(d)}${d.idBarcode ? ` (ID ${d.idBarcode})` : ''}${where ? `, ${where}` : ''}`;
}

function overdueText(d: OverdueDevice): string {
	if (d.daysOverdue === null) return d.nextTestDate ? `due ${d.nextTestDate}` : 'overdue';
	if (d.daysOverdue <= 0) return `due today${d.nextTestDate ? ` (${d.nextTestDate})` : ''}`;
	return `${plural(d.daysOverdue, 'day')} overdue${d.nextTestDate ? ` (was due ${d.nextTestDate})` : ''}`;
}

const dueText = (d: DueDevice) => `due ${d.nextTestDate} (${d.daysLeft === 0 ? 'today' : `in ${plural(d.daysLeft, 'day')}`})`;
const escalated = (c: DigestContent, d: OverdueDevice) => c.escalationDays !== undefined && (d.daysOverdue ?? 0) > c.escalationDays;

function value(v: number | null, unit: string | null): string {
	return v === null ? 'no value' : `${v}${unit ? ` ${unit}` : ''}`;
}

function limits(m: { lowLimit: number | null; highLimit: number | null; unit: string | null }): string {
	const u = m.unit ? ` ${m.unit}` : '';
	if (m.lowLimit !== null && m.highLimit !== null) return `${m.lowLimit} – ${m.highLimit}${u}`;
	if (m.lowLimit !== null) return `≥ ${m.lowLimit}${u}`;
	if (m.highLimit !== null) return `≤ ${m.highLimit}${u}`;
	return 'none recorded';
}

function footerText(c: DigestContent): string {
	return `Sent to ${c.recipient} for the devices routed to this address${c.escalationDays !== undefined ? `; "escalated" marks devices overdue for more than ${plural(c.escalationDays, 'day')}` : ''}. One digest a day (${c.timeZone} time); a day with nothing to report sends none.`;
}

function longDate(day: string): string {
	const d = new Date(`${day}T12:00:00Z`);
	return Number.isNaN(d.getTime()) ? day : new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' }).format(d);
}

/** HTML text and attribute escaping. */
export function esc(text: string): string {
	return text.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
}
