import { createHash } from 'node:crypto';
import type { NoticeInput } from '../../client/noticesRead';
import { composeNotices, noticeData } from '../../email/notices';
import { SendInProgressError, type MailStore, type Mailer } from './ports';
import type { EmailSettings } from './settings';
import { fill, formatLongDay, formatNumber, plural, textsFor, type Locale } from '../../email/texts';
import { noticesTextsFor } from '../../email/texts/notices';

/**
 * The customer re-test notices of one month: each customer with devices due in the month gets
 * one notice (its overdue devices in a section of their own) at its contact address. Once per
 * customer and month through retries and restarts: a sent notice is recorded in the store under
 * `notices:<YYYY-MM>` (the audit trail, queryable by month) and the mailer itself sends once per
 * key and recipient, so a crash between the two does not send twice. A customer without a valid
 * address is reported, never skipped in silence; one failed send does not stop the others.
 */

/**
 * The store's namespace of one month's sent notices (one item per customer); with several
 * accounts, each account's customers under their own (customer ids are per account).
 */
export const noticesNamespace = (month: string, account?: string) => (account === undefined ? `notices:${month}` : `notices:${month}:${account}`);
/** The store's namespace of each run's summary, by the day it ran (the company's digest reads it). */
export const NOTICES_SUMMARY_NS = 'notices:summary';
/** The key of one day's summary in NOTICES_SUMMARY_NS: the day, and the account when there are several. */
export const noticesSummaryKey = (day: string, account?: string) => (account === undefined ? day : `${day}:${account}`);
/** The audit trail is kept a good while beyond a year, for a year-on-year look. */
const AUDIT_KEEP_MS = 400 * 86_400_000;

export interface NoticeDeps {
	store: MailStore;
	mailer: Mailer;
	settings: EmailSettings;
	environment: 'sandbox' | 'production';
	now: () => number;
	/** Reads the customers and devices from the service at notice time (client/noticesRead.ts). */
	read: () => Promise<NoticeInput>;
	/** Also told each notice sent, before it is recorded (locally: the JSON-lines audit file); after a crash again for the same notice. */
	onSent?: (entry: NoticeSent) => Promise<void> | void;
	/** The account whose customers these are, when the deployment watches several. */
	account?: string;
}

/** One sent notice: what went to whom and when (the audit trail's record). */
export interface NoticeSent {
	month: string;
	/** The account, when the deployment watches several. */
	account?: string;
	customerId: number;
	customerName: string;
	address: string;
	locale: Locale;
	messageId: string;
	sentAt: string;
	dueDevices: number[];
	overdueDevices: number[];
}

export interface NoticesReport {
	month: string;
	account?: string;
	sent: NoticeSent[];
	/** Sent by an earlier run of the month (not again). */
	alreadySent: string[];
	/** Customers with devices due who have no usable address: named in the run's report and the digest. */
	noAddress: Array<{ customerId: number; customerName: string; reason: string }>;
	optedOut: string[];
	/** Being sent by another run at the same moment (it records them): not failed. */
	inProgress: string[];
	failed: Array<{ customerId: number; customerName: string; address: string; error: string }>;
	skippedRecords: number;
}

export interface NoticesSummary {
	month: string;
	account?: string;
	customers: number;
	devices: number;
	noAddress: string[];
	/** The 1st these notices were due on, when they went out later (that day's run did not take place or did not finish). */
	lateFrom?: string;
}

/** The store's namespace of the months whose notices are done (a run ended with every customer served), keyed as the summaries. */
export const NOTICES_DONE_NS = 'notices:done';

export class NoticesError extends Error {
	override readonly name = 'NoticesError';
	constructor(readonly report: NoticesReport) {
		super(`The re-test notices of ${report.month} could not be sent to ${report.failed.length} customer(s): ${report.failed.map((f) => `${f.customerName} (${f.error})`).join('; ')}`);
	}
}

import { noticeMonthOf, replyToHeader } from '../../email/notices';
export { dueByCustomer, noticeMonthOf } from '../../email/notices';

/**
 * Whom the mailer sends a notice to once: the customer at its address. Keyed on the customer, not
 * the address alone, so customers sharing an address never answer for each other (a customer
 * whose address became usable later would otherwise get the other's receipt, and no notice).
 */
