/**
 * The monthly report's "Interval recommendations" and "Devices out of line": composed from the
 * same test records and devices as its failure rates (routed per recipient), the client's figures
 * and reasons (English word for word, German from its catalogue), capped rows in the body with the
 * CSVs holding every one, and the HTML within its budget at many groups.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, addMonths, DEFAULT_INTERVAL_SETTINGS, INTERVAL_DECISION_NOTE, intervalRecommendations, OUTLIER_TAIL, outlierDevices, type RateDevice, type RateTestResult } from '../../client';
import { HTML_BUDGET_BYTES, utf8Bytes } from '../../email/budget';
import { composeComplianceReport, type ComplianceReportContent, type ReportDevice } from '../../email/compliance';
import { complianceAttachments, renderComplianceReport } from '../../email/complianceRender';
import { INTERVALS_CSV_HEAD, MAX_INTERVAL_ROWS, OUTLIERS_CSV_HEAD, intervalsHtml, outliersHtml, outliersText, reasonText, tailProbabilityText } from '../../email/intervalsRender';
import { reportIntervals } from '../../email/intervalsReport';
import { esc } from '../../email/render';
import { CATALOGS, fill, formatDay } from '../../email/texts';
import { reportHistory } from '../../lambdas/email/complianceRun';
import { readCsv } from '../support/csv';
import { COMPLIANCE_SETTINGS, PREVIEW_MONTH, previewHistories } from '../support/compliancePreview';

const deps = { settings: COMPLIANCE_SETTINGS, timeZone: 'Europe/Berlin', environment: 'production' as const };
/** The report's last day (sent on 2026-11-01): its 24 months run from 2024-11-01. */
const LAST_DAY = '2026-10-31';
const ACME = { customerId: 1, customerName: 'Acme Instruments' };
const CLINIC = { customerId: 2, customerName: 'Brightwater Clinic' };

interface Kind {
	designation: string;
	months: number;
	devices: number;
	customer: typeof ACME;
	department: (k: number) => string;
	/** Whether the device's n-th test (0: the one before the window) failed. */
	failed: (k: number, n: number) => boolean;
}

/**
 * Four device types beside the preview's: drills tested every 6 months without a failure (longer),
 * grinders failing one test in five (shorter), saws of which one fails nearly every test (out of
 * line), lamps tested monthly failing one in three but for one that never fails (consistently better).
 */
const KINDS: Kind[] = [
	{ designation: 'Drill', months: 6, devices: 50, customer: ACME, department: (k) => (k % 2 ? 'Workshop A' : 'Workshop B'), failed: () => false },
	{ designation: 'Grinder', months: 6, devices: 20, customer: CLINIC, department: () => 'Plant', failed: (k, n) => (k + n) % 5 === 0 },
	{ designation: 'Saw', months: 6, devices: 30, customer: ACME, department: () => 'Workshop A', failed: (k, n) => k === 0 && n > 0 },
	{ designation: 'Lamp', months: 1, devices: 10, customer: CLINIC, department: () => 'Wards', failed: (k, n) => k !== 0 && (k + n) % 3 === 0 },
];

function world(): { devices: Map<number, ReportDevice>; rate: RateDevice[]; tests: RateTestResult[] } {
	const devices = new Map<number, ReportDevice>();
	const rate: RateDevice[] = [];
	const tests: RateTestResult[] = [];
	let id = 5000;
	for (const kind of KINDS) {
		for (let k = 0; k < kind.devices; k++) {
			const deviceId = id++;
			const d = { ...kind.customer, department: kind.department(k), designation: kind.designation, testIntervalMonths: kind.months, nextTestDate: '2027-02-01' };
			devices.set(deviceId, d);
			rate.push({ id: deviceId, designation: d.designation, department: d.department, customerId: d.customerId, customerName: d.customerName, testIntervalMonths: d.testIntervalMonths });
			// The first test before the window (only the previous one of the next), then one per interval.
			for (let n = 0, day = addMonths('2024-10-20', -kind.months + 1); day <= LAST_DAY; n++, day = addMonths(day, kind.months)) tests.push({ id: tests.length + 1, deviceId, testDate: day, failed: kind.failed(k, n) });
		}
	}
	return { devices, rate, tests };
}

