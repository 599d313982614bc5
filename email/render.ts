import { clipOptional, withinBudget } from './budget';
import type { DueDevice, FailedDevice, FailedStep, OverdueDevice } from './devices';
import type { MeasurementWarningItem } from '../client/measurementWarningRows';
import { DEFAULT_LOCALE, fill, formatCount, formatDay, formatLongDay, formOf, plural, textsFor, type Catalog, type Locale } from './texts';

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
	/** New measured-value warnings (near the limit, or drifting toward it), oldest test first; absent when there are none. */
	measurementWarnings?: MeasurementWarningItem[];
	/** What the customer re-test notices did today (lambdas/email/notices.ts), when they went out. */
	notices?: string[];
}

export interface RenderedEmail {
	subject: string;
	text: string;
	html: string;
}

/** Rows listed per section (fewer when the HTML would outgrow its budget, email/budget.ts); the count always covers all. */
export const MAX_ROWS = 25;
/** Failed steps, and measurements per step, shown per failed test (fewer within the budget). */
export const MAX_STEP_ROWS = 50;

export const FONT = "-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";
export const C = { ink: '#111827', muted: '#6b7280', line: '#e5e7eb', page: '#f3f4f6', brand: '#0f4c81', red: '#b91c1c', redBg: '#fef2f2', amber: '#b45309', amberBg: '#fffbeb', green: '#047857' };

/** The texts and forms of one language, as the pieces below take them. */
interface Lang {
	locale: Locale;
	t: Catalog;
}
const langOf = (locale: Locale): Lang => ({ locale, t: textsFor(locale) });

/** "Test Equipment Cloud" (the product's name, in every language) and the sandbox mark. */
export const brand = (environment: 'sandbox' | 'production', l: Lang) => `Test Equipment Cloud${environment === 'sandbox' ? ` · ${l.t.common.sandboxBrand}` : ''}`;

/** The counts the digest opens with, in its reader's language: "2 newly overdue", "1 failed test", … */
export function digestCounts(c: DigestContent, locale: Locale): Array<{ n: number; label: string }> {
	const k = textsFor(locale).digest.counts;
	return [
		{ n: c.newlyOverdue.length, label: formOf(c.newlyOverdue.length, k.newlyOverdue) },
		{ n: c.failedTests.length, label: formOf(c.failedTests.length, k.failedTests) },
		{ n: c.dueSoon.length, label: formOf(c.dueSoon.length, k.comingDue) },
		{ n: c.stillOverdue.length, label: formOf(c.stillOverdue.length, k.stillOverdue) },
	];
}

/** What the digest says in its subject and first line: the counts that are not zero, the measured-value warnings after them. */
export function digestSaid(c: DigestContent, locale: Locale): string[] {
	const warnings = c.measurementWarnings?.length ?? 0;
	const counts = [...digestCounts(c, locale), { n: warnings, label: formOf(warnings, textsFor(locale).warnings.count) }];
	return counts.filter(({ n }) => n > 0).map(({ n, label }) => `${formatCount(n, locale)} ${label}`);
}

export function renderDigest(c: DigestContent, locale: Locale = DEFAULT_LOCALE): RenderedEmail {
	const shown = { ...c, ...(c.measurementWarnings ? { measurementWarnings: c.measurementWarnings.map(clipWarning) } : {}), newlyOverdue: c.newlyOverdue.map(clipDevice), stillOverdue: c.stillOverdue.map(clipDevice), dueSoon: c.dueSoon.map(clipDevice), failedTests: c.failedTests.map(clipFailed) };
	return withinBudget((rows) => digestWith(shown, locale, rows, Math.min(rows * 2, MAX_STEP_ROWS)), MAX_ROWS);
}

/** A device's texts as the e-mails show them: each at most FIELD_MAX_CHARS (email/budget.ts). */
function clipDevice<T extends { designation: string | null; idBarcode: string | null; customerName: string | null; department: string | null }>(d: T): T {
	return { ...d, designation: clipOptional(d.designation), idBarcode: clipOptional(d.idBarcode), customerName: clipOptional(d.customerName), department: clipOptional(d.department) };
}

