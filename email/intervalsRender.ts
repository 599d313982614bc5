import { INTERVAL_DECISION_NOTE } from '../client/failureRates';
import { OUTLIER_TAIL } from '../client/measurementOutliers';
import { confidencePercent, exactPercent, percentBeside } from '../client/percent';
import { departmentLimits, DGUV_MAX_MONTHS, maximumOfSeveral, INTERVAL_GROUP_BY, type IntervalGroupBy, type IntervalRecommendation } from '../client/intervals';
import { csvFile } from './csv';
import type { ReportIntervals, ReportOutlier, ReportOutliers } from './intervalsReport';
import { C, esc } from './render';
import { DEFAULT_LOCALE, fill, formatCount, formatDay, plural, textsFor, type Locale } from './texts';

/**
 * The monthly report's sections "Interval recommendations" and "Devices out of line" as HTML
 * fragments (tables of table cells, as the rest of the report), plain-text lines and two CSVs.
 * Texts from the `intervals` and `outliers` sections of the catalogues; the English reason is the
 * client's own (client/intervals.ts, `reasonOf`), the German one the same sentence from de.ts.
 * Pure.
 */

/** Groups listed per table in the e-mail (changes first); the CSV has every one. */
export const MAX_INTERVAL_ROWS = 40;
/** Devices listed in the e-mail; the CSV has every one. */
export const MAX_OUTLIER_ROWS = 40;

const form = (s: string, locale: Locale) => (locale === 'en' ? `${s} %` : `${s.replace('.', ',')}\u00a0%`);
/** A reliability beside the target, as the client's reason writes it ("97.996 %" beside 98 %, German "97,996 %"; client/percent.ts). */
const pct = (share: number, target: number, locale: Locale) => form(percentBeside(share, target), locale);
/** The target as set ("98.0 %", German "98,0 %"). */
const targetPct = (share: number, locale: Locale) => form(exactPercent(share), locale);

/** A confidence as the reason names it: "50 %" ("50 % confidence limits"), German "50-%" ("50-%-Vertrauensgrenzen"). */
const confidenceText = (c: number, locale: Locale) => (locale === 'en' ? `${confidencePercent(c)} %` : `${confidencePercent(c).replace('.', ',')}-%`);

/**
 * The written reason a risk assessment can quote, in the report's language (English: the client's
 * sentence). The e-mail's body leaves out its last sentence (`withDecision` false): the section
 * says it once above its tables; the CSV has every reason whole.
 */
