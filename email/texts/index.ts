import { de } from './de';
import { en, type Catalog } from './en';

/**
 * The e-mails' languages: one catalogue of texts per language (texts/en.ts, texts/de.ts), the same
 * keys in each (the type says so, and test/email/texts.test.ts checks keys and placeholders), and
 * the forms of dates and numbers each language's readers expect.
 */
export const LOCALES = ['en', 'de'] as const;
export type Locale = (typeof LOCALES)[number];
/** ASSUMED: English unless the settings say otherwise (the e-mails before languages were English). */
export const DEFAULT_LOCALE: Locale = 'en';

export type { Catalog };

export const CATALOGS: Readonly<Record<Locale, Catalog>> = { en, de };

export function isLocale(value: unknown): value is Locale {
	return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

export function textsFor(locale: Locale): Catalog {
	return CATALOGS[locale];
}

const PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9]*)\}/g;

/** The placeholders a text names ({customerName}, {count}, …), in order of first use. */
export function placeholdersOf(text: string): string[] {
	return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]))];
}

/**
 * A text with its placeholders filled. A placeholder without a value throws, naming it and the
 * values there are: a template is checked with checkTemplate before it is ever filled.
 */
export function fill(text: string, values: Readonly<Record<string, string | number>>): string {
	return text.replace(PLACEHOLDER, (_, name: string) => {
		if (!(name in values)) throw new Error(`unknown placeholder {${name}}; valid placeholders are ${Object.keys(values).map((k) => `{${k}}`).join(', ') || 'none'}`);
		return String(values[name]);
	});
}

/** Why a template cannot be filled with these placeholders, or undefined when it can (also: unbalanced braces). */
export function checkTemplate(text: string, allowed: readonly string[]): string | undefined {
	const unknown = placeholdersOf(text).filter((p) => !allowed.includes(p));
	if (unknown.length > 0) return `unknown placeholder ${unknown.map((p) => `{${p}}`).join(', ')}; valid placeholders are ${allowed.map((p) => `{${p}}`).join(', ')}`;
	const rest = text.replace(PLACEHOLDER, '');
	if (/[{}]/.test(rest)) return `a brace that opens or closes no placeholder (placeholders are written {name}, e.g. {${allowed[0] ?? 'name'}})`;
	return undefined;
}

/** One form for one, another for any other count ("1 device", "2 devices"; "1 Gerät", "2 Geräte"). */
export function plural(count: number, forms: { one: string; other: string }, locale: Locale): string {
	return fill(count === 1 ? forms.one : forms.other, { count: formatCount(count, locale) });
}

/** The form of a label shown beside its count ("failed test", "failed tests"). */
export function formOf(count: number, forms: { one: string; other: string }): string {
	return count === 1 ? forms.one : forms.other;
}

/**
 * A count or measured value as the e-mails show it: English as before (1234, 0.35: digits only,
 * tests and readers parse them), German with its separators (1.234, 0,35).
 */
export function formatCount(value: number, locale: Locale): string {
	return locale === 'en' ? String(value) : formatNumber(value, locale, 6);
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar day (YYYY-MM-DD) as its readers write it: 2026-11-27 in English (as before), 27.11.2026 in German. */
export function formatDay(day: string, locale: Locale): string {
	const m = DAY.exec(day);
	if (!m || locale === 'en') return day;
	return `${m[3]}.${m[2]}.${m[1]}`;
}

/** A day with its weekday: "Friday, 20 November 2026", "Freitag, 20. November 2026". */
export function formatLongDay(day: string, locale: Locale): string {
	const d = new Date(`${day}T12:00:00Z`);
	if (!DAY.test(day) || Number.isNaN(d.getTime())) return day;
	return new Intl.DateTimeFormat(locale === 'de' ? 'de-DE' : 'en-GB', { timeZone: 'UTC', weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' }).format(d);
}

const MONTHS: Record<Locale, readonly string[]> = {
	en: ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'],
	de: ['Januar', 'Februar', 'März', 'April', 'Mai', 'Juni', 'Juli', 'August', 'September', 'Oktober', 'November', 'Dezember'],
};

/** A month (YYYY-MM) by name: "March 2027", "März 2027"; `short`: "Mar 27", "Mär 27". */
export function formatMonth(month: string, locale: Locale, form: 'long' | 'short' = 'long'): string {
	const m = /^(\d{4})-(\d{2})$/.exec(month);
	const index = m ? Number(m[2]) - 1 : -1;
	if (!m || index < 0 || index > 11) return month;
	const name = MONTHS[locale][index];
	return form === 'long' ? `${name} ${m[1]}` : `${name.slice(0, 3)} ${m[1].slice(2)}`;
}

/** A number with at most `digits` decimals: 1,234.5 in English, 1.234,5 in German. */
export function formatNumber(value: number, locale: Locale, digits = 0): string {
	return new Intl.NumberFormat(locale === 'de' ? 'de-DE' : 'en-GB', { maximumFractionDigits: digits }).format(value);
}

/** A share (0–1) as a percentage with one decimal: "97.5%" in English (as before), "97,5 %" in German (a no-break space before the sign). */
export function formatPercent(share: number | null, locale: Locale): string {
	return share === null ? '–' : `${formatNumber(Math.round(share * 1000) / 10, locale, 1)}${locale === 'de' ? '\u00a0' : ''}%`;
}
