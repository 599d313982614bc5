import { ValidationError } from '../client/errors';
import { checkAddress, localeKey } from './addresses';
import { EMAIL, normalName, type Recipients } from './routing';
import { LOCALES, type Locale } from './texts';

/**
 * Routing rules and addresses as the node's parameters give them (the same JSON as the e-mail
 * settings' `recipients`, lambdas/email/recipients.ts, checked to the same rules without zod):
 * every problem names the parameter and what would be valid.
 */

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A list of addresses (an array, or one string split at commas, semicolons and spaces), each as SES takes it (email/addresses.ts), no repeats. */
export function parseAddressList(value: unknown, parameter: string): string[] {
	const list = typeof value === 'string' ? value.split(/[,;\s]+/).filter(Boolean) : value;
	if (!Array.isArray(list)) throw new ValidationError(parameter, 'expected a list of e-mail addresses, e.g. lab-lead@example.com, quality@example.com');
	const out: string[] = [];
	for (const item of list) {
		if (typeof item !== 'string') throw new ValidationError(parameter, `${JSON.stringify(item)} is not an e-mail address (expected e.g. lab-lead@example.com)`);
		const checked = checkAddress(item);
		if ('problem' in checked) throw new ValidationError(parameter, checked.problem);
		if (!out.includes(checked.address)) out.push(checked.address);
	}
	if (out.length > 50) throw new ValidationError(parameter, 'at most 50 addresses (use a mailing list for more)');
	return out;
}

function byName(value: unknown, parameter: string, key: string): Record<string, string[]> {
	if (value === undefined) return {};
	if (!isObject(value)) throw new ValidationError(parameter, `${key}: expected an object of name → addresses, e.g. {"Acme GmbH": ["custodian@acme.example"]}`);
	const out: Record<string, string[]> = {};
	for (const [name, list] of Object.entries(value)) {
		if (name.trim() === '') throw new ValidationError(parameter, `${key}: a name is empty`);
		if (Object.keys(out).some((k) => normalName(k) === normalName(name))) throw new ValidationError(parameter, `${key}: "${name}" is listed twice (names match whatever their case and spacing)`);
		out[name.trim()] = parseAddressList(list, `${parameter} › ${key}["${name}"]`);
	}
	return out;
}

const KEYS = 'default, customers, departments, escalation, locales';

/** Parses the routing rules (JSON text or an object); `fallback`: the addresses of devices no rule routes (the To parameter). */
export function parseRecipients(value: unknown, parameter: string, fallback: string[] = []): Recipients {
	let raw: unknown = value;
	if (typeof value === 'string') {
		if (value.trim() === '') raw = {};
		else {
			try {
				raw = JSON.parse(value) as unknown;
			} catch (error) {
				throw new ValidationError(parameter, `not valid JSON (${(error as Error).message}); expected an object with ${KEYS}, e.g. {"customers": {"Acme GmbH": ["custodian@acme.example"]}}`);
			}
		}
	}
	if (!isObject(raw)) throw new ValidationError(parameter, `expected an object with ${KEYS}`);
	const unknown = Object.keys(raw).filter((k) => !KEYS.split(', ').includes(k));
	if (unknown.length > 0) throw new ValidationError(parameter, `unknown ${unknown.map((k) => `"${k}"`).join(', ')}; valid keys are ${KEYS}`);
	const listed = raw.default === undefined ? [] : parseAddressList(raw.default, `${parameter} › default`);
	const recipients: Recipients = {
		default: [...new Set([...listed, ...fallback])],
		customers: byName(raw.customers, parameter, 'customers'),
		departments: byName(raw.departments, parameter, 'departments'),
	};
	if (raw.escalation !== undefined) {
		const e = raw.escalation;
		if (!isObject(e) || typeof e.afterDays !== 'number' || !Number.isInteger(e.afterDays) || e.afterDays < 1 || e.afterDays > 3650) {
			throw new ValidationError(parameter, 'escalation: expected {"afterDays": 30, "to": ["manager@example.com"]} with afterDays a whole number of days from 1 to 3650');
		}
		const to = parseAddressList(e.to, `${parameter} › escalation.to`);
		if (to.length === 0) throw new ValidationError(parameter, 'escalation.to: at least one address');
		recipients.escalation = { afterDays: e.afterDays, to };
	}
	if (raw.locales !== undefined) recipients.locales = parseLocales(raw.locales, `${parameter} › locales`, recipients);
	return recipients;
}

function parseLocales(value: unknown, parameter: string, r: Recipients): Record<string, Locale> {
	if (!isObject(value)) throw new ValidationError(parameter, `expected an object of address or list name → locale; valid locales are ${LOCALES.join(', ')}`);
	const lists = ['default', 'escalation', ...Object.keys(r.customers), ...Object.keys(r.departments)].map(normalName);
	const out: Record<string, Locale> = {};
	for (const [key, locale] of Object.entries(value)) {
		const k = key.trim();
		if (!LOCALES.some((l) => l === locale)) throw new ValidationError(parameter, `"${key}": ${JSON.stringify(locale)} is not a locale; valid locales are ${LOCALES.join(', ')}`);
		if (!EMAIL.test(k) && !lists.includes(normalName(k))) throw new ValidationError(parameter, `"${key}" is neither an e-mail address nor a list (valid: an address, "default", "escalation", or a customer or department name of the rules)`);
		out[localeKey(k)] = locale as Locale;
	}
	return out;
}