/** A warning's texts as the e-mails show them. */
export function clipWarning(w: MeasurementWarningItem): MeasurementWarningItem {
	return { ...w, device: clipDevice(w.device), step: clipOptional(w.step) ?? w.step, measurement: clipOptional(w.measurement), unit: clipOptional(w.unit) };
}

/** A failed test's texts as the e-mails show them: the device's, the tester, the sequence, each step's and measurement's. */
function clipFailed(f: FailedTestItem): FailedTestItem {
	return {
		...f,
		device: clipDevice(f.device),
		tester: clipOptional(f.tester),
		testSequence: clipOptional(f.testSequence),
		failedSteps: f.failedSteps.map((s) => ({ ...s, name: clipOptional(s.name), measurements: s.measurements.map((m) => ({ ...m, name: clipOptional(m.name), unit: clipOptional(m.unit) })) })),
	};
}

/** The digest with at most `rows` rows per section and `steps` failed steps per failed test. */
function digestWith(c: DigestContent, locale: Locale, rows: number, steps: number): RenderedEmail {
	const l = langOf(locale);
	const { t: tx } = l;
	const counts = digestCounts(c, locale);
	const said = digestSaid(c, locale);
	const date = formatLongDay(c.day, locale);
	// A digest with nothing but the day's re-test notices is headed by them.
	const subject = `${fill(tx.digest.subject, { date, counts: said.length > 0 ? said.join(', ') : (c.notices?.[0] ?? '') })}${c.environment === 'sandbox' ? tx.common.sandboxSubject : ''}`;

	// ---- plain text ----
	const t: string[] = [`${fill(tx.digest.textTitle, { date })}${c.environment === 'sandbox' ? ` ${tx.common.sandboxAccount}` : ''}`, `${said.join(' · ')}`, ''];
	// Rows, not lines: a failed test takes several lines, and the "more" counts rows as the HTML does.
	const textSection = <T>(title: string, items: T[], lines: (item: T) => string[]) => {
		if (items.length === 0) return;
		t.push(`${title.toUpperCase()} (${formatCount(items.length, locale)})`, ...items.slice(0, rows).flatMap(lines));
		if (items.length > rows) t.push(`  ${fill(tx.common.moreText, { count: formatCount(items.length - rows, locale) })}`);
		t.push('');
	};
	const overdueLine = (d: OverdueDevice) => [`- ${textDevice(d, l)}: ${overdueText(d, l)}${escalated(c, d) ? ` ${tx.digest.escalatedTag}` : ''}`];
	textSection(tx.digest.newlyOverdueTitle, c.newlyOverdue, overdueLine);
	textSection(tx.digest.failedTestsTitle, c.failedTests, (f) => textFailed(f, l, steps));
	textSection(tx.warnings.title, c.measurementWarnings ?? [], (w) => warningLines(w, locale));
	textSection(tx.digest.comingDueTitle, c.dueSoon, (d) => [`- ${textDevice(d, l)}: ${dueText(d, l)}`]);
	textSection(tx.digest.stillOverdueTitle, c.stillOverdue, overdueLine);
	if (c.notices?.length) t.push(...c.notices, '');
	t.push('--', footerText(c, l), '');

	// ---- HTML ----
	const stats = counts
		.map(({ n, label }, i) => {
			const color = n === 0 ? C.muted : i === 0 || i === 1 ? C.red : i === 2 ? C.amber : C.ink;
			return `<td width="25%" align="center" style="padding:12px 4px;border-right:${i < 3 ? `1px solid ${C.line}` : '0'};"><div style="font-size:24px;line-height:28px;font-weight:700;color:${color};">${formatCount(n, locale)}</div><div style="font-size:12px;line-height:16px;color:${C.muted};">${esc(label)}</div></td>`;
		})
		.join('');
	const overdueHead: [string, string, string] = [tx.common.device, tx.digest.wasDue, tx.common.overdue];
	const sections = [
		htmlSection(tx.digest.newlyOverdueTitle, c.newlyOverdue.length, overdueHead, c.newlyOverdue.slice(0, rows).map((d) => deviceRow(d, dateCell(d.nextTestDate, l), overdueCell(c, d, l), l)), l),
		c.failedTests.length === 0 ? '' : `${sectionTitle(tx.digest.failedTestsTitle, c.failedTests.length, l)}${c.failedTests.slice(0, rows).map((f) => failedBlock(f, l, steps)).join('')}${more(c.failedTests.length, rows, l)}`,
		warningsSection(c.measurementWarnings ?? [], rows, l),
		htmlSection(tx.digest.comingDueTitle, c.dueSoon.length, [tx.common.device, tx.digest.due, tx.digest.in], c.dueSoon.slice(0, rows).map((d) => deviceRow(d, dateCell(d.nextTestDate, l), `<span style="color:${C.amber};font-weight:600;">${d.daysLeft === 0 ? esc(tx.digest.today) : esc(plural(d.daysLeft, tx.common.days, locale))}</span>`, l)), l),
		htmlSection(tx.digest.stillOverdueTitle, c.stillOverdue.length, overdueHead, c.stillOverdue.slice(0, rows).map((d) => deviceRow(d, dateCell(d.nextTestDate, l), overdueCell(c, d, l), l)), l),
	].join('');
	const html = page(
		subject,
		said.join(', '),
		`<tr><td style="background:${C.brand};padding:20px 24px;border-radius:8px 8px 0 0;"><div style="font-size:13px;line-height:18px;color:#cfe0f1;letter-spacing:.04em;text-transform:uppercase;">${esc(brand(c.environment, l))}</div><div style="font-size:22px;line-height:28px;font-weight:700;color:#ffffff;">${esc(tx.digest.heading)}</div><div style="font-size:14px;line-height:20px;color:#e6eef7;">${esc(date)}</div></td></tr>
<tr><td style="padding:0 12px;border-bottom:1px solid ${C.line};"><table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr>${stats}</tr></table></td></tr>
<tr><td style="padding:8px 24px 16px 24px;">${sections}</td></tr>${c.notices?.length ? `\n<tr><td style="padding:12px 24px;border-top:1px solid ${C.line};font-size:14px;line-height:20px;">${c.notices.map((line) => `<p style="margin:0 0 6px 0;">${esc(line)}</p>`).join('')}</td></tr>` : ''}
<tr><td style="padding:16px 24px;border-top:1px solid ${C.line};font-size:12px;line-height:18px;color:${C.muted};">${esc(footerText(c, l))}</td></tr>`,
		locale,
	);
	return { subject, text: t.join('\n'), html };
}

