/** The monthly report's failure-rate renderers: escaping, the bounds and 2 % marks, the method and the employer's sentence, a CSV that reads back. */
import fc from 'fast-check';
import { readCsv } from '../support/csv';
import { describe, expect, it } from 'vitest';
import { FAILURE_RATE_GROUP_BY, FAILURE_RATE_MONTHS, INTERVAL_DECISION_NOTE, addDays, allFailureRates, type RateDevice, type RateTestResult } from '../../client';
import { FAILURE_RATES_CSV_HEAD, MAX_RATE_ROWS, boundPercent, failureRatesCsv, failureRatesHtml, failureRatesText, methodText, ratePercent, type FailureRateTables } from '../../email/failureRatesRender';
import { renderComplianceReport } from '../../email/complianceRender';
import { esc } from '../../email/render';
import { previewReport } from '../support/compliancePreview';

const TODAY = '2026-10-31';
/** Names a service may hold: markup, quotes, ampersands, formula starts, separators, line breaks. */
const HOSTILE = ['<script>alert("x")</script>', 'Tom & Jerry’s <b>', "O'Brien \"Lab\"", '=HYPERLINK("http://x")', '-40 °C freezer', '@SUM(A1)', 'a,b;c', 'two\nlines', "'quoted", 'Drill'];

const world = fc
	.record({
		devices: fc.array(fc.record({ designation: fc.option(fc.constantFrom(...HOSTILE), { nil: null }), department: fc.option(fc.constantFrom(...HOSTILE), { nil: null }), customer: fc.integer({ min: 0, max: 3 }), interval: fc.constantFrom(6, 12, 24, null) }), { minLength: 1, maxLength: 25 }),
		results: fc.array(fc.record({ device: fc.nat(), offset: fc.integer({ min: -800, max: 5 }), failed: fc.constantFrom<boolean | null>(false, false, false, false, false, false, true, null) }), { maxLength: 400 }),
	})
	.map(({ devices, results }) => {
		const ds: RateDevice[] = devices.map((d, i) => ({ id: i + 1, designation: d.designation, department: d.department, customerId: d.customer === 0 ? null : d.customer, customerName: d.customer === 0 ? null : HOSTILE[d.customer], testIntervalMonths: d.interval }));
		const rs: RateTestResult[] = results.map((r, i) => ({ id: i + 1, deviceId: (r.device % (ds.length + 2)) + 1, testDate: addDays(TODAY, r.offset), failed: r.failed }));
		return allFailureRates(rs, ds, TODAY);
	});

/** RFC 4180 reader: rows of cells. */
/** The cell as written before the report's formula guard (a leading apostrophe before = + - @ tab CR '). */
const unguard = (cell: string) => cell.replace(/^'(?=[=+\-@\t\r'])/, '');

const shownGroups = (t: FailureRateTables) => FAILURE_RATE_GROUP_BY.flatMap((by) => t[24][by].groups.slice(0, MAX_RATE_ROWS));

