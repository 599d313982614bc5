/**
 * The monthly compliance report: composed from the due-date history, routed like the digest,
 * rendered (HTML with a table chart, text, CSV), sent once per month and recipient with its CSV.
 */
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_INTERVAL_SETTINGS, INTERVAL_DECISION_NOTE, monthBefore, monthFigures, rebuildHistory } from '../../client';
import { OutboxMailer } from '../../lambdas/adapters/outboxMailer';
import { composeComplianceReport, reportEntries, reportMonthOn } from '../../email/compliance';
import { reportHistory, runComplianceReport } from '../../lambdas/email/complianceRun';
import { REBUILD_RULES, csvCell, renderComplianceReport } from '../../email/complianceRender';
import { esc } from '../../email/render';
import { toMime } from '../../lambdas/email/mime';
import { FileMailStore } from '../../lambdas/adapters/fileMailStore';
import { NS, dueEntries, type DueHistory, type ScrappedBin } from '../../lambdas/pollers/state';
import { SCRAPPED_KEY } from '../../lambdas/pollers/scrappedBin';
import type { OutgoingEmail } from '../../lambdas/email/ports';
import type { StateStore } from '../../lambdas/ports';
import { COMPLIANCE_SETTINGS, PREVIEW_MONTH, previewHistories, previewReport, previewTests } from '../support/compliancePreview';
import { mimeParts } from '../support/localSes';

const deps = { settings: COMPLIANCE_SETTINGS, timeZone: 'Europe/Berlin', environment: 'production' as const };
const historyStore = (histories: Array<{ key: string; value: DueHistory }>): Pick<StateStore, 'list'> => ({
	async *list<T>(namespace: string) {
		if (namespace === NS.dueDates('production')) for (const h of histories) yield h as unknown as { key: string; value: T };
		// The test records the failure rates read, as the pollers keep them (key: the result id).
		if (namespace === NS.tests('production')) for (const t of previewTests(histories)) yield { key: String(t.id), value: { device: t.deviceId, on: t.testDate, failed: t.failed } as T };
	},
});

describe('the compliance report, composed', () => {
	it('the month’s figures are the pure module’s, with the change from the month before and 12 months of trend', () => {
		const c = previewReport();
		const entries = dueEntries(previewHistories());
		expect(c.all).toEqual(monthFigures(entries, PREVIEW_MONTH, '2026-11-01', 'all')[0]);
		expect(c.previous).toEqual(monthFigures(entries, '2026-09', '2026-10-01', 'all')[0]);
		expect(c.trend.map((m) => m.month)).toEqual(['2025-11', '2025-12', '2026-01', '2026-02', '2026-03', '2026-04', '2026-05', '2026-06', '2026-07', '2026-08', '2026-09', '2026-10']);
		expect(c.change).toBe(Math.round((c.all.onTimeRate! - c.previous.onTimeRate!) * 1000) / 10);
		expect(c.late.length).toBe(c.all.testedLate + c.all.stillOverdue);
		expect(c.rows).toHaveLength(c.all.due);
		expect(c.withoutDueDate).toBe(1);
	});

	it('routed as the digest: a customer’s list gets that customer’s due dates only; nothing due or no devices, no report', () => {
		const acme = composeComplianceReport(deps, 'custodian@acme.example', PREVIEW_MONTH, reportHistory(previewHistories()))!;
		expect(acme.customers.map((g) => g.name)).toEqual(['Acme Instruments']);
		expect(acme.rows.every((r) => r.customerName === 'Acme Instruments')).toBe(true);
		const rest = composeComplianceReport(deps, 'quality@example.com', PREVIEW_MONTH, reportHistory(previewHistories()))!;
		expect(rest.customers.map((g) => g.name)).toEqual(['Brightwater Clinic', null]);
		expect(acme.all.due + rest.all.due).toBe(previewReport().all.due);
		expect(composeComplianceReport(deps, 'manager@example.com', '2024-01', reportHistory(previewHistories()))).toBeUndefined();
		expect(composeComplianceReport(deps, 'nobody@example.com', PREVIEW_MONTH, reportHistory(previewHistories()))).toBeUndefined();
	});

	it('a device first seen overdue, in a month of its own: the report says the history starts there', () => {
		const histories = previewHistories();
		const h = histories[0].value;
		h.entries.push({ due: '2026-10-02', openedOn: '2026-10-20', firstSeenOverdue: true, outcome: 'open', customerId: null, customerName: null, department: null });
		const c = composeComplianceReport(deps, 'manager@example.com', PREVIEW_MONTH, reportHistory(histories))!;
		expect(c.all.firstSeenOverdue).toBe(1);
		const { text, html } = renderComplianceReport(c);
		expect(text).toContain('1 due date was already overdue when the history first saw it');
		expect(html).toContain('first seen overdue');
	});

	it('sent on the first of a month, about the month before', () => {
		expect(reportMonthOn('2026-11-01')).toBe('2026-10');
		expect(reportMonthOn('2027-01-01')).toBe('2026-12');
		expect(reportMonthOn('2026-11-02')).toBeUndefined();
	});
});