function report(recipient = 'manager@example.com'): { content: ComplianceReportContent; rate: RateDevice[]; tests: RateTestResult[] } {
	const { devices, rate, tests } = world();
	const history = reportHistory(previewHistories());
	const all = new Map([...history.devices, ...devices]);
	return { content: composeComplianceReport(deps, recipient, PREVIEW_MONTH, { entries: history.entries, devices: all }, undefined, tests)!, rate, tests };
}

const group = (c: ComplianceReportContent, designation: string) => c.intervals.groups.designation.find((g) => g.designation === designation)!;

describe('interval recommendations in the monthly report, composed', () => {
	it('per device type and type within department: the client’s recommendations over the failure rates’ 24 months, from the same records', () => {
		const { content, tests } = report();
		expect(content.intervals).toMatchObject({ from: '2024-11-01', to: LAST_DAY, settings: DEFAULT_INTERVAL_SETTINGS });
		expect(content.failureRates[24].designation).toMatchObject({ from: content.intervals.from, to: content.intervals.to });
		const devices: RateDevice[] = [...reportHistory(previewHistories()).devices, ...world().devices]
			.filter(([, d]) => d.deletedOn === undefined)
			.map(([id, d]) => ({ id, designation: d.designation, department: d.department, customerId: d.customerId, customerName: d.customerName, testIntervalMonths: d.testIntervalMonths ?? null }));
		for (const by of ['designation', 'designationDepartment'] as const) {
			expect(content.intervals.groups[by]).toEqual(intervalRecommendations(tests, devices, LAST_DAY, '2024-11-01', by).groups);
		}
		expect(group(content, 'Drill')).toMatchObject({ currentIntervalMonths: 6, recommendedIntervalMonths: 12, change: 'lengthen', failedUsed: 0 });
		expect(group(content, 'Drill').resultsUsed).toBe(50 * 4);
		expect(group(content, 'Grinder')).toMatchObject({ currentIntervalMonths: 6, recommendedIntervalMonths: 3, change: 'shorten', intervalTest: 'tooLong' });
		expect(content.intervals.groups.designationDepartment.filter((g) => g.designation === 'Drill').map((g) => g.department)).toEqual(['Workshop A', 'Workshop B']);
	});

	it('earlier tests only as the previous test of the first ones, and only from 1.25 longest intervals and a month before the 24 months (the reach both faces hold): an earlier one is not read at all', () => {
		const saw = (id: number): RateDevice => ({ id, designation: 'Saw', department: 'Workshop A', customerId: 1, customerName: 'Acme Instruments', testIntervalMonths: 6 });
		// 24 months from 2024-11-01; ⌈1.25 × 6⌉ + 1 = 9 months before: 2024-02-01.
		const tests: RateTestResult[] = [
			// Device 1: its previous test lies before the reach, so its first test of the window has none read.
			{ id: 1, deviceId: 1, testDate: '2024-01-25', failed: false },
			{ id: 2, deviceId: 1, testDate: '2024-11-20', failed: false },
			// Device 2: its previous test within the reach, 6 months before: counted.
			{ id: 3, deviceId: 2, testDate: '2024-05-20', failed: false },
			{ id: 4, deviceId: 2, testDate: '2024-11-20', failed: true },
		];
		const r = reportIntervals(tests, [saw(1), saw(2)], LAST_DAY);
		expect(r).toMatchObject({ from: '2024-11-01', previousFrom: '2024-02-01', to: LAST_DAY });
		expect(r.groups.designation).toEqual([expect.objectContaining({ designation: 'Saw', resultsUsed: 1, failedUsed: 1, excluded: { noPreviousTest: 1, outsideWindow: 0, unknownStatus: 0, sameDay: 0 } })]);
		// The same as from the results of the reach on (what n8n reads), whatever else a store keeps.
		expect(r.groups.designation).toEqual(intervalRecommendations(tests.slice(1), [saw(1), saw(2)], LAST_DAY, '2024-11-01', 'designation').groups);
		// The e-mail says from when.
		const { content } = report();
		for (const locale of ['en', 'de'] as const) {
			const iv = content.intervals;
			expect(renderComplianceReport(content, locale).text).toContain(fill(CATALOGS[locale].intervals.period, { from: formatDay(iv.from, locale), to: formatDay(iv.to, locale), previousFrom: formatDay(iv.previousFrom, locale) }));
		}
		expect(CATALOGS.en.intervals.period).toContain('earlier tests, from {previousFrom} on, only as the previous test of the first ones');
	});

	it('the e-mail settings’ interval settings set the report’s limits: an office department’s type at 24 months without a failure keeps 24, not the workshop’s 12', () => {
		// 40 monitors in "Verwaltung" at 24 months, each passed 2022-05-10, 2024-05-10 and 2026-05-08.
		const monitors: RateDevice[] = Array.from({ length: 40 }, (_, k) => ({ id: k + 1, designation: 'Monitor', department: 'Verwaltung', customerId: null, customerName: null, testIntervalMonths: 24 }));
		const tests: RateTestResult[] = monitors.flatMap((d) => ['2022-05-10', '2024-05-10', '2026-05-08'].map((day, n) => ({ id: d.id * 10 + n, deviceId: d.id, testDate: day, failed: false })));
		const defaults = reportIntervals(tests, monitors, '2026-05-31');
		expect(defaults.groups.designation).toEqual([expect.objectContaining({ currentIntervalMonths: 24, recommendedIntervalMonths: 12, limitedBy: 'maximum' })]);
		// Set per department (matched as the routing matches names), or as the default environment.
		for (const intervals of [{ departments: { 'verwaltung ': { environment: 'office' as const } } }, { defaultEnvironment: 'office' as const }]) {
			const r = reportIntervals(tests, monitors, '2026-05-31', intervals);
			expect(r.settings).toEqual({ ...DEFAULT_INTERVAL_SETTINGS, ...intervals });
			expect(r.groups.designation).toEqual([expect.objectContaining({ currentIntervalMonths: 24, recommendedIntervalMonths: 24, change: 'keep', maxMonths: 24, environments: ['office'] })]);
			expect(r.groups.designationDepartment).toEqual([expect.objectContaining({ department: 'Verwaltung', recommendedIntervalMonths: 24, maxMonths: 24 })]);
		}
		// Through the composer: the context's e-mail settings carry them, and the e-mail states the default environment set.
		const history = reportHistory(previewHistories());
		const settings = { ...COMPLIANCE_SETTINGS, intervals: { defaultEnvironment: 'office' as const, minMonths: 3 } };
		const content = composeComplianceReport({ ...deps, settings }, 'manager@example.com', PREVIEW_MONTH, history, undefined, world().tests)!;
		expect(content.intervals.settings).toEqual({ ...DEFAULT_INTERVAL_SETTINGS, defaultEnvironment: 'office', minMonths: 3 });
		expect(renderComplianceReport(content, 'en').text).toContain('from a minimum of 3 months to the DGUV V3 Table 1B maximum (office: 24 months)');
		expect(renderComplianceReport(content, 'en').text).not.toContain('Departments with limits of their own');
	});

	it('a department’s own limits are stated beside the rule (the rule names the defaults only), with how a device type across departments takes them; only the rows of the report’s own devices; text and HTML, English and German', () => {
		const history = reportHistory(previewHistories());
		const departments = { 'calibration lab': { minMonths: 3, maxMonths: 6 }, 'Biomedical Engineering': { environment: 'office' as const }, Nowhere: { environment: 'office' as const } };
		const settings = { ...COMPLIANCE_SETTINGS, intervals: { departments } };
		const compose = (recipient: string) => composeComplianceReport({ ...deps, settings }, recipient, PREVIEW_MONTH, history, undefined, world().tests)!;
		const all = compose('manager@example.com');
		const en = renderComplianceReport(all, 'en');
		const de = renderComplianceReport(all, 'de');
		const enLine =
			'Departments with limits of their own: Biomedical Engineering (office: 1 to 24 months), calibration lab (workshop: 3 to 6 months). They apply per device type within department; a device type across departments (per device type) takes the shortest of its departments’ maxima and of their minima (no department’s limits hold another’s devices at a longer interval).';
		expect(en.text).toContain('from a minimum of 1 month to the DGUV V3 Table 1B maximum (workshop: 12 months)');
		expect(en.text).toContain(enLine);
		expect(en.html).toContain(esc(enLine));
		expect(en.text).not.toContain('Nowhere');
		expect(de.text).toContain('Abteilungen mit eigenen Grenzen: Biomedical Engineering (');
		// A customer's report names the rows of its own departments only.
		const acme = renderComplianceReport(compose('custodian@acme.example'), 'en').text;
		expect(acme).toContain('Departments with limits of their own: calibration lab (workshop: 3 to 6 months).');
		expect(acme).not.toContain('Biomedical Engineering');
	});

	it('routed as the failure rates: a customer’s list gets the groups of that customer’s devices only', () => {
		const { content } = report('custodian@acme.example');
		const types = new Set(content.intervals.groups.designation.map((g) => g.designation));
		expect(types.has('Drill') && types.has('Saw')).toBe(true);
		expect(types.has('Grinder') || types.has('Lamp')).toBe(false);
		expect(content.outliers.devices.map((d) => d.customerName)).toEqual(['Acme Instruments']);
	});

	it('devices out of line: the client’s dogs and gems within device type and interval, over the same 24 months', () => {
		const { content, rate, tests } = report();
		expect(content.outliers.devices.map((d) => [d.designation, d.kind])).toEqual([
			['Saw', 'dog'],
			['Lamp', 'gem'],
		]);
		const saw = rate.find((d) => d.designation === 'Saw')!;
		const groupOf = new Map(rate.filter((d) => d.designation === 'Saw').map((d) => [d.id, 'Saw']));
		const inWindow = tests.filter((t) => t.testDate >= '2024-11-01' && t.testDate <= LAST_DAY && groupOf.has(t.deviceId));
		const [dog] = outlierDevices(inWindow, groupOf).outliers;
		expect(content.outliers.devices[0]).toMatchObject({ deviceId: saw.id, tests: dog.tests, failedTests: dog.failedTests, groupTests: dog.groupTests, tailProbability: dog.tailProbability, testIntervalMonths: 6, department: 'Workshop A' });
	});
});

