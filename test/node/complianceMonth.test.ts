/**
 * Compliance → Get Summary for past months in n8n's engine against the sandbox: the figures equal
 * counting the sandbox's own devices and test results by the rebuild's rules (written here again,
 * not taken from the client), per group; bad months are refused before any request.
 */
import Ajv from 'ajv';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IDataObject } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';
import { NODE_SCHEMA_DIR } from '../../contract/nodeSchemas';
import { CUSTOMER, DEVICE } from '../../sandbox/properties';
import type { Sandbox } from '../../sandbox/server';
import { jsonOf, run, settledRequests, useSandbox } from './helpers';

const sandbox = useSandbox();
const DAY = 86_400_000;
type GroupBy = 'all' | 'customer' | 'department';

function plusMonths(d: string, months: number): string {
	const [y, m, dd] = d.split('-').map(Number);
	const index = y * 12 + m - 1 + months;
	const last = new Date(Date.UTC(Math.floor(index / 12), (index % 12) + 1, 0)).getUTCDate();
	return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}-${String(Math.min(dd, last)).padStart(2, '0')}`;
}
const monthsBack = (today: string, n: number) => plusMonths(`${today.slice(0, 7)}-01`, -n).slice(0, 7);
const intervalOf = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 120 ? v : null);

/** The sandbox's own record counted by hand: group id → figures of `month`, and the results the rebuild should not use. */
function truth(s: Sandbox, month: string, groupBy: GroupBy, since: string) {
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
			if (due.slice(0, 7) !== month) return;
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
function reachOf(s: Sandbox, firstMonth: string): string {
	let longest = 0;
	for (const d of s.account.data.devices.values()) longest = Math.max(longest, intervalOf(d.values[DEVICE.testInterval]) ?? 0);
	return plusMonths(`${firstMonth}-01`, -longest);
}

/** The items of `month` equal the count by hand; the results were read from the reach of `firstMonth`. */
function expectMatches(s: Sandbox, items: IDataObject[], month: string, groupBy: GroupBy, firstMonth = month) {
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

const schema = () => new Ajv({ strict: false }).compile(JSON.parse(readFileSync(join(__dirname, '..', '..', NODE_SCHEMA_DIR, 'v1.0.0', 'compliance', 'getSummary.json'), 'utf8')));

describe('Compliance → Get Summary, Period Month', () => {
	it.each(['all', 'customer', 'department'] as const)('last month grouped by %s: figures equal the sandbox’s results counted by the rules', async (groupBy) => {
		// A device deleted (the one tested last, so its results are in reach): not used, and counted.
		const latest = [...sandbox.account.data.testResults.values()].sort((a, b) => a.test_date.localeCompare(b.test_date)).at(-1)!;
		sandbox.account.data.devices.delete(latest.device_id);
		const month = monthsBack(sandbox.account.today(), 1);
		const { items, error } = await run(sandbox, { resource: 'compliance', operation: 'getSummary', period: 'month', month, groupBy });
		expect(error).toBeUndefined();
		const got = jsonOf(items);
		expect(expectMatches(sandbox, got, month, groupBy)).toBeGreaterThan(0);
		expect((got[0].skipped as IDataObject).resultsOfUnknownDevices).toBeGreaterThan(0);
		const since = got[0].historySince as string;
		expect(got[0].resultsRead).toBe([...sandbox.account.data.testResults.values()].filter((r) => r.test_date.slice(0, 10) >= since).length);
		expect(items.every((i) => JSON.stringify(i.pairedItem) === '{"item":0}')).toBe(true);
		const validate = schema();
		for (const g of got) expect(validate(g), JSON.stringify(validate.errors)).toBe(true);
	});

	it('the current month is counted as of today', async () => {
		const today = sandbox.account.today();
		const { items, error } = await run(sandbox, { resource: 'compliance', operation: 'getSummary', period: 'month', month: today.slice(0, 7), groupBy: 'all' });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		expect(items[0].json.asOf).toBe(today);
		expectMatches(sandbox, jsonOf(items), today.slice(0, 7), 'all');
	});

	it('Last 12 Months: one item per month and group, oldest first, each equal to the count by hand', async () => {
		const today = sandbox.account.today();
		const { items, error } = await run(sandbox, { resource: 'compliance', operation: 'getSummary', period: 'last12Months', groupBy: 'department' });
		expect(error).toBeUndefined();
		const got = jsonOf(items);
		const months = Array.from({ length: 12 }, (_, i) => monthsBack(today, 11 - i));
		expect([...new Set(got.map((g) => g.month))]).toEqual(months.filter((m) => got.some((g) => g.month === m)));
		expect(got.map((g) => g.month)).toEqual([...got.map((g) => g.month as string)].sort());
		// Read once, from the reach of the oldest month.
		expect(new Set(got.map((g) => g.historySince))).toEqual(new Set([reachOf(sandbox, months[0])]));
		let groups = 0;
		for (const m of months) groups += expectMatches(sandbox, got, m, 'department', months[0]);
		expect(groups).toBeGreaterThan(12);
		const validate = schema();
		for (const g of got) expect(validate(g), JSON.stringify(validate.errors)).toBe(true);
	});

	it.each([
		['a month after the current one', (today: string) => plusMonths(`${today.slice(0, 7)}-01`, 1).slice(0, 7), /Month: must not be after the current month/],
		['2026-13', () => '2026-13', /Month: must be a month written YYYY-MM/],
		['an empty month from an expression', () => '={{ "" }}', /Month: must be a month written YYYY-MM/],
	])('%s is refused, naming Month', async (_name, month, message) => {
		const before = await settledRequests(sandbox);
		const { error } = await run(sandbox, { resource: 'compliance', operation: 'getSummary', period: 'month', month: month(sandbox.account.today()), groupBy: 'all' });
		expect(error?.message).toMatch(message);
		// A malformed month is refused before any request; a future one after the service's today (one request).
		expect((await settledRequests(sandbox)) - before).toBeLessThanOrEqual(1);
	});

	it('an empty Month is refused by n8n itself before the node runs (the parameter is required)', async () => {
		await expect(run(sandbox, { resource: 'compliance', operation: 'getSummary', period: 'month', month: '', groupBy: 'all' })).rejects.toThrow(/Parameter "Month" is required/);
	});

	it('a test-result list that does not end normally stops the node: no figures from part of the results', async () => {
		sandbox.faults.add({ kind: 'countHigh', path: '/tests_performed/' });
		const { items, error } = await run(sandbox, { resource: 'compliance', operation: 'getSummary', period: 'month', month: monthsBack(sandbox.account.today(), 1), groupBy: 'all' });
		expect(items).toEqual([]);
		expect(error?.message).toMatch(/tests_performed.*could not be read to its end/);
	});

	it('with Continue On Fail, each input item gets its own figures or its own error, paired with it', async () => {
		const today = sandbox.account.today();
		const { items, error } = await run(
			sandbox,
			{ resource: 'compliance', operation: 'getSummary', period: 'month', month: '={{ $json.month }}', groupBy: 'all' },
			{ nodeSettings: { onError: 'continueRegularOutput' }, inputItems: [{ json: { month: monthsBack(today, 1) } }, { json: { month: '2026-13' } }] },
		);
		expect(error).toBeUndefined();
		expect(items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(items[0].json).toMatchObject({ month: monthsBack(today, 1), history: 'rebuilt' });
		expect(items[1].json.error).toMatch(/^Month: must be a month written YYYY-MM/);
	});

	it('a Period that is none of the three is refused, naming the parameter and the valid values', async () => {
		const { error } = await run(sandbox, { resource: 'compliance', operation: 'getSummary', period: 'week', groupBy: 'all' });
		expect(error?.message).toMatch(/Period.*now, month, last12Months/);
	});
});