/** The immediate e-mail of one failed test. */
export function renderFailedTest(f: FailedTestItem, o: { environment: 'sandbox' | 'production'; timeZone: string; locale?: Locale }): RenderedEmail {
	const shown = clipFailed(f);
	return withinBudget((steps) => failedTestWith(shown, o, steps), MAX_STEP_ROWS);
}

function failedTestWith(f: FailedTestItem, o: { environment: 'sandbox' | 'production'; timeZone: string; locale?: Locale }, steps: number): RenderedEmail {
	const locale = o.locale ?? DEFAULT_LOCALE;
	const l = langOf(locale);
	const tx = l.t.failedTest;
	const name = deviceName(f.device, l);
	const stepCount = plural(f.failedStepCount, tx.failedSteps, locale);
	const subject = `${f.device.idBarcode ? fill(tx.subjectBarcode, { device: name, barcode: f.device.idBarcode, steps: stepCount }) : fill(tx.subject, { device: name, steps: stepCount })}${o.environment === 'sandbox' ? l.t.common.sandboxSubject : ''}`;
	const text = [tx.intro, '', ...textFailed(f, l, steps), '', '--', tx.footer, ''].join('\n');
	const html = page(
		subject,
		`${name}: ${stepCount}`,
		`<tr><td style="background:${C.red};padding:20px 24px;border-radius:8px 8px 0 0;"><div style="font-size:13px;line-height:18px;color:#fde2e2;letter-spacing:.04em;text-transform:uppercase;">${esc(brand(o.environment, l))}</div><div style="font-size:22px;line-height:28px;font-weight:700;color:#ffffff;">${esc(tx.heading)}</div></td></tr>
<tr><td style="padding:8px 24px 16px 24px;">${failedBlock(f, l, steps)}</td></tr>
<tr><td style="padding:16px 24px;border-top:1px solid ${C.line};font-size:12px;line-height:18px;color:${C.muted};">${esc(tx.footer)}</td></tr>`,
		locale,
	);
	return { subject, text, html };
}