export function reasonText(r: IntervalRecommendation, locale: Locale = DEFAULT_LOCALE, withDecision = true): string {
	const x = textsFor(locale).intervals.reason;
	const n = (v: number) => formatCount(v, locale);
	const p = (v: number) => pct(v, r.reliabilityTarget, locale);
	const name = (v: string | null) => (v === null ? x.none : fill(x.quoted, { name: v }));
	const group = fill(x.deviceType, { designation: name(r.designation) }) + (r.group === 'designationDepartment' ? fill(x.inDepartment, { department: name(r.department) }) : '');
	const who = fill(x.who, { group, months: n(r.currentIntervalMonths) });
	const counted = fill(r.resultsUsed === 1 ? x.counted.one : x.counted.other, { count: n(r.resultsUsed), failed: n(r.failedUsed) });
	const observed =
		r.observedReliability === null
			? fill(x.noObserved, { counted })
			: fill(x.observed, { counted, observed: p(r.observedReliability), confidence: confidenceText(r.confidence, locale), lower: p(r.reliabilityLowerLimit), upper: p(r.reliabilityUpperLimit), lower95: p(r.reliabilityLowerBound95) });
	// The rejection confidence beside the change confidence it is read against (client/percent.ts).
	const rejection = fill(r.intervalTest === 'consistent' ? x.noRejection : x.rejection, { rejection: form(percentBeside(r.rejectionConfidence, r.confidence), locale), confidence: form(confidencePercent(r.confidence), locale) });
	const verdict = fill(x[r.intervalTest], { target: targetPct(r.reliabilityTarget, locale), rejection });
	const environments = r.environments.map((e) => textsFor(locale).intervals.environments[e]).join(', ');
	const how = { none: '', model: r.intervalTest === 'tooShort' ? x.modelLengthen : x.model, doubling: x.doubling, halving: x.halving, minimum: fill(r.minMonths <= r.recommendedIntervalMonths ? x.minimum : r.recommendedIntervalMonths > r.currentIntervalMonths ? x.minimumDoubling : x.minimumAbove, { months: n(r.minMonths) }), maximum: fill(maximumOfSeveral(r) ? x.maximumOfSeveral : x.maximum, { months: n(r.maxMonths), environments }) }[r.limitedBy];
	const recommended = r.change === 'keep' ? fill(x.keep, { months: n(r.currentIntervalMonths), how }) : fill(x.change, { months: n(r.recommendedIntervalMonths), how });
	const caution = r.change === 'lengthen' && r.reliabilityLowerBound95 < r.reliabilityTarget ? fill(x.caution, { lower95: p(r.reliabilityLowerBound95) }) : '';
	const e = r.excluded;
	const excluded = fill(x.excluded, { noPrevious: n(e.noPreviousTest), outside: n(e.outsideWindow), unknown: n(e.unknownStatus), sameDay: n(e.sameDay) });
	const note = locale === 'en' ? INTERVAL_DECISION_NOTE : textsFor(locale).failureRates.intervalDecision;
	return fill(x.sentence, { who, observed, verdict, recommended, caution, excluded, decision: withDecision ? fill(x.decision, { note }) : '' });
}

const groupName = (r: IntervalRecommendation, locale: Locale) => {
	const t = textsFor(locale);
	const type = r.designation ?? t.intervals.noDesignation;
	return r.group === 'designationDepartment' ? `${type} · ${r.department ?? t.common.noDepartment}` : type;
};

/** The groups as the e-mail lists them: recommended changes first, each part in the client's order. */
const shownOrder = (groups: readonly IntervalRecommendation[]) => [...groups.filter((g) => g.change !== 'keep'), ...groups.filter((g) => g.change === 'keep')];

const heading = (by: IntervalGroupBy, locale: Locale) => (by === 'designation' ? textsFor(locale).intervals.perDeviceType : textsFor(locale).intervals.perTypeInDepartment);

function notes(iv: ReportIntervals, locale: Locale): string[] {
	const x = textsFor(locale).intervals;
	const s = iv.settings;
	const environment = x.environments[s.defaultEnvironment];
	const max = DGUV_MAX_MONTHS[s.defaultEnvironment];
	// The departments of this report with limits of their own, as set: the rule above names only the defaults.
	const own = [...iv.ownLimits]
		.sort()
		.map((name) => {
			const d = departmentLimits(name, s);
			return fill(x.department, { name, environment: x.environments[d.environment], min: formatCount(d.minMonths, locale), max: formatCount(d.maxMonths, locale) });
		});
	return [
		fill(x.period, { from: formatDay(iv.from, locale), to: formatDay(iv.to, locale), previousFrom: formatDay(iv.previousFrom, locale) }),
		fill(x.rule, { target: targetPct(s.reliabilityTarget, locale), confidence: confidenceText(s.confidence, locale), min: plural(s.minMonths, x.minMonths, locale), environment, max: formatCount(max, locale) }),
		...(own.length > 0 ? [fill(x.departments, { list: own.join(', ') })] : []),
	];
}

function reliabilityText(r: IntervalRecommendation, locale: Locale): string {
	const x = textsFor(locale).intervals;
	if (r.observedReliability === null) return x.noReliability;
	const p = (v: number) => pct(v, r.reliabilityTarget, locale);
	return fill(x.reliability, { observed: p(r.observedReliability), lower: p(r.reliabilityLowerLimit), upper: p(r.reliabilityUpperLimit), lower95: p(r.reliabilityLowerBound95), upper95: p(r.reliabilityUpperBound95) });
}

