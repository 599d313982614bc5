/** The e-mails' catalogues: every key in every language, the same placeholders, and the forms of dates and numbers. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { noticesTextsFor } from '../../email/texts/notices';
import { CATALOGS, LOCALES, checkTemplate, fill, formatDay, formatMonth, formatNumber, formatPercent, placeholdersOf, plural } from '../../email/texts';

/** Every text of a catalogue by its path (common.devices.one …). */
function leaves(node: unknown, path = ''): Map<string, string> {
	const out = new Map<string, string>();
	if (typeof node === 'string') return out.set(path, node);
	for (const [k, v] of Object.entries(node as Record<string, unknown>)) for (const [p, t] of leaves(v, path ? `${path}.${k}` : k)) out.set(p, t);
	return out;
}

describe('catalogues', () => {
	// The notices' texts live apart (email/texts/notices.ts) and are checked with the rest.
	const catalogue = (locale: (typeof LOCALES)[number]) => ({ ...CATALOGS[locale], notices: noticesTextsFor(locale) });
	const english = leaves(catalogue('en'));
	it.each(LOCALES.filter((l) => l !== 'en'))('%s has every English key, no other, each with the same placeholders and none empty', (locale) => {
		const other = leaves(catalogue(locale));
		expect([...other.keys()].sort()).toEqual([...english.keys()].sort());
		for (const [path, text] of english) {
			expect(placeholdersOf(other.get(path)!).sort(), path).toEqual(placeholdersOf(text).sort());
			expect(other.get(path)!.trim(), path).not.toBe('');
		}
	});

	it('every text fills: no stray braces', () => {
		for (const locale of LOCALES) for (const [path, text] of leaves(catalogue(locale))) expect(checkTemplate(text, placeholdersOf(text)), `${locale} ${path}`).toBeUndefined();
	});
});

describe('templates', () => {
	it('fill replaces every placeholder; an unknown one is refused, naming it and the valid ones', () => {
		expect(fill('{count} devices of {customerName}', { count: 3, customerName: 'Acme' })).toBe('3 devices of Acme');
		expect(() => fill('{cont} devices', { count: 3 })).toThrow('unknown placeholder {cont}; valid placeholders are {count}');
		expect(checkTemplate('Hello {customerName', ['customerName'])).toMatch(/brace/);
		expect(checkTemplate('Hello {customer}', ['customerName', 'month'])).toBe('unknown placeholder {customer}; valid placeholders are {customerName}, {month}');
	});

	it('a filled value is never read as a placeholder', () => {
		fc.assert(fc.property(fc.string(), (value) => {
			expect(fill('a {x} b', { x: value })).toBe(`a ${value} b`);
		}));
	});

	it('plural forms by count', () => {
		expect(plural(1, CATALOGS.en.common.devices, 'en')).toBe('1 device');
		expect(plural(2, CATALOGS.en.common.devices, 'en')).toBe('2 devices');
		expect(plural(1, CATALOGS.de.common.devices, 'de')).toBe('1 Gerät');
		expect(plural(2000, CATALOGS.de.common.devices, 'de')).toBe('2.000 Geräte');
	});
});

describe('forms of dates and numbers', () => {
	it('days: ISO in English (as before), DD.MM.YYYY in German; anything else as it is', () => {
		expect(formatDay('2026-11-27', 'en')).toBe('2026-11-27');
		expect(formatDay('2026-11-27', 'de')).toBe('27.11.2026');
		expect(formatDay('soon', 'de')).toBe('soon');
		fc.assert(fc.property(fc.date({ min: new Date('1900-01-01'), max: new Date('2199-12-31'), noInvalidDate: true }), (d) => {
			const day = d.toISOString().slice(0, 10);
			const [y, m, dd] = day.split('-');
			expect(formatDay(day, 'de')).toBe(`${dd}.${m}.${y}`);
		}));
	});

	it('months, numbers and percentages', () => {
		expect(formatMonth('2027-03', 'en')).toBe('March 2027');
		expect(formatMonth('2027-03', 'de')).toBe('März 2027');
		expect(formatMonth('2027-03', 'de', 'short')).toBe('Mär 27');
		expect(formatMonth('2027-13', 'de')).toBe('2027-13');
		expect(formatNumber(1234.5, 'en', 1)).toBe('1,234.5');
		expect(formatNumber(1234.5, 'de', 1)).toBe('1.234,5');
		expect(formatPercent(0.975, 'en')).toBe('97.5%');
		expect(formatPercent(0.975, 'de')).toBe('97,5\u00a0%');
		expect(formatPercent(null, 'de')).toBe('–');
	});
});