// ---- pieces ----

/** The page around every e-mail; `lang` tells mail apps and screen readers the language of its text. */
export function page(title: string, preheader: string, rows: string, locale: Locale = DEFAULT_LOCALE): string {
	return `<!DOCTYPE html>
<html lang="${locale}">
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

function sectionTitle(title: string, count: number, l: Lang): string {
	return `<h2 style="margin:20px 0 8px 0;font-size:16px;line-height:22px;font-weight:700;color:${C.ink};">${esc(title)} <span style="color:${C.muted};font-weight:400;">(${formatCount(count, l.locale)})</span></h2>`;
}

const more = (total: number, shown: number, l: Lang) => (total > shown ? `<p style="margin:8px 0 0 0;font-size:13px;color:${C.muted};">${esc(fill(l.t.digest.moreHtml, { count: formatCount(total - shown, l.locale) }))}</p>` : '');

function htmlSection(title: string, total: number, head: [string, string, string], rows: string[], l: Lang): string {
	if (total === 0) return '';
	const th = (label: string, align: string) => `<th align="${align}" style="padding:6px 8px;font-size:12px;line-height:16px;font-weight:600;color:${C.muted};text-transform:uppercase;letter-spacing:.04em;border-bottom:2px solid ${C.line};">${esc(label)}</th>`;
	return `${sectionTitle(title, total, l)}<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;font-size:14px;line-height:20px;"><tr>${th(head[0], 'left')}${th(head[1], 'left')}${th(head[2], 'right')}</tr>${rows.join('')}</table>${more(total, rows.length, l)}`;
}

function deviceRow(d: { designation: string | null; idBarcode: string | null; customerName: string | null; department: string | null }, middle: string, right: string, l: Lang): string {
	const where = [d.customerName, d.department].filter(Boolean).join(' · ') || l.t.common.nowhere;
	const td = `padding:8px;border-bottom:1px solid ${C.line};vertical-align:top;`;
	return `<tr><td style="${td}"><div style="font-weight:600;">${esc(deviceName(d, l))}</div><div style="font-size:12px;line-height:16px;color:${C.muted};">${d.idBarcode ? `ID ${esc(d.idBarcode)} · ` : ''}${esc(where)}</div></td><td style="${td}white-space:nowrap;">${middle}</td><td align="right" style="${td}white-space:nowrap;">${right}</td></tr>`;
}

const dateCell = (date: string | null, l: Lang) => (date ? esc(formatDay(date, l.locale)) : `<span style="color:${C.muted};">${esc(l.t.digest.unknownDate)}</span>`);

function overdueCell(c: DigestContent, d: OverdueDevice, l: Lang): string {
	const days = d.daysOverdue === null ? l.t.digest.overdueCell : d.daysOverdue <= 0 ? l.t.digest.dueTodayCell : plural(d.daysOverdue, l.t.common.days, l.locale);
	const badge = escalated(c, d) ? `<div style="display:inline-block;margin-top:2px;padding:0 6px;border-radius:9px;background:${C.redBg};color:${C.red};font-size:11px;line-height:18px;font-weight:600;">${esc(l.t.digest.escalatedBadge)}</div>` : '';
	return `<span style="color:${C.red};font-weight:600;">${esc(days)}</span>${badge ? `<br>${badge}` : ''}`;
}

