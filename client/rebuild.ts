import { monthBefore, type DueEntry, type Groupable } from './compliance';
import { addMonths } from './dates';

/**
 * The history of due dates rebuilt from an account's test results, pure: what the due-date
 * history would have recorded had it watched from the first day. The rules (also in
 * docs/compliance.md and in the monthly report's footer):
 * - after a test on day t (any result, passed or failed), the device is next due on t + its test
 *   interval in months (`addMonths`, as the service computes Next test from Last tested);
 * - that due date ends with the device's next test: on time when on or before it, late after it;
 *   without a later test it is still open (overdue once past);
 * - tests whose due dates fall on the same day (month ends clamp: 28 and 29 February 2024 plus 12
 *   months are both 28 February 2025) make one due date, known from the first of them and ended by
 *   the next test after the last of them, as a history recorded day by day sees it;
 * - the device's current interval is used throughout: an approximation when the interval changed;
 * - the customer and department are the device's current ones: an approximation for a device
 *   that moved;
 * - a deleted device's history ends with its last result (no due date after it).
 * Rejected, counted, never a false due date: test dates after today or before the device was
 * created; a device without a whole-number interval from 1 to MAX_INTERVAL_MONTHS months. Two
 * results on one day are one test.
 */

/** The longest test interval taken as real (ten years); 0, negative, fractional or longer are refused. */
export const MAX_INTERVAL_MONTHS = 120;

/** The interval in months when it is usable, else null. */
export function usableInterval(value: unknown): number | null {
	const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
	return Number.isInteger(n) && n >= 1 && n <= MAX_INTERVAL_MONTHS ? n : null;
}

/** A device as the rebuild reads it. */
export interface RebuildDevice extends Groupable {
	id: number;
	testIntervalMonths: number | null;
	/** The day the device was created in the service; tests before it are refused. */
	createdOn: string | null;
	/** Set for a device the account no longer lists: its history ends with its last result. */
	deletedOn?: string;
}

/** What a rebuild refused, by rule. */
export interface RebuildSkips {
	/** Devices with tests but no usable interval (none, 0, negative, fractional, more than MAX_INTERVAL_MONTHS). */
	devicesWithoutInterval: number;
	/** Results dated after today. */
	futureTests: number;
	/** Results dated before the device was created. */
	testsBeforeCreated: number;
	/** Further results on a day that already had one (counted once). */
	sameDayTests: number;
}

export const noSkips = (): RebuildSkips => ({ devicesWithoutInterval: 0, futureTests: 0, testsBeforeCreated: 0, sameDayTests: 0 });

/**
 * One device's due entries rebuilt from its test dates (any order, duplicates allowed), as of
 * `today`. Each entry is marked `rebuilt` and counts as known from its test day.
 */
export function rebuildDueEntries(device: RebuildDevice, testDates: readonly string[], today: string, skips: RebuildSkips = noSkips(), dues: Map<string, Map<string, string>> = new Map()): DueEntry[] {
	// The days taken, sorted, each once (a device has a few: sorted and walked, no set per device).
	const taken: string[] = [];
	for (const d of testDates) {
		if (d > today) skips.futureTests++;
		else if (device.createdOn !== null && d < device.createdOn) skips.testsBeforeCreated++;
		else taken.push(d);
	}
	taken.sort();
	let distinct = 0;
	for (let i = 0; i < taken.length; i++) if (i === 0 || taken[i] !== taken[distinct - 1]) taken[distinct++] = taken[i];
	skips.sameDayTests += taken.length - distinct;
	taken.length = distinct;
	if (distinct === 0) return [];
	if (device.testIntervalMonths === null || usableInterval(device.testIntervalMonths) === null) {
		skips.devicesWithoutInterval++;
		return [];
	}
	const tests = taken;
	const months = device.testIntervalMonths;
	// One string per due day, shared by every device due that day (`dues`, by interval and test day,
	// passed by a rebuild of many devices: no key text per test).
	// By the interval as text, as the key was written before (a "12" and a 12 share their days).
	let byDay = dues.get(`${months}`);
	if (byDay === undefined) dues.set(`${months}`, (byDay = new Map()));
	const known = byDay;
	const dueOf = (t: string) => {
		let due = known.get(t);
		if (due === undefined) known.set(t, (due = addMonths(t, months)));
		return due;
	};
	const { id: deviceId, customerId, customerName, department } = device;
	const entries: DueEntry[] = [];
	for (let i = 0; i < tests.length; i++) {
		const t = tests[i];
		const due = dueOf(t);
		// Month ends clamp (28 and 29 February plus 12 months): tests with the same due date set it
		// once, as the service's Next test shows it; the next test after the last of them ends it.
		while (i + 1 < tests.length && dueOf(tests[i + 1]) === due) i++;
		const next = tests[i + 1];
		if (next === undefined && device.deletedOn !== undefined) break;
		// Each field written out (no spread): an object of one fixed shape, its fields within it.
		entries.push(
			next === undefined
				? { deviceId, due, openedOn: t, firstSeenOverdue: false, outcome: 'open', rebuilt: true, customerId, customerName, department }
				: { deviceId, due, openedOn: t, firstSeenOverdue: false, outcome: 'tested', testedOn: next, closedOn: next, rebuilt: true, customerId, customerName, department },
		);
	}
	return entries;
}

/**
 * The first test date a rebuild must read to know every due date the history keeps: a due date
 * in the first kept month comes from the test one interval before it.
 */
export function rebuildReach(today: string, retentionMonths: number, longestIntervalMonths: number): string {
	return addMonths(`${monthBefore(today.slice(0, 7), retentionMonths)}-01`, -Math.max(0, Math.min(longestIntervalMonths, MAX_INTERVAL_MONTHS)));
}
