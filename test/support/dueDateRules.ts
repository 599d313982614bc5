import { addMonths, daysBetween, median, monthBefore } from '../../client';
import type { Account } from '../../sandbox/account';
import { DEVICE } from '../../sandbox/properties';

/**
 * The due dates of an account by the rules of docs/compliance.md, counted from the sandbox's own
 * record without the product's code: what a fresh install's history holds after its first run
 * (the rebuild from the results, with the due date each device shows now).
 */
export interface RuleEntry {
	deviceId: number;
	due: string;
	openedOn: string;
	testedOn?: string;
}

export function dueDatesByTheRules(account: Account, today: string, retentionMonths = 27): RuleEntry[] {
	const interval = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 120 ? v : null);
	let longest = 0;
	for (const d of account.data.devices.values()) longest = Math.max(longest, interval(d.values[DEVICE.testInterval]) ?? 0);
	const since = addMonths(`${monthBefore(today.slice(0, 7), retentionMonths)}-01`, -longest);
	const days = new Map<number, Set<string>>();
	for (const r of account.data.testResults.values()) if (r.test_date >= since && r.test_date <= today) days.set(r.device_id, (days.get(r.device_id) ?? new Set()).add(r.test_date));
	const out: RuleEntry[] = [];
	for (const d of account.data.devices.values()) {
		const months = interval(d.values[DEVICE.testInterval]);
		const created = d.created_time.slice(0, 10);
		const tests = [...(days.get(d.id) ?? [])].filter((t) => t >= created).sort();
		const mine: RuleEntry[] = [];
		for (const [i, t] of (months === null ? [] : tests).entries()) {
			const due = addMonths(t, months!);
			const last = mine.at(-1);
			// Tests whose due dates fall on one day (month ends) make one due date, ended by the test after the later one.
			if (last?.due === due) delete last.testedOn;
			else mine.push({ deviceId: d.id, due, openedOn: t });
			if (i + 1 < tests.length) mine.at(-1)!.testedOn = tests[i + 1];
		}
		// The due date the device shows now is the open one (first seen today when no result set it).
		const shown = typeof d.values[DEVICE.nextTest] === 'string' ? (d.values[DEVICE.nextTest] as string) : null;
		const open = mine.at(-1);
		if (open && open.testedOn === undefined && open.due !== shown) mine.pop();
		if (shown !== null && !mine.some((e) => e.due === shown)) mine.push({ deviceId: d.id, due: shown, openedOn: today });
		out.push(...mine);
	}
	return out;
}

/** A month's figures as of a day, counted as the report counts them. */
export function figuresOf(entries: readonly RuleEntry[], month: string, asOf: string) {
	let onTime = 0;
	let still = 0;
	let notYet = 0;
	const late: number[] = [];
	const inMonth = entries.filter((e) => e.due.startsWith(month) && e.openedOn <= asOf);
	for (const e of inMonth) {
		if (e.testedOn !== undefined && e.testedOn <= asOf) {
			if (e.testedOn <= e.due) onTime++;
			else late.push(daysBetween(e.due, e.testedOn));
		} else if (e.due < asOf) still++;
		else notYet++;
	}
	const counted = onTime + late.length + still;
	return {
		due: inMonth.length,
		testedOnTime: onTime,
		testedLate: late.length,
		medianDaysLate: median(late),
		maxDaysLate: late.length === 0 ? null : Math.max(...late),
		stillOverdue: still,
		closedWithoutTest: 0,
		notYetDue: notYet,
		onTimeRate: counted === 0 ? null : onTime / counted,
	};
}
