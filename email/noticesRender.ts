import type { NoticeDevice } from '../client/noticesRead';
import { clipField, clipOptional, withinBudget } from './budget';
import { csvFile } from './csv';
import { esc } from './render';
import { fill, formatDay, formatMonth, formOf, plural, type Locale } from './texts';
import { noticesTextsFor } from './texts/notices';

/**
 * One customer's re-test notice, in the customer's language: the devices due next month, those
 * already overdue in a section of their own, how to book, and a CSV of every device. Every value
 * from the service is escaped in the HTML; the body lists at most `maxRows` per section.
 */
export interface NoticeContent {
	customerName: string;
	/** The month the devices fall due (YYYY-MM). */
	month: string;
	due: NoticeDevice[];
	overdue: NoticeDevice[];
	locale: Locale;
	replyTo: string;
	companyName: string;
	environment: 'sandbox' | 'production';
}

/**
 * The notice's own words and limits, as the `customerNotices` settings give them
 * (lambdas/email/noticeSettings.ts; the node's options): templates checked before they get here.
 */
export interface NoticeTexts {
	maxRows: number;
	subject?: string;
	introduction?: string;
	closingText?: string;
	closing?: string;
	signature?: string;
	logoUrl?: string;
}

export interface RenderedNotice {
	subject: string;
	text: string;
	html: string;
	csv: string;
	csvFilename: string;
}

const INK = '#1f2937';
const MUTED = '#6b7280';
const LINE = '#e5e7eb';
const FONT = 'Arial,Helvetica,sans-serif';

export function renderNotice(c: NoticeContent, s: NoticeTexts): RenderedNotice {
	const t = noticesTextsFor(c.locale);
	// At most maxRows per section, fewer when the HTML would outgrow its budget, each text from the
	// service at most FIELD_MAX_CHARS (email/budget.ts); the CSV below holds them whole.
	const clip = (d: NoticeDevice): NoticeDevice => ({ ...d, designation: clipOptional(d.designation), idBarcode: clipOptional(d.idBarcode), department: clipOptional(d.department), location: clipOptional(d.location) });
	const shown = { ...c, customerName: clipField(c.customerName), due: c.due.map(clip), overdue: c.overdue.map(clip) };
	const body = withinBudget((rows) => noticeWith(shown, s, rows), s.maxRows);
	const col = t.columns;
	// The CSV: every device, due and overdue, whatever the body shows.
	const csvRows = [
		[t.csvColumns.status, col.designation, col.idBarcode, col.department, col.location, col.due],
		...c.overdue.map((d) => [t.csvStatus.overdue, d.designation, d.idBarcode, d.department, d.location, d.nextTestDate]),
		...c.due.map((d) => [t.csvStatus.due, d.designation, d.idBarcode, d.department, d.location, d.nextTestDate]),
	];
	return { ...body, csv: csvFile(csvRows, c.locale), csvFilename: fill(t.csvFile, { month: c.month }) };
}

function noticeWith(c: NoticeContent, s: NoticeTexts, max: number): { subject: string; text: string; html: string } {
	const t = noticesTextsFor(c.locale);
	const month = formatMonth(c.month, c.locale);
	const values = { customerName: c.customerName, month, count: c.due.length, overdueCount: c.overdue.length, companyName: c.companyName, replyTo: c.replyTo };
	const subject = fill(s.subject ?? formOf(c.due.length, t.subject), values).replace(/[\r\n]+/g, ' ');
	const introduction = fill(s.introduction ?? t.introduction, values);
	const closingText = fill(s.closingText ?? t.closingText, values);
	const col = t.columns;
	const cells = (d: NoticeDevice) => [d.designation ?? '–', d.idBarcode ?? '–', d.department ?? '–', d.location ?? '–', d.nextTestDate ? formatDay(d.nextTestDate, c.locale) : '–'];
	const moreText = (n: number) => (n > max ? fill(t.more, { count: n - max }) : undefined);

	// Plain text.
	const textRows = (list: NoticeDevice[]) => [...list.slice(0, max).map((d) => `- ${cells(d).join(' | ')}`), ...(moreText(list.length) ? [moreText(list.length)!] : [])];
	const text = [
		introduction,
		'',
		`${fill(t.dueSection, { month })}: ${plural(c.due.length, t.dueCount, c.locale)}`,
		`  ${[col.designation, col.idBarcode, col.department, col.location, col.due].join(' | ')}`,
		...textRows(c.due),
		...(c.overdue.length > 0 ? ['', `${t.overdueSection}: ${plural(c.overdue.length, t.overdueCount, c.locale)}`, ...textRows(c.overdue)] : []),
		'',
		t.attachment,
		fill(t.howToBook, { replyTo: c.replyTo }),
		closingText,
		'',
		s.closing ?? t.closing,
		...(s.signature ? [s.signature] : [c.companyName]),
		'',
	].join('\n');

	// HTML: one table per section.
	const th = (label: string) => `<th align="left" style="padding:6px 8px;border-bottom:1px solid ${LINE};font-size:12px;color:${MUTED};">${esc(label)}</th>`;
	const td = (value: string) => `<td style="padding:6px 8px;border-bottom:1px solid ${LINE};font-size:13px;" dir="auto">${esc(value)}</td>`;
	const table = (list: NoticeDevice[]) => {
		const more = moreText(list.length);
		return `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;"><tr>${[col.designation, col.idBarcode, col.department, col.location, col.due].map(th).join('')}</tr>${list
			.slice(0, max)
			.map((d) => `<tr>${cells(d).map(td).join('')}</tr>`)
			.join('')}</table>${more ? `<p style="margin:8px 0 0 0;font-size:13px;color:${MUTED};">${esc(more)}</p>` : ''}`;
	};
	const section = (title: string, summary: string, list: NoticeDevice[]) => `<tr><td style="padding:16px 24px 0 24px;"><h2 style="margin:0 0 4px 0;font-size:16px;">${esc(title)}</h2><p style="margin:0 0 8px 0;font-size:13px;color:${MUTED};">${esc(summary)}</p>${table(list)}</td></tr>`;
	const para = (value: string) => `<p style="margin:0 0 8px 0;font-size:14px;white-space:pre-line;">${esc(value)}</p>`;
	const rows = [
		s.logoUrl ? `<tr><td style="padding:24px 24px 0 24px;"><img src="${esc(s.logoUrl)}" alt="${esc(c.companyName)}" style="max-height:48px;"></td></tr>` : '',
		`<tr><td style="padding:24px 24px 0 24px;"><h1 style="margin:0 0 12px 0;font-size:20px;">${esc(fill(t.heading, { month }))}</h1>${para(introduction)}</td></tr>`,
		section(fill(t.dueSection, { month }), plural(c.due.length, t.dueCount, c.locale), c.due),
		c.overdue.length > 0 ? section(t.overdueSection, plural(c.overdue.length, t.overdueCount, c.locale), c.overdue) : '',
		`<tr><td style="padding:16px 24px 24px 24px;">${para(t.attachment)}${para(fill(t.howToBook, { replyTo: c.replyTo }))}${para(closingText)}${para(s.closing ?? t.closing)}${para(s.signature ?? c.companyName)}</td></tr>`,
	].join('\n');
	const html = `<!DOCTYPE html>
<html lang="${c.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(subject)}</title>
</head>
<body style="margin:0;padding:0;background:#f3f4f6;font-family:${FONT};color:${INK};">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center" style="padding:24px 8px;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:720px;background:#ffffff;border:1px solid ${LINE};border-radius:8px;">
${rows}
</table>
</td></tr></table>
</body>
</html>
`;
	return { subject, text, html };
}