describe('the compliance report, rendered', () => {
	it('text (snapshot)', async () => {
		const r = renderComplianceReport(previewReport());
		expect(r.subject).toMatch(/^Calibration compliance October 2026: \d+(\.\d)?% tested on time \(\d+ due dates\)$/);
		await expect(`Subject: ${r.subject}\n\n${r.text}`).toMatchFileSnapshot('./__snapshots__/compliance.txt');
	});

	it('HTML: the chart is table cells (no SVG, script, image or style sheet), one column for phones (snapshot)', async () => {
		const { html } = renderComplianceReport(previewReport());
		expect(html).not.toMatch(/<svg|<script|<img|<style|<link|class=/i);
		expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
		expect(html).toContain('Rohde &amp; Schwarz');
		const c = previewReport();
		for (const m of c.trend.filter((t) => t.onTimeRate !== null && t.onTimeRate > 0 && t.onTimeRate < 1)) expect(html).toContain(`<td width="${Math.round(m.onTimeRate! * 100)}%"`);
		await expect(html).toMatchFileSnapshot('./__snapshots__/compliance.html');
	});

	it('CSV: one row per due date of the month, cells a spreadsheet would run are quoted as text (property)', () => {
		const { csv } = renderComplianceReport(previewReport());
		const lines = csv.trimEnd().split('\r\n');
		// UTF-8 with a byte-order mark (Excel reads the umlauts), commas in English.
		expect(lines[0]).toBe('\uFEFFmonth,device_id,designation,customer_id,customer,department,due_date,outcome,tested_on,days_late,first_seen_overdue,history_opened_on,closed_on,rebuilt');
		expect(lines).toHaveLength(previewReport().rows.length + 1);
		fc.assert(
			fc.property(fc.oneof(fc.string(), fc.constantFrom('=HYPERLINK("x")', '+1', '-2', '@SUM(A1)', 'a,b', 'say "hi"', 'two\nlines', "'=", "'quoted")), (text) => {
				const cell = csvCell(text);
				const unquoted = cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell;
				expect(/^[=+\-@\t\r]/.test(unquoted)).toBe(false);
				expect(unquoted.replace(/^'(?=[=+\-@\t\r'])/, '')).toBe(text);
				if (/[",\r\n]/.test(text)) expect(cell.startsWith('"')).toBe(true);
			}),
		);
	});
});

describe('the compliance report: failure rates', () => {
	it('of the devices the recipient gets, over the 12 and 24 months to the report month\'s last day; in the e-mail, its text and a CSV of their own', () => {
		const tests = previewTests();
		const acme = composeComplianceReport(deps, 'custodian@acme.example', PREVIEW_MONTH, reportHistory(previewHistories()), undefined, tests)!;
		const acmeDevices = new Set(previewHistories().filter((h) => h.value.device.customerName === 'Acme Instruments').map((h) => Number(h.key)));
		const rates = acme.failureRates[24].customer;
		expect(rates.to).toBe('2026-10-31');
		expect(rates.groups.map((g) => g.name)).toEqual(['Acme Instruments']);
		expect(rates.groups[0].tests).toBe(tests.filter((t) => acmeDevices.has(t.deviceId) && t.testDate <= '2026-10-31' && t.testDate > '2024-10-31').length);
		const all = previewReport().failureRates[12].designation.groups;
		expect(all.some((g) => g.verdict === 'above')).toBe(true);
		const rendered = renderComplianceReport(previewReport());
		expect(rendered.text).toContain(INTERVAL_DECISION_NOTE);
		expect(rendered.html).toContain(esc(INTERVAL_DECISION_NOTE));
		expect(rendered.failureRatesCsv.split('\r\n')[0]).toMatch(/^\uFEFFmonths,from,to,group_by/);
	});
});

