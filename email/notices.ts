import type { NoticeCustomer, NoticeDevice, NoticeInput } from '../client/noticesRead';
import { renderNotice, type NoticeTexts, type RenderedNotice } from './noticesRender';
import { checkAddress } from './addresses';
import { normalName } from './routing';
import type { Locale } from './texts';

/**
 * The customer re-test notices of one month, composed: each customer with devices due in the
 * month gets one notice (its overdue devices in a section of their own) at its contact address, in
 * its language. Who gets none says why (opted out, no usable address). Sending them, once per
 * customer and month, is the face's: the Lambdas record them (lambdas/email/notices.ts), the node
 * returns one item per notice.
 */

/** The `customerNotices` settings a notice is composed with (lambdas/email/noticeSettings.ts; the node's options). */
export interface NoticeSettings extends NoticeTexts {
	/** Customer name → address: overrides the customer's contact e-mail. */
	addresses: Record<string, string>;
	/** Customers (by name) who get no notice. */
	optOut: string[];
	/** Customer name → language of their notice. */
	locales: Record<string, Locale>;
}

export interface ComposedNotice {
	customer: NoticeCustomer;
	address: string;
	locale: Locale;
	due: NoticeDevice[];
	overdue: NoticeDevice[];
	rendered: RenderedNotice;
}

export interface ComposedNotices {
	month: string;
	notices: ComposedNotice[];
	/** Customers with devices due who have no usable address. */
	noAddress: Array<{ customerId: number; customerName: string; reason: string }>;
	optedOut: string[];
}

/** The month after the one `day` (YYYY-MM-DD) falls in: the month a notice sent on `day` is about. */
export function noticeMonthOf(day: string): string {
	const [y, m] = day.split('-').map(Number);
	return m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, '0')}`;
}

export const byName = <T>(map: Record<string, T>, name: string): T | undefined => {
	const wanted = normalName(name);
	for (const [k, v] of Object.entries(map)) if (normalName(k) === wanted) return v;
	return undefined;
};

const byDue = (a: NoticeDevice, b: NoticeDevice) => (a.nextTestDate ?? '').localeCompare(b.nextTestDate ?? '') || a.id - b.id;

/**
 * Whether a notice of `month` can list the device (due in the month, or overdue on `today`), so
 * that a face reading 100,000 devices for one month's notices holds only those.
 */
export const listedIn =
	(month: string) =>
	(d: NoticeDevice, today: string): boolean =>
		d.customerId !== null && d.nextTestDate !== null && (d.nextTestDate.slice(0, 7) === month || d.nextTestDate < today);

/** Each customer's devices due in `month` and already overdue on `today`, for customers with any due. */
export function dueByCustomer(input: NoticeInput, month: string): Array<{ customer: NoticeCustomer; due: NoticeDevice[]; overdue: NoticeDevice[] }> {
	// Grouped in one pass (a filter of every device per customer took 2,000 × 100,000 steps on a large account).
	const byCustomer = new Map<number, NoticeDevice[]>();
	for (const d of input.devices) {
		if (d.customerId === null || d.nextTestDate === null) continue;
		const list = byCustomer.get(d.customerId);
		if (list) list.push(d);
		else byCustomer.set(d.customerId, [d]);
	}
	const out = [];
	for (const customer of [...input.customers].sort((a, b) => a.id - b.id)) {
		const mine = byCustomer.get(customer.id) ?? [];
		const due = mine.filter((d) => d.nextTestDate!.slice(0, 7) === month).sort(byDue);
		if (due.length === 0) continue;
		out.push({ customer, due, overdue: mine.filter((d) => d.nextTestDate! < input.today).sort(byDue) });
	}
	return out;
}

/**
 * The customer's address: the settings' (by name) before the service's contact e-mail, by the one
 * address rule (email/addresses.ts) as SES takes it; or why there is none (the rule's problem).
 */
export function addressOf(addresses: Record<string, string>, customer: NoticeCustomer): { address: string } | { reason: string } {
	const configured = byName(addresses, customer.name);
	if (configured) return usable(configured, 'the address');
	if (customer.email === null) return { reason: 'no contact e-mail in the service' };
	return usable(customer.email, 'contact e-mail');
}

/** An address by checkAddress, its problem naming what it is (the value cut to 100 characters). */
function usable(value: string, what: string): { address: string } | { reason: string } {
	const checked = checkAddress(value);
	if ('address' in checked) return checked;
	// The problem opens with the value quoted: quoted again here, cut short; a customer's reason needs no example.
	return { reason: `${what} "${value.trim().slice(0, 100)}"${checked.problem.slice(value.length + 2).replace(/ \(expected e\.g\. [^)]*\)$/, '')}` };
}

/** The Reply-To header as SES takes it (a domain in Punycode); the notice's text shows the address as written. */
export function replyToHeader(replyTo: string): string {
	const checked = checkAddress(replyTo);
	return 'address' in checked ? checked.address : replyTo;
}

/**
 * Every notice of `month`. `locale`: the language of customers without one of their own;
 * `replyTo` and `companyName` as the notice states them.
 */
export function composeNotices(
	input: NoticeInput,
	month: string,
	s: NoticeSettings,
	c: { locale: Locale; replyTo: string; companyName: string; environment: 'sandbox' | 'production' },
): ComposedNotices {
	const out: ComposedNotices = { month, notices: [], noAddress: [], optedOut: [] };
	for (const { customer, due, overdue } of dueByCustomer(input, month)) {
		if (s.optOut.some((n) => normalName(n) === normalName(customer.name))) {
			out.optedOut.push(customer.name);
			continue;
		}
		const to = addressOf(s.addresses, customer);
		if ('reason' in to) {
			out.noAddress.push({ customerId: customer.id, customerName: customer.name, reason: to.reason });
			continue;
		}
		const locale = byName(s.locales, customer.name) ?? c.locale;
		const rendered = renderNotice({ customerName: customer.name, month, due, overdue, locale, replyTo: c.replyTo, companyName: c.companyName, environment: c.environment }, s);
		out.notices.push({ customer, address: to.address, locale, due, overdue, rendered });
	}
	return out;
}

/** What a notice lists of a device (the audit trail's and the items' content). */
export const listedDevice = (d: NoticeDevice) => ({ id: d.id, designation: d.designation, idBarcode: d.idBarcode, department: d.department, location: d.location, nextTestDate: d.nextTestDate });

/** What a notice says, structured (the outbox's and the node items' `content`). */
export const noticeData = (month: string, n: ComposedNotice) => ({ month, customer: { id: n.customer.id, name: n.customer.name }, address: n.address, locale: n.locale, due: n.due.map(listedDevice), overdue: n.overdue.map(listedDevice) });
