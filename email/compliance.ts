import { daysLate, figuresAsOf, monthBefore, monthDays, monthFigures, outcomeOn, overdueOn, type ComplianceGroupBy, type DueEntry, type MonthFigures } from '../client/compliance';
import { addDays, daysBetween } from '../client/dates';
import { allFailureRates, type FailureRateGroupBy, type FailureRateMonths, type FailureRates, type RateDevice, type RateScrappedDevice, type RateTestResult } from '../client/failureRates';
import { allForecasts, type Forecast, type ForecastDevice } from '../client/forecast';
import type { IntervalSettingsInput } from '../client/intervals';
import { reportIntervals, reportOutliers, type ReportIntervals, type ReportOutliers } from './intervalsReport';
import { byWarning, type MeasurementWarningItem } from '../client/measurementWarningRows';
import { route, type Recipients } from './routing';
import type { ScrappedNotRead } from './failureRatesRender';

/**
 * The monthly compliance report: on the first day of a month, at the digest hour, one e-mail per
 * recipient about the month that ended, from the history of due dates the pollers keep
 * (lambdas/pollers/dueDates.ts). A recipient's report covers the due dates routed to them as the
 * digest routes devices (by the customer and department the device had on its due date); the
 * escalation list gets the whole account's. No due date in the month, no report.
 * Figures are as of the first day of the new month (client/compliance.ts, figuresAsOf).
 */

export interface LateDevice {
	deviceId: number;
	designation: string | null;
	customerName: string | null;
	department: string | null;
	due: string;
	/** The test date (tested late), or null while still overdue. */
	testedOn: string | null;
	daysLate: number;
	firstSeenOverdue: boolean;
}

export interface ComplianceReportContent {
	month: string;
	/** The day the figures are for: the first of the next month. */
	asOf: string;
	recipient: string;
	environment: 'sandbox' | 'production';
	timeZone: string;
	all: MonthFigures;
	previous: MonthFigures;
	/** On-time rate change from the month before, in percentage points; null when either has none. */
	change: number | null;
	/** The 12 months up to this one, oldest first: on-time rate and devices overdue at the month's end. */
	trend: Array<{ month: string; onTimeRate: number | null; due: number; overdue: number }>;
	customers: MonthFigures[];
	departments: MonthFigures[];
	/** Tested late, then still overdue; most days late first. */
	late: LateDevice[];
	/** Devices without a due date now (not counted). */
	withoutDueDate: number;
	/** The first day the history has (its figures start there). */
	historySince: string | null;
	/** Months of the trend whose figures rest, in part, on the history rebuilt from test results (pollers/rebuild.ts). */
	rebuiltMonths: string[];
	/** The month's due dates and outcomes, for the CSV attachment. */
	rows: CsvRow[];
	/**
	 * Failure rates of the 12 and 24 months up to the report's last day, per device type, department
	 * and customer (client/failureRates.ts), from the test records the pollers keep (the rebuild and
	 * the test-results poller, `tests:` namespace), for the devices this report covers.
	 */
	failureRates: Record<FailureRateMonths, Record<FailureRateGroupBy, FailureRates>>;
	/**
	 * Whether the failure rates count scrapped devices (the recycle bin's device entries, as n8n's
	 * Get Failure Rates counts them); false when the bin could not be read.
	 * The bin names neither customer nor department: a recipient's report counts them when a device
	 * without either is routed to it (the default list) and in the escalation list's report.
	 */
	scrappedCounted: boolean;
	/** Set when the bin was not read for another reason than the token's permission (the Lambdas: the last read failed, or none was made yet). */
	scrappedNotRead?: 'failed';
	/**
	 * The next 12 months from the report's day (client/forecast.ts), for the devices this report
	 * covers, from their next test dates and intervals as the due-date history last saw them.
	 */
	forecast: Record<ComplianceGroupBy, Forecast>;
	/**
	 * Interval recommendations (NCSLI RP-1 method A3, client/intervals.ts) per device type and per
	 * device type within department, from the same test records and devices as `failureRates`
	 * (email/intervalsReport.ts); never applied to the service.
	 */
	intervals: ReportIntervals;
	/** Devices whose failures stand out from the rest of their group (client/measurementOutliers.ts), same records. */
	outliers: ReportOutliers;
	/**
	 * The month's measured-value warnings of the devices this report covers (test date in the month;
	 * the Lambdas: what the results poller recorded, the node: what it reads from the month's passed
	 * results), oldest first; absent when there are none (no section, no CSV).
	 */
	measurementWarnings?: MeasurementWarningItem[];
}

