/**
 * Every e-mail in its reader's language: each kind in English and German, built into MIME by the
 * real toMime and read back by postal-mime (a mail parser of its own, not this project's); hostile
 * names escaped and intact; the language chosen per recipient by the settings, on the send paths.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PostalMime from 'postal-mime';
import { readCsv } from '../support/csv';
import { describe, expect, it } from 'vitest';
import { INTERVAL_DECISION_NOTE } from '../../client';
import { FileMailStore } from '../../lambdas/adapters/fileMailStore';
import { OutboxMailer } from '../../lambdas/adapters/outboxMailer';
import { renderAccountsDigest } from '../../lambdas/email/accounts';
import { runComplianceReport } from '../../lambdas/email/complianceRun';
import { renderComplianceReport } from '../../email/complianceRender';
import { FAILURE_RATES_CSV_HEAD } from '../../email/failureRatesRender';
import { onEvent, runDigest, type DigestDeps } from '../../lambdas/email/digest';
import { parameter, toMime } from '../../lambdas/email/mime';
import type { Mailer, OutgoingEmail, SendRequest } from '../../lambdas/email/ports';
import { esc, renderDigest, renderFailedTest } from '../../email/render';
import { localeOf, parseEmailSettings } from '../../lambdas/email/settings';
import { CATALOGS, LOCALES, type Locale } from '../../email/texts';
import { NS } from '../../lambdas/pollers/state';
import { COMPLIANCE_SETTINGS, PREVIEW_MONTH, previewHistories, previewReport, previewTests } from '../support/compliancePreview';
import { device, emailEvent, failedTest, INSULATION_STEP, LEAKAGE_STEP, overdue, pollersSaw } from '../support/emailEvents';
import { previewContent } from '../support/emailPreview';
import { EMAIL_KINDS, previewOf } from '../support/languagePreview';

const ISO_DAY = /\b\d{4}-\d{2}-\d{2}\b/;
const GERMAN_DAY = /\b\d{2}\.\d{2}\.\d{4}\b/;

/** The message as a mail app reads it; attachments decoded from their bytes (so a CSV's byte-order mark is seen, not dropped by a text decoder). */
async function readBack(email: OutgoingEmail) {
	const parsed = await PostalMime.parse(toMime(email), { attachmentEncoding: 'base64' });
	return { ...parsed, attachments: parsed.attachments.map((a) => ({ ...a, content: Buffer.from(a.content as string, 'base64').toString('utf8') })) };
}
const header = (parsed: { headers: Array<{ key: string; value: string }> }, key: string) => parsed.headers.find((h) => h.key === key)?.value;

describe.each(LOCALES)('every e-mail in %s, read back by postal-mime', (locale) => {
	it.each(EMAIL_KINDS)('%s: subject, sender, recipient, Content-Language, both parts and the files as sent', async (kind) => {
		const email = previewOf(kind, locale);
		const parsed = await readBack(email);
		expect(parsed.subject).toBe(email.subject);
		expect(parsed.from).toEqual({ name: 'Prüfstelle Süd', address: 'alerts@lab.example.com' });
		expect(parsed.to?.map((a) => a.address)).toEqual([email.to]);
		// The notice's replies go to the address that books a date; the others' to the sender.
		expect(parsed.replyTo?.map((a) => a.address)).toEqual(email.replyTo === undefined ? undefined : [email.replyTo]);
		expect(header(parsed, 'content-language')).toBe(locale);
		expect(parsed.text).toBe(email.text);
		expect(parsed.html).toBe(email.html);
		expect(parsed.html).toContain(`<html lang="${locale}">`);
		expect(parsed.attachments.map((a) => ({ filename: a.filename, contentType: a.mimeType, content: a.content }))).toEqual(email.attachments ?? []);
	});

	it.each(EMAIL_KINDS)('%s: in the language of its reader, dates in their form', (kind) => {
		const { subject, text, html } = previewOf(kind, locale);
		const human = `${subject}\n${text}`;
		if (locale === 'de') {
			expect(human).toMatch(/überfällig|nicht bestanden|Prüf/);
			expect(human).toMatch(/[Pp]rüfung|Prüffrist|Prüftermin|Prüfschritt/);
			expect(human).not.toMatch(/\b(overdue|failed|tested|due date)\b/);
			// Dates as German readers write them; no ISO day anywhere a person reads.
			expect(human).toMatch(GERMAN_DAY);
			expect(human).not.toMatch(ISO_DAY);
			expect(html.replace(/<[^>]*>/g, ' ')).not.toMatch(ISO_DAY);
		} else {
			expect(human).toMatch(/overdue|failed/);
			expect(human).not.toMatch(/überfällig|Prüf/);
			expect(human).not.toMatch(GERMAN_DAY);
		}
	});
});