/** One failed test: its first `steps` failed steps (each with at most `steps` measurements); the rest counted. */
function failedBlock(f: FailedTestItem, l: Lang, steps: number): string {
	const tx = l.t.failedTest;
	const where = [f.device.customerName, f.device.department].filter(Boolean).join(' · ');
	const meta = [fill(tx.testedOn, { date: formatDay(f.testDate.slice(0, 10), l.locale) }), f.tester ? fill(tx.by, { tester: f.tester }) : '', f.testSequence ? fill(tx.sequence, { sequence: f.testSequence }) : '', where].filter(Boolean).join(' · ');
	const td = `padding:6px 8px;border-bottom:1px solid ${C.line};vertical-align:top;font-size:13px;line-height:18px;`;
	const listed = f.failedSteps.slice(0, steps);
	const rows = listed
		.flatMap((s) => {
			const failing = s.measurements.filter((m) => m.passed === false).slice(0, Math.max(1, steps));
			const shown = failing.length > 0 ? failing : s.measurements.slice(0, 1);
			if (shown.length === 0) return [`<tr><td style="${td}">${esc(stepName(s, l))}</td><td colspan="2" style="${td}color:${C.muted};">${esc(tx.noMeasurement)}</td></tr>`];
			return shown.map((m, i) => `<tr><td style="${td}">${i === 0 ? esc(stepName(s, l)) : ''}${m.name ? `<div style="color:${C.muted};font-size:12px;">${esc(m.name)}</div>` : ''}</td><td align="right" style="${td}color:${C.red};font-weight:600;white-space:nowrap;">${esc(value(m.value, m.unit, l))}</td><td align="right" style="${td}white-space:nowrap;">${esc(limits(m, l))}</td></tr>`);
		})
		.join('');
	const left = f.failedStepCount - listed.length;
	const th = (label: string, align: string) => `<th align="${align}" style="padding:4px 8px;font-size:11px;font-weight:600;color:${C.muted};text-transform:uppercase;letter-spacing:.04em;border-bottom:2px solid ${C.line};">${esc(label)}</th>`;
	return `<div style="margin:0 0 16px 0;padding:12px;border:1px solid #fecaca;border-left:4px solid ${C.red};border-radius:6px;background:#ffffff;">
<div style="font-size:15px;line-height:20px;font-weight:700;">${esc(deviceName(f.device, l))}${f.device.idBarcode ? ` <span style="font-weight:400;color:${C.muted};">ID ${esc(f.device.idBarcode)}</span>` : ''}</div>
<div style="font-size:12px;line-height:18px;color:${C.muted};margin-bottom:8px;">${esc(meta)} · ${esc(plural(f.failedStepCount, tx.failedSteps, l.locale))}</div>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;"><tr>${th(tx.step, 'left')}${th(tx.measured, 'right')}${th(tx.limits, 'right')}</tr>${rows}</table>${left > 0 ? `<div style="font-size:12px;color:${C.muted};margin-top:6px;">${esc(fill(tx.moreHtml, { more: plural(left, tx.moreFailedSteps, l.locale) }))}</div>` : ''}
</div>`;
}

function textFailed(f: FailedTestItem, l: Lang, steps: number): string[] {
	const tx = l.t.failedTest;
	const values = { device: textDevice(f.device, l), date: formatDay(f.testDate.slice(0, 10), l.locale), steps: plural(f.failedStepCount, tx.failedSteps, l.locale) };
	const lines = [`- ${f.tester ? fill(tx.lineBy, { ...values, tester: f.tester }) : fill(tx.line, values)}`];
	const listed = f.failedSteps.slice(0, steps);
	for (const s of listed) {
		const failing = s.measurements.filter((m) => m.passed === false).slice(0, Math.max(1, steps));
		if (failing.length === 0) lines.push(`    ${fill(s.measurements.length === 0 ? tx.stepFailedNoMeasurement : tx.stepFailed, { step: stepName(s, l) })}`);
		for (const m of failing) lines.push(`    ${fill(tx.measurement, { step: `${stepName(s, l)}${m.name ? `, ${m.name}` : ''}`, value: value(m.value, m.unit, l), limits: limits(m, l) })}`);
	}
	const left = f.failedStepCount - listed.length;
	if (left > 0) lines.push(`    ${fill(tx.moreText, { more: plural(left, tx.moreFailedSteps, l.locale) })}`);
	return lines;
}

