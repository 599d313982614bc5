import * as z from 'zod/v4-mini';
import { superRefine, transform } from '../../client/node/zodMini';
import { NOTICE_OPTIONS, type Checked, type NoticeOption } from '../../email/noticeOptions';
import { isEmailAddress } from '../../email/routing';
import { checkTemplate } from '../../email/texts';
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

/** A setting by the rule the node's options follow too (email/noticeOptions.ts), named as the settings name it. */
const shared = <K extends NoticeOption>(key: K) =>
	z.pipe(
		z.unknown(),
		transform((v: unknown, ctx) => {
			const checked = NOTICE_OPTIONS[key](v) as Checked<Extract<ReturnType<(typeof NOTICE_OPTIONS)[K]>, { value: unknown }>['value']>;
			if ('value' in checked) return checked.value;
			ctx.addIssue({ code: 'custom', message: `${where(key)}: ${checked.problem}` });
			return z.NEVER;
		}),
	);

const KEYS = 'enabled, companyName, replyTo, senderName, logoUrl, closing, signature, subject, introduction, closingText, addresses, optOut, locales, maxRows';

export const customerNoticesSchema = once(() =>
	z.strictObject(
		{
			enabled: z._default(z.boolean({ error: `${where('enabled')}: expected true or false` }), false),
			/** The service company's name, as its customers know it ({companyName}). */
			companyName: z.optional(shared('companyName')),
			/** Where a customer's reply goes to book a date (also said in the notice). */
			replyTo: z.optional(shared('replyTo')),
			/** The sender's display name (the address stays mailFrom's). */
			senderName: z.optional(text('senderName', 200).check(z.refine((v) => !/[\r\n<>"]/.test(v), `${where('senderName')}: no line breaks, angle brackets or quotes`))),
			logoUrl: z.optional(
				z.string({ error: `${where('logoUrl')}: expected an https URL` }).check(z.refine((v) => /^https:\/\/[^\s"'<>]+$/.test(v), `${where('logoUrl')}: expected an https URL, e.g. https://lab.example.com/logo.png`)),
			),
			/** The greeting before the signature ("Kind regards"). */
			closing: z.optional(text('closing', 200)),
			signature: z.optional(shared('signature')),
			subject: z.optional(template('subject')),
			introduction: z.optional(template('introduction')),
			closingText: z.optional(template('closingText')),
			/** Customer name → address: overrides the customer's contact e-mail property. */
			addresses: z._default(shared('addresses'), {}),
			/** Customers (by name) who get no notice. */
			optOut: z._default(shared('optOut'), []),
			/** Customer name → language of their notice (else the settings' locale). */
			locales: z._default(shared('locales'), {}),
			/** Rows in a notice's body per section; the CSV attachment holds every device. */
			maxRows: z._default(shared('maxRows'), 100),
		},
		{ error: (issue: { code?: string; keys?: string[] }) => (issue.code === 'unrecognized_keys' ? `customerNotices: unknown ${issue.keys?.map((k) => `"${k}"`).join(', ')}; valid keys are ${KEYS}` : `customerNotices: expected an object with ${KEYS}`) },
	),
);

export type CustomerNotices = z.infer<ReturnType<typeof customerNoticesSchema>>;