export const noticeRecipient = (address: string, customerId: number) => `${address}#c${customerId}`;

export async function runNotices(deps: NoticeDeps, month: string): Promise<NoticesReport> {
	const s = deps.settings.customerNotices;
	const input = await deps.read();
	const account = deps.account;
	const report: NoticesReport = { month, ...(account === undefined ? {} : { account }), sent: [], alreadySent: [], noAddress: [], optedOut: [], inProgress: [], failed: [], skippedRecords: input.skippedRecords };
	const ns = noticesNamespace(month, account);
	const sentBefore = new Map<string, NoticeSent>();
	for await (const { key, value } of deps.store.list<NoticeSent>(ns)) sentBefore.set(key, value);
	const mailFrom = /<([^<>]+)>\s*$/.exec(deps.settings.mailFrom)?.[1] ?? deps.settings.mailFrom.trim();
	const senderName = s.senderName ?? /^\s*"?([^<>"]*?)"?\s*</.exec(deps.settings.mailFrom)?.[1];
	const companyName = s.companyName ?? s.senderName ?? senderName ?? mailFrom;
	const replyTo = s.replyTo ?? mailFrom;
	// Composed as the node composes them (email/notices.ts), each address as SES takes it.
	const composed = composeNotices(input, month, s, { locale: deps.settings.locale, replyTo, companyName, environment: deps.environment });
	report.optedOut.push(...composed.optedOut);
	report.noAddress.push(...composed.noAddress);
	for (const composedNotice of composed.notices) {
		const { customer, address, locale, due, overdue, rendered } = composedNotice;
		if (sentBefore.has(String(customer.id))) {
			report.alreadySent.push(customer.name);
			continue;
		}
		try {
			const recipient = noticeRecipient(address, customer.id);
			const key = ns;
			const id = createHash('sha256').update(`${key}\n${customer.id}`).digest('hex').slice(0, 32);
			const domain = mailFrom.split('@')[1] ?? 'test-equipment-cloud.invalid';
			const receipt = await deps.mailer.sendOnce({
				key,
				recipient,
				factKeys: [],
				email: {
					from: senderName ? `${senderName} <${mailFrom}>` : deps.settings.mailFrom,
					to: address,
					replyTo: replyToHeader(replyTo),
					subject: rendered.subject,
					text: rendered.text,
					html: rendered.html,
					messageId: `<${id}@${domain}>`,
					date: new Date(deps.now()),
					// The customer's language, not the settings' default (Content-Language).
					locale,
					attachments: [{ filename: rendered.csvFilename, contentType: 'text/csv', content: rendered.csv }],
					data: noticeData(month, composedNotice),
				},
			});
			const entry: NoticeSent = { month, ...(account === undefined ? {} : { account }), customerId: customer.id, customerName: customer.name, address, locale, messageId: receipt.messageId, sentAt: receipt.sentAt ?? new Date(deps.now()).toISOString(), dueDevices: due.map((d) => d.id), overdueDevices: overdue.map((d) => d.id) };
			// The audit line before the record: a crash between them repeats the line (its writer keeps one), never loses it.
			await deps.onSent?.(entry);
			await deps.store.putMany(ns, [{ key: String(customer.id), value: entry, expiresAt: deps.now() + AUDIT_KEEP_MS }]);
			report.sent.push(entry);
		} catch (error) {
			if (error instanceof SendInProgressError) report.inProgress.push(customer.name);
			else report.failed.push({ customerId: customer.id, customerName: customer.name, address, error: (error as Error).message });
		}
	}
	if (report.failed.length > 0) throw new NoticesError(report);
	return report;
}


/** What the company's digest says of a run: how many notices, for how many devices, who has no address. */
export function noticesSummary(report: NoticesReport): NoticesSummary {
	return { month: report.month, ...(report.account === undefined ? {} : { account: report.account }), customers: report.sent.length, devices: report.sent.reduce((n, e) => n + e.dueDevices.length + e.overdueDevices.length, 0), noAddress: report.noAddress.map((c) => c.customerName) };
}

