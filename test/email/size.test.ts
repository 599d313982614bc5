/**
 * E-mails that arrive whole, as the renderers the Lambdas and the node share make them: however
 * long the lists and whatever a row costs, every e-mail's HTML keeps within its byte budget
 * (under Gmail's ~102 KB clipping), the lists end with "…and N more", the counts cover all, and
 * the CSVs hold every row.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HTML_BUDGET_BYTES, utf8Bytes, withinBudget } from '../../email/budget';
import type { FailedStep } from '../../email/devices';
import { renderNotice } from '../../email/noticesRender';
import { renderDigest, renderFailedTest } from '../../email/render';
import { LOCALES } from '../../email/texts';
import { readCsv } from '../support/csv';
import { device, INSULATION_STEP } from '../support/emailEvents';
import { previewContent } from '../support/emailPreview';

const WHOLE = 100_000;
const longName = (i: number) => `Prüfgerät ${i} – ${'Hochspannungs-Isolationsmessgerät '.repeat(6)}`;

describe('the byte budget', () => {
	it('utf8Bytes counts as UTF-8 encodes (umlauts, dashes, emoji)', () => {
		fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => utf8Bytes(s) === new TextEncoder().encode(s).length));
	});

	it('withinBudget gives the most rows that fit, none when nothing fits', () => {
		fc.assert(
			fc.property(fc.integer({ min: 0, max: 500 }), fc.integer({ min: 1, max: 400 }), fc.integer({ min: 0, max: 20_000 }), (most, row, budget) => {
				const got = withinBudget((rows) => ({ rows, html: 'x'.repeat(rows * row) }), most, budget);
				const fits = Math.min(most, Math.floor(budget / row));
				expect(got.rows).toBe(fits);
			}),
		);
	});
});

describe.each(LOCALES)('every kind stays under 100 KB (%s)', (locale) => {
	it('a digest with 5,000 overdue devices and 200 failed tests of many steps', () => {
		const c = previewContent();
		const rows = (from: number, n: number) => Array.from({ length: n }, (_, i) => device(from + i, { designation: longName(i), nextTestDate: '2026-10-01', daysOverdue: 50 }));
		const steps: FailedStep[] = Array.from({ length: 40 }, (_, i) => ({ ...INSULATION_STEP, step: i + 1 }));
		const email = renderDigest(
			{
				...c,
				newlyOverdue: rows(1, 2000),
				stillOverdue: rows(10_000, 3000),
				dueSoon: rows(20_000, 1000).map(({ daysOverdue: _none, ...d }) => ({ ...d, nextTestDate: '2026-11-27', daysLeft: 7 })),
				failedTests: Array.from({ length: 200 }, (_, i) => ({ ...c.failedTests[0], testResultId: 5000 + i, failedSteps: steps, failedStepCount: 40, truncatedSteps: 0 })),
			},
			locale,
		);
		expect(utf8Bytes(email.html)).toBeLessThan(WHOLE);
		expect(email.html).toMatch(locale === 'en' ? /…and [\d.]+ more/ : /…und [\d.]+ weitere/);
		expect(email.text).toContain(locale === 'en' ? '(3000)' : '(3.000)');
	});

	it('a failed test with 3,000 failed steps', () => {
		const base = previewContent().failedTests[0];
		const steps: FailedStep[] = Array.from({ length: 3000 }, (_, i) => ({ ...INSULATION_STEP, step: i + 1, name: longName(i) }));
		const email = renderFailedTest({ ...base, failedSteps: steps, failedStepCount: 3000, truncatedSteps: 0 }, { environment: 'production', timeZone: 'UTC', locale });
		expect(utf8Bytes(email.html)).toBeLessThan(WHOLE);
		expect(email.html).toMatch(locale === 'en' ? /…and [\d.]+ more failed steps/ : /…und [\d.]+ weitere fehlgeschlagene Prüfschritte/);
	});

	it('a customer notice of 4,000 devices at Max Rows 1000: the body within budget, the CSV every device with the language’s delimiter', () => {
		const devices = Array.from({ length: 4000 }, (_, i) => ({ id: i + 1, customerId: 1, designation: longName(i), idBarcode: `TE-${i}`, department: 'Werkstatt; Süd', location: 'Halle 3, Regal 2', nextTestDate: '2026-12-10' }));
		const n = renderNotice({ customerName: 'Müller & Söhne', month: '2026-12', due: devices.slice(0, 3500), overdue: devices.slice(3500), locale, replyTo: 'booking@lab.example.com', companyName: 'Prüfdienst', environment: 'production' }, { maxRows: 1000 });
		expect(utf8Bytes(n.html)).toBeLessThanOrEqual(HTML_BUDGET_BYTES);
		expect(n.csv.startsWith('\uFEFF')).toBe(true);
		const rows = readCsv(n.csv.slice(1), locale === 'de' ? ';' : ',');
		expect(rows).toHaveLength(4001);
		expect(rows[1].slice(3, 5)).toEqual(['Werkstatt; Süd', 'Halle 3, Regal 2']);
	});
});