describe('interval recommendations in the monthly report, rendered', () => {
	it('HTML and text: the section with its rule, the statement that nothing is applied and the employer decides, each group’s intervals, reliability and reason', () => {
		const { content } = report();
		for (const locale of ['en', 'de'] as const) {
			const t = CATALOGS[locale];
			const { html, text } = renderComplianceReport(content, locale);
			expect(html).toContain(`>${esc(t.intervals.title)}</h2>`);
			expect(text).toContain(t.intervals.textTitle);
			expect(html).toContain(`<strong>${esc(t.intervals.decision)}</strong>`);
			expect(text).toContain(t.intervals.decision);
			expect(text).toContain(locale === 'en' ? 'a test counts when it lies 0.75 to 1.25 intervals after' : 'Eine Prüfung zählt, wenn sie 0,75 bis 1,25 Intervalle nach');
			const drill = group(content, 'Drill');
			expect(text).toContain(locale === 'en' ? '- Drill (6 mo. → 12 mo., lengthen): 100.0 % (limits 99.3 %–100.0 %; 95 %: 98.5 %–100.0 %); 200 used (0 failed), 0 excluded' : '- Drill (6 Mon. → 12 Mon., verlängern): 100,0\u00a0% (Grenzen 99,3\u00a0%–100,0\u00a0%; 95 %: 98,5\u00a0%–100,0\u00a0%); 200 verwendet (0 nicht bestanden), 0 ausgeschlossen');
			expect(html).toContain(esc(reasonText(drill, locale, false)));
			expect(text).toContain(reasonText(drill, locale, false));
			// Changes before the groups kept.
			expect(text.indexOf('- Drill (')).toBeLessThan(text.indexOf('- Beha-Amprobe PAT Tester ('));
			expect(html).toContain(`>${esc(t.outliers.title)} <span`);
			expect(text).toContain(`${t.outliers.textTitle} (2)`);
			expect(text).toContain(t.outliers.dog);
			expect(text).toContain(t.outliers.gem);
		}
		expect(renderComplianceReport(content).text).toContain('- Saw #5070, Acme Instruments · Workshop A, 6 mo.: 4 of 4 failed; rest of the group 0 of 116, P < 0.1 % — improbably many failures: tested more often?');
	});

	it('a flagged device’s tail probability beside the rule’s 5 %: 4 of 6 failed against the rest’s 2 of 21 is P = 4.95 %, never "0.05" (English and German)', () => {
		const groupOf = new Map<number, string | null>(Array.from({ length: 8 }, (_, i) => [i + 1, 'Saw']));
		// Device 1: 4 of 6 failed; devices 2–8: 21 tests, 2 failed.
		const results = [
			...Array.from({ length: 6 }, (_, i) => ({ deviceId: 1, failed: i < 4 })),
			...Array.from({ length: 21 }, (_, i) => ({ deviceId: 2 + (i % 7), failed: i < 2 })),
		];
		const [dog] = outlierDevices(results, groupOf).outliers;
		expect(dog).toMatchObject({ deviceId: 1, kind: 'dog', tests: 6, failedTests: 4, groupTests: 21, groupFailedTests: 2 });
		expect(dog.tailProbability).toBeGreaterThan(0.0495);
		expect(dog.tailProbability).toBeLessThan(OUTLIER_TAIL);
		const { group: _, ...rest } = dog;
		const shown = { from: '2024-11-01', to: LAST_DAY, devices: [{ ...rest, designation: 'Saw', customerName: null, department: null, testIntervalMonths: 6 }] };
		for (const [locale, p] of [['en', 'P = 4.95 %'], ['de', 'P = 4,95\u00a0%']] as const) {
			const line = outliersText(shown, locale).find((l) => l.startsWith('- Saw #1'))!;
			expect(line).toContain(`, ${p} `);
			expect(outliersHtml(shown, locale)).toContain(`>${p}</span>`);
		}
		expect(tailProbabilityText(0.0004, 'en')).toBe('P < 0.1 %');
		expect(tailProbabilityText(0.0004, 'de')).toBe('P < 0,1\u00a0%');
	});

	it('the tail probability as shown compares with the rule’s 5 % as the number does (any probability)', () => {
		fc.assert(
			fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom('en' as const, 'de' as const), (p, locale) => {
				const shown = tailProbabilityText(p, locale);
				const m = /^P ([=<]) (\d+(?:[.,]\d+)?)(?: |\u00a0)%$/.exec(shown);
				expect(m, shown).not.toBeNull();
				const value = Number(m![2].replace(',', '.'));
				if (m![1] === '<') {
					expect(p).toBeLessThan(0.001);
					expect(value).toBe(0.1);
					return;
				}
				expect(Math.sign(value - OUTLIER_TAIL * 100), shown).toBe(Math.sign(p - OUTLIER_TAIL));
			}),
		);
	});

	it('the English reason is the client’s, word for word; the German one says the same in German (any world)', () => {
		const arb = fc.record({
			devices: fc.array(fc.record({ designation: fc.constantFrom('A', 'B', null), department: fc.constantFrom('X', null), months: fc.constantFrom(1, 3, 6, 12, 24) }), { minLength: 1, maxLength: 12 }),
			tests: fc.array(fc.record({ device: fc.nat(), offset: fc.integer({ min: -1100, max: 0 }), failed: fc.constantFrom<boolean | null>(false, false, false, false, true, null) }), { maxLength: 300 }),
			office: fc.boolean(),
			min: fc.constantFrom(1, 6, 9),
		});
		fc.assert(
			fc.property(arb, ({ devices, tests, office, min }) => {
				const ds: RateDevice[] = devices.map((d, i) => ({ id: i + 1, designation: d.designation, department: d.department, customerId: null, customerName: null, testIntervalMonths: d.months }));
				const rs: RateTestResult[] = tests.map((t, i) => ({ id: i + 1, deviceId: (t.device % ds.length) + 1, testDate: addDays(LAST_DAY, t.offset), failed: t.failed }));
				const settings = { ...DEFAULT_INTERVAL_SETTINGS, departments: { X: { environment: office ? ('office' as const) : ('constructionSite' as const), minMonths: min } } };
				for (const by of ['designation', 'designationDepartment'] as const) {
					for (const r of intervalRecommendations(rs, ds, LAST_DAY, '2024-11-01', by, settings).groups) {
						expect(reasonText(r, 'en')).toBe(r.reason);
						expect(reasonText(r, 'en', false)).toBe(r.reason.slice(0, -` A recommendation, not applied to the service: ${INTERVAL_DECISION_NOTE}`.length));
						const de = reasonText(r, 'de');
						expect(de).toContain(`aktuelles Prüfintervall ${r.currentIntervalMonths} Monate`);
						expect(de.endsWith(CATALOGS.de.failureRates.intervalDecision)).toBe(true);
					}
				}
			}),
			{ numRuns: 60 },
		);
	});

	it('a change confidence that is not a whole per cent: both languages show it as set (55.5 %), beside the rejection confidence', () => {
		const devices: RateDevice[] = Array.from({ length: 81 }, (_, i) => ({ id: i + 1, designation: 'Drill', department: null, customerId: null, customerName: null, testIntervalMonths: 12 }));
		const results: RateTestResult[] = devices.flatMap((d) => [
			{ id: d.id * 2, deviceId: d.id, testDate: '2024-06-10', failed: false },
			{ id: d.id * 2 + 1, deviceId: d.id, testDate: '2025-06-10', failed: d.id <= 3 },
		]);
		const [g] = intervalRecommendations(results, devices, '2025-06-30', '2024-07-01', 'designation', { ...DEFAULT_INTERVAL_SETTINGS, confidence: 0.555 }).groups;
		expect(reasonText(g, 'en')).toContain('rejection confidence 55.8 % above the change confidence 55.5 %');
		expect(reasonText(g, 'de')).toContain('55,5-%-Vertrauensgrenzen');
		expect(reasonText(g, 'de')).toContain('Ablehnungskonfidenz 55,8\u00a0% über der Änderungskonfidenz 55,5\u00a0%');
	});

	it('a minimum above the current interval: the reason says it keeps the interval, in English and German', () => {
		const devices: RateDevice[] = Array.from({ length: 10 }, (_, i) => ({ id: i + 1, designation: 'Drill', department: 'Shop', customerId: null, customerName: null, testIntervalMonths: 3 }));
		const results: RateTestResult[] = devices.flatMap((d) => [
			{ id: d.id * 2, deviceId: d.id, testDate: '2025-01-10', failed: false },
			{ id: d.id * 2 + 1, deviceId: d.id, testDate: '2025-04-10', failed: d.id <= 5 },
		]);
		const [g] = intervalRecommendations(results, devices, '2025-06-30', '2024-07-01', 'designation', { ...DEFAULT_INTERVAL_SETTINGS, departments: { Shop: { minMonths: 12 } } }).groups;
		expect(reasonText(g, 'en')).toContain('should be shorter. Recommended: keep 3 months (the minimum set for the group, 12 months, is above the current interval: a minimum never lengthens it).');
		expect(reasonText(g, 'de')).toContain('Das Ziel 98,0\u00a0% liegt über den Grenzen, Ablehnungskonfidenz 100,0\u00a0% über der Änderungskonfidenz 50\u00a0%: Nach NCSLI RP-1, Methode A3');
		expect(reasonText(g, 'de')).toContain('sollte das Intervall kürzer sein. Empfohlen: 3 Monate beibehalten (das für die Gruppe festgelegte Minimum, 12 Monate, liegt über dem aktuellen Intervall: ein Minimum verlängert es nie).');
	});

	it('names from the service are escaped in the HTML; the CSV keeps them whole', () => {
		const hostile = '<script>alert("x")</script> & =SUM(A1)';
		const { content } = report();
		const bad = { ...content, intervals: { ...content.intervals, groups: { designation: content.intervals.groups.designation.map((g) => ({ ...g, designation: hostile })), designationDepartment: [] } } };
		const r = renderComplianceReport(bad);
		expect(r.html).not.toContain('<script>');
		expect(r.html).toContain(esc(hostile));
		expect(readCsv(r.intervalsCsv.slice(1), ',')[1][1]).toBe(`${hostile}`);
	});
});

