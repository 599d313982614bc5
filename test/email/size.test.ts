/**
 * E-mails that arrive whole, as the renderers the Lambdas and the node share make them: however
 * long the lists and whatever a row costs, every e-mail's HTML keeps within its byte budget
 * (under Gmail's ~102 KB clipping), the lists end with "…and N more", the counts cover all, and
 * the CSVs hold every row.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clipField, FIELD_MAX_CHARS, HTML_BUDGET_BYTES, utf8Bytes, withinBudget } from '../../email/budget';
import type { FailedStep } from '../../email/devices';
import { renderNotice } from '../../email/noticesRender';
import { esc, renderDigest, renderFailedTest } from '../../email/render';
import { LOCALES } from '../../email/texts';
import { readCsv } from '../support/csv';
import { device, INSULATION_STEP } from '../support/emailEvents';
import { previewContent } from '../support/emailPreview';
import { previewReport } from '../support/compliancePreview';
import { complianceAttachments, renderComplianceReport } from '../../email/complianceRender';
import type { MeasurementWarningItem } from '../../client/measurementWarningRows';

/** `n` measured-value warnings of devices with long names, every other one "test earlier". */
const manyWarnings = (n: number, month = '2026-10'): MeasurementWarningItem[] =>
	Array.from({ length: n }, (_, i) => ({
		testResultId: 100_000 + i,
		testDate: `${month}-${String((i % 28) + 1).padStart(2, '0')}`,
		device: { id: i + 1, customerId: 1, designation: longName(i), idBarcode: `TE-${i}`, customerName: 'Müller & Söhne', department: 'Werkstatt; Süd' },
		step: 'Schutzleiterwiderstand',
		measurement: null,
		value: 0.27,
		unit: 'Ω',
		lowLimit: null,
		highLimit: 0.3,
		limitUsed: 0.9,
		nearLimit: true,
		predictedLimitDate: i % 2 === 0 ? '2027-01-10' : null,
		nextTestDate: i % 2 === 0 ? '2027-05-01' : null,
		testEarlier: i % 2 === 0,
	}));

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

	it('a digest with 5,000 measured values near their limit: the section ends with "…and N more", the count covers all', () => {
		const email = renderDigest({ ...previewContent(), measurementWarnings: manyWarnings(5000) }, locale);
		expect(utf8Bytes(email.html)).toBeLessThan(WHOLE);
		expect(email.html).toMatch(locale === 'en' ? /…and [\d.]+ more/ : /…und [\d.]+ weitere/);
		expect(email.text).toContain(locale === 'en' ? 'MEASURED VALUES NEAR THEIR LIMIT (5000)' : 'MESSWERTE NAHE AM GRENZWERT (5.000)');
	});

	it('a monthly report with 5,000 measured values near their limit: the body within budget, "more in the CSV", the CSV every warning', () => {
		const c = previewReport();
		const r = renderComplianceReport({ ...c, measurementWarnings: manyWarnings(5000, c.month) }, locale);
		expect(utf8Bytes(r.html)).toBeLessThan(WHOLE);
		expect(r.html).toMatch(locale === 'en' ? /…and [\d.]+ more \(the attached CSV has them all\)/ : /weitere/);
		const file = complianceAttachments(c.month, r).find((a) => a.filename === `measurement-warnings-${c.month}.csv`)!;
		const rows = readCsv(file.content.slice(1), locale === 'de' ? ';' : ',');
		expect(rows).toHaveLength(5001);
		expect(rows[1][rows[0].indexOf('department')]).toBe('Werkstatt; Süd');
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

/**
 * One field from the service holding anything (a name of 45 KB and more once broke the budget: it
 * stands in the subject, the title, the preheader and the body): a text longer than
 * FIELD_MAX_CHARS is cut to its first FIELD_MAX_CHARS − 1 characters and "…" (email/budget.ts).
 */
describe('one field of any size', () => {
	// The costliest characters to escape or encode: a quote (6 bytes as &quot;), an umlaut (2), a CJK character (3), an emoji (4 for 2 UTF-16 units).
	const field = fc.record({ unit: fc.constantFrom('"', 'a', 'ü', '検', '😀', '<b>'), length: fc.oneof(fc.integer({ min: 0, max: 2 * FIELD_MAX_CHARS }), fc.integer({ min: 0, max: 200_000 })) }).map(({ unit, length }) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length));
	const shown = (value: string) => (value.length > FIELD_MAX_CHARS ? clipField(value) : value);

	it('clipField keeps a text of FIELD_MAX_CHARS or fewer characters, cuts a longer one to FIELD_MAX_CHARS with "…", never inside a character', () => {
		fc.assert(
			fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 2 * FIELD_MAX_CHARS }), field), (value) => {
				const clipped = clipField(value);
				const chars = [...value];
				if (chars.length <= FIELD_MAX_CHARS) expect(clipped).toBe(value);
				else expect(clipped).toBe(`${chars.slice(0, FIELD_MAX_CHARS - 1).join('')}…`);
				expect([...clipped].length).toBeLessThanOrEqual(FIELD_MAX_CHARS);
			}),
		);
	});

	it.each(LOCALES)('the failed-test e-mail (%s): under the budget whatever one field holds, and the field shown by the rule', (locale) => {
		const base = previewContent().failedTests[0];
		const fields = ['designation', 'idBarcode', 'customerName', 'department', 'tester', 'testSequence', 'stepName', 'measurementName', 'unit'] as const;
		fc.assert(
			fc.property(fc.constantFrom(...fields), field, (which, value) => {
				const step: FailedStep = {
					...INSULATION_STEP,
					name: which === 'stepName' ? value : INSULATION_STEP.name,
					measurements: [{ ...INSULATION_STEP.measurements[0], name: which === 'measurementName' ? value : 'R iso', unit: which === 'unit' ? value : 'MΩ' }],
				};
				const device = ['designation', 'idBarcode', 'customerName', 'department'].includes(which) ? { ...base.device, [which]: value } : base.device;
				const item = { ...base, device, tester: which === 'tester' ? value : base.tester, testSequence: which === 'testSequence' ? value : base.testSequence, failedSteps: [step], failedStepCount: 1, truncatedSteps: 0 };
				const email = renderFailedTest(item, { environment: 'sandbox', timeZone: 'UTC', locale });
				expect(utf8Bytes(email.html)).toBeLessThanOrEqual(HTML_BUDGET_BYTES);
				if (value !== '') expect(email.html).toContain(esc(shown(value)));
			}),
			{ numRuns: 60 },
		);
	});

	it.each(LOCALES)('the customer notice (%s): under the budget whatever one field holds, and the field shown by the rule', (locale) => {
		const fields = ['customerName', 'designation', 'idBarcode', 'department', 'location'] as const;
		fc.assert(
			fc.property(fc.constantFrom(...fields), field, (which, value) => {
				const devices = Array.from({ length: 3 }, (_, i) => ({ id: i + 1, customerId: 1, designation: `Device ${i}`, idBarcode: `TE-${i}`, department: 'Werkstatt', location: 'Halle 3', nextTestDate: '2026-12-10', ...(which === 'customerName' ? {} : { [which]: value }) }));
				const n = renderNotice({ customerName: which === 'customerName' ? value : 'Müller & Söhne', month: '2026-12', due: devices.slice(0, 2), overdue: devices.slice(2), locale, replyTo: 'booking@lab.example.com', companyName: 'Prüfdienst', environment: 'production' }, { maxRows: 100 });
				expect(utf8Bytes(n.html)).toBeLessThanOrEqual(HTML_BUDGET_BYTES);
				if (value !== '') expect(n.html).toContain(esc(shown(value)));
				// The CSV holds the field whole (an attachment has no budget).
				if (which !== 'customerName' && value.trim() !== '') expect(n.csv).toContain(value.replace(/"/g, '""'));
			}),
			{ numRuns: 60 },
		);
	});
});
