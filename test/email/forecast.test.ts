/**
 * The forecast of the monthly compliance report: the recipient's devices due in each of the next
 * 12 months and overdue now, composed from the due-date history's devices, rendered as a chart of
 * table cells and text in the recipient's language, and attached as forecast-<month>.csv.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allForecasts, forecastMonths, type ForecastDevice } from '../../client';
import { OutboxMailer } from '../../lambdas/adapters/outboxMailer';
import { FileMailStore } from '../../lambdas/adapters/fileMailStore';
import { composeComplianceReport } from '../../email/compliance';
import { reportHistory, runComplianceReport } from '../../lambdas/email/complianceRun';
import { renderComplianceReport } from '../../email/complianceRender';
import { FORECAST_CSV_HEAD, forecastCsv, forecastHtml, forecastText } from '../../email/forecastRender';
import { esc } from '../../email/render';
import { CATALOGS, formatMonth } from '../../email/texts';
import { NS, type DueHistory } from '../../lambdas/pollers/state';
import type { StateStore } from '../../lambdas/ports';
import { COMPLIANCE_SETTINGS, PREVIEW_MONTH, previewHistories } from '../support/compliancePreview';
import { mimeParts } from '../support/localSes';

const deps = { settings: COMPLIANCE_SETTINGS, timeZone: 'Europe/Berlin', environment: 'production' as const };
const AS_OF = '2026-11-01';

/** The preview's devices with intervals of 1 to 24 months and next test dates spread over the year ahead. */
function histories(): Array<{ key: string; value: DueHistory }> {
	const intervals = [1, 3, 6, 12, 24];
	return previewHistories().map(({ key, value }, i) => {
		const overdue = value.device.nextTestDate !== null && value.device.nextTestDate < AS_OF;
		const nextTestDate = value.device.nextTestDate === null || overdue ? value.device.nextTestDate : `2027-${String((i % 12) + 1).padStart(2, '0')}-15`;
		return { key, value: { ...value, device: { ...value.device, nextTestDate, testIntervalMonths: intervals[i % intervals.length] } } };
	});
}

const devicesOf = (h: Array<{ key: string; value: DueHistory }>, keep: (d: DueHistory['device']) => boolean): ForecastDevice[] =>
	h
		.filter(({ value }) => value.device.deletedOn === undefined && keep(value.device))
		.map(({ key, value: { device: d } }) => ({ id: Number(key), customerId: d.customerId, customerName: d.customerName, department: d.department, nextTestDate: d.nextTestDate, testIntervalMonths: d.testIntervalMonths ?? null }));