describe('failure rates in the monthly report', () => {
	it('HTML: every value from the service escaped, no markup of its own gets through', () => {
		fc.assert(
			fc.property(world, (t) => {
				const html = failureRatesHtml(t);
				expect(html).not.toContain('<script>');
				expect(html).not.toContain('<b>');
				for (const g of shownGroups(t)) if (g.name !== null) expect(html).toContain(`>${esc(g.name)}</td>`);
			}),
		);
	});

	it('HTML and text: each shown group’s two windows carry both one-sided 95 % bounds and their mark (undecided with its tests needed); the method and the employer’s sentence are said', () => {
		fc.assert(
			fc.property(world, (t) => {
				const html = failureRatesHtml(t);
				const text = failureRatesText(t).join('\n');
				const count = (s: string, part: string) => s.split(part).length - 1;
				const shown = FAILURE_RATE_GROUP_BY.flatMap((by) => FAILURE_RATE_MONTHS.flatMap((m) => t[m][by].groups.slice(0, MAX_RATE_ROWS)));
				const markOf = (g: (typeof shown)[number]) => (g.verdict === 'undecided' ? `undecided (${g.testsNeeded.toLocaleString('en')} more tests)` : `${g.verdict} 2 %`);
				for (const mark of new Set(shown.map(markOf))) {
					const n = shown.filter((g) => markOf(g) === mark).length;
					expect(count(html, `;">${mark}</td>`), mark).toBe(n);
					expect(count(text, `) ${mark}`), mark).toBe(n);
				}
				// An "above 2 %" is read from the lower bound, "below 2 %" from the upper: both are shown.
				const bounds = (g: (typeof shown)[number]) => `${boundPercent(g.lowerBound95)}–${boundPercent(g.upperBound95)}`;
				for (const pair of new Set(shown.map(bounds))) {
					const n = shown.filter((g) => bounds(g) === pair).length;
					expect(count(html, `">${pair}</span>`), pair).toBe(n);
					expect(count(text, `, 95 % bounds ${pair} (`), pair).toBe(n);
				}
				for (const out of [html, text]) expect(out).toContain('exact one-sided 95 % lower and upper bounds');
				expect(html).toContain(esc(INTERVAL_DECISION_NOTE));
				expect(text).toContain(INTERVAL_DECISION_NOTE);
				const { from, to } = t[24].designation;
				expect(text).toContain(`${from} to ${to}`);
			}),
		);
	});

	it('an "above 2 %" group shows the lower bound it is read from, in HTML and text, English and German (6 of 39 failed: 15.4 %, 95 % bounds 6.9 % to 28.1 %)', () => {
		const devices: RateDevice[] = Array.from({ length: 39 }, (_, i) => ({ id: i + 1, designation: 'Vacuum cleaner', department: null, customerId: null, customerName: null, testIntervalMonths: 12 }));
		const results: RateTestResult[] = devices.map((d, i) => ({ id: i + 1, deviceId: d.id, testDate: addDays(TODAY, -30), failed: i < 6 }));
		const t = allFailureRates(results, devices, TODAY);
		const g = t[24].designation.groups[0];
		expect([g.verdict, boundPercent(g.lowerBound95), boundPercent(g.upperBound95)]).toEqual(['above', '6.9 %', '28.1 %']);
		expect(failureRatesText(t).join('\n')).toContain('24 months: 15.4 %, 95 % bounds 6.9 %–28.1 % (6 of 39 failed, 39 devices) above 2 %');
		expect(failureRatesHtml(t)).toContain('>15.4 %</span><br><span style="color:#');
		expect(failureRatesHtml(t)).toContain('">6.9 %–28.1 %</span></td>');
		const nb = '\u00a0';
		expect(failureRatesText(t, 'de').join('\n')).toContain(`24 Monate: 15,4${nb}%, 95-%-Grenzen 6,9${nb}%–28,1${nb}% (6 von 39 nicht bestanden, 39 Geräte) über 2 %`);
		expect(failureRatesHtml(t, 'de')).toContain(`">6,9${nb}%–28,1${nb}%</span></td>`);
	});

	it('CSV: one row per window, grouping and group, reading back to the figures (formula starts guarded)', () => {
		fc.assert(
			fc.property(world, (t) => {
				const csv = failureRatesCsv(t);
				expect(csv.startsWith('\uFEFF')).toBe(true);
				const rows = readCsv(csv.slice(1));
				expect(rows[0]).toEqual(FAILURE_RATES_CSV_HEAD);
				const expected = FAILURE_RATE_MONTHS.flatMap((m) => FAILURE_RATE_GROUP_BY.flatMap((by) => t[m][by].groups.map((g) => ({ m, by, g, f: t[m][by] }))));
				expect(rows).toHaveLength(expected.length + 1);
				expected.forEach(({ m, by, g, f }, i) => {
					const cells = rows[i + 1];
					for (const c of cells) expect(/^[=+\-@\t\r]/.test(c), c).toBe(false);
					const v = Object.fromEntries(FAILURE_RATES_CSV_HEAD.map((h, k) => [h, unguard(cells[k])]));
					expect(v).toMatchObject({ months: String(m), from: f.from, to: f.to, group_by: by, group_id: g.id === null ? '' : String(g.id), group_name: g.name ?? '', verdict: g.verdict, note: INTERVAL_DECISION_NOTE });
					expect([v.devices, v.devices_tested, v.tests, v.failed_tests, v.unknown_status, v.scrapped_devices, v.devices_without_interval].map(Number)).toEqual([g.devices, g.devicesTested, g.tests, g.failedTests, g.unknownStatus, g.scrappedDevices, g.devicesWithoutInterval]);
					expect(v.failure_rate === '' ? null : Number(v.failure_rate)).toBe(g.failureRate);
					expect([Number(v.lower_bound_95), Number(v.upper_bound_95), Number(v.tests_needed)]).toEqual([g.lowerBound95, g.upperBound95, g.testsNeeded]);
					expect(v.test_intervals_months === '' ? [] : v.test_intervals_months.split(';').map(Number)).toEqual(g.testIntervalsMonths);
				});
			}),
		);
	});

	it('German CSV: split by ;, the rate and both bounds with a decimal comma, reading back to the figures', () => {
		fc.assert(
			fc.property(world, (t) => {
				const rows = readCsv(failureRatesCsv(t, 'de').slice(1), ';');
				expect(rows[0]).toEqual(FAILURE_RATES_CSV_HEAD);
				const groups = FAILURE_RATE_MONTHS.flatMap((m) => FAILURE_RATE_GROUP_BY.flatMap((by) => t[m][by].groups));
				const col = (h: string) => FAILURE_RATES_CSV_HEAD.indexOf(h);
				groups.forEach((g, i) => {
					const cells = rows[i + 1];
					for (const h of ['failure_rate', 'lower_bound_95', 'upper_bound_95']) expect(cells[col(h)], h).not.toMatch(/\./);
					const num = (h: string) => Number(cells[col(h)].replace(',', '.'));
					expect([num('lower_bound_95'), num('upper_bound_95')]).toEqual([g.lowerBound95, g.upperBound95]);
					if (g.failureRate !== null) expect(num('failure_rate')).toBe(g.failureRate);
				});
			}),
		);
	});

	it('a rate near 2 % never reads as 2 % unless it is exactly 2 %', () => {
		fc.assert(
			fc.property(fc.integer({ min: 1, max: 100_000 }).chain((tests) => fc.tuple(fc.constant(tests), fc.integer({ min: 0, max: Math.min(tests, 3000) }))), ([tests, failedTests]) => {
				const shown = Number(ratePercent({ tests, failedTests }).replace(' %', ''));
				expect(shown === 2).toBe(failedTests * 50 === tests);
			}),
		);
		expect(ratePercent({ tests: 0, failedTests: 0 })).toBe('–');
	});

	it('a bound near 2 % never reads as 2 %: the upper bound of 0 in 149 is 1.99 %, of 0 in 148 2.004 %', () => {
		fc.assert(
			fc.property(fc.double({ min: 0, max: 1, noNaN: true }), (v) => {
				const shown = Number(boundPercent(v).replace(' %', ''));
				expect(shown).not.toBe(2);
				expect(Math.abs(shown - v * 100)).toBeLessThanOrEqual(0.05);
			}),
		);
		expect(boundPercent(0.019904816220685077)).toBe('1.99 %');
		expect(boundPercent(0.02003795168910416)).toBe('2.004 %');
		expect(boundPercent(0.0659839, 'de')).toBe('6,6\u00a0%');
	});

	it('more groups than a table lists: the rest are counted and left to the CSV', () => {
		const devices: RateDevice[] = Array.from({ length: MAX_RATE_ROWS + 7 }, (_, i) => ({ id: i + 1, designation: `Type ${String(i).padStart(3, '0')}`, department: null, customerId: null, customerName: null, testIntervalMonths: 12 }));
		const t = allFailureRates([], devices, TODAY);
		expect(failureRatesHtml(t)).toContain('…and 7 more (the attached CSV has them all).');
		expect(failureRatesText(t)).toContain('  …and 7 more (see the attached CSV)');
		expect(readCsv(failureRatesCsv(t)).filter((r) => r[3] === 'designation')).toHaveLength(2 * devices.length);
	});

	it('the report’s footer states the method, in English and in German', () => {
		for (const locale of ['en', 'de'] as const) {
			const r = renderComplianceReport(previewReport(), locale);
			expect(r.text.slice(r.text.lastIndexOf('\n--\n')), locale).toContain(methodText(locale));
			expect(r.html.slice(r.html.lastIndexOf('border-top:1px solid')), locale).toContain(esc(methodText(locale)));
		}
		expect(methodText('en')).toMatch(/Clopper–Pearson.*Beta⁻¹\(0\.95; x\+1, n−x\).*Beta⁻¹\(0\.05; x, n−x\+1\).*visual inspection.*DGUV Information 203-071/);
		expect(methodText('de')).toMatch(/Clopper-Pearson.*Beta⁻¹\(0,95; x\+1, n−x\).*Beta⁻¹\(0,05; x, n−x\+1\).*Sichtprüfung.*DGUV Information 203-071/);
		// What the report cannot count is said, not faked: scrapped devices, a stop at the visual inspection not recorded as failed.
		expect(methodText('en')).toMatch(/A device scrapped in the period \(a device entry of the recycle bin\) counts as one failed test of its device type.*Get Failure Rates counts it.*default list and the escalation list.*Not counted: a test stopped at the visual inspection but not recorded as failed.*unknown status/);
		expect(methodText('de')).toMatch(/Ein im Zeitraum ausgesondertes Gerät \(ein Geräteeintrag im Papierkorb\) zählt als eine nicht bestandene Prüfung seines Gerätetyps.*Get Failure Rates.*Standardliste und die Eskalationsliste.*Nicht gezählt: eine bei der Sichtprüfung abgebrochene Prüfung.*unbekannt/);
	});
});
