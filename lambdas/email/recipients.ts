import * as z from 'zod/v4-mini';
import { preprocess, superRefine, transform } from '../../client/node/zodMini';
import { LOCALES, type Locale } from '../../email/texts';
import { once } from '../once';
import { EMAIL, normalName } from '../../email/routing';
import { checkAddress, localeKey } from '../../email/addresses';

export { EMAIL, normalName };

/**
 * Who gets which devices: the recipients part of the e-mail settings (settings.ts), in a module of
 * its own because the pollers check an account's recipients too (lambdas/accounts.ts) and their
 * bundles should not carry the rest of the e-mail settings.
 */

/** An address as SES takes it (email/addresses.ts: the node's parameters follow the same rule). */
const address = (where: string) =>
	z.pipe(
		z.string({ error: `${where}: expected an e-mail address` }),
		transform((v: string, ctx) => {
			const checked = checkAddress(v);
			if ('address' in checked) return checked.address;
			ctx.addIssue({ code: 'custom', message: `${where}: ${checked.problem}` });
			return z.NEVER;
		}),
	);

const addressList = (where: string) =>
	preprocess(
		(v) => (typeof v === 'string' ? v.split(/[,;\s]+/).filter(Boolean) : v),
		z.pipe(
			z.array(address(where), { error: `${where}: expected a list of e-mail addresses, e.g. ["lab-lead@example.com"]` }).check(z.maxLength(50, `${where}: at most 50 addresses (use a mailing list for more)`)),
			z.transform((list: string[]) => [...new Set(list)]),
		),
	);

const byName = (where: string) =>
	z.pipe(
		z.record(z.string(), z.unknown(), { error: `${where}: expected an object of name → addresses, e.g. {"Acme GmbH": ["custodian@acme.example"]}` }),
		transform((map: Record<string, unknown>, ctx) => {
			const out: Record<string, string[]> = {};
			for (const [name, list] of Object.entries(map)) {
				if (name.trim() === '') ctx.addIssue({ code: 'custom', message: `${where}: a name is empty` });
				const parsed = addressList(`${where}["${name}"]`).safeParse(list);
				if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message });
				else if (Object.keys(out).some((k) => normalName(k) === normalName(name))) ctx.addIssue({ code: 'custom', message: `${where}: "${name}" is listed twice (names match whatever their case and spacing)` });
				else out[name.trim()] = parsed.data;
			}
			return out;
		}),
	);

function objectError(where: string, keys: string, expected: string) {
	return (issue: { code?: string; keys?: string[] }) =>
		issue.code === 'unrecognized_keys' ? `${where}: unknown ${issue.keys?.map((k) => `"${k}"`).join(', ')}; valid keys are ${keys}` : `${where}: expected ${expected}`;
}

const LOCALE_VALUES = `valid values are ${LOCALES.join(', ')}`;

/**
 * The language per recipient: an address, or a list (`default`, `escalation`, a customer's or a
 * department's name), to a locale. An address's own entry wins over its lists'.
 */
const localesSchema = once(() =>
	z.pipe(
		z.record(z.string(), z.unknown(), { error: `recipients.locales: expected an object of address or list name → locale, e.g. {"Acme GmbH": "de", "ops@example.com": "en"}; ${LOCALE_VALUES}` }),
		transform((map: Record<string, unknown>, ctx) => {
			const out: Record<string, Locale> = {};
			for (const [key, value] of Object.entries(map)) {
				const locale = LOCALES.find((l) => l === value);
				if (key.trim() === '') ctx.addIssue({ code: 'custom', message: 'recipients.locales: a name is empty' });
				else if (!locale) ctx.addIssue({ code: 'custom', message: `recipients.locales["${key}"]: ${JSON.stringify(value)} is not a locale; ${LOCALE_VALUES}` });
				else out[localeKey(key)] = locale;
			}
			return out;
		}),
	),
);

const AFTER_DAYS = 'recipients.escalation.afterDays: expected a whole number of days from 1 to 3650';

export const recipientsSchema = once(() =>
	z
		.strictObject(
			{
				default: z._default(addressList('recipients.default'), []),
				customers: z._default(byName('recipients.customers'), {}),
				departments: z._default(byName('recipients.departments'), {}),
				escalation: z.optional(
					z.strictObject(
						{
							afterDays: z.number({ error: AFTER_DAYS }).check(z.int(AFTER_DAYS), z.gte(1, AFTER_DAYS), z.lte(3650, AFTER_DAYS)),
							to: addressList('recipients.escalation.to').check(z.refine((l) => l.length > 0, 'recipients.escalation.to: at least one address')),
						},
						{ error: objectError('recipients.escalation', 'afterDays, to', '{"afterDays": 30, "to": ["manager@example.com"]}') },
					),
				),
				locales: z.optional(localesSchema()),
			},
			{ error: objectError('recipients', 'default, customers, departments, escalation, locales', 'an object with default, customers, departments, escalation and locales') },
		)
		.check(
			superRefine((r: { default: string[]; customers: Record<string, string[]>; departments: Record<string, string[]>; locales?: Record<string, Locale> }, ctx) => {
				const any = r.default.length + Object.keys(r.customers).length + Object.keys(r.departments).length;
				if (any === 0) ctx.addIssue({ code: 'custom', message: 'recipients: give at least a default list (recipients.default) or a customer or department list' });
				// A name that is not an address must name a list: a misspelt customer would silently get English.
				const lists = ['default', 'escalation', ...Object.keys(r.customers), ...Object.keys(r.departments)].map(normalName);
				for (const key of Object.keys(r.locales ?? {})) {
					if (!EMAIL.test(key) && !lists.includes(normalName(key))) {
						ctx.addIssue({ code: 'custom', message: `recipients.locales: "${key}" is neither an e-mail address nor a list (valid: an address, "default", "escalation", or a name in recipients.customers or recipients.departments)` });
					}
				}
			}),
		),
);
export type Recipients = z.infer<ReturnType<typeof recipientsSchema>>;