const resultsText = (r: IntervalRecommendation, locale: Locale) => fill(textsFor(locale).intervals.results, { used: formatCount(r.resultsUsed, locale), failed: formatCount(r.failedUsed, locale), excluded: formatCount(r.resultsExcluded, locale) });

// ---- plain text ------------------------------------------------------------------------------

export function intervalsText(iv: ReportIntervals, locale: Locale = DEFAULT_LOCALE, shown = MAX_INTERVAL_ROWS): string[] {
	const t = textsFor(locale);
	const x = t.intervals;
	const lines = [x.textTitle, ...notes(iv, locale), x.decision, ''];
	for (const by of INTERVAL_GROUP_BY) {
		const groups = shownOrder(iv.groups[by]);
		if (groups.length === 0) continue;
		lines.push(heading(by, locale).toUpperCase());
		for (const r of groups.slice(0, shown)) {
			const values = { name: groupName(r, locale), count: formatCount(r.currentIntervalMonths, locale), recommended: formatCount(r.recommendedIntervalMonths, locale), change: x.change[r.change], reliability: reliabilityText(r, locale), results: resultsText(r, locale) };
			lines.push(`- ${fill(x.line, values)}`, `  ${reasonText(r, locale, false)}`);
		}
		if (groups.length > shown) lines.push(`  ${fill(t.common.moreCsvText, { count: formatCount(groups.length - shown, locale) })}`);
		lines.push('');
	}
	return lines;
}

const outlierDevice = (o: ReportOutlier, locale: Locale) => {
	const t = textsFor(locale);
	const where = [o.customerName, o.department].filter(Boolean).join(' · ');
	return `${o.designation?.trim() || t.common.noDesignation} #${o.deviceId}${where ? `, ${where}` : ''}${o.testIntervalMonths === null ? '' : `, ${fill(t.intervals.months, { count: formatCount(o.testIntervalMonths, locale) })}`}`;
};
/**
 * A device's tail probability in per cent beside the rule's 5 % (client/percent.ts): "4.95 %",
 * never "0.05" under "(under 5 %)"; under 0.1 % as "P < 0.1 %".
 */
export function tailProbabilityText(p: number, locale: Locale = DEFAULT_LOCALE): string {
	const x = textsFor(locale).outliers;
	return p < 0.001 ? fill(x.probabilityBelow, { p: form('0.1', locale) }) : fill(x.probability, { p: form(percentBeside(p, OUTLIER_TAIL), locale) });
}
const outlierTests = (o: ReportOutlier, locale: Locale) => {
	const n = (v: number) => formatCount(v, locale);
	return fill(textsFor(locale).outliers.tests, { failed: n(o.failedTests), tests: n(o.tests), groupFailed: n(o.groupFailedTests), groupTests: n(o.groupTests) });
};
const outlierRule = (o: ReportOutliers, locale: Locale) => fill(textsFor(locale).outliers.rule, { from: formatDay(o.from, locale), to: formatDay(o.to, locale) });

export function outliersText(o: ReportOutliers, locale: Locale = DEFAULT_LOCALE, shown = MAX_OUTLIER_ROWS): string[] {
	const t = textsFor(locale);
	const x = t.outliers;
	const lines = [`${x.textTitle} (${formatCount(o.devices.length, locale)})`, outlierRule(o, locale)];
	if (o.devices.length === 0) lines.push(x.none);
	for (const d of o.devices.slice(0, shown)) lines.push(`- ${fill(x.line, { device: outlierDevice(d, locale), tests: outlierTests(d, locale), probability: tailProbabilityText(d.tailProbability, locale), suggestion: x[d.kind] })}`);
	if (o.devices.length > shown) lines.push(`  ${fill(t.common.moreCsvText, { count: formatCount(o.devices.length - shown, locale) })}`);
	lines.push('');
	return lines;
}