export interface CsvRow {
	deviceId: number;
	designation: string | null;
	customerId: number | null;
	customerName: string | null;
	department: string | null;
	due: string;
	outcome: string;
	testedOn: string | null;
	daysLate: number | null;
	firstSeenOverdue: boolean;
	openedOn: string;
	closedOn: string | null;
	/** Rebuilt from the test results, not recorded while watching. */
	rebuilt: boolean;
}

/** The month a report sent on `day` is about (the month before), or undefined when `day` is not the first. */
export function reportMonthOn(day: string): string | undefined {
	return day.endsWith('-01') ? monthBefore(day.slice(0, 7)) : undefined;
}

/** A device as the report reads it: as last seen (the Lambdas' due-date history, or the service's list read by the node). */
export interface ReportDevice {
	customerId: number | null;
	customerName: string | null;
	department: string | null;
	designation: string | null;
	nextTestDate: string | null;
	testIntervalMonths?: number | null;
	/** Set when the account no longer lists the device. */
	deletedOn?: string;
}

/** What a report is composed from: the account's due dates (recorded or rebuilt) and its devices by id. */
export interface ReportHistory {
	entries: readonly DueEntry[];
	devices: ReadonlyMap<number, ReportDevice>;
}

/** Who the report is for, and the facts about the deployment it states. */
export interface ReportContext {
	/** `intervals`: the interval recommendations' settings (each part not given, its default). */
	settings: { recipients: Recipients; intervals?: IntervalSettingsInput };
	timeZone: string;
	environment: 'sandbox' | 'production';
}

interface Routed {
	entries: DueEntry[];
	devices: ReadonlyMap<number, ReportDevice>;
	/** The escalation list: the whole account. */
	everything: boolean;
}

/** The entries and devices a recipient's report covers. */
function routedTo(recipients: Recipients, recipient: string, history: ReportHistory): Routed {
	const everything = recipients.escalation?.to.includes(recipient) ?? false;
	// Routing looks at the customer and department only: asked once per pair, not once per due date
	// and device (by customer, then department: no key string built per due date).
	const asked = new Map<string | null, Map<string | null, boolean>>();
	const mine = (g: { customerName: string | null; department: string | null }) => {
		if (everything) return true;
		let byDepartment = asked.get(g.customerName);
		if (byDepartment === undefined) asked.set(g.customerName, (byDepartment = new Map()));
		let routed = byDepartment.get(g.department);
		if (routed === undefined) byDepartment.set(g.department, (routed = route(recipients, { customerName: g.customerName, department: g.department, daysOverdue: 0 }).includes(recipient)));
		return routed;
	};
	const entries = history.entries.filter(mine);
	// A recipient who gets every device (one address, or the escalation list) shares the account's map: no copy of 100,000 devices.
	let all = true;
	for (const d of history.devices.values()) if (!(all = mine(d))) break;
	if (all) return { entries, devices: history.devices, everything };
	const devices = new Map([...history.devices].filter(([, d]) => mine(d)));
	const withEntries = new Set(entries.map((e) => e.deviceId));
	for (const [id, device] of history.devices) if (withEntries.has(id)) devices.set(id, device);
	return { entries, devices, everything };
}

/**
 * What a report of `month` reads of a due-date history, for a face that rebuilds the whole
 * history to compose one report (the node): `keep` passes the entries the report can read (due in
 * its 12 months, or still open at the first of them) and drops the rest, of which `earliest` gives
 * back, per customer and department, the one first seen (the report's "history since" is the
 * earliest day of the entries routed to its recipient, and routing looks at those two only).
 * Composed from `[...kept, ...earliest()]`, a report is the same as from every entry.
 */
