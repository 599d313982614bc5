import * as z from 'zod/v4-mini';
import { preprocess, superRefine } from '../../client/node/zodMini';
import { intervalSettingsSchema } from './intervalSettings';
import { customerNoticesSchema } from './noticeSettings';
import { EMAIL, normalName, recipientsSchema, type Recipients } from './recipients';
import { DEFAULT_LOCALE, LOCALES } from '../../email/texts';
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
		/** The monthly report's interval recommendations (lambdas/email/intervalSettings.ts); unset, the method's defaults. */
		intervals: z.optional(
			preprocess((v) => {
				if (typeof v !== 'string') return v;
				try {
					return JSON.parse(v) as unknown;
				} catch {
					return v;
				}
			}, intervalSettingsSchema()),
		),
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

export { allRecipients, localeOf, route, type Routable } from '../../email/routing';
