import { figuresAsOf, monthBefore, monthFigures, type ComplianceGroupBy, type DueEntry, type MonthFigures } from './compliance';
import { ValidationError } from './errors';
import { noSkips, rebuildDueEntries, rebuildReach, usableInterval, type RebuildDevice, type RebuildSkips } from './rebuild';

/**
 * Past months' compliance figures for a face that keeps no history (the n8n node), pure: the
 * due-date history rebuilt from the account's test results by the rules of client/rebuild.ts,
 * then counted by `monthFigures` as the monthly report counts it. Reading is in
 * complianceHistoryRead.ts.
 */

/** A test result as the rebuild reads it. */
export interface HistoryResult {
	deviceId: number;
	/** YYYY-MM-DD */
	testDate: string;
}

/** What the rebuild refused (client/rebuild.ts's rules), and results it could not place. */
export interface HistorySkips extends RebuildSkips {
	/** Results of devices the account does not list (deleted, or never readable): not used. */
	resultsOfUnknownDevices: number;
	/** Result records without a device id or a test date that is a day. */
	unreadableResults: number;
}

export const noHistorySkips = (): HistorySkips => ({ ...noSkips(), resultsOfUnknownDevices: 0, unreadableResults: 0 });

/**
 * The first test date to read so that every due date from `firstMonth` on is known: a due date
 * comes from the test one interval before it, so the longest usable interval of the devices back.
 */
export function historyReach(firstMonth: string, devices: Iterable<Pick<RebuildDevice, 'testIntervalMonths'>>): string {
	let longest = 0;
	for (const d of devices) longest = Math.max(longest, usableInterval(d.testIntervalMonths) ?? 0);
	// rebuildReach keeps `retention` whole months before the month of its day; none here.
	return rebuildReach(`${firstMonth}-01`, 0, longest);
}

/**
 * Every device's due entries rebuilt from the results, as of `today`; results of devices not listed are counted, not used.
 * `keep`: the entries a reader needs (the others are dropped as they are made, never held all at once).
 */
export function rebuildHistory(
	devices: readonly RebuildDevice[],
	results: Iterable<HistoryResult>,
	today: string,
	skips: HistorySkips = noHistorySkips(),
	keep?: (entry: DueEntry) => boolean,
): { entries: DueEntry[]; skips: HistorySkips } {
	const byId = new Map<number, RebuildDevice>();
	for (const d of devices) byId.set(d.id, d);
	const days = new Map<number, string[]>();
	for (const r of results) {
		// A device with days already is a listed one: one lookup for most results.
		const known = days.get(r.deviceId);
		if (known) known.push(r.testDate);
		else if (!byId.has(r.deviceId)) skips.resultsOfUnknownDevices++;
		else days.set(r.deviceId, [r.testDate]);
	}
	const entries: DueEntry[] = [];
	const dues = new Map<string, Map<string, string>>();
	for (const [id, dates] of days) for (const e of rebuildDueEntries(byId.get(id)!, dates, today, skips, dues)) if (!keep || keep(e)) entries.push(e);
	return { entries, skips };
}

/** The month's figures per group, as of `figuresAsOf`. */
export function historyMonthFigures(entries: readonly DueEntry[], month: string, today: string, groupBy: ComplianceGroupBy): Array<MonthFigures & { asOf: string }> {
	const asOf = figuresAsOf(month, today);
	return monthFigures(entries, month, asOf, groupBy).map((f) => ({ ...f, asOf }));
}

/** The `count` months up to and including today's, oldest first. */
export function monthsUpTo(today: string, count: number): string[] {
	const current = today.slice(0, 7);
	return Array.from({ length: count }, (_, i) => monthBefore(current, count - 1 - i));
}

/** The first month a Month parameter may name (days before 1970 are out of the clients' date range). */
export const FIRST_MONTH = '1970-01';

/**
 * A month parameter (YYYY-MM) checked: a real month from FIRST_MONTH on and, when `today` is
 * given, not after today's month (a future month has no figures yet).
 */
export function parseMonth(value: unknown, today?: string, parameter = 'Month'): string {
	const text = typeof value === 'string' ? value.trim() : '';
	const m = /^(\d{4})-(\d{2})$/.exec(text);
	if (!m || Number(m[2]) < 1 || Number(m[2]) > 12 || text < FIRST_MONTH) {
		throw new ValidationError(parameter, `must be a month written YYYY-MM from ${FIRST_MONTH} on (for example 2026-01), got ${JSON.stringify(value)}`);
	}
	if (today !== undefined && text > today.slice(0, 7)) {
		throw new ValidationError(parameter, `must not be after the current month ${today.slice(0, 7)} (no figures yet), got ${JSON.stringify(value)}`);
	}
	return text;
}