describe('the German texts, in place', () => {
	it('digest: counts, sections, days and the escalation footer', () => {
		const { subject, text, html } = renderDigest(previewContent(), 'de');
		expect(subject).toBe('Prüfübersicht Freitag, 20. November 2026: 2 neu überfällig, 1 Prüfung nicht bestanden, 2 bald fällig, 3 weiterhin überfällig');
		expect(text).toContain('SEIT DER LETZTEN ÜBERSICHT ÜBERFÄLLIG GEWORDEN (2)');
		expect(text).toContain('82 Tage überfällig (fällig am 30.08.2026) [eskaliert]');
		expect(text).toContain('„eskaliert“ kennzeichnet Geräte, die mehr als 60 Tage überfällig sind');
		expect(text).toContain('Prüfschritt 6 Patient leakage current, I leak: gemessen 142 µA, Grenzwerte ≤ 100 µA');
		expect(text).toContain('nächste Prüfung am 27.11.2026 (noch 7 Tage)');
		expect(html).toContain('>Fällig am</th>');
		expect(html).toContain('>eskaliert</div>');
	});

	it('the digest of several accounts: one German e-mail with a section per account; English as before', () => {
		const c = previewContent();
		const parts = [
			{ account: 'werk-nord', content: c },
			{ account: 'werk-süd', content: { ...c, failedTests: [], dueSoon: [] } },
		];
		const de = renderAccountsDigest(parts, 'de');
		expect(de.subject).toBe('Prüfübersicht 20.11.2026: werk-nord (2 neu überfällig, 1 Prüfung nicht bestanden, 2 bald fällig, 3 weiterhin überfällig); werk-süd (2 neu überfällig, 3 weiterhin überfällig)');
		expect(de.text).toContain('Prüfübersicht von 2 Konten vom 20.11.2026');
		expect(de.text).toContain('==== KONTO werk-süd ====');
		expect(de.html).toContain('<html lang="de">');
		expect(de.html).toContain('>Konto werk-nord</h1>');
		const en = renderAccountsDigest(parts, 'en');
		expect(en.subject).toBe('Calibration digest 2026-11-20: werk-nord (2 newly overdue, 1 failed test, 2 coming due, 3 still overdue); werk-süd (2 newly overdue, 3 still overdue)');
		expect(renderAccountsDigest(parts.slice(0, 1), 'de').subject).toMatch(/ · Konto werk-nord$/);
	});

	it('compliance report: rate with a decimal comma, German month, the employer’s sentence in German; CSV unchanged', () => {
		const c = previewReport();
		const de = renderComplianceReport(c, 'de');
		const en = renderComplianceReport(c, 'en');
		expect(de.subject).toMatch(/^Prüffristen Oktober 2026: \d+(,\d)?\u00a0% fristgerecht geprüft \(\d+ Prüftermine\)$/);
		expect(de.text).toContain('FEHLERQUOTEN (DGUV V3 TABELLE 1B: 2 %)');
		expect(de.text).toContain(CATALOGS.de.failureRates.intervalDecision);
		expect(de.text).not.toContain(INTERVAL_DECISION_NOTE);
		expect(de.html).toContain('>Fehlerquoten (DGUV V3 Tabelle 1B: 2 %)</h2>');
		expect(de.html).toContain('>Nach Gerätetyp</h3>');
		// Machines read the files: the same cells in every language, split as each language's
		// spreadsheet splits them (German Excel at ';'), UTF-8 with a byte-order mark; a number with
		// a fraction has German Excel's decimal comma (0.014 would read as text or a date there).
		const decimal = /^-?\d+\.\d+$/;
		for (const file of ['csv', 'failureRatesCsv', 'forecastCsv'] as const) {
			expect(de[file].startsWith('\uFEFF') && en[file].startsWith('\uFEFF'), file).toBe(true);
			expect(de[file]).not.toBe(en[file]);
			const english = readCsv(en[file].slice(1), ',');
			expect(readCsv(de[file].slice(1), ';'), file).toEqual(english.map((r) => r.map((cell) => (decimal.test(cell) ? cell.replace('.', ',') : cell))));
		}
		expect(readCsv(en.failureRatesCsv.slice(1), ',').some((r) => decimal.test(r[FAILURE_RATES_CSV_HEAD.indexOf('failure_rate')]))).toBe(true);
		expect(de.failureRatesCsv).toMatch(/;0,\d+;/);
		expect(CATALOGS.en.failureRates.intervalDecision).toBe(INTERVAL_DECISION_NOTE);
	});
});