export function reportEntries(month: string, asOf = figuresAsOf(month, `${monthBefore(month, -1)}-01`)): { keep: (e: DueEntry) => boolean; earliest: () => DueEntry[] } {
	const trendFirst = monthDays(monthBefore(month, 11)).first;
	// The earliest day any of the trend's figures is taken on (overdueOn, rebuiltMonths).
	const firstAt = figuresAsOf(monthBefore(month, 11), asOf);
	const earliest = new Map<string | null, Map<string | null, DueEntry>>();
	const keep = (e: DueEntry) => {
		const ended = e.outcome === 'tested' ? (e.testedOn ?? e.closedOn) : e.closedOn;
		// Due after the report's day: in no month it counts, not yet overdue on any of its days.
		// Due before its 12 months and ended before their first day: overdue on none of its days.
		const read = e.due < asOf && (e.due >= trendFirst || e.outcome === 'open' || ended === undefined || ended > firstAt);
		if (read) return true;
		let byDepartment = earliest.get(e.customerName);
		if (byDepartment === undefined) earliest.set(e.customerName, (byDepartment = new Map()));
		const first = byDepartment.get(e.department);
		if (first === undefined || e.openedOn < first.openedOn) byDepartment.set(e.department, e);
		return false;
	};
	return { keep, earliest: () => [...earliest.values()].flatMap((m) => [...m.values()]) };
}

