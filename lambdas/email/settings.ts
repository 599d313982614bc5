import * as z from 'zod/v4-mini';
import { preprocess, superRefine } from '../../client/node/zodMini';
import { customerNoticesSchema } from './noticeSettings';
import { EMAIL, normalName, recipientsSchema, type Recipients } from './recipients';
import { DEFAULT_LOCALE, LOCALES, type Locale } from '../../email/texts';
import { once } from '../once';

export { normalName, recipientsSchema, type Recipients };

/**
 * The e-mail settings: who gets which devices, from which sender, at which hour. One schema,
 * checked by the CDK app at deploy (infra/config.ts, cdk.json context), by the Lambdas at cold
 * start and by `npm start`, so a mistake is named the same way everywhere.
 */

const HOUR = 'digestHour must be a whole hour from 0 to 23 (local time of timeZone), e.g. 7';

export const emailSettingsSchema = once(() =>
	z.object({
		mailFrom: z
			.string({ error: 'mailFrom is required: the sender address verified in Amazon SES, e.g. "Calibration alerts <alerts@lab.example.com>"' })
			.check(
				superRefine((v: string, ctx) => {
					const m = /^\s*(?:([^<>]*\S)\s*)?<([^<>]+)>\s*$/.exec(v);
					const addr = m ? m[2] : v.trim();
					if (!EMAIL.test(addr) || /[\r\n]/.test(v)) ctx.addIssue({ code: 'custom', message: `mailFrom: "${v}" is not an address; expected alerts@lab.example.com or "Calibration alerts <alerts@lab.example.com>"` });
				}),
			),
		digestHour: preprocess(
			(v) => (v === undefined || v === '' ? 7 : typeof v === 'string' ? Number(v) : v),
			z.number({ error: HOUR }).check(z.int(HOUR), z.gte(0, HOUR), z.lte(23, HOUR)),
		),
		immediateFailedTests: preprocess(
			(v) => (v === undefined || v === '' ? true : v === 'true' ? true : v === 'false' ? false : v),
			z.boolean({ error: 'immediateFailedTests must be true or false' }),
		),
		/** The language of every e-mail unless a recipient's or customer's own says otherwise. */
		locale: preprocess((v) => (v === undefined || v === '' ? DEFAULT_LOCALE : v), z.enum(LOCALES, { error: `locale must be one of ${LOCALES.join(', ')}` })),
		recipients: preprocess((v) => {
			if (typeof v !== 'string') return v;
			try {
				return JSON.parse(v) as unknown;
			} catch {
				return v;
			}
		}, recipientsSchema()),
		/** The re-test notices to the service company's customers (lambdas/email/noticeSettings.ts); off by default. */
		customerNotices: preprocess((v) => {
			if (v === undefined || v === '') return {};
			if (typeof v !== 'string') return v;
			try {
				return JSON.parse(v) as unknown;
			} catch {
				return v;
			}
		}, customerNoticesSchema()),
	}),
);
export type EmailSettings = z.infer<ReturnType<typeof emailSettingsSchema>>;

export class EmailSettingsError extends Error {
	override readonly name = 'EmailSettingsError';
}

/** Checks the settings; every problem in one error, each naming its field and what would be valid. */
export function parseEmailSettings(input: unknown, source: string): EmailSettings {
	const parsed = emailSettingsSchema().safeParse(input);
	if (!parsed.success) {
		const problems = parsed.error.issues.map((i) => {
			const generic = i.message.startsWith('Invalid') || i.message.startsWith('Too') || i.message.startsWith('Expected');
			return `  - ${generic ? `${i.path.join('.') || 'settings'}: ${i.message}` : i.message}`;
		});
		throw new EmailSettingsError(`The e-mail settings (${source}) are not valid:\n${problems.join('\n')}`);
	}
	return parsed.data;
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
export function localeOf(settings: Pick<EmailSettings, 'locale' | 'recipients'>, recipient: string, more: readonly Recipients[] = []): Locale {
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