describe('hostile names, in both languages', () => {
	const base = '<script>alert("x")</script> "Prüfgerät" \'quoted\' & שלום עולם \u200f 🔧⚡🇩🇪 ';
	const hostile = (base + 'ä'.repeat(300)).slice(0, 300);

	it('is 300 characters of markup, quotes, right-to-left text and emoji', () => {
		expect(hostile).toHaveLength(300);
		expect(hostile).toMatch(/<script>.*"Prüfgerät".*שלום.*🔧/u);
	});

	it.each(LOCALES)('%s: escaped in the HTML, intact in subject and text after the round trip', async (locale) => {
		const c = previewContent();
		const bad = <T extends { designation: string | null; customerName: string | null }>(d: T): T => ({ ...d, designation: hostile, customerName: hostile });
		const content = { ...c, newlyOverdue: c.newlyOverdue.map(bad), stillOverdue: c.stillOverdue.map(bad), dueSoon: c.dueSoon.map(bad), failedTests: c.failedTests.map((f) => ({ ...f, tester: hostile, device: bad(f.device) })) };
		const report = previewReport();
		const rows = report.rows.map((r) => ({ ...r, designation: hostile, customerName: hostile }));
		const compliance = renderComplianceReport({ ...report, late: report.late.map(bad), customers: report.customers.map((g) => ({ ...g, name: hostile })), rows }, locale);
		const emails: OutgoingEmail[] = [
			{ ...previewOf('digest', locale), ...renderDigest(content, locale) },
			{ ...previewOf('failed test', locale), ...renderFailedTest(content.failedTests[0], { environment: 'production', timeZone: 'UTC', locale }) },
			{ ...previewOf('compliance report', locale), subject: compliance.subject, text: compliance.text, html: compliance.html, attachments: [{ filename: 'c.csv', contentType: 'text/csv', content: compliance.csv }] },
		];
		for (const email of emails) {
			expect(email.html).not.toContain('<script>');
			expect(email.html).toContain(esc(hostile));
			expect(email.text).toContain(hostile);
			const parsed = await readBack(email);
			expect(parsed.subject).toBe(email.subject);
			expect(parsed.text).toBe(email.text);
			expect(parsed.html).toBe(email.html);
			expect(parsed.attachments.map((a) => a.content)).toEqual((email.attachments ?? []).map((a) => a.content));
		}
		// The subject that names the device carries it whole, through RFC 2047 encoded words.
		expect(emails[1].subject).toContain(hostile);
		expect(emails[2].attachments![0].content).toContain(hostile.replace(/"/g, '""'));
	});

	it('a file name that is not ASCII arrives as it was (RFC 2231)', async () => {
		const name = 'Prüfbericht März „2026“ 🔧.csv';
		expect(parameter('filename', name)).toBe("filename*=UTF-8''Pr%C3%BCfbericht%20M%C3%A4rz%20%E2%80%9E2026%E2%80%9C%20%F0%9F%94%A7.csv");
		expect(parameter('filename', 'a "b".csv')).toBe('filename="a _b_.csv"');
		const email = { ...previewOf('failed test', 'de'), attachments: [{ filename: name, contentType: 'text/csv', content: 'a,b\r\n1,2\r\n' }] };
		const parsed = await readBack(email);
		expect(parsed.attachments.map((a) => [a.filename, a.content])).toEqual([[name, 'a,b\r\n1,2\r\n']]);
	});
});

describe('the language per recipient (recipients.locales)', () => {
	const settings = (locales: unknown, locale?: string) =>
		parseEmailSettings(
			{
				mailFrom: 'alerts@lab.example.com',
				locale,
				recipients: {
					default: ['ops@example.com', 'both@example.com'],
					customers: { 'Acme GmbH': ['anna@acme.example', 'both@example.com'] },
					departments: { Werkstatt: ['werk@example.com'] },
					escalation: { afterDays: 30, to: ['chef@example.com', 'ops@example.com'] },
					locales,
				},
			},
			'test',
		);

	it('the address’s own entry, else its lists’ (customers, departments, escalation, default), else the deployment’s', () => {
		const s = settings({ 'ANNA@acme.example': 'en', 'acme  gmbh': 'de', werkstatt: 'de', escalation: 'de' }, 'en');
		expect(localeOf(s, 'anna@acme.example')).toBe('en');
		expect(localeOf(s, 'both@example.com')).toBe('de');
		expect(localeOf(s, 'werk@example.com')).toBe('de');
		expect(localeOf(s, 'chef@example.com')).toBe('de');
		expect(localeOf(s, 'ops@example.com')).toBe('de');
		expect(localeOf(settings(undefined, 'de'), 'ops@example.com')).toBe('de');
		expect(localeOf(settings({ default: 'de' }), 'werk@example.com')).toBe('en');
		expect(localeOf(settings({ default: 'de' }), 'ops@example.com')).toBe('de');
	});

	it('a bad entry is refused naming the field and the valid values', () => {
		expect(() => settings({ 'anna@acme.example': 'fr' })).toThrow('recipients.locales["anna@acme.example"]: "fr" is not a locale; valid values are en, de');
		expect(() => settings({ 'Acme Gmbh Ltd': 'de' })).toThrow('recipients.locales: "Acme Gmbh Ltd" is neither an e-mail address nor a list');
		expect(() => settings(['de'])).toThrow(/recipients\.locales: expected an object of address or list name → locale.*valid values are en, de/);
		expect(() => settings(undefined, 'fr')).toThrow('locale must be one of en, de');
	});

	/** A mailer that keeps what it is given (the send paths' last step before toMime). */
	const keeping = (): Mailer & { sent: SendRequest[] } => {
		const sent: SendRequest[] = [];
		return { sent, sendOnce: async (r) => (sent.push(r), { messageId: r.email.messageId, factKeys: r.factKeys }) };
	};

	it('digest and immediate failed-test e-mail: each recipient in their language, the same facts', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'tec-lang-'));
		const store = new FileMailStore(join(dir, 'mail.json'));
		const mailer = keeping();
		const s = settings({ 'acme gmbh': 'de' });
		const deps: DigestDeps = { store, view: store, mailer, settings: s, timeZone: 'Europe/Berlin', environment: 'sandbox', now: () => Date.parse('2026-11-20T06:00:00Z') };
		const d = device(7, { customerName: 'Acme GmbH', department: 'Werkstatt', nextTestDate: '2026-11-10', daysOverdue: 10 });
		for (const e of [overdue(d), failedTest(d, 501, [INSULATION_STEP, LEAKAGE_STEP])]) {
			await pollersSaw(store, e);
			await onEvent(deps, emailEvent(e));
		}
		const immediate = mailer.sent.filter((r) => r.key.startsWith('failed:'));
		expect(immediate.map((r) => [r.recipient, r.email.locale])).toEqual([['anna@acme.example', 'de'], ['both@example.com', 'de'], ['werk@example.com', 'en']]);
		expect(immediate[0].email.subject).toMatch(/^Prüfung nicht bestanden: /);
		expect(immediate[2].email.subject).toMatch(/^Test failed: /);
		await runDigest(deps, '2026-11-20');
		const digests = mailer.sent.filter((r) => r.key.startsWith('digest:'));
		const anna = digests.find((r) => r.recipient === 'anna@acme.example')!.email;
		const werk = digests.find((r) => r.recipient === 'werk@example.com')!.email;
		expect(anna.locale).toBe('de');
		expect(anna.text).toContain('10 Tage überfällig (fällig am 10.11.2026)');
		expect(werk.locale).toBe('en');
		expect(werk.text).toContain('10 days overdue (was due 2026-11-10)');
		const parsed = await readBack(anna);
		expect(header(parsed, 'content-language')).toBe('de');
		expect(parsed.subject).toBe(anna.subject);
	});

	it('compliance report: sent in the recipient’s language with its CSVs in that language’s form', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'tec-lang-report-'));
		const mailer = new OutboxMailer(join(dir, 'outbox'));
		const s = { ...COMPLIANCE_SETTINGS, recipients: { ...COMPLIANCE_SETTINGS.recipients, locales: { escalation: 'de' as Locale } } };
		const histories = previewHistories();
		const view = {
			async *list<T>(namespace: string) {
				if (namespace === NS.dueDates('production')) for (const h of histories) yield h as unknown as { key: string; value: T };
				if (namespace === NS.tests('production')) for (const t of previewTests(histories)) yield { key: String(t.id), value: { device: t.deviceId, on: t.testDate, failed: t.failed } as T };
			},
		};
		const deps = { store: new FileMailStore(join(dir, 'mail.json')), mailer, view, settings: s, timeZone: 'Europe/Berlin', environment: 'production' as const, now: () => Date.parse('2026-11-01T06:00:00Z') };
		await runComplianceReport(deps, PREVIEW_MONTH);
		const folder = join(dir, 'outbox', `compliance_${PREVIEW_MONTH}`);
		const manager = await PostalMime.parse(readFileSync(join(folder, 'manager@example.com.eml')), { attachmentEncoding: 'base64' });
		const quality = await PostalMime.parse(readFileSync(join(folder, 'quality@example.com.eml')), { attachmentEncoding: 'base64' });
		expect(header(manager, 'content-language')).toBe('de');
		expect(manager.subject).toMatch(/^Prüffristen Oktober 2026: /);
		expect(manager.text).toContain('Einhaltung der Prüffristen, Oktober 2026');
		expect(header(quality, 'content-language')).toBe('en');
		expect(quality.subject).toMatch(/^Calibration compliance October 2026: /);
		const bytes = (a: { content: unknown }) => Buffer.from(a.content as string, 'base64').toString('utf8');
		const german = renderComplianceReport(previewReport(), 'de');
		const english = renderComplianceReport(previewReport(), 'en');
		expect(manager.attachments.map((a) => [a.filename, bytes(a)])).toEqual([
			[`calibration-compliance-${PREVIEW_MONTH}.csv`, german.csv],
			[`failure-rates-${PREVIEW_MONTH}.csv`, german.failureRatesCsv],
			[`forecast-${PREVIEW_MONTH}.csv`, german.forecastCsv],
			[`interval-recommendations-${PREVIEW_MONTH}.csv`, german.intervalsCsv],
			[`devices-out-of-line-${PREVIEW_MONTH}.csv`, german.outliersCsv],
		]);
		// The English recipient's (its own devices): commas.
		expect(quality.attachments.map((a) => bytes(a).split('\r\n')[0])).toEqual([english.csv, english.failureRatesCsv, english.forecastCsv, english.intervalsCsv, english.outliersCsv].map((f) => f.split('\r\n')[0]));
	});
});

describe('the German e-mails (snapshots beside the English ones)', () => {
	it.each([
		['digest', 'digest'],
		['failed test', 'failed-test'],
		['compliance report', 'compliance'],
	] as const)('%s', async (kind, file) => {
		const { subject, text, html } = previewOf(kind, 'de');
		await expect(`Subject: ${subject}\n\n${text}`).toMatchFileSnapshot(`./__snapshots__/${file}.de.txt`);
		await expect(html).toMatchFileSnapshot(`./__snapshots__/${file}.de.html`);
	});
});
