import type { MeasurementWarningItem } from '../client/measurementWarningRows';
import { csvFile } from './csv';
import { C, clipWarning, esc, warningLines, warningRowsHtml } from './render';
import { DEFAULT_LOCALE, fill, formatCount, formatMonth, textsFor, type Locale } from './texts';

/**
 * The monthly report's section "Measured values near their limit" (the month's warnings: near the
 * limit, or drifting toward it) as an HTML fragment, plain-text lines and its CSV, the rows drawn
 * as the digest draws them (email/render.ts). Pure.
 */

/** Warnings listed in the e-mail; the CSV has every one. */
export const MAX_WARNING_ROWS = 40;

const note = (text: string) => `<p style="margin:4px 0;font-size:13px;line-height:18px;color:${C.muted};">${esc(text)}</p>`;

export function warningsReportText(rows: readonly MeasurementWarningItem[], month: string, locale: Locale = DEFAULT_LOCALE, shown = MAX_WARNING_ROWS): string[] {
	const t = textsFor(locale);
	const lines = [`${t.warnings.textTitle} (${formatCount(rows.length, locale)})`, fill(t.warnings.rule, { month: formatMonth(month, locale) })];
	for (const w of rows.slice(0, shown).map(clipWarning)) lines.push(...warningLines(w, locale));
	if (rows.length > shown) lines.push(`  ${fill(t.common.moreCsvText, { count: formatCount(rows.length - shown, locale) })}`);
	lines.push('');
	return lines;
}

export function warningsReportHtml(rows: readonly MeasurementWarningItem[], month: string, locale: Locale = DEFAULT_LOCALE, shown = MAX_WARNING_ROWS): string {
	const t = textsFor(locale);
	const head = `<h2 style="margin:24px 0 8px 0;font-size:16px;line-height:22px;font-weight:700;color:${C.ink};">${esc(t.warnings.title)} <span style="color:${C.muted};font-weight:400;">(${formatCount(rows.length, locale)})</span></h2>${note(fill(t.warnings.rule, { month: formatMonth(month, locale) }))}`;
	const listed = rows.slice(0, shown).map(clipWarning);
	const more = rows.length > shown ? note(fill(t.common.moreCsvHtml, { count: formatCount(rows.length - shown, locale) })) : '';
	return `${head}${listed.length > 0 ? warningRowsHtml(listed, locale) : ''}${more}`;
}

export const WARNINGS_CSV_HEAD = [
	'test_date',
	'test_result_id',
	'device_id',
	'designation',
	'id_barcode',
	'customer',
	'department',
	'step',
	'measurement',
	'value',
	'unit',
	'low_limit',
	'high_limit',
	'limit_used',
	'near_limit',
	'predicted_limit_date',
	'next_test_date',
	'test_earlier',
];

/** Every warning of the month, one row each (German: `;` and decimal commas, as the other CSVs). */
export function warningsCsv(rows: readonly MeasurementWarningItem[], locale: Locale = DEFAULT_LOCALE): string {
	return csvFile(
		[
			WARNINGS_CSV_HEAD,
			...rows.map((w) => [
				w.testDate,
				w.testResultId,
				w.device.id,
				w.device.designation,
				w.device.idBarcode,
				w.device.customerName,
				w.device.department,
				w.step,
				w.measurement,
				w.value,
				w.unit,
				w.lowLimit,
				w.highLimit,
				Math.round(w.limitUsed * 10_000) / 10_000,
				w.nearLimit,
				w.predictedLimitDate,
				w.nextTestDate,
				w.testEarlier,
			]),
		],
		locale,
	);
}
