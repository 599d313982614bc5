import { addDays, daysBetween } from './dates';

/**
 * Calibration compliance in figures, pure: what auditors ask (ISO 9001 7.1.5, ISO/IEC 17025,
 * DGUV V3). Two views:
 * - the snapshot now, from the device list: devices, overdue, due within 30 days, share not overdue;
 * - a month, from the history of due dates the pollers keep: due in the month, tested on time,
 *   tested late (median and largest days late), still overdue, on-time rate.
 * Days are YYYY-MM-DD; a device is overdue on a day when its due date is before that day (the
 * overdue list's rule, client/overdue.ts). Every face computes with these functions.
 */

export type ComplianceGroupBy = 'all' | 'customer' | 'department';
export const COMPLIANCE_GROUP_BY: readonly ComplianceGroupBy[] = ['all', 'customer', 'department'];

/** What grouping looks at: the device's customer and department. */
export interface Groupable {
	customerId: number | null;
	customerName: string | null;
	department: string | null;
}

/** A group's identity: for a customer its ID and name, for a department its name as both; null = none given. */
export interface GroupKey {
	group: ComplianceGroupBy;
	id: number | string | null;
	name: string | null;
}

export function groupKeyOf(item: Groupable, groupBy: ComplianceGroupBy): GroupKey {
	if (groupBy === 'customer') return { group: groupBy, id: item.customerId, name: item.customerName };
	if (groupBy === 'department') return { group: groupBy, id: item.department, name: item.department };
	return { group: 'all', id: null, name: null };
}

/** Groups in a stable order: named ones by name, then the one without (null) last. */
export function grouped<T extends Groupable>(items: readonly T[], groupBy: ComplianceGroupBy): Array<{ key: GroupKey; items: T[] }> {
	if (groupBy === 'all') return [{ key: groupKeyOf({ customerId: null, customerName: null, department: null }, 'all'), items: [...items] }];
	// By the id itself (a number and a text of the same digits are two groups): no key text or key object per item.
	const groups = new Map<unknown, { key: GroupKey; items: T[] }>();
	for (const item of items) {
		const id = groupBy === 'customer' ? item.customerId : item.department;
		let group = groups.get(id);
		if (!group) groups.set(id, (group = { key: groupKeyOf(item, groupBy), items: [] }));
		else if (group.key.name === null && (groupBy === 'customer' ? item.customerName : item.department) !== null) group.key = groupKeyOf(item, groupBy);
		group.items.push(item);
	}
	return [...groups.values()].sort((a, b) => {
		if (a.key.id === null || b.key.id === null) return a.key.id === b.key.id ? 0 : a.key.id === null ? 1 : -1;
		return (a.key.name ?? '').localeCompare(b.key.name ?? '') || String(a.key.id).localeCompare(String(b.key.id));
	});
}

// ---- the snapshot now ----------------------------------------------------------------------------

/** A device as the snapshot reads it. */
export interface SnapshotDevice extends Groupable {
	id: number;
	/** Its next test (due) date, YYYY-MM-DD; null when it has none. */
	nextTestDate: string | null;
}

export interface SnapshotFigures extends GroupKey {
	/** Devices in the group, with or without a due date. */
	devices: number;
	/** Devices whose due date is before today. */
	overdue: number;
	/** Devices due from today to 30 days from today. */
	dueWithin30Days: number;
	/** Devices without a due date: neither overdue nor counted in `compliance`. */
	withoutDueDate: number;
	/** Share of the devices with a due date that are not overdue (0 to 1); null when none has one. */
	compliance: number | null;
}

export const DUE_WITHIN_DAYS = 30;

/** The snapshot on `today`, one entry per group. */
export function snapshotFigures(devices: readonly SnapshotDevice[], today: string, groupBy: ComplianceGroupBy): SnapshotFigures[] {
	const horizon = addDays(today, DUE_WITHIN_DAYS);
	return grouped(devices, groupBy).map(({ key, items }) => {
		let overdue = 0;
		let dueSoon = 0;
		let undated = 0;
		for (const d of items) {
			if (d.nextTestDate === null) undated++;
			else if (d.nextTestDate < today) overdue++;
			else if (d.nextTestDate <= horizon) dueSoon++;
		}
		const dated = items.length - undated;
		return { ...key, devices: items.length, overdue, dueWithin30Days: dueSoon, withoutDueDate: undated, compliance: dated === 0 ? null : (dated - overdue) / dated };
	});
}

// ---- the history of due dates --------------------------------------------------------------------

/** How a due date ended: not yet, by a test, or without one (the device deleted, the date moved). */
export type DueOutcome = 'open' | 'tested' | 'deleted' | 'moved';

/** One due date of one device, as the pollers keep it (lambdas/pollers/state.ts stores this shape). */
export interface DueEntry extends Groupable {
	deviceId: number;
	/** The due date (YYYY-MM-DD). Customer and department are the device's as of this day. */
	due: string;
	/** The day the history first saw this due date. */
	openedOn: string;
	/** The device was already overdue when the history first saw it (its history starts then). */
	firstSeenOverdue: boolean;
	outcome: DueOutcome;
	/** The day the history saw the due date end (any outcome but open). */
	closedOn?: string;
	/** The test's date (outcome tested). */
	testedOn?: string;
	/** Rebuilt from the account's test results (client/rebuild.ts), not recorded while watching. */
	rebuilt?: true;
}