const deviceName = (d: { designation: string | null }, l: Lang) => d.designation?.trim() || l.t.common.noDesignation;
const stepName = (s: FailedStep, l: Lang) => `${s.step === null ? l.t.failedTest.step : fill(l.t.failedTest.stepNumber, { step: s.step })}${s.name ? ` ${s.name}` : ''}`;

function textDevice(d: { designation: string | null; idBarcode: string | null; customerName: string | null; department: string | null }, l: Lang): string {
	const where = [d.customerName, d.department].filter(Boolean).join(' / ');
	return `${deviceName(d, l)}${d.idBarcode ? ` (ID ${d.idBarcode})` : ''}${where ? `, ${where}` : ''}`;
}

function overdueText(d: OverdueDevice, l: Lang): string {
	const tx = l.t.digest;
	const date = d.nextTestDate ? formatDay(d.nextTestDate, l.locale) : undefined;
	if (d.daysOverdue === null) return date ? fill(tx.dueOn, { date }) : tx.overdueText;
	if (d.daysOverdue <= 0) return date ? fill(tx.dueTodayOn, { date }) : tx.dueToday;
	const days = plural(d.daysOverdue, l.t.common.days, l.locale);
	return date ? fill(tx.daysOverdueWasDue, { days, date }) : fill(tx.daysOverdue, { days });
}

const dueText = (d: DueDevice, l: Lang) => {
	const date = formatDay(d.nextTestDate, l.locale);
	return d.daysLeft === 0 ? fill(l.t.digest.dueTodayIn, { date }) : fill(l.t.digest.dueIn, { date, days: plural(d.daysLeft, l.t.common.days, l.locale) });
};
const escalated = (c: DigestContent, d: OverdueDevice) => c.escalationDays !== undefined && (d.daysOverdue ?? 0) > c.escalationDays;

function value(v: number | null, unit: string | null, l: Lang): string {
	return v === null ? l.t.failedTest.noValue : `${formatCount(v, l.locale)}${unit ? ` ${unit}` : ''}`;
}

function limits(m: { lowLimit: number | null; highLimit: number | null; unit: string | null }, l: Lang): string {
	const u = m.unit ? ` ${m.unit}` : '';
	const n = (x: number) => formatCount(x, l.locale);
	if (m.lowLimit !== null && m.highLimit !== null) return `${n(m.lowLimit)} – ${n(m.highLimit)}${u}`;
	if (m.lowLimit !== null) return `≥ ${n(m.lowLimit)}${u}`;
	if (m.highLimit !== null) return `≤ ${n(m.highLimit)}${u}`;
	return l.t.failedTest.noLimits;
}

function footerText(c: DigestContent, l: Lang): string {
	const values = { recipient: c.recipient, timeZone: c.timeZone };
	return c.escalationDays !== undefined ? fill(l.t.digest.footerEscalation, { ...values, days: plural(c.escalationDays, l.t.common.days, l.locale) }) : fill(l.t.digest.footer, values);
}

// ---- measured-value warnings (the digest's section; the monthly report's through email/warningsRender.ts) ----

/** "85 %", German "85 %": the share of the limit, whole per cent (floored, so 79.9 % never reads as 80 %). */
export function limitShareText(share: number, locale: Locale): string {
	return `${formatCount(Math.floor(Math.round(share * 1e9) / 1e7), locale)}${locale === 'de' ? '\u00a0' : ' '}%`;
}