describe('the compliance report: results of devices no longer in the device list', () => {
	it('are counted apart (not dropped before counting) for the recipients the device went to, and the report says so', () => {
		const histories = previewHistories();
		const gone = histories.find((h) => h.value.device.deletedOn !== undefined)!;
		const tests = previewTests(histories);
		const c = composeComplianceReport(deps, 'manager@example.com', PREVIEW_MONTH, reportHistory(histories), undefined, tests)!;
		const rates = c.failureRates[24].designation;
		const want = tests.filter((t) => t.deviceId === Number(gone.key) && t.testDate >= rates.from && t.testDate <= rates.to).length;
		expect(want).toBeGreaterThan(0);
		expect(rates.totals.unknownDevices).toBe(want);
		expect(renderComplianceReport(c).text).toContain(`${want} test results of devices no longer in the device list are not counted.`);
		// A recipient the device never went to hears nothing of it.
		const acme = composeComplianceReport(deps, 'custodian@acme.example', PREVIEW_MONTH, reportHistory(histories), undefined, tests)!;
		expect(gone.value.device.customerName).not.toBe('Acme Instruments');
		expect(acme.failureRates[24].designation.totals.unknownDevices).toBe(0);
	});
});

describe('the compliance report on a rebuilt history', () => {
	it('marks the months that rest on entries rebuilt from the test results, states the rules, and flags each CSV row', () => {
		// The history rebuilt before 2026-05 (due dates met by then): those entries are marked, the rest was recorded while watching.
		const histories = previewHistories().map(({ key, value }) => ({ key, value: { ...value, entries: value.entries.map((e) => (e.outcome === 'tested' && e.testedOn! < '2026-05-01' ? { ...e, rebuilt: true as const } : e)) } }));
		const content = composeComplianceReport(deps, 'quality@example.com', PREVIEW_MONTH, reportHistory(histories))!;
		// A month rests on the rebuild when a rebuilt due date falls in it, or one is still overdue at its end.
		const rebuilt = dueEntries(histories).filter((e) => e.rebuilt);
		const end = (m: string) => `${monthBefore(m, -1)}-01`;
		const want = content.trend.map((t) => t.month).filter((m) => rebuilt.some((e) => e.due.startsWith(m) || (e.due < end(m) && e.testedOn! > end(m))));
		expect(content.rebuiltMonths).toEqual(want);
		expect(want.length).toBeGreaterThan(0);
		expect(want.length).toBeLessThan(12);
		const plain = composeComplianceReport(deps, 'quality@example.com', PREVIEW_MONTH, reportHistory(previewHistories()))!;
		expect(plain.rebuiltMonths).toEqual([]);
		// The figures are the same whether or not an entry was rebuilt.
		expect(content.trend).toEqual(plain.trend);
		const rendered = renderComplianceReport(content);
		expect(rendered.text).toContain(REBUILD_RULES);
		expect(rendered.html).toContain(esc(REBUILD_RULES));
		expect(renderComplianceReport(plain).text).not.toContain(REBUILD_RULES);
		for (const m of content.rebuiltMonths) expect(rendered.text).toContain(`  ${m}* `);
		const rows = rendered.csv.trimEnd().split('\r\n').slice(1);
		expect(rows.map((r) => r.endsWith(',true'))).toEqual(content.rows.map((r) => r.rebuilt));
	});
});