/** The lines the company's digest carries on the day notices went out (in the settings' language). */
export function noticesDigestLines(summary: NoticesSummary, locale: Locale): string[] {
	const t = textsFor(locale);
	const x = noticesTextsFor(locale);
	const form = (n: number, forms: { one: string; other: string }) => (n === 1 ? forms.one : forms.other);
	const lines = [fill(form(summary.customers, x.digestSent), { count: formatNumber(summary.customers, locale), devices: plural(summary.devices, t.common.devices, locale) })];
	const missing = summary.noAddress.length;
	if (missing > 0) lines.push(fill(form(missing, x.digestNoAddress), { count: formatNumber(missing, locale), names: summary.noAddress.join(', ') }));
	if (summary.lateFrom) lines.push(fill(x.digestLate, { day: formatLongDay(summary.lateFrom, locale) }));
	return lines;
}

/**
 * Records what the month's notices did for the company's digest of `day` (this run's and earlier
 * runs' notices, read back from the month's records).
 */
export async function recordNoticesSummary(store: MailStore, report: NoticesReport, day: string, now: number): Promise<NoticesSummary> {
	const sent: NoticeSent[] = [];
	for await (const { value } of store.list<NoticeSent>(noticesNamespace(report.month, report.account))) sent.push(value);
	const first = `${day.slice(0, 7)}-01`;
	// Late when a run of this day sent some; a later run of the day that sent none (a retry, a run at once) keeps it so.
	const before = await store.get<NoticesSummary>(NOTICES_SUMMARY_NS, noticesSummaryKey(day, report.account));
	const late = day !== first && (report.sent.length > 0 || before?.lateFrom === first);
	const summary: NoticesSummary = { ...noticesSummary({ ...report, sent }), ...(late ? { lateFrom: first } : {}) };
	await store.putMany(NOTICES_SUMMARY_NS, [{ key: noticesSummaryKey(day, report.account), value: summary, expiresAt: now + 40 * 86_400_000 }]);
	// Not done while a customer is another run's in progress: should that run die, the next day sends it.
	if (report.failed.length === 0 && report.inProgress.length === 0) await store.putMany(NOTICES_DONE_NS, [{ key: noticesSummaryKey(report.month, report.account), value: { day }, expiresAt: now + 70 * 86_400_000 }]);
	return summary;
}

/**
 * The accounts whose notices of `day`'s month are not done yet. The notices run daily at the
 * digest hour: on the 1st they send; on a later day only when that month's are not done (the 1st's
 * run was skipped, as Scheduler skips a local time a daylight-saving change leaves out, or failed),
 * and the digest of such a day waits for them as on the 1st.
 */
export async function noticesPending(store: Pick<MailStore, 'get'>, day: string, accounts: Array<string | undefined>): Promise<Array<string | undefined>> {
	const month = noticeMonthOf(day);
	const pending = [];
	for (const a of accounts) if ((await store.get(NOTICES_DONE_NS, noticesSummaryKey(month, a))) === undefined) pending.push(a);
	return pending;
}

/**
 * On AWS the notices and the digest start at the same hour in functions of their own: the digest
 * of a month's first day waits for the notices' summaries (each account's) up to `waitMs`, so it
 * can say what they did; past it the digest goes out without them (and says which are missing).
 */
export async function awaitNoticesSummaries(store: MailStore, day: string, accounts: Array<string | undefined>, waitMs: number, sleep = (ms: number) => new Promise((r) => setTimeout(r, ms)), now = Date.now): Promise<Array<string | undefined>> {
	const deadline = now() + waitMs;
	for (;;) {
		const missing = [];
		for (const a of accounts) if ((await store.get(NOTICES_SUMMARY_NS, noticesSummaryKey(day, a))) === undefined) missing.push(a);
		if (missing.length === 0 || now() >= deadline) return missing;
		await sleep(Math.min(NOTICES_POLL_MS, Math.max(0, deadline - now())));
	}
}
const NOTICES_POLL_MS = 5000;
/** How long the digest of a month's first day waits for the notices (within its timeout, infra DIGEST_TIMEOUT). */
export const NOTICES_WAIT_MS = 3 * 60_000;
