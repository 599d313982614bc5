/**
 * Compliance figures of a month counted by hand from the sandbox's own record (its devices, their
 * interval and creation day, its test results) by the rules of the rebuilt history, written here
 * again rather than taken from the client; shared by the Get Summary month tests.
 */
import type { IDataObject } from 'n8n-workflow';
import { expect } from 'vitest';
import { CUSTOMER, DEVICE } from '../../sandbox/properties';
import type { Sandbox } from '../../sandbox/server';

const DAY = 86_400_000;
type GroupBy = 'all' | 'customer' | 'department';

export function plusMonths(d: string, months: number): string {
	const [y, m, dd] = d.split('-').map(Number);
	const index = y * 12 + m - 1 + months;
	const last = new Date(Date.UTC(Math.floor(index / 12), (index % 12) + 1, 0)).getUTCDate();
	return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}-${String(Math.min(dd, last)).padStart(2, '0')}`;
}
export const monthsBack = (today: string, n: number) => plusMonths(`${today.slice(0, 7)}-01`, -n).slice(0, 7);
const intervalOf = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 120 ? v : null);

/** The sandbox's own record counted by hand: group id → figures of `month`, and the results the rebuild should not use. */
export function truth(s: Sandbox, month: string, groupBy: GroupBy, since: string) {
	const today = s.account.today();
	const asOf = month === today.slice(0, 7) ? today : plusMonths(`${month}-01`, 1);
	const groups = new Map<string, { due: number; testedOnTime: number; late: number[]; stillOverdue: number; notYetDue: number }>();
	const skipped = { devicesWithoutInterval: 0, futureTests: 0, testsBeforeCreated: 0, sameDayTests: 0, resultsOfUnknownDevices: 0, unreadableResults: 0 };
	const tests = new Map<number, Set<string>>();
	for (const r of s.account.data.testResults.values()) {
		const day = r.test_date.slice(0, 10);
		if (day < since) continue;
		const d = s.account.data.devices.get(r.device_id);
		const days = tests.get(r.device_id) ?? new Set<string>();
		tests.set(r.device_id, days);
		if (!d) skipped.resultsOfUnknownDevices++;
		else if (day > today) skipped.futureTests++;
		else if (day < d.created_time.slice(0, 10)) skipped.testsBeforeCreated++;
		else if (days.has(day)) skipped.sameDayTests++;
		else days.add(day);
	}
	for (const d of s.account.data.devices.values()) {
		const interval = intervalOf(d.values[DEVICE.testInterval]);
		const days = [...(tests.get(d.id) ?? [])].sort();
		if (interval === null) {
			if (days.length > 0) skipped.devicesWithoutInterval++;
			continue;
		}
		const id = groupBy === 'customer' ? (d.customer_id ?? null) : groupBy === 'department' ? ((d.values[DEVICE.department] as string | null) ?? null) : null;
		days.forEach((t, k) => {
			const due = plusMonths(t, interval);
			// Tests whose due dates fall on one day (month ends) set it once: the last of them counts, ended by the test after it.
			if (due.slice(0, 7) !== month || (k + 1 < days.length && plusMonths(days[k + 1], interval) === due)) return;
			const g = groups.get(String(id)) ?? { due: 0, testedOnTime: 0, late: [], stillOverdue: 0, notYetDue: 0 };
			groups.set(String(id), g);
			g.due++;
			const next = days[k + 1];
			if (next !== undefined && next <= asOf) {
				if (next <= due) g.testedOnTime++;
				else g.late.push(Math.round((Date.parse(next) - Date.parse(due)) / DAY));
			} else if (due < asOf) g.stillOverdue++;
			else g.notYetDue++;
		});
	}
	return { asOf, groups, skipped };
}

/** The first test date the node must read: the longest usable interval before the first month. */
export function reachOf(s: Sandbox, firstMonth: string): string {
	let longest = 0;
	for (const d of s.account.data.devices.values()) longest = Math.max(longest, intervalOf(d.values[DEVICE.testInterval]) ?? 0);
	return plusMonths(`${firstMonth}-01`, -longest);
}

/** The items of `month` equal the count by hand; the results were read from the reach of `firstMonth`. */
export function expectMatches(s: Sandbox, items: IDataObject[], month: string, groupBy: GroupBy, firstMonth = month) {
	const since = reachOf(s, firstMonth);
	const { asOf, groups, skipped } = truth(s, month, groupBy, since);
	const mine = items.filter((g) => g.month === month && (g.due as number) > 0);
	expect(mine.map((g) => String(g.id)).sort(), month).toEqual([...groups.keys()].sort());
	for (const g of mine) {
		const w = groups.get(String(g.id))!;
		const late = [...w.late].sort((a, b) => a - b);
		const counted = w.testedOnTime + late.length + w.stillOverdue;
		expect(g, `${month} ${String(g.id)}`).toMatchObject({
			group: groupBy,
			asOf,
			today: s.account.today(),
			history: 'rebuilt',
			historySince: since,
			// Every result in reach read, whatever the pages.
			resultsRead: [...s.account.data.testResults.values()].filter((r) => r.test_date.slice(0, 10) >= since).length,
			due: w.due,
			testedOnTime: w.testedOnTime,
			testedLate: late.length,
			maxDaysLate: late.length === 0 ? null : late[late.length - 1],
			stillOverdue: w.stillOverdue,
			notYetDue: w.notYetDue,
			closedWithoutTest: 0,
			skipped,
		});
		expect(g.onTimeRate).toBe(counted === 0 ? null : w.testedOnTime / counted);
		if (groupBy === 'customer' && g.id !== null) expect(g.name).toBe(s.account.data.customers.get(g.id as number)!.values[CUSTOMER.name]);
	}
	return mine.length;
}