/** Days a test came after its due date; 0 when on time or early. */
export function daysLate(due: string, testedOn: string): number {
	return Math.max(0, daysBetween(due, testedOn));
}

/**
 * The entry at the end of `day` as the history knows it: unknown (undefined) before it was opened;
 * a test counts from its test date (an upload seen days later still dates the test), any other
 * ending from the day the history saw it.
 */
export function outcomeOn(e: DueEntry, day: string): DueOutcome | undefined {
	if (e.openedOn > day) return undefined;
	const ended = e.outcome === 'tested' ? (e.testedOn ?? e.closedOn) : e.closedOn;
	return e.outcome !== 'open' && ended !== undefined && ended <= day ? e.outcome : 'open';
}

export interface MonthFigures extends GroupKey {
	/** YYYY-MM */
	month: string;
	/** Due dates in the month the history knew of. */
	due: number;
	testedOnTime: number;
	testedLate: number;
	/** Of the late tests: the median and the largest days late; null when none was late. */
	medianDaysLate: number | null;
	maxDaysLate: number | null;
	/** Due in the month, not tested, past due. */
	stillOverdue: number;
	/** Ended without a test: the device deleted or its due date moved (not counted in the rate). */
	closedWithoutTest: number;
	/** Due later in the month than the day the figures are for. */
	notYetDue: number;
	/** Of the due dates counted: those the history first saw already overdue. */
	firstSeenOverdue: number;
	/** testedOnTime / (testedOnTime + testedLate + stillOverdue); null when nothing counts. */
	onTimeRate: number | null;
}

/** The days of a month `YYYY-MM`: first and last. */
export function monthDays(month: string): { first: string; last: string } {
	return { first: `${month}-01`, last: addDays(`${monthBefore(month, -1)}-01`, -1) };
}

/** The month `months` before (negative: after) the one given. */
export function monthBefore(month: string, months = 1): string {
	const [y, m] = month.split('-').map(Number);
	const index = y * 12 + (m - 1) - months;
	return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((((index % 12) + 12) % 12) + 1).padStart(2, '0')}`;
}

export function median(values: readonly number[]): number | null {
	if (values.length === 0) return null;
	const s = [...values].sort((a, b) => a - b);
	const mid = s.length >> 1;
	return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * The day a month's figures are counted as of, on every face (the monthly report, the dashboard's
 * on-time rates, n8n's Get Summary): a month that has ended as of the first of the next month, so
 * a due date on its last day left untested counts as overdue, and the figures read the same
 * whenever they are asked again; the current month as of today.
 */
export function figuresAsOf(month: string, today: string): string {
	return month >= today.slice(0, 7) ? today : `${monthBefore(month, -1)}-01`;
}

/** A month's figures as the history knew them at the end of `asOf` (`figuresAsOf` says which day). */
export function monthFigures(entries: readonly DueEntry[], month: string, asOf: string, groupBy: ComplianceGroupBy): MonthFigures[] {
	const { first, last } = monthDays(month);
	const inMonth = entries.filter((e) => e.due >= first && e.due <= last && e.openedOn <= asOf);
	return grouped(inMonth, groupBy).map(({ key, items }) => {
		let onTime = 0;
		let still = 0;
		let without = 0;
		let notYet = 0;
		let firstSeen = 0;
		const late: number[] = [];
		for (const e of items) {
			if (e.firstSeenOverdue) firstSeen++;
			const state = outcomeOn(e, asOf);
			if (state === 'tested') {
				const d = daysLate(e.due, e.testedOn ?? e.closedOn ?? e.due);
				if (d === 0) onTime++;
				else late.push(d);
			} else if (state === 'deleted' || state === 'moved') without++;
			else if (e.due < asOf) still++;
			else notYet++;
		}
		const counted = onTime + late.length + still;
		return {
			...key,
			month,
			due: items.length,
			testedOnTime: onTime,
			testedLate: late.length,
			medianDaysLate: median(late),
			maxDaysLate: late.length === 0 ? null : Math.max(...late),
			stillOverdue: still,
			closedWithoutTest: without,
			notYetDue: notYet,
			firstSeenOverdue: firstSeen,
			onTimeRate: counted === 0 ? null : onTime / counted,
		};
	});
}

/** Devices overdue at the end of `day` as the history knew it then, per group. */
export function overdueOn(entries: readonly DueEntry[], day: string, groupBy: ComplianceGroupBy): Array<GroupKey & { overdue: number }> {
	const open = entries.filter((e) => outcomeOn(e, day) === 'open' && e.due < day);
	return grouped(open, groupBy).map(({ key, items }) => ({ ...key, overdue: new Set(items.map((e) => e.deviceId)).size }));
}