describe('the compliance report: forecast', () => {
	it('of the devices the recipient gets, from the report’s day: the escalation list’s is the account’s, a customer’s list gets that customer’s', () => {
		const h = histories();
		const manager = composeComplianceReport(deps, 'manager@example.com', PREVIEW_MONTH, reportHistory(h))!;
		expect(manager.forecast).toEqual(allForecasts(devicesOf(h, () => true), AS_OF));
		expect(manager.forecast.all.groups[0].months.map((m) => m.month)).toEqual(forecastMonths(AS_OF));
		const acme = composeComplianceReport(deps, 'custodian@acme.example', PREVIEW_MONTH, reportHistory(h))!;
		expect(acme.forecast.customer.groups.map((g) => g.name)).toEqual(['Acme Instruments']);
		const rest = composeComplianceReport(deps, 'quality@example.com', PREVIEW_MONTH, reportHistory(h))!;
		const [m, a, r] = [manager, acme, rest].map((c) => c.forecast.all.groups[0]);
		expect(a.devices + r.devices).toBe(m.devices);
		expect(a.dueInHorizon + r.dueInHorizon).toBe(m.dueInHorizon);
		expect(m.overdue).toBeGreaterThan(0);
		expect(m.withoutDueDate).toBe(1);
		expect(m.dueInHorizon).toBeGreaterThan(m.devices - m.overdue - m.withoutDueDate);
	});

	it('rendered in English and German: a bar per month after the overdue now, the counts, the assumption, the devices not counted', () => {
		const f = composeComplianceReport(deps, 'manager@example.com', PREVIEW_MONTH, reportHistory(histories()))!.forecast;
		const g = f.all.groups[0];
		for (const locale of ['en', 'de'] as const) {
			const x = CATALOGS[locale].forecast;
			const html = forecastHtml(f, locale);
			const text = forecastText(f, locale).join('\n');
			expect(html).not.toMatch(/<svg|<script|<img|<style|class=/i);
			expect(html).toContain(esc(x.heading));
			expect(html).toContain(esc(x.rule));
			expect(text).toContain(x.textHeading);
			expect(text).toContain(x.rule);
			// The head row, then the overdue row and a row per month, each with its bar (a table row of its own).
			expect(html.split('<tr>').length - 1).toBe(1 + (1 + 12) * 2);
			for (const m of g.months) {
				expect(html).toContain(`${esc(formatMonth(m.month, locale, 'short'))}</td>`);
				expect(text).toMatch(new RegExp(`  ${formatMonth(m.month, locale, 'short')} +#* +${m.due}$`, 'm'));
			}
			expect(text).toMatch(new RegExp(`  ${x.overdueNow} +#* +${g.overdue}$`, 'm'));
		}
		const de = forecastText(f, 'de').join('\n');
		expect(de).toContain('PRÜFUNGEN IN DEN NÄCHSTEN 12 MONATEN');
		expect(de).toContain('jetzt überfällig');
		expect(de).toContain('Fälligkeiten in den 12 Monaten');
		expect(de).toContain('1 Gerät hat kein nächstes Prüfdatum');
		expect(de).toContain('ab dem 01.11.2026');
		expect(forecastText(f).join('\n')).toContain('1 device has no next test date: not counted.');
	});

	it('CSV: one line per grouping, group and month; each grouping’s due dates sum to the account’s', () => {
		const f = composeComplianceReport(deps, 'manager@example.com', PREVIEW_MONTH, reportHistory(histories()))!.forecast;
		const lines = forecastCsv(f).trimEnd().split('\r\n');
		expect(lines[0]).toBe(`\uFEFF${FORECAST_CSV_HEAD.join(',')}`);
		expect(lines).toHaveLength(1 + 12 * (1 + f.customer.groups.length + f.department.groups.length));
		const rows = lines.slice(1).map((l) => l.split(','));
		const due = (by: string) => rows.filter((r) => r[0] === by).reduce((n, r) => n + Number(r[4]), 0);
		expect(due('all')).toBe(f.all.groups[0].dueInHorizon);
		expect(due('customer')).toBe(due('all'));
		expect(due('department')).toBe(due('all'));
	});

	it('sent: beside the history chart, in the settings’ language, with forecast-<month>.csv attached', async () => {
		const h = histories();
		const dir = mkdtempSync(join(tmpdir(), 'tec-forecast-'));
		const mailer = new OutboxMailer(join(dir, 'outbox'));
		const settings = { ...COMPLIANCE_SETTINGS, locale: 'de' as const };
		const view: Pick<StateStore, 'list'> = {
			async *list<T>(namespace: string) {
				if (namespace === NS.dueDates('production')) for (const x of h) yield x as unknown as { key: string; value: T };
			},
		};
		await runComplianceReport({ ...deps, settings, store: new FileMailStore(join(dir, 'mail.json')), mailer, view, now: () => Date.parse('2026-11-01T06:00:00Z') }, PREVIEW_MONTH);
		const eml = mimeParts(readFileSync(join(dir, 'outbox', 'compliance_2026-10', 'manager@example.com.eml'), 'utf8'));
		const content = composeComplianceReport({ ...deps, settings }, 'manager@example.com', PREVIEW_MONTH, reportHistory(h))!;
		const rendered = renderComplianceReport(content, 'de');
		expect(eml.attachments.map((a) => a.filename)).toEqual(['calibration-compliance-2026-10.csv', 'failure-rates-2026-10.csv', 'forecast-2026-10.csv', 'interval-recommendations-2026-10.csv', 'devices-out-of-line-2026-10.csv']);
		expect(eml.attachments[2]).toEqual({ filename: 'forecast-2026-10.csv', contentType: 'text/csv', content: rendered.forecastCsv });
		expect(eml.html).toContain(esc('Prüfungen in den nächsten 12 Monaten'));
		// After the 12-month history chart.
		expect(eml.html.indexOf(esc('Prüfungen in den nächsten 12 Monaten'))).toBeGreaterThan(eml.html.indexOf('The last 12 months'));
		expect(eml.text.indexOf('PRÜFUNGEN IN DEN NÄCHSTEN 12 MONATEN')).toBeGreaterThan(eml.text.indexOf('LAST 12 MONTHS'));
	});
});