describe('the compliance report: a recycle bin not read, worded by why', () => {
	/** The preview's store, with the bin record the due-date poller kept (none: never read). */
	const withBin = (bin: ScrappedBin | undefined): Pick<StateStore, 'list'> => ({
		async *list<T>(namespace: string) {
			yield* historyStore(previewHistories()).list<T>(namespace);
			if (namespace === NS.scrapped('production') && bin) yield { key: SCRAPPED_KEY, value: bin as T };
		},
	});
	const sentText = async (bin: ScrappedBin | undefined, locale: 'en' | 'de') => {
		const sent: OutgoingEmail[] = [];
		const mailer = { sendOnce: async ({ email }: { email: OutgoingEmail }) => (sent.push(email), { messageId: 'm', factKeys: [] }) };
		const settings = { ...COMPLIANCE_SETTINGS, locale };
		await runComplianceReport({ ...deps, settings, mailer, view: withBin(bin), now: () => Date.parse('2026-11-01T06:00:00Z') } as unknown as Parameters<typeof runComplianceReport>[0], PREVIEW_MONTH);
		return sent.find((e) => e.to === 'quality@example.com')!.text;
	};
	const FORBIDDEN = { en: 'The recycle bin could not be read (the token may not read it)', de: 'Der Papierkorb konnte nicht gelesen werden (das Token darf ihn nicht lesen)' };
	const FAILED = {
		en: 'The recycle bin could not be read (its last read failed, or it was not read yet; the due-date poller reads it again on its next run): scrapped devices are not counted.',
		de: 'Der Papierkorb konnte nicht gelesen werden (der letzte Leseversuch schlug fehl, oder er wurde noch nicht gelesen; der Fälligkeits-Poller liest ihn bei seinem nächsten Lauf erneut): ausgesonderte Geräte sind nicht gezählt.',
	};

	it('never read, or its last read failed (a 5xx, a timeout): not blamed on the token; a token without the permission (413): said so (English and German)', async () => {
		for (const locale of ['en', 'de'] as const) {
			for (const bin of [undefined, { readOn: '2026-10-31', from: '2024-10-01', failed: true as const }]) {
				const text = await sentText(bin, locale);
				expect(text, `${locale} ${JSON.stringify(bin)}`).toContain(FAILED[locale]);
				expect(text).not.toContain(FORBIDDEN[locale]);
			}
			const forbidden = await sentText({ readOn: '2026-10-31', from: '2024-10-01', devices: null }, locale);
			expect(forbidden).toContain(FORBIDDEN[locale]);
			expect(forbidden).not.toContain(FAILED[locale]);
		}
	});
});

describe('the compliance report, sent', () => {
	it('once per month and recipient, the CSV attached, the structured content beside the e-mail in the outbox', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'tec-compliance-'));
		const mailer = new OutboxMailer(join(dir, 'outbox'));
		const store = new FileMailStore(join(dir, 'mail.json'));
		const d = { ...deps, store, mailer, view: historyStore(previewHistories()), now: () => Date.parse('2026-11-01T06:00:00Z') };
		const first = await runComplianceReport(d, PREVIEW_MONTH);
		expect(first.sent.map((s) => s.recipient).sort()).toEqual(['custodian@acme.example', 'manager@example.com', 'quality@example.com']);
		await runComplianceReport(d, PREVIEW_MONTH);
		expect(mailer.written).toHaveLength(3);
		const folder = join(dir, 'outbox', 'compliance_2026-10');
		expect(readdirSync(folder).filter((f) => f.startsWith('manager')).sort()).toEqual(['manager@example.com.eml', 'manager@example.com.html', 'manager@example.com.json']);
		const eml = mimeParts(readFileSync(join(folder, 'manager@example.com.eml'), 'utf8'));
		expect(eml.headers.subject).toMatch(/^Calibration compliance October 2026/);
		expect(eml.headers['content-type']).toMatch(/^multipart\/mixed/);
		expect(eml.html).toBe(readFileSync(join(folder, 'manager@example.com.html'), 'utf8'));
		expect(eml.text).toContain('LAST 12 MONTHS');
		const rendered = renderComplianceReport(previewReport());
		expect(eml.attachments).toEqual([
			{ filename: 'calibration-compliance-2026-10.csv', contentType: 'text/csv', content: rendered.csv },
			{ filename: 'failure-rates-2026-10.csv', contentType: 'text/csv', content: rendered.failureRatesCsv },
			{ filename: 'forecast-2026-10.csv', contentType: 'text/csv', content: rendered.forecastCsv },
			{ filename: 'interval-recommendations-2026-10.csv', contentType: 'text/csv', content: rendered.intervalsCsv },
			{ filename: 'devices-out-of-line-2026-10.csv', contentType: 'text/csv', content: rendered.outliersCsv },
		]);
		const json = JSON.parse(readFileSync(join(folder, 'manager@example.com.json'), 'utf8'));
		// The preview's store holds no recycle bin (none read): not counted, and not blamed on the token.
		expect(json.content).toEqual(JSON.parse(JSON.stringify({ ...previewReport(), scrappedNotRead: 'failed' })));
		// Without files the e-mail stays multipart/alternative, as before.
		const plain = toMime({ from: 'a@b.example', to: 'c@d.example', subject: 's', text: 't', html: '<p>h</p>', messageId: '<x@b.example>', date: new Date(0) });
		expect(plain).toContain('Content-Type: multipart/alternative;');
		expect(plain).not.toContain('multipart/mixed');
	});

	it('with the e-mail settings’ interval settings: the report uses them (parts not given, the defaults); department rows no device has are named for the log', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'tec-compliance-'));
		const mailer = new OutboxMailer(join(dir, 'outbox'));
		const store = new FileMailStore(join(dir, 'mail.json'));
		const intervals = { confidence: 0.8, departments: { 'calibration  lab': { environment: 'office' as const }, Vertrieb: { maxMonths: 6 } } };
		const d = { ...deps, settings: { ...COMPLIANCE_SETTINGS, intervals }, store, mailer, view: historyStore(previewHistories()), now: () => Date.parse('2026-11-01T06:00:00Z') };
		const run = await runComplianceReport(d, PREVIEW_MONTH);
		expect(run.unmatchedDepartments).toEqual(['Vertrieb']);
		const json = JSON.parse(readFileSync(join(dir, 'outbox', 'compliance_2026-10', 'manager@example.com.json'), 'utf8'));
		expect(json.content.intervals.settings).toEqual({ ...DEFAULT_INTERVAL_SETTINGS, ...intervals });
		// Without interval settings: nothing to name.
		expect((await runComplianceReport({ ...d, settings: COMPLIANCE_SETTINGS, mailer: new OutboxMailer(join(dir, 'outbox3')), store: new FileMailStore(join(dir, 'mail3.json')) }, PREVIEW_MONTH)).unmatchedDepartments).toEqual([]);
	});
});

