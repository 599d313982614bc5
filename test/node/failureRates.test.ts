/**
 * Compliance → Get Failure Rates in n8n's engine against the sandbox: every group's figures equal
 * those counted here from the sandbox's own record of its devices and test results (whatever the
 * demo data holds), for each grouping and period; the marks, the only-marked option, results of
 * deleted devices and of unknown statuses, and bad parameters.
 */
import Ajv from 'ajv';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INTERVAL_DECISION_NOTE, addDays, addMonths } from '../../client';
import { NODE_SCHEMA_DIR } from '../../contract/nodeSchemas';
import { CUSTOMER, DEVICE } from '../../sandbox/properties';
import type { Sandbox } from '../../sandbox/server';
import { jsonOf, run, useSandbox } from './helpers';

const sandbox = useSandbox();
type By = 'designation' | 'department' | 'customer';

interface Expected {
	name: string | null;
	devices: number;
	tested: Set<number>;
	tests: number;
	failed: number;
	unknown: number;
	intervals: Set<number>;
}

/** Counted from the sandbox's record, group id → figures, and the results of devices it no longer has. */
function truth(s: Sandbox, by: By, months: 12 | 24): { groups: Map<string, Expected>; unknownDevices: number } {
	const today = s.account.today();
	const after = addMonths(today, -months);
	const groups = new Map<string, Expected>();
	const groupOf = new Map<number, Expected>();
	for (const d of s.account.data.devices.values()) {
		const id = by === 'customer' ? (d.customer_id ?? null) : ((d.values[by === 'designation' ? DEVICE.designation : DEVICE.department] as string | null) ?? null);
		const name = by === 'customer' ? (id === null ? null : (s.account.data.customers.get(id as number)?.values[CUSTOMER.name] as string)) : (id as string | null);
		const g = groups.get(String(id)) ?? { name, devices: 0, tested: new Set<number>(), tests: 0, failed: 0, unknown: 0, intervals: new Set<number>() };
		g.devices++;
		const interval = d.values[DEVICE.testInterval];
		if (typeof interval === 'number' && interval >= 1 && interval <= 120) g.intervals.add(interval);
		groups.set(String(id), g);
		groupOf.set(d.id, g);
	}
	let unknownDevices = 0;
	for (const r of s.account.data.testResults.values()) {
		if (!(r.test_date.slice(0, 10) > after && r.test_date.slice(0, 10) <= today)) continue;
		const g = groupOf.get(r.device_id);
		if (!g) unknownDevices++;
		else if (r.status !== 'passed' && r.status !== 'failed') g.unknown++;
		else {
			g.tests++;
			g.tested.add(r.device_id);
			if (r.status === 'failed') g.failed++;
		}
	}
	return { groups, unknownDevices };
}

/** The 2 % marks as docs/n8n.md states them. */
function verdict(tests: number, failed: number): string {
	if (tests > 0 && failed / tests > 0.02) return 'above';
	if (tests < 50) return 'tooFewTests';
	return failed / tests < 0.02 ? 'below' : 'at';
}

const schema = () => new Ajv({ strict: false }).compile(JSON.parse(readFileSync(join(__dirname, '..', '..', NODE_SCHEMA_DIR, 'v1.0.0', 'compliance', 'getFailureRates.json'), 'utf8')));

function expectMatches(s: Sandbox, items: Array<{ json: Record<string, unknown> }>, by: By, months: 12 | 24) {
	const { groups, unknownDevices } = truth(s, by, months);
	const got = jsonOf(items as never);
	expect(got.map((g) => String(g.id)).sort()).toEqual([...groups.keys()].sort());
	const validate = schema();
	for (const g of got) {
		const e = groups.get(String(g.id))!;
		expect(g, String(g.id)).toMatchObject({
			group: by,
			name: e.name,
			devices: e.devices,
			devicesTested: e.tested.size,
			tests: e.tests,
			failedTests: e.failed,
			unknownStatus: e.unknown,
			failureRate: e.tests === 0 ? null : e.failed / e.tests,
			verdict: verdict(e.tests, e.failed),
			testIntervalsMonths: [...e.intervals].sort((a, b) => a - b),
			months,
			today: s.account.today(),
			from: addDays(addMonths(s.account.today(), -months), 1),
			to: s.account.today(),
			minTests: 50,
			unknownDevices,
			note: INTERVAL_DECISION_NOTE,
		});
		expect(validate(g), JSON.stringify(validate.errors)).toBe(true);
	}
	// Named groups by name, the one without last.
	const ids = got.map((g) => g.id);
	if (ids.includes(null)) expect(ids[ids.length - 1]).toBeNull();
	expect(items.every((i) => JSON.stringify((i as { pairedItem?: unknown }).pairedItem) === '{"item":0}')).toBe(true);
}