// ---- HTML --------------------------------------------------------------------------------------

const th = (label: string, align = 'left') =>
	`<th align="${align}" style="padding:6px 5px;font-size:11px;line-height:15px;font-weight:600;color:${C.muted};text-transform:uppercase;letter-spacing:.03em;border-bottom:2px solid ${C.line};">${esc(label)}</th>`;
const TD = `padding:6px 5px;border-bottom:1px solid ${C.line};vertical-align:top;font-size:13px;line-height:18px;`;
const note = (text: string) => `<p style="margin:4px 0;font-size:13px;line-height:18px;color:${C.muted};">${esc(text)}</p>`;
const h2 = (text: string, count?: string) =>
	`<h2 style="margin:24px 0 8px 0;font-size:16px;line-height:22px;font-weight:700;color:${C.ink};">${esc(text)}${count === undefined ? '' : ` <span style="color:${C.muted};font-weight:400;">(${count})</span>`}</h2>`;
const more = (hidden: number, locale: Locale) => (hidden > 0 ? note(fill(textsFor(locale).common.moreCsvHtml, { count: formatCount(hidden, locale) })) : '');
const CHANGE_COLORS = { lengthen: C.green, shorten: C.red, keep: C.muted } as const;

function intervalTable(iv: ReportIntervals, by: IntervalGroupBy, locale: Locale, shown: number): string {
	const groups = shownOrder(iv.groups[by]);
	if (groups.length === 0) return '';
	const x = textsFor(locale).intervals;
	const months = (v: number) => fill(x.months, { count: formatCount(v, locale) });
	const body = groups
		.slice(0, shown)
		.map((r) => {
			const interval = `${esc(months(r.currentIntervalMonths))} → <strong>${esc(months(r.recommendedIntervalMonths))}</strong><br><span style="color:${CHANGE_COLORS[r.change]};font-weight:600;">${esc(x.change[r.change])}</span>`;
			return `<tr><td style="${TD}"><div style="font-weight:600;">${esc(groupName(r, locale))}</div><div style="font-size:12px;line-height:16px;color:${C.muted};">${esc(reasonText(r, locale, false))}</div></td><td style="${TD}white-space:nowrap;">${interval}</td><td style="${TD}">${esc(reliabilityText(r, locale))}</td><td style="${TD}">${esc(resultsText(r, locale))}</td></tr>`;
		})
		.join('');
	return `<h3 style="margin:16px 0 8px 0;font-size:14px;line-height:20px;font-weight:700;color:${C.ink};">${esc(heading(by, locale))}</h3><table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;"><tr>${th(textsFor(locale).common.name)}${th(x.intervalColumn)}${th(x.reliabilityColumn)}${th(x.resultsColumn)}</tr>${body}</table>${more(groups.length - shown, locale)}`;
}

/** The HTML fragment: a heading, the period and rule, the decision sentence, a table per grouping. */
export function intervalsHtml(iv: ReportIntervals, locale: Locale = DEFAULT_LOCALE, shown = MAX_INTERVAL_ROWS): string {
	const x = textsFor(locale).intervals;
	const decision = `<p style="margin:8px 0;font-size:13px;line-height:18px;color:${C.ink};"><strong>${esc(x.decision)}</strong></p>`;
	return `${h2(x.title)}${notes(iv, locale).map(note).join('')}${decision}${INTERVAL_GROUP_BY.map((by) => intervalTable(iv, by, locale, shown)).join('')}`;
}

