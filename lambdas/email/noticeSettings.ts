import * as z from 'zod/v4-mini';
import { superRefine, transform } from '../../client/node/zodMini';
import { hasAsciiLocalPart, isEmailAddress } from '../../email/routing';
import { checkTemplate, LOCALES } from '../../email/texts';
import { once } from '../once';

/**
 * The settings of the re-test notices a service company sends its customers (`customerNotices`
 * beside the e-mail settings). Off unless enabled. Templates are checked here, so a placeholder
 * the notice cannot fill is refused at `npm start` and at synth, naming it.
 */

/** The placeholders a notice's subject, introduction and closing text may use. */
export const NOTICE_PLACEHOLDERS = ['customerName', 'month', 'count', 'overdueCount', 'companyName', 'replyTo'] as const;

export { isEmailAddress };

const where = (key: string) => `customerNotices.${key}`;

const text = (key: string, max = 2000) => z.string({ error: `${where(key)}: expected a text` }).check(z.maxLength(max, `${where(key)}: at most ${max} characters`));

const template = (key: string) =>
	text(key).check(
		superRefine((v: string, ctx) => {
			const problem = checkTemplate(v, NOTICE_PLACEHOLDERS);
			if (problem) ctx.addIssue({ code: 'custom', message: `${where(key)}: ${problem}` });
		}),
	);

const noticeAddress = (key: string, asciiLocalPart = false) =>
	z.pipe(
		z.string({ error: `${where(key)}: expected an e-mail address` }),
		transform((v: string, ctx) => {
			if (!isEmailAddress(v)) {
				ctx.addIssue({ code: 'custom', message: `${where(key)}: "${v}" is not an e-mail address (expected e.g. service@lab.example.com)` });
				return z.NEVER;
			}
			// Every notice carries it: SES would refuse each one (a customer's own address is only that customer's "no usable address").
			if (asciiLocalPart && !hasAsciiLocalPart(v.trim())) {
				ctx.addIssue({ code: 'custom', message: `${where(key)}: "${v}" has a local part that is not 7-bit ASCII, which SES cannot send with (expected e.g. service@lab.example.com; a domain with umlauts is fine)` });
				return z.NEVER;
			}
			return v.trim().toLowerCase();
		}),
	);

const KEYS = 'enabled, companyName, replyTo, senderName, logoUrl, closing, signature, subject, introduction, closingText, addresses, optOut, locales, maxRows';

const ROWS = `${where('maxRows')}: expected a whole number from 1 to 1000`;

export const customerNoticesSchema = once(() =>
	z.strictObject(
		{
			enabled: z._default(z.boolean({ error: `${where('enabled')}: expected true or false` }), false),
			/** The service company's name, as its customers know it ({companyName}). */
			companyName: z.optional(text('companyName', 200)),
			/** Where a customer's reply goes to book a date (also said in the notice). */
			replyTo: z.optional(noticeAddress('replyTo', true)),
			/** The sender's display name (the address stays mailFrom's). */
			senderName: z.optional(text('senderName', 200).check(z.refine((v) => !/[\r\n<>"]/.test(v), `${where('senderName')}: no line breaks, angle brackets or quotes`))),
			logoUrl: z.optional(
				z.string({ error: `${where('logoUrl')}: expected an https URL` }).check(z.refine((v) => /^https:\/\/[^\s"'<>]+$/.test(v), `${where('logoUrl')}: expected an https URL, e.g. https://lab.example.com/logo.png`)),
			),
			/** The greeting before the signature ("Kind regards"). */
			closing: z.optional(text('closing', 200)),
			signature: z.optional(text('signature')),
			subject: z.optional(template('subject')),
			introduction: z.optional(template('introduction')),
			closingText: z.optional(template('closingText')),
			/** Customer name → address: overrides the customer's contact e-mail property. */
			addresses: z._default(z.record(z.string(), noticeAddress('addresses'), { error: `${where('addresses')}: expected an object of customer name → address, e.g. {"Acme GmbH": "facilities@acme.example"}` }), {}),
			/** Customers (by name) who get no notice. */
			optOut: z._default(z.array(z.string(), { error: `${where('optOut')}: expected a list of customer names, e.g. ["Acme GmbH"]` }), []),
			/** Customer name → language of their notice (else the settings' locale). */
			locales: z._default(
				z.record(z.string(), z.enum(LOCALES, { error: `${where('locales')}: expected one of ${LOCALES.join(', ')} per customer` }), { error: `${where('locales')}: expected an object of customer name → ${LOCALES.join(' | ')}` }),
				{},
			),
			/** Rows in a notice's body per section; the CSV attachment holds every device. */
			maxRows: z._default(z.number({ error: ROWS }).check(z.int(ROWS), z.gte(1, ROWS), z.lte(1000, ROWS)), 100),
		},
		{ error: (issue: { code?: string; keys?: string[] }) => (issue.code === 'unrecognized_keys' ? `customerNotices: unknown ${issue.keys?.map((k) => `"${k}"`).join(', ')}; valid keys are ${KEYS}` : `customerNotices: expected an object with ${KEYS}`) },
	),
);

export type CustomerNotices = z.infer<ReturnType<typeof customerNoticesSchema>>;