describe('the compliance report from only the due entries it reads (reportEntries)', () => {
	const day = (n: number) => new Date(Date.UTC(2021, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);
	const customers = [[1, 'Acme Instruments'], [2, 'Brightwater Clinic'], [3, 'Castell Works']] as const;
	const account = fc.record({
		devices: fc.array(
			fc.record({ customer: fc.integer({ min: 0, max: 3 }), department: fc.constantFrom('Lab', 'Workshop', null), interval: fc.constantFrom(1, 3, 6, 12, 24, null), created: fc.integer({ min: 0, max: 1400 }) }),
			{ minLength: 1, maxLength: 25 },
		),
		results: fc.array(fc.record({ device: fc.nat(), on: fc.integer({ min: 0, max: 2200 }), failed: fc.boolean() }), { maxLength: 120 }),
		month: fc.constantFrom('2026-10', '2026-03', '2025-12'),
	});

	it('is the same report, for every recipient, as from every rebuilt due entry; the entries it leaves out are most of a long history', () => {
		let kept = 0;
		let all = 0;
		fc.assert(
			fc.property(account, ({ devices: specs, results, month }) => {
				const devices = specs.map((s, i) => {
					const customer = s.customer === 3 ? null : customers[s.customer];
					return { id: i + 1, customerId: customer?.[0] ?? null, customerName: customer?.[1] ?? null, department: s.department, testIntervalMonths: s.interval, createdOn: day(s.created), designation: `Type ${i % 3}`, nextTestDate: null };
				});
				const tests = results.map((r, i) => ({ id: i + 1, deviceId: (r.device % devices.length) + 1, testDate: day(r.on), failed: r.failed }));
				const today = `${monthBefore(month, -1)}-03`;
				const every = rebuildHistory(devices, tests, today).entries;
				const read = reportEntries(month);
				const some = rebuildHistory(devices, tests, today, undefined, read.keep).entries;
				kept += some.length;
				all += every.length;
				const byId = new Map(devices.map((d) => [d.id, d]));
				for (const recipient of ['quality@example.com', 'custodian@acme.example', 'manager@example.com']) {
					const whole = composeComplianceReport(deps, recipient, month, { entries: every, devices: byId }, undefined, tests);
					expect(composeComplianceReport(deps, recipient, month, { entries: [...some, ...read.earliest()], devices: byId }, undefined, tests)).toEqual(whole);
				}
			}),
			{ numRuns: 150 },
		);
		expect(kept).toBeLessThan(all * 0.8);
	});
});