export function composeComplianceReport(
	deps: ReportContext,
	recipient: string,
	month: string,
	history: ReportHistory,
	asOf = figuresAsOf(month, `${monthBefore(month, -1)}-01`),
	tests: readonly RateTestResult[] = [],
	warnings: readonly MeasurementWarningItem[] = [],
	scrapped: readonly RateScrappedDevice[] | null = null,
	scrappedNotRead: ScrappedNotRead = 'forbidden',
): ComplianceReportContent | undefined {
	const { entries, devices, everything } = routedTo(deps.settings.recipients, recipient, history);
	const [all] = monthFigures(entries, month, asOf, 'all');
	if (all.due === 0) return undefined;
	const previousMonth = monthBefore(month);
	const [previous] = monthFigures(entries, previousMonth, figuresAsOf(previousMonth, asOf), 'all');
	// The entries due in each month, in their order: a month's figures read only those (not every entry, twelve times).
	const dueIn = new Map<string, DueEntry[]>();
	for (const e of entries) {
		if (typeof e.due !== 'string') continue;
		const m = e.due.slice(0, 7);
		const list = dueIn.get(m);
		if (list === undefined) dueIn.set(m, [e]);
		else list.push(e);
	}
	const trend = Array.from({ length: 12 }, (_, i) => monthBefore(month, 11 - i)).map((m) => {
		// Each month as of the first of the next; the report's own month as of the report's day.
		const at = m === month ? asOf : figuresAsOf(m, asOf);
		const [f] = monthFigures(dueIn.get(m) ?? [], m, at, 'all');
		return { month: m, onTimeRate: f.onTimeRate, due: f.due, overdue: overdueOn(entries, at, 'all')[0].overdue };
	});
	const rebuiltMonths = trend
		.map((t) => t.month)
		.filter((m) => {
			const { first: from, last: to } = monthDays(m);
			const at = m === month ? asOf : figuresAsOf(m, asOf);
			return entries.some((e) => e.rebuilt && e.openedOn <= at && ((e.due >= from && e.due <= to) || (e.due < at && outcomeOn(e, at) === 'open')));
		});
	const { first, last } = monthDays(month);
	const inMonth = entries.filter((e) => e.due >= first && e.due <= last && e.openedOn <= asOf);
	const designation = (id: number) => devices.get(id)?.designation ?? null;
	const late: LateDevice[] = [];
	const rows: CsvRow[] = [];
	for (const e of inMonth.sort((a, b) => a.due.localeCompare(b.due) || a.deviceId - b.deviceId)) {
		const outcome = outcomeOn(e, asOf)!;
		const testedOn = outcome === 'tested' ? (e.testedOn ?? e.closedOn ?? e.due) : null;
		const base = { deviceId: e.deviceId, designation: designation(e.deviceId), customerName: e.customerName, department: e.department, due: e.due, firstSeenOverdue: e.firstSeenOverdue };
		if (testedOn !== null && testedOn > e.due) late.push({ ...base, testedOn, daysLate: daysLate(e.due, testedOn) });
		else if (outcome === 'open' && e.due < asOf) late.push({ ...base, testedOn: null, daysLate: daysBetween(e.due, asOf) });
		rows.push({
			...base,
			customerId: e.customerId,
			outcome,
			testedOn,
			daysLate: testedOn === null ? null : daysLate(e.due, testedOn),
			openedOn: e.openedOn,
			closedOn: outcome === 'open' ? null : (e.closedOn ?? null),
			rebuilt: e.rebuilt === true,
		});
	}
	late.sort((a, b) => (a.testedOn === null ? 1 : 0) - (b.testedOn === null ? 1 : 0) || b.daysLate - a.daysLate || a.deviceId - b.deviceId);
	// The rates of the devices this report covers, up to the day before the figures' day.
	// Loops, not [...devices].filter().map(): no 100,000 entry pairs made and dropped, twice.
	// One object per device serves the rates, intervals, outliers and the forecast (each reads its fields only).
	const covered: Array<RateDevice & ForecastDevice> = [];
	for (const [id, d] of devices) {
		if (d.deletedOn === undefined) covered.push({ id, designation: d.designation, department: d.department, customerId: d.customerId, customerName: d.customerName, nextTestDate: d.nextTestDate, testIntervalMonths: d.testIntervalMonths ?? null });
	}
	// The results of the devices routed to the recipient and still listed: a device the history marks deleted
	// has no customer or department the node's face could read (it reads only the current device list), so
	// its results are not routed to anyone but the escalation list, whose report covers every result.
	const routed = new Set(covered.map((d) => d.id));
	// Scrapped devices and their results, as Get Failure Rates counts them (the bin names neither customer
	// nor department: routed as a device without either). The interval test reads results at the end of an
	// interval, not devices taken out of service: the recommendations and outliers count them as Get Interval Recommendations does, not at all.
	const binned = everything || route(deps.settings.recipients, { customerName: null, department: null, daysOverdue: 0 }).includes(recipient) ? (scrapped ?? []).filter((b) => history.devices.get(b.deviceId)?.deletedOn !== undefined || !history.devices.has(b.deviceId)) : [];
	const inBin = new Set(binned.map((b) => b.deviceId));
	// The recipient's results, and those with the bin's, in one walk over the results (not two).
	let mine: readonly RateTestResult[] = tests;
	let rated: readonly RateTestResult[] = tests;
	if (!everything) {
		const own: RateTestResult[] = [];
		const withBin: RateTestResult[] = [];
		for (const t of tests) {
			if (routed.has(t.deviceId)) {
				own.push(t);
				withBin.push(t);
			} else if (inBin.has(t.deviceId)) withBin.push(t);
		}
		mine = own;
		rated = inBin.size === 0 ? own : withBin;
	}
	const failureRates = allFailureRates(rated, covered, addDays(asOf, -1), binned);
	const intervals = reportIntervals(mine, covered, addDays(asOf, -1), deps.settings.intervals);
	const outliers = reportOutliers(mine, covered, addDays(asOf, -1));
	const forecast = allForecasts(covered, asOf);
	const since = entries.reduce<string | null>((min, e) => (min === null || e.openedOn < min ? e.openedOn : min), null);
	// Routed as the digest routes the device (its customer and department now); the escalation list gets every one.
	const warned = warnings.filter((w) => w.testDate >= first && w.testDate <= last && (everything || route(deps.settings.recipients, { ...w.device, daysOverdue: 0 }).includes(recipient))).sort(byWarning);
	return {
		month,
		asOf,
		recipient,
		environment: deps.environment,
		timeZone: deps.timeZone,
		all,
		previous,
		change: all.onTimeRate === null || previous.onTimeRate === null ? null : Math.round((all.onTimeRate - previous.onTimeRate) * 1000) / 10,
		trend,
		customers: monthFigures(entries, month, asOf, 'customer'),
		departments: monthFigures(entries, month, asOf, 'department'),
		late,
		withoutDueDate: [...devices.values()].filter((d) => d.nextTestDate === null && d.deletedOn === undefined).length,
		historySince: since,
		rebuiltMonths,
		rows,
		failureRates,
		scrappedCounted: scrapped !== null,
		...(scrapped === null && scrappedNotRead !== 'forbidden' ? { scrappedNotRead } : {}),
		forecast,
		intervals,
		outliers,
		...(warned.length > 0 ? { measurementWarnings: warned } : {}),
	};
}
