import { COMPLIANCE_GROUP_BY, grouped, monthBefore, monthDays, type ComplianceGroupBy, type GroupKey, type SnapshotDevice } from './compliance';
import { addMonths, epochDay } from './dates';
import { ValidationError } from './errors';
import { usableInterval } from './rebuild';

/**
 * The workload ahead, pure: how many devices fall due in each of the next 12 calendar months
 * (the current month from today on) and how many are overdue now, per group, for a planner who
 * staffs re-test visits. Rules (also in docs/compliance.md):
 * - a device is overdue now when its next test date is before today (the overdue list's rule);
 * - a device is assumed to be tested on its due date, so it falls due again one test interval
 *   later (`addMonths` from that due date, as the service computes Next test from Last tested),
 *   and again, as long as the dates stay within the horizon;
 * - FORECAST_OVERDUE_RULE (ASSUMED) for an overdue device;
 * - a device without a usable interval (client/rebuild.ts `usableInterval`) falls due once: on its
 *   next test date (counted in `withoutInterval`);
 * - a device without a next test date that is a day is counted in `withoutDueDate`, never dropped.
 */

/** Calendar months the forecast covers, the current one first. */
export const FORECAST_MONTHS = 12;

/**
 * ASSUMED: an overdue device is expected to be tested now (today), so after being counted as
 * overdue now it falls due again one interval after today, and on from there. A planner staffs
 * the overdue tests first; counting them again on their old rhythm would double the work.
 */
export const FORECAST_OVERDUE_RULE =
	'An overdue device counts as overdue now and is assumed to be tested today: it falls due again one test interval after today.';

/** A device as the forecast reads it: its group, its next test date and its current interval. */
export interface ForecastDevice extends SnapshotDevice {
	testIntervalMonths: number | null;
}

export interface ForecastMonth {
	/** YYYY-MM */
	month: string;
	/** Due dates in the month (at most one per device: intervals are whole months). */
	due: number;
}

export interface ForecastGroup extends GroupKey {
	/** Devices in the group, with or without a next test date. */
	devices: number;
	/** Devices whose next test date is before today. */
	overdue: number;
	/** Devices without a next test date that is a day: in no month. */
	withoutDueDate: number;
	/** Devices with a next test date but no usable interval: due once at most. */
	withoutInterval: number;
	/** The 12 months, the current one first. */
	months: ForecastMonth[];
	/** Due dates in the 12 months (the sum of `months`). */
	dueInHorizon: number;
}

export interface Forecast {
	groupBy: ComplianceGroupBy;
	today: string;
	/** The first and last days the months cover: today, and the last day of the 12th month. */
	from: string;
	to: string;
	groups: ForecastGroup[];
}

function validate(today: string, groupBy: string): void {
	if (typeof today !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(today) || epochDay(today) === undefined) {
		throw new ValidationError('today', `must be a day YYYY-MM-DD that exists, got ${JSON.stringify(today)}`);
	}
	if (!COMPLIANCE_GROUP_BY.includes(groupBy as ComplianceGroupBy)) throw new ValidationError('groupBy', `must be one of ${COMPLIANCE_GROUP_BY.join(', ')}, got ${JSON.stringify(groupBy)}`);
}

/** The 12 months from today's on, oldest first. */
export function forecastMonths(today: string): string[] {
	return Array.from({ length: FORECAST_MONTHS }, (_, i) => monthBefore(today.slice(0, 7), -i));
}

/** A device's next test date when it is a day, else null. */
const dueDateOf = (d: ForecastDevice): string | null => (typeof d.nextTestDate === 'string' && epochDay(d.nextTestDate) !== undefined ? d.nextTestDate.slice(0, 10) : null);

/**
 * The due dates of one device from today to `to`, by the rules above; `overdue` says whether it is
 * overdue now. Undefined when it has no next test date.
 */
export function forecastDueDates(d: ForecastDevice, today: string, to: string): { overdue: boolean; dates: string[] } | undefined {
	const next = dueDateOf(d);
	if (next === null) return undefined;
	const interval = usableInterval(d.testIntervalMonths);
	const overdue = next < today;
	if (interval === null) return { overdue, dates: !overdue && next <= to ? [next] : [] };
	const dates: string[] = [];
	for (let due = overdue ? addMonths(today, interval) : next; due <= to; due = addMonths(due, interval)) dates.push(due);
	return { overdue, dates };
}

type DueMonths = { overdue: boolean; months: string[]; withoutInterval: boolean } | undefined;

/**
 * A device's due months follow from its next test date and interval alone: worked out once per
 * pair (a few thousand among 100,000 devices), not once per device, and looked up by the values
 * as the device holds them (no key text per device).
 */
function dueMonthsOf(today: string, to: string): (d: ForecastDevice) => DueMonths {
	const known = new Map<unknown, Map<unknown, DueMonths>>();
	return (d) => {
		let byInterval = known.get(d.nextTestDate);
		if (byInterval === undefined) known.set(d.nextTestDate, (byInterval = new Map()));
		if (byInterval.has(d.testIntervalMonths)) return byInterval.get(d.testIntervalMonths);
		const f = forecastDueDates(d, today, to);
		const out = f && { overdue: f.overdue, months: f.dates.map((date) => date.slice(0, 7)), withoutInterval: usableInterval(d.testIntervalMonths) === null };
		byInterval.set(d.testIntervalMonths, out);
		return out;
	};
}

/** The forecast from `today`, one entry per group (groups as the compliance figures order them). */
export function forecast(devices: readonly ForecastDevice[], today: string, groupBy: ComplianceGroupBy, memo?: (d: ForecastDevice) => DueMonths): Forecast {
	validate(today, groupBy);
	const months = forecastMonths(today);
	const to = monthDays(months[months.length - 1]).last;
	const dueMonths = memo ?? dueMonthsOf(today, to);
	const groups = grouped(devices, groupBy).map(({ key, items }): ForecastGroup => {
		const due = new Map(months.map((m) => [m, 0]));
		let overdue = 0;
		let withoutDueDate = 0;
		let withoutInterval = 0;
		for (const d of items) {
			const f = dueMonths(d);
			if (!f) {
				withoutDueDate++;
				continue;
			}
			if (f.overdue) overdue++;
			if (f.withoutInterval) withoutInterval++;
			for (const month of f.months) due.set(month, (due.get(month) ?? 0) + 1);
		}
		const perMonth = months.map((month) => ({ month, due: due.get(month) ?? 0 }));
		return { ...key, devices: items.length, overdue, withoutDueDate, withoutInterval, months: perMonth, dueInHorizon: perMonth.reduce((n, m) => n + m.due, 0) };
	});
	return { groupBy, today, from: today, to, groups };
}

/** Every grouping at once (what the monthly report shows). */
export function allForecasts(devices: readonly ForecastDevice[], today: string): Record<ComplianceGroupBy, Forecast> {
	validate(today, 'all');
	// The due months of each pair of next test date and interval, worked out once for the three groupings.
	const memo = dueMonthsOf(today, monthDays(forecastMonths(today)[FORECAST_MONTHS - 1]).last);
	return Object.fromEntries(COMPLIANCE_GROUP_BY.map((g) => [g, forecast(devices, today, g, memo)])) as Record<ComplianceGroupBy, Forecast>;
}
