import { checkAddress } from './addresses';
import { isEmailAddress } from './routing';
import { LOCALES, type Locale } from './texts';

/**
 * The settings of the customer re-test notices that both faces take (the Lambdas' `customerNotices`
 * settings, lambdas/email/noticeSettings.ts, and the node's Build Customer Re-Test Notices options):
 * one rule per setting, so the same values give the same notices, or the same problem, on both.
 * Each rule gives the value as the notices use it, or the problem, to follow the name of the
 * setting or parameter.
 */

export type Checked<T> = { value: T } | { problem: string };

/** A text beside the templates; blank is none (the face's default applies: a signature of the company name). */
function optionalText(value: unknown, max: number, trim: boolean): Checked<string | undefined> {
	if (value === undefined || value === null) return { value: undefined };
	if (typeof value !== 'string') return { problem: 'expected a text' };
	if (value.trim() === '') return { value: undefined };
	if (value.length > max) return { problem: `at most ${max} characters` };
	return { value: trim ? value.trim() : value };
}

/** An object given as such or as JSON text (the node's JSON parameters, a value from cdk -c). */
function jsonObject(value: unknown, example: string): Checked<Record<string, unknown>> {
	let raw = value;
	if (typeof value === 'string') {
		if (value.trim() === '') return { value: {} };
		try {
			raw = JSON.parse(value) as unknown;
		} catch (error) {
			return { problem: `not valid JSON (${(error as Error).message}); expected an object such as ${example}` };
		}
	}
	if (raw === undefined || raw === null) return { value: {} };
	if (typeof raw !== 'object' || Array.isArray(raw)) return { problem: `expected an object such as ${example}` };
	return { value: raw as Record<string, unknown> };
}

export const NOTICE_OPTIONS = {
	/** The service company's name, as its customers know it ({companyName}); braces are fine (filling is one pass). */
	companyName: (value: unknown) => optionalText(value, 200, true),

	/** The lines under the closing, as written. */
	signature: (value: unknown) => optionalText(value, 2000, false),

	/**
	 * Where a customer's reply goes: every notice carries it, so SES must be able to send with it
	 * (the one address rule, email/addresses.ts). As written, lower case: the notice's text shows it
	 * so, its Reply-To header takes it in Punycode (email/notices.ts replyToHeader).
	 */
	replyTo(value: unknown): Checked<string> {
		if (typeof value !== 'string') return { problem: `${JSON.stringify(value)} is not an e-mail address (expected e.g. service@lab.example.com)` };
		const checked = checkAddress(value);
		if ('problem' in checked) return { problem: checked.problem.replace('lab-lead@example.com', 'service@lab.example.com') };
		return { value: value.trim().toLowerCase() };
	},

	/** Devices listed per section of a notice's body; the CSV attachment holds every device. */
	maxRows(value: unknown): Checked<number> {
		if (value === undefined || value === null) return { value: 100 };
		if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 1000) return { problem: `expected a whole number from 1 to 1000, got ${JSON.stringify(value)}` };
		return { value };
	},

	/** Customers (by name) who get no notice: a list, one name per line, or a JSON array (a name may hold commas). */
	optOut(value: unknown): Checked<string[]> {
		let list: unknown = value ?? [];
		if (typeof list === 'string' && list.trim().startsWith('[')) {
			try {
				list = JSON.parse(list) as unknown;
			} catch {
				list = undefined; // Named below, as any other value that is not a list of names.
			}
		}
		if (typeof list === 'string') list = list.split(/\r?\n/);
		if (!Array.isArray(list) || !list.every((n) => typeof n === 'string')) return { problem: `expected names one per line or a JSON array of names, e.g. ["Acme GmbH", "Meier, Schulz & Co. KG"]; got ${JSON.stringify(value)}` };
		return { value: list.map((n: string) => n.trim()).filter(Boolean) };
	},

	/** Customer name → address, overriding the customer's contact e-mail (one the address rule refuses is that customer's "no usable address"). */
	addresses(value: unknown): Checked<Record<string, string>> {
		const object = jsonObject(value, '{"Acme GmbH": "facilities@acme.example"}');
		if ('problem' in object) return object;
		const out: Record<string, string> = {};
		for (const [name, address] of Object.entries(object.value)) {
			if (typeof address !== 'string' || !isEmailAddress(address)) return { problem: `"${name}": ${JSON.stringify(address)} is not an e-mail address (expected e.g. facilities@acme.example)` };
			// As the address rule writes it; one it refuses is that customer's reason (email/notices.ts addressOf).
			const checked = checkAddress(address);
			out[name] = 'address' in checked ? checked.address : address.trim();
		}
		return { value: out };
	},

	/** Customer name → language of their notice (else the face's language). */
	locales(value: unknown): Checked<Record<string, Locale>> {
		const object = jsonObject(value, '{"Acme GmbH": "de"}');
		if ('problem' in object) return object;
		const out: Record<string, Locale> = {};
		for (const [name, locale] of Object.entries(object.value)) {
			const l = LOCALES.find((x) => x === locale);
			if (!l) return { problem: `"${name}": ${JSON.stringify(locale)} is not a language; valid languages are ${LOCALES.join(', ')}` };
			out[name] = l;
		}
		return { value: out };
	},
} as const;

export type NoticeOption = keyof typeof NOTICE_OPTIONS;