export function outliersHtml(o: ReportOutliers, locale: Locale = DEFAULT_LOCALE, shown = MAX_OUTLIER_ROWS): string {
	const x = textsFor(locale).outliers;
	const head = `${h2(x.title, formatCount(o.devices.length, locale))}${note(outlierRule(o, locale))}`;
	if (o.devices.length === 0) return `${head}${note(x.none)}`;
	const body = o.devices
		.slice(0, shown)
		.map((d) => `<tr><td style="${TD}font-weight:600;">${esc(outlierDevice(d, locale))}</td><td style="${TD}">${esc(outlierTests(d, locale))}<br><span style="color:${C.muted};">${esc(tailProbabilityText(d.tailProbability, locale))}</span></td><td style="${TD}color:${d.kind === 'dog' ? C.red : C.green};font-weight:600;">${esc(x[d.kind])}</td></tr>`)
		.join('');
	return `${head}<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border-collapse:collapse;"><tr>${th(x.deviceColumn)}${th(x.testsColumn)}${th(x.findingColumn)}</tr>${body}</table>${more(o.devices.length - shown, locale)}`;
}

// ---- CSV ---------------------------------------------------------------------------------------

export const INTERVALS_CSV_HEAD = [
	'group_by',
	'designation',
	'department',
	'current_interval_months',
	'recommended_interval_months',
	'change',
	'interval_test',
	'limited_by',
	'model_interval_months',
	'devices',
	'results_used',
	'failed_used',
	'results_excluded',
	'excluded_no_previous_test',
	'excluded_outside_window',
	'excluded_unknown_status',
	'excluded_same_day',
	'observed_reliability',
	'reliability_lower_limit',
	'reliability_upper_limit',
	'confidence',
	'rejection_confidence',
	'reliability_lower_bound_95',
	'reliability_upper_bound_95',
	'reliability_target',
	'min_months',
	'max_months',
	'environments',
	'from',
	'to',
	'reason',
];

/** Every group of both groupings, in the client's order; the reason in the report's language. */
export function intervalsCsv(iv: ReportIntervals, locale: Locale = DEFAULT_LOCALE): string {
	const rows: Array<Array<string | number | null>> = [INTERVALS_CSV_HEAD];
	for (const by of INTERVAL_GROUP_BY) {
		for (const r of iv.groups[by]) {
			const e = r.excluded;
			rows.push([
				by,
				r.designation,
				r.department,
				r.currentIntervalMonths,
				r.recommendedIntervalMonths,
				r.change,
				r.intervalTest,
				r.limitedBy,
				r.modelIntervalMonths,
				r.devices,
				r.resultsUsed,
				r.failedUsed,
				r.resultsExcluded,
				e.noPreviousTest,
				e.outsideWindow,
				e.unknownStatus,
				e.sameDay,
				r.observedReliability,
				r.reliabilityLowerLimit,
				r.reliabilityUpperLimit,
				r.confidence,
				r.rejectionConfidence,
				r.reliabilityLowerBound95,
				r.reliabilityUpperBound95,
				r.reliabilityTarget,
				r.minMonths,
				r.maxMonths,
				r.environments.join(' '),
				iv.from,
				iv.to,
				reasonText(r, locale),
			]);
		}
	}
	return csvFile(rows, locale);
}

export const OUTLIERS_CSV_HEAD = ['kind', 'device_id', 'designation', 'customer', 'department', 'test_interval_months', 'tests', 'failed_tests', 'group_tests', 'group_failed_tests', 'group_rate_bound_95', 'tail_probability', 'from', 'to', 'finding'];

/** One line per device out of line (dogs first), its finding in the report's language. */
export function outliersCsv(o: ReportOutliers, locale: Locale = DEFAULT_LOCALE): string {
	const x = textsFor(locale).outliers;
	const rows: Array<Array<string | number | null>> = [OUTLIERS_CSV_HEAD];
	for (const d of o.devices) rows.push([d.kind, d.deviceId, d.designation, d.customerName, d.department, d.testIntervalMonths, d.tests, d.failedTests, d.groupTests, d.groupFailedTests, d.groupRateBound, d.tailProbability, o.from, o.to, x[d.kind]]);
	return csvFile(rows, locale);
}
