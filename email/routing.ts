import type { Locale } from './texts';

/**
 * Who gets which devices, and in which language: the rules of the e-mail settings' `recipients`
 * (checked by the Lambdas' settings schema, lambdas/email/recipients.ts, and by the node's
 * parameters, email/recipientsInput.ts), applied alike by every face.
 */

/** An e-mail address as the settings and the service's contact e-mails must write it. */
export const EMAIL = /^[^\s@,;<>"]+@[^\s@,;<>"]+\.[^\s@,;<>"]+$/;

/** Whether a value is a usable e-mail address (the one rule the settings and the service's values share). */
export function isEmailAddress(value: string): boolean {
	return EMAIL.test(value.trim());
}

/**
 * Whether an address's local part (before the last @) is printable 7-bit ASCII. One beyond it
 * needs SMTPUTF8, which Amazon SES and many mail servers do not offer: such an address is no usable
 * address for a customer on any face (the Lambdas could never send to it, and the node gives no
 * item for it). A domain with umlauts is fine (it goes out in Punycode).
 */
export function hasAsciiLocalPart(address: string): boolean {
	return !/[^\x20-\x7e]/.test(address.slice(0, address.lastIndexOf('@')));
}

import { normalName } from '../client/names';

/** Names match whatever their case and surrounding or doubled spaces (one rule with the interval settings' departments). */
export { normalName };

/** The routing rules, as checked (addresses trimmed and lower-cased, lists without repeats). */
export interface Recipients {
	default: string[];
	customers: Record<string, string[]>;
	departments: Record<string, string[]>;
	escalation?: { afterDays: number; to: string[] };
	locales?: Record<string, Locale>;
}

/** What routing looks at: the device's customer and department (by name), and how long it is overdue. */
export interface Routable {
	customerName: string | null;
	department: string | null;
	daysOverdue?: number | null;
}

/**
 * The addresses a device goes to: the lists of its customer and of its department (both when both
 * match), the default list when neither matches, and the escalation list as well when it is overdue
 * for more than `afterDays` days. Sorted, no address twice.
 */
export function route(recipients: Recipients, device: Routable): string[] {
	const out = new Set<string>();
	const customer = lookup(recipients.customers, device.customerName);
	const department = lookup(recipients.departments, device.department);
	for (const a of customer ?? []) out.add(a);
	for (const a of department ?? []) out.add(a);
	if (!customer && !department) for (const a of recipients.default) out.add(a);
	const esc = recipients.escalation;
	if (esc && (device.daysOverdue ?? 0) > esc.afterDays) for (const a of esc.to) out.add(a);
	return [...out].sort();
}

function lookup(lists: Record<string, string[]>, name: string | null): string[] | undefined {
	if (!name) return undefined;
	const wanted = normalName(name);
	for (const [key, list] of Object.entries(lists)) if (normalName(key) === wanted) return list;
	return undefined;
}

/** Every address the settings name: the digest goes through them all. */
export function allRecipients(recipients: Recipients): string[] {
	const out = new Set<string>(recipients.default);
	for (const list of [...Object.values(recipients.customers), ...Object.values(recipients.departments)]) for (const a of list) out.add(a);
	for (const a of recipients.escalation?.to ?? []) out.add(a);
	return [...out].sort();
}

/**
 * The language of a recipient's e-mails: the address's own entry in `recipients.locales`, else
 * that of the first of its lists that has one (its customers', its departments', `escalation`,
 * `default`, in that order), else the deployment's `locale`. Accounts with their own recipients
 * (lambdas/email/accounts.ts) are looked at after the deployment's.
 */
export function localeOf(settings: { locale: Locale; recipients: Recipients }, recipient: string, more: readonly Recipients[] = []): Locale {
	const all = [settings.recipients, ...more];
	const address = recipient.toLowerCase();
	for (const r of all) {
		const own = r.locales?.[address];
		if (own) return own;
	}
	for (const r of all) {
		const byList = (name: string) => Object.entries(r.locales ?? {}).find(([k]) => normalName(k) === normalName(name))?.[1];
		const lists = [
			...Object.entries(r.customers).filter(([, l]) => l.includes(address)).map(([name]) => name),
			...Object.entries(r.departments).filter(([, l]) => l.includes(address)).map(([name]) => name),
			...(r.escalation?.to.includes(address) ? ['escalation'] : []),
			...(r.default.includes(address) ? ['default'] : []),
		];
		for (const name of lists) {
			const found = byList(name);
			if (found) return found;
		}
	}
	return settings.locale;
}
