import * as z from 'zod/v4';
import { EMAIL } from './recipients';
import { checkTemplate, LOCALES } from './texts';
import { once } from '../once';

/**
 * The settings of the re-test notices a service company sends its customers (`customerNotices`
 * beside the e-mail settings). Off unless enabled. Templates are checked here, so a placeholder
 * the notice cannot fill is refused at `npm start` and at synth, naming it.
 */

/** The placeholders a notice's subject, introduction and closing text may use. */
export const NOTICE_PLACEHOLDERS = ['customerName', 'month', 'count', 'overdueCount', 'companyName', 'replyTo'] as const;

/** Whether a value is a usable e-mail address (the one rule the settings and the service's values share). */
export function isEmailAddress(value: string): boolean {
	return EMAIL.test(value.trim());
}

const where = (key: string) => `customerNotices.${key}`;

const text = (key: string, max = 2000) => z.string({ error: `${where(key)}: expected a text` }).max(max, `${where(key)}: at most ${max} characters`);

const template = (key: string) =>
	text(key).superRefine((v, ctx) => {
		const problem = checkTemplate(v, NOTICE_PLACEHOLDERS);
		if (problem) ctx.addIssue({ code: 'custom', message: `${where(key)}: ${problem}` });
	});

const noticeAddress = (key: string) =>
	z.string({ error: `${where(key)}: expected an e-mail address` }).transform((v, ctx) => {
		if (!isEmailAddress(v)) {
			ctx.addIssue({ code: 'custom', message: `${where(key)}: "${v}" is not an e-mail address (expected e.g. service@lab.example.com)` });
			return z.NEVER;
		}
		return v.trim().toLowerCase();
	});

const KEYS = 'enabled, companyName, replyTo, senderName, logoUrl, closing, signature, subject, introduction, closingText, addresses, optOut, locales, maxRows';

export const customerNoticesSchema = once(() =>
	z
		.object(
			{
				enabled: z.boolean({ error: `${where('enabled')}: expected true or false` }).default(false),
				/** The service company's name, as its customers know it ({companyName}). */
				companyName: text('companyName', 200).optional(),
				/** Where a customer's reply goes to book a date (also said in the notice). */
				replyTo: noticeAddress('replyTo').optional(),
				/** The sender's display name (the address stays mailFrom's). */
				senderName: text('senderName', 200)
					.refine((v) => !/[\r\n<>"]/.test(v), `${where('senderName')}: no line breaks, angle brackets or quotes`)
					.optional(),
				logoUrl: z
					.string({ error: `${where('logoUrl')}: expected an https URL` })
					.refine((v) => /^https:\/\/[^\s"'<>]+$/.test(v), `${where('logoUrl')}: expected an https URL, e.g. https://lab.example.com/logo.png`)
					.optional(),
				/** The greeting before the signature ("Kind regards"). */
				closing: text('closing', 200).optional(),
				signature: text('signature').optional(),
				subject: template('subject').optional(),
				introduction: template('introduction').optional(),
				closingText: template('closingText').optional(),
				/** Customer name → address: overrides the customer's contact e-mail property. */
				addresses: z.record(z.string(), noticeAddress('addresses'), { error: `${where('addresses')}: expected an object of customer name → address, e.g. {"Acme GmbH": "facilities@acme.example"}` }).default({}),
				/** Customers (by name) who get no notice. */
				optOut: z.array(z.string(), { error: `${where('optOut')}: expected a list of customer names, e.g. ["Acme GmbH"]` }).default([]),
				/** Customer name → language of their notice (else the settings' locale). */
				locales: z.record(z.string(), z.enum(LOCALES, { error: `${where('locales')}: expected one of ${LOCALES.join(', ')} per customer` }), { error: `${where('locales')}: expected an object of customer name → ${LOCALES.join(' | ')}` }).default({}),
				/** Rows in a notice's body per section; the CSV attachment holds every device. */
				maxRows: z.number({ error: `${where('maxRows')}: expected a whole number from 1 to 1000` }).int(`${where('maxRows')}: expected a whole number from 1 to 1000`).min(1, `${where('maxRows')}: expected a whole number from 1 to 1000`).max(1000, `${where('maxRows')}: expected a whole number from 1 to 1000`).default(100),
			},
			{ error: (issue: { code?: string; keys?: string[] }) => (issue.code === 'unrecognized_keys' ? `customerNotices: unknown ${issue.keys?.map((k) => `"${k}"`).join(', ')}; valid keys are ${KEYS}` : `customerNotices: expected an object with ${KEYS}`) },
		)
		.strict(),
);

export type CustomerNotices = z.infer<ReturnType<typeof customerNoticesSchema>>;