describe('interval recommendations: the CSVs', () => {
	it('interval-recommendations-<month>.csv: every group of both groupings, English with commas; German with a byte-order mark, semicolons and decimal commas, the reason in German', () => {
		const { content } = report();
		const en = renderComplianceReport(content, 'en');
		const de = renderComplianceReport(content, 'de');
		const files = complianceAttachments(PREVIEW_MONTH, en).map((a) => a.filename);
		expect(files).toContain(`interval-recommendations-${PREVIEW_MONTH}.csv`);
		expect(files).toContain(`devices-out-of-line-${PREVIEW_MONTH}.csv`);
		const rows = readCsv(en.intervalsCsv.slice(1), ',').filter((r) => r.length > 1);
		expect(en.intervalsCsv.startsWith('\uFEFF')).toBe(true);
		expect(rows[0]).toEqual(INTERVALS_CSV_HEAD);
		expect(rows.length - 1).toBe(content.intervals.groups.designation.length + content.intervals.groups.designationDepartment.length);
		const col = (name: string) => INTERVALS_CSV_HEAD.indexOf(name);
		const drill = rows.find((r) => r[col('group_by')] === 'designation' && r[col('designation')] === 'Drill')!;
		expect([drill[col('current_interval_months')], drill[col('recommended_interval_months')], drill[col('change')], drill[col('results_used')]]).toEqual(['6', '12', 'lengthen', '200']);
		expect(drill[col('reason')]).toBe(group(content, 'Drill').reason);
		const german = readCsv(de.intervalsCsv.slice(1), ';').filter((r) => r.length > 1);
		expect(de.intervalsCsv.startsWith('\uFEFF')).toBe(true);
		expect(german[0]).toEqual(INTERVALS_CSV_HEAD);
		const deDrill = german.find((r) => r[col('group_by')] === 'designation' && r[col('designation')] === 'Drill')!;
		expect(deDrill[col('reliability_target')]).toBe('0,98');
		// RP-1's rejection confidence Q: 200 without a failure, 1 − 2 · 0.98^200.
		const q = group(content, 'Drill').rejectionConfidence;
		expect(q).toBeCloseTo(1 - 2 * 0.98 ** 200, 12);
		expect(Number(drill[col('rejection_confidence')])).toBe(q);
		expect(deDrill[col('rejection_confidence')]).toBe(String(q).replace('.', ','));
		expect(deDrill[col('reason')]).toContain('Ablehnungskonfidenz 96,5\u00a0% über der Änderungskonfidenz 50\u00a0%');
		expect(drill[col('reason')]).toContain('rejection confidence 96.5 % above the change confidence 50 %');
		expect(deDrill[col('reason')]).toBe(reasonText(group(content, 'Drill'), 'de'));
		// The outliers: their own file, one row per device.
		const out = readCsv(de.outliersCsv.slice(1), ';').filter((r) => r.length > 1);
		expect(out[0]).toEqual(OUTLIERS_CSV_HEAD);
		expect(out.slice(1).map((r) => [r[0], r[2]])).toEqual([
			['dog', 'Saw'],
			['gem', 'Lamp'],
		]);
		expect(out[1][OUTLIERS_CSV_HEAD.indexOf('finding')]).toBe(CATALOGS.de.outliers.dog);
	});
});