function warningStep(w: MeasurementWarningItem): string {
	return w.measurement === null ? w.step : `${w.step}, ${w.measurement}`;
}

/** A warning as lines of plain text: what it measured against which limit, and the trend's day where it says "test earlier". */
export function warningLines(w: MeasurementWarningItem, locale: Locale): string[] {
	const l = langOf(locale);
	const x = l.t.warnings;
	const lines = [fill(x.line, { device: textDevice(w.device, l), step: warningStep(w), value: value(w.value, w.unit, l), limits: limits(w, l), share: limitShareText(w.limitUsed, locale), date: formatDay(w.testDate, locale) })];
	if (w.testEarlier && w.predictedLimitDate && w.nextTestDate) lines.push(`    ${fill(x.drift, { date: formatDay(w.predictedLimitDate, locale), due: formatDay(w.nextTestDate, locale) })}`);
	return lines;
}

/** The HTML rows of warnings: device (and test date), step with value and limit, share of the limit (and "test earlier"). */
export function warningRowsHtml(rows: readonly MeasurementWarningItem[], locale: Locale): string {
	const l = langOf(locale);
	const x = l.t.warnings;
	const td = `padding:8px;border-bottom:1px solid ${C.line};vertical-align:top;`;
	const th = (label: string, align: string) => `<th align="${align}" style="padding:6px 8px;font-size:12px;line-height:16px;font-weight:600;color:${C.muted};text-transform:uppercase;letter-spacing:.04em;border-bottom:2px solid ${C.line};">${esc(label)}</th>`;
	const body = rows
		.map((w) => {
			const where = [w.device.customerName, w.device.department].filter(Boolean).join(' · ') || l.t.common.nowhere;
			const drift =
				w.testEarlier && w.predictedLimitDate && w.nextTestDate
					? `<div style="margin-top:2px;font-size:12px;line-height:16px;color:${C.red};">${esc(fill(x.drift, { date: formatDay(w.predictedLimitDate, locale), due: formatDay(w.nextTestDate, locale) }))}</div>`
					: '';
			const badge = w.testEarlier ? `<br><span style="display:inline-block;margin-top:2px;padding:0 6px;border-radius:9px;background:${C.redBg};color:${C.red};font-size:11px;line-height:18px;font-weight:600;">${esc(x.driftBadge)}</span>` : '';
			return `<tr><td style="${td}"><div style="font-weight:600;">${esc(deviceName(w.device, l))}</div><div style="font-size:12px;line-height:16px;color:${C.muted};">${w.device.idBarcode ? `ID ${esc(w.device.idBarcode)} · ` : ''}${esc(where)} · ${esc(fill(x.tested, { date: formatDay(w.testDate, locale) }))}</div></td><td style="${td}"><div>${esc(warningStep(w))}</div><div style="white-space:nowrap;">${esc(value(w.value, w.unit, l))} <span style="color:${C.muted};">(${esc(limits(w, l))})</span></div>${drift}</td><td align="right" style="${td}white-space:nowrap;"><span style="color:${w.nearLimit ? C.amber : C.ink};font-weight:600;">${esc(limitShareText(w.limitUsed, locale))}</span>${badge}</td></tr>`;
		})
		.join('');
	return `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;font-size:14px;line-height:20px;"><tr>${th(l.t.common.device, 'left')}${th(x.measured, 'left')}${th(x.share, 'right')}</tr>${body}</table>`;
}

function warningsSection(all: readonly MeasurementWarningItem[], rows: number, l: Lang): string {
	if (all.length === 0) return '';
	return `${sectionTitle(l.t.warnings.title, all.length, l)}${warningRowsHtml(all.slice(0, rows), l.locale)}${more(all.length, Math.min(rows, all.length), l)}`;
}

/** HTML text and attribute escaping. */
export function esc(text: string): string {
	// Most values have nothing to escape: returned as they are (no callback per character class run).
	if (!/[&<>"']/.test(text)) return text;
	return text.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
}
