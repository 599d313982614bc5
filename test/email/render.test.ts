import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { composeDigest } from '../../lambdas/email/digest';
import { encodeWord, toMime } from '../../lambdas/email/mime';
import { MAX_ROWS, renderDigest, renderFailedTest } from '../../email/render';
import { HTML_BUDGET_BYTES, utf8Bytes } from '../../email/budget';
import { device } from '../support/emailEvents';
import { mimeParts } from '../support/localSes';
import { PREVIEW_SETTINGS, previewContent, previewEmail, truthOf } from '../support/emailPreview';

describe('the digest e-mail, rendered', () => {
	it('plain text: every section, the counts, longest overdue first (snapshot)', async () => {
		const email = previewEmail();
		expect(email.subject).toBe('Calibration digest Friday, 20 November 2026: 2 newly overdue, 1 failed test, 2 coming due, 3 still overdue');
		expect(email.text.indexOf('Rohde & Schwarz')).toBeLessThan(email.text.indexOf('Metrel'));
		expect(email.text).toContain('Step 6 Patient leakage current, I leak: measured 142 µA, limits ≤ 100 µA');
		expect(email.text).toContain('82 days overdue (was due 2026-08-30) [escalated]');
		await expect(`Subject: ${email.subject}\n\n${email.text}`).toMatchFileSnapshot('./__snapshots__/digest.txt');
	});

	it('HTML: one column for phones, inline CSS only, at most three columns a table, text escaped (snapshot)', async () => {
		const { html } = previewEmail();
		expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
		expect(html).toContain('max-width:640px');
		expect(html).not.toMatch(/<style|<link|<script|class=/);
		expect(html).toContain('Rohde &amp; Schwarz');
		const headers = html.match(/<tr>(?:<th[^>]*>[^<]*<\/th>)+<\/tr>/g) ?? [];
		expect(headers.length).toBe(4);
		for (const row of headers) expect(row.match(/<th /g)).toHaveLength(3);
		await expect(html).toMatchFileSnapshot('./__snapshots__/digest.html');
	});

	it('the immediate failed-test e-mail (snapshot)', async () => {
		const c = previewContent();
		const email = renderFailedTest(c.failedTests[0], { environment: 'production', timeZone: 'Europe/Berlin' });
		expect(email.subject).toBe('Test failed: GE Dash 4000 Patient Monitor (TE-01311), 2 failed steps');
		await expect(`Subject: ${email.subject}\n\n${email.text}`).toMatchFileSnapshot('./__snapshots__/failed-test.txt');
		await expect(email.html).toMatchFileSnapshot('./__snapshots__/failed-test.html');
	});

	it('a long section lists the first rows and says how many more', () => {
		const many = Array.from({ length: MAX_ROWS + 7 }, (_, i) => device(i + 1, { customerName: null, department: null, nextTestDate: '2026-11-01' }));
		const s = { ...PREVIEW_SETTINGS, recipients: { ...PREVIEW_SETTINGS.recipients, default: ['ops@example.com'] } };
		const c = composeDigest({ settings: s, timeZone: 'UTC', environment: 'sandbox' }, 'ops@example.com', '2026-11-20', [], truthOf(many))!;
		const email = renderDigest(c);
		expect(email.text).toContain(`STILL OVERDUE, LONGEST FIRST (${MAX_ROWS + 7})`);
		expect(email.text).toContain('…and 7 more');
		expect(email.html).toContain('…and 7 more');
	});

	it('every section over the limit says how many more, in both parts (failed tests take several lines each)', () => {
		const n = MAX_ROWS + 4;
		const c = previewContent();
		const rows = (from: number) => Array.from({ length: n }, (_, i) => device(from + i, { nextTestDate: '2026-11-01' }));
		const base = c.failedTests[0];
		const email = renderDigest({
			...c,
			newlyOverdue: rows(1),
			stillOverdue: rows(101),
			dueSoon: rows(201).map(({ daysOverdue: _none, ...d }) => ({ ...d, nextTestDate: '2026-11-27', daysLeft: 7 })),
			failedTests: Array.from({ length: n }, (_, i) => ({ ...base, testResultId: 1000 + i })),
		});
		// 29 failed tests with their steps outgrow the HTML's budget: every section then lists fewer
		// rows (the same number in both parts), and says how many more.
		expect(utf8Bytes(email.html)).toBeLessThanOrEqual(HTML_BUDGET_BYTES);
		const mores: number[] = [];
		for (const title of ['NEWLY OVERDUE SINCE THE LAST DIGEST', 'FAILED TESTS SINCE THE LAST DIGEST', 'COMING DUE', 'STILL OVERDUE, LONGEST FIRST']) {
			const section = email.text.slice(email.text.indexOf(`${title} (${n})`)).split('\n\n')[0];
			mores.push(Number(/…and (\d+) more/.exec(section)?.[1]));
		}
		expect(mores[0]).toBeGreaterThanOrEqual(4);
		expect(new Set(mores)).toEqual(new Set([mores[0]]));
		expect(email.text.match(new RegExp(`…and ${mores[0]} more`, 'g'))).toHaveLength(4);
		expect(email.html.match(new RegExp(`…and ${mores[0]} more \\(`, 'g'))).toHaveLength(4);
	});

	it('hostile names cannot inject markup', () => {
		const evil = device(1, { designation: '<img src=x onerror=alert(1)>', customerName: '"Acme" & <Co>', department: null });
		const c = composeDigest({ settings: { ...PREVIEW_SETTINGS, recipients: { ...PREVIEW_SETTINGS.recipients, default: ['ops@example.com'] } }, timeZone: 'UTC', environment: 'sandbox' }, 'ops@example.com', '2026-11-20', [], truthOf([evil]))!;
		const { html } = renderDigest(c);
		expect(html).not.toContain('<img');
		expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
	});
});