describe('interval recommendations: many groups', () => {
	it(`at most ${MAX_INTERVAL_ROWS} rows per grouping in the body ("…and N more"), the CSV every one, the HTML within its budget (English and German)`, () => {
		const devices: RateDevice[] = [];
		const tests: RateTestResult[] = [];
		for (let k = 0; k < 3000; k++) {
			const id = 90_000 + k;
			devices.push({ id, designation: `Device type ${k} ${'Ü'.repeat(40)}`, department: `Department ${k % 70}`, customerId: null, customerName: null, testIntervalMonths: 6 });
			for (let n = 0; n < 5; n++) tests.push({ id: tests.length + 1, deviceId: id, testDate: addMonths('2024-06-10', 6 * n), failed: (k + n) % 7 === 0 });
		}
		const intervals = reportIntervals(tests, devices, LAST_DAY);
		expect(intervals.groups.designation).toHaveLength(3000);
		const { content } = report();
		const big = { ...content, intervals };
		for (const locale of ['en', 'de'] as const) {
			const r = renderComplianceReport(big, locale);
			expect(utf8Bytes(r.html)).toBeLessThanOrEqual(HTML_BUDGET_BYTES);
			// Text and HTML list as many rows as the HTML's budget holds (fewer than 40 here), then "…and N more".
			const hidden = /…(?:and|und) ([\d.]+) (?:more|weitere) \(/.exec(r.text.slice(r.text.indexOf(CATALOGS[locale].intervals.textTitle)));
			const shown = 3000 - Number(hidden![1].replace('.', ''));
			expect(shown).toBeGreaterThan(0);
			expect(shown).toBeLessThan(MAX_INTERVAL_ROWS);
			expect(r.html).toContain(esc(fill(CATALOGS[locale].common.moreCsvHtml, { count: hidden![1] })));
			expect(readCsv(r.intervalsCsv.slice(1), locale === 'en' ? ',' : ';').filter((row) => row.length > 1)).toHaveLength(1 + 3000 + intervals.groups.designationDepartment.length);
		}
		// The section alone, at its full 40 rows per grouping, is larger than a whole e-mail may be: the budget shortened it.
		expect(utf8Bytes(intervalsHtml(intervals, 'de'))).toBeGreaterThan(HTML_BUDGET_BYTES / 2);
	});
});
