/** The hand-written MIME (lambdas/email/mime.ts) read back by a MIME parser (postal-mime) on hostile headers: every line within RFC 5322, every encoded word within RFC 2047, every value as it was. */
import fc from 'fast-check';
import PostalMime from 'postal-mime';
import { describe, expect, it } from 'vitest';
import { toMime } from '../../lambdas/email/mime';
import type { OutgoingEmail } from '../../lambdas/email/ports';

const email = (over: Partial<OutgoingEmail>): OutgoingEmail => ({
	from: 'Lab service <service@lab.example.com>',
	to: 'customer@site.example',
	replyTo: 'booking@lab.example.com',
	subject: 'Re-test due',
	text: 'text',
	html: '<p>html</p>',
	messageId: '<0123456789abcdef@lab.example.com>',
	date: new Date('2026-12-01T06:00:00Z'),
	attachments: [{ filename: 'wiederholungsprüfung-2027-01.csv', contentType: 'text/csv', content: 'a;b\r\n' }],
	...over,
});

/** The header block, unfolded lines as written. */
const headerLines = (raw: string) => raw.slice(0, raw.indexOf('\r\n\r\n')).split('\r\n');

/** Pieces a hostile subject is made of: long words, spaces and tabs, line breaks, umlauts, emoji, right-to-left text, things that look like encoded words. */
const piece = fc.oneof(
	fc.string({ unit: 'grapheme', maxLength: 40 }),
	fc.string({ unit: 'binary', maxLength: 20 }),
	fc.constantFrom(' ', '  ', '\t', '\r\n', '\n', '=?UTF-8?B?SGVsbG8=?=', '=?', '?=', 'ä', 'Prüfgerät', '🔧', '‏שלום‏', '"', '\\', ':', ';', ','),
	fc.string({ unit: fc.constantFrom('x', 'y', 'z'), minLength: 100, maxLength: 1200 }),
);
const hostile = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(''));

/** What a reader should see: line breaks are not part of a subject (mime.ts makes them spaces), the rest as given. */
const seen = (subject: string) => subject.replace(/[\r\n]+/g, ' ');

describe('MIME headers, read back by a MIME parser', () => {
	it('a long customer name: the Subject line is folded (no line over 78 characters), and reads back whole', async () => {
		const subject = `Re-test due in January 2027: 12 devices at ${'Very Long Customer Name Industries '.repeat(35).trim()}`;
		const raw = toMime(email({ subject }));
		for (const line of headerLines(raw)) expect(line.length, line.slice(0, 40)).toBeLessThanOrEqual(78);
		expect((await PostalMime.parse(raw)).subject).toBe(subject);
	});

	it('any subject (fast-check): every header line at most 998 characters, every encoded word at most 75, and the parser reads the subject as it was', async () => {
		await fc.assert(
			fc.asyncProperty(hostile, async (subject) => {
				const raw = toMime(email({ subject }));
				for (const line of headerLines(raw)) expect(line.length).toBeLessThanOrEqual(998);
				for (const word of raw.match(/=\?[^?\s]+\?[BbQq]\?[^?\s]*\?=/g) ?? []) expect(word.length).toBeLessThanOrEqual(75);
				const parsed = await PostalMime.parse(raw);
				expect(parsed.subject ?? '').toBe(seen(subject));
				expect(parsed.text?.trim()).toBe('text');
				expect(parsed.attachments.map((a) => a.filename)).toEqual(['wiederholungsprüfung-2027-01.csv']);
			}),
			{ numRuns: 300 },
		);
	});

	it('a display name with umlauts, quotes and a long company name reads back as written', async () => {
		await fc.assert(
			fc.asyncProperty(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 200 }).filter((n) => !/[\r\n<>"]/.test(n) && n.trim() === n && n !== ''), async (name) => {
				const raw = toMime(email({ from: `${name} <service@lab.example.com>` }));
				for (const line of headerLines(raw)) expect(line.length).toBeLessThanOrEqual(998);
				const parsed = await PostalMime.parse(raw);
				expect(parsed.from?.address).toBe('service@lab.example.com');
				expect(parsed.from?.name).toBe(name);
			}),
			{ numRuns: 200 },
		);
	});
});