describe('the MIME message', () => {
	const email = { from: 'Kalibrierung Müller <alerts@lab.example.com>', to: 'custodian@acme.example', subject: 'Prüfung fällig: 3 Geräte', text: 'Grüße\n', html: '<p>Grüße</p>', messageId: '<abc@lab.example.com>', date: new Date('2026-11-20T06:00:00Z') };

	it('multipart/alternative with the text part first and the HTML part last, both UTF-8', () => {
		const mime = toMime(email);
		expect(mime).toMatch(/^From: =\?UTF-8\?B\?[^?]+\?= <alerts@lab\.example\.com>\r\nTo: custodian@acme\.example\r\nSubject: =\?UTF-8\?B\?/);
		expect(mime).toContain('Date: Fri, 20 Nov 2026 06:00:00 +0000\r\nMessage-ID: <abc@lab.example.com>\r\nMIME-Version: 1.0');
		expect(mime.indexOf('text/plain')).toBeLessThan(mime.indexOf('text/html'));
		const parts = mimeParts(mime);
		expect(parts.text).toBe('Grüße\n');
		expect(parts.html).toBe('<p>Grüße</p>');
		for (const line of mime.split('\r\n')) expect(line.length).toBeLessThanOrEqual(78);
	});

	it('encoded words decode to the header text, whole characters each, within the line limit (property)', () => {
		fc.assert(
			fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => {
				const encoded = encodeWord(text);
				const clean = text.replace(/[\r\n]+/g, ' ');
				// Printable ASCII stays readable, folded before spaces: unfolding gives it back.
				if (!encoded.startsWith('=?')) return encoded.replace(/\r\n/g, '') === clean && /^[\x20-\x7e]*$/.test(clean);
				const words = encoded.split('\r\n ');
				for (const w of words) expect(w.length).toBeLessThanOrEqual(75);
				const decoded = words.map((w) => Buffer.from(/^=\?UTF-8\?B\?(.*)\?=$/.exec(w)![1], 'base64').toString('utf8')).join('');
				return decoded === clean && !decoded.includes('\uFFFD');
			}),
		);
	});
});