describe('Compliance → Get Failure Rates', () => {
	it.each([
		['designation', 24],
		['department', 12],
		['customer', 24],
	] as const)('grouped by %s over %i months: each group’s figures are the sandbox’s own', async (groupBy, months) => {
		const { items, error } = await run(sandbox, { resource: 'compliance', operation: 'getFailureRates', groupBy, months });
		expect(error).toBeUndefined();
		expect(items.length).toBeGreaterThan(0);
		expectMatches(sandbox, items as never, groupBy, months);
	});

	it('follows changes: a failed test and its same-day re-test are two tests, a deleted device’s results leave the groups, an unknown status is not counted', async () => {
		const today = sandbox.account.today();
		const [first, second] = [...sandbox.account.data.devices.values()];
		const results = sandbox.account.data.testResults;
		const next = Math.max(0, ...results.keys()) + 1;
		const base = { customer_id: first.customer_id ?? null, project_id: null, synced_time: `${today}T12:00:00Z`, tester: 'A. Weber', test_sequence: 'DGUV V3' };
		results.set(next, { ...base, id: next, device_id: first.id, test_date: today, status: 'failed' });
		results.set(next + 1, { ...base, id: next + 1, device_id: first.id, test_date: today, status: 'passed' });
		results.set(next + 2, { ...base, id: next + 2, device_id: first.id, test_date: addDays(today, -3), status: 'aborted' as never });
		// A test dated in the future is outside the period.
		results.set(next + 3, { ...base, id: next + 3, device_id: first.id, test_date: addDays(today, 2), status: 'failed' });
		results.set(next + 4, { ...base, id: next + 4, device_id: second.id, test_date: addDays(today, -1), status: 'failed' });
		sandbox.account.data.devices.delete(second.id);
		const { items, error } = await run(sandbox, { resource: 'compliance', operation: 'getFailureRates', groupBy: 'designation', months: 12 });
		expect(error).toBeUndefined();
		expectMatches(sandbox, items as never, 'designation', 12);
		const mine = jsonOf(items).find((g) => g.id === (first.values[DEVICE.designation] ?? null))!;
		expect(mine.unknownStatus as number).toBeGreaterThanOrEqual(1);
		expect(items[0].json.unknownDevices as number).toBeGreaterThanOrEqual(1);
	});

	it('Only Marked Groups: exactly the groups marked below or above 2 %, in the same order', async () => {
		// Whatever the demo data: one type with a failed test in one test (above), one never tested (too few).
		const today = sandbox.account.today();
		const [template] = sandbox.account.data.devices.values();
		const id = Math.max(...sandbox.account.data.devices.keys()) + 1;
		for (const [n, designation] of [[0, 'Rate check A'], [1, 'Rate check B']] as const) {
			sandbox.account.data.devices.set(id + n, { ...template, id: id + n, values: { ...template.values, [DEVICE.designation]: designation } });
		}
		const rid = Math.max(0, ...sandbox.account.data.testResults.keys()) + 1;
		sandbox.account.data.testResults.set(rid, { id: rid, device_id: id, customer_id: null, project_id: null, test_date: today, synced_time: `${today}T12:00:00Z`, status: 'failed', tester: 'A. Weber', test_sequence: 'DGUV V3' });
		const all = jsonOf((await run(sandbox, { resource: 'compliance', operation: 'getFailureRates', groupBy: 'designation', months: 24 })).items);
		const { items, error } = await run(sandbox, { resource: 'compliance', operation: 'getFailureRates', groupBy: 'designation', months: 24, onlyMarked: true });
		expect(error).toBeUndefined();
		expect(all.find((g) => g.id === 'Rate check A')).toMatchObject({ tests: 1, failedTests: 1, verdict: 'above' });
		expect(all.find((g) => g.id === 'Rate check B')).toMatchObject({ tests: 0, verdict: 'tooFewTests' });
		expect(jsonOf(items)).toEqual(all.filter((g) => g.verdict === 'below' || g.verdict === 'above'));
	});

	it('bad parameters are refused naming the parameter and the valid values', async () => {
		const groupBy = await run(sandbox, { resource: 'compliance', operation: 'getFailureRates', groupBy: 'project' });
		expect(groupBy.error?.message).toMatch(/Group By.*designation, department, customer/);
		const months = await run(sandbox, { resource: 'compliance', operation: 'getFailureRates', groupBy: 'designation', months: 6 });
		expect(months.error?.message).toMatch(/Period: must be 12 or 24 months, got 6/);
	});

	it('a failing list under continueOnFail: one error item, paired, the token nowhere', async () => {
		// 426 (licence expired) is not retried: the run ends at the first list of test results.
		sandbox.faults.add({ kind: 'status', status: 426, path: '/tests_performed/all/', count: 1 });
		const { items, error } = await run(sandbox, { resource: 'compliance', operation: 'getFailureRates', groupBy: 'customer', months: 12 }, { nodeSettings: { onError: 'continueRegularOutput' } });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		expect(items[0].pairedItem).toEqual({ item: 0 });
		expect(items[0].json.error).toMatch(/HTTP 426/);
		expect(JSON.stringify(items)).not.toContain(sandbox.sandboxToken);
	});
});
