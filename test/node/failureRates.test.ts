/**
 * Compliance → Get Failure Rates in n8n's engine against the sandbox: every group's figures equal
 * those counted here from the sandbox's own record of its devices and test results (whatever the
 * demo data holds), for each grouping and period; the marks, the only-marked option, results of
 * deleted devices and of unknown statuses, and bad parameters.
 */
import { describe, expect, it } from 'vitest';
import { addDays, addMonths } from '../../client';
import { SCRAPPED_SHARE } from '../../sandbox/demo';
import { DEVICE } from '../../sandbox/properties';
import { expectFailureRatesOf } from '../support/failureRates';
import { hintsOf, jsonOf, runUtc, useSandbox } from './helpers';

const sandbox = useSandbox();

/** An id no device has had: past the list's and the recycle bin's (the demo's scrapped devices). */
const freeDeviceId = () => Math.max(...sandbox.account.data.devices.keys(), ...[...sandbox.account.recycleBin.values()].map((e) => e.item_id)) + 1;
describe('Compliance → Get Failure Rates', () => {
	it.each([
		['designation', 24],
		['department', 12],
		['customer', 24],
	] as const)('grouped by %s over %i months: each group’s figures are the sandbox’s own', async (groupBy, months) => {
		const { items, error } = await runUtc(sandbox, { resource: 'compliance', operation: 'getFailureRates', groupBy, months });
		expect(error).toBeUndefined();
		expect(items.length).toBeGreaterThan(0);
		expectFailureRatesOf(sandbox, items, groupBy, months);
	});

	it.each([12, 24] as const)('the demo’s scrapped devices over %i months: each device entry of the recycle bin deleted in the period is counted, once, in its type’s group', async (months) => {
		const today = sandbox.account.today();
		const from = addDays(addMonths(today, -months), 1);
		const inPeriod = [...sandbox.account.recycleBin.values()].filter((e) => e.resource === 'device' && e.deleted_time.slice(0, 10) >= from && e.deleted_time.slice(0, 10) <= today);
		// The demo scraps within the last 24 months: all of its scrapped devices are in the longer period.
		if (months === 24) {
			expect(inPeriod.length).toBe(Math.round(sandbox.account.data.devices.size * SCRAPPED_SHARE));
			expect(inPeriod.length).toBeGreaterThan(0);
		}
		const { items, error } = await runUtc(sandbox, { resource: 'compliance', operation: 'getFailureRates', groupBy: 'designation', months });
		expect(error).toBeUndefined();
		expectFailureRatesOf(sandbox, items, 'designation', months);
		const groups = jsonOf(items);
		expect(groups.every((g) => g.scrappedCounted === true)).toBe(true);
		expect(groups.reduce((n, g) => n + (g.scrappedDevices as number), 0)).toBe(inPeriod.length);
		for (const e of inPeriod) expect((groups.find((g) => g.id === e.name)?.scrappedDevices as number) ?? 0, e.name).toBeGreaterThanOrEqual(1);
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
		const { items, error } = await runUtc(sandbox, { resource: 'compliance', operation: 'getFailureRates', groupBy: 'designation', months: 12 });
		expect(error).toBeUndefined();
		expectFailureRatesOf(sandbox, items, 'designation', 12);
		const mine = jsonOf(items).find((g) => g.id === (first.values[DEVICE.designation] ?? null))!;
		expect(mine.unknownStatus as number).toBeGreaterThanOrEqual(1);
		expect(items[0].json.unknownDevices as number).toBeGreaterThanOrEqual(1);
	});

	it('a device scrapped (deleted to the recycle bin) after a passed test: one failed test of its type; per department counted apart; without the bin’s permission said, not guessed', async () => {
		const today = sandbox.account.today();
		const [template] = sandbox.account.data.devices.values();
		const id = freeDeviceId();
		sandbox.account.data.devices.set(id, { ...template, id, values: { ...template.values, [DEVICE.designation]: 'Scrap check', [DEVICE.department]: 'Scrap yard' } });
		const rid = Math.max(0, ...sandbox.account.data.testResults.keys()) + 1;
		sandbox.account.data.testResults.set(rid, { id: rid, device_id: id, customer_id: null, project_id: null, test_date: addDays(today, -30), synced_time: `${today}T12:00:00Z`, status: 'passed', tester: 'A. Weber', test_sequence: 'DGUV V3' });
		sandbox.account.delete('device', id, false);
		const byType = await runUtc(sandbox, { resource: 'compliance', operation: 'getFailureRates', groupBy: 'designation', months: 12 });
		expect(byType.error).toBeUndefined();
		expectFailureRatesOf(sandbox, byType.items, 'designation', 12);
		expect(jsonOf(byType.items).find((g) => g.id === 'Scrap check')).toMatchObject({ devices: 0, devicesTested: 1, tests: 2, failedTests: 1, scrappedDevices: 1, scrappedCounted: true });
		const byDepartment = await runUtc(sandbox, { resource: 'compliance', operation: 'getFailureRates', groupBy: 'department', months: 12 });
		expect(byDepartment.error).toBeUndefined();
		expectFailureRatesOf(sandbox, byDepartment.items, 'department', 12);
		expect(jsonOf(byDepartment.items).find((g) => g.id === 'Scrap yard')).toBeUndefined();
		expect(byDepartment.items[0].json.scrappedNotGrouped as number).toBeGreaterThanOrEqual(1);
		// A token without the recycle bin's permission: the rates without scrapped devices, and the items say so.
		sandbox.faults.add({ kind: 'status', status: 413, path: '/recycle_bin/all/', count: 5 });
		const blind = await runUtc(sandbox, { resource: 'compliance', operation: 'getFailureRates', groupBy: 'designation', months: 12 });
		expect(blind.error).toBeUndefined();
		expect(jsonOf(blind.items).find((g) => g.id === 'Scrap check')).toBeUndefined();
		expect(jsonOf(blind.items).every((g) => g.scrappedCounted === false && g.scrappedDevices === 0)).toBe(true);
	});

	it('Only Marked Groups: exactly the groups marked below or above 2 %, in the same order', async () => {
		// Whatever the demo data: one type with a failed test in one test (above), one never tested (undecided).
		const today = sandbox.account.today();
		const [template] = sandbox.account.data.devices.values();
		const id = freeDeviceId();
		for (const [n, designation] of [[0, 'Rate check A'], [1, 'Rate check B']] as const) {
			sandbox.account.data.devices.set(id + n, { ...template, id: id + n, values: { ...template.values, [DEVICE.designation]: designation } });
		}
		const rid = Math.max(0, ...sandbox.account.data.testResults.keys()) + 1;
		sandbox.account.data.testResults.set(rid, { id: rid, device_id: id, customer_id: null, project_id: null, test_date: today, synced_time: `${today}T12:00:00Z`, status: 'failed', tester: 'A. Weber', test_sequence: 'DGUV V3' });
		const all = jsonOf((await runUtc(sandbox, { resource: 'compliance', operation: 'getFailureRates', groupBy: 'designation', months: 24 })).items);
		const { items, error } = await runUtc(sandbox, { resource: 'compliance', operation: 'getFailureRates', groupBy: 'designation', months: 24, onlyMarked: true });
		expect(error).toBeUndefined();
		// One failure in one test: 100 % observed, yet its 95 % lower bound is 5 %: above 2 %.
		expect(all.find((g) => g.id === 'Rate check A')).toMatchObject({ tests: 1, failedTests: 1, lowerBound95: expect.closeTo(0.05, 12), upperBound95: 1, verdict: 'above', testsNeeded: 235 });
		expect(all.find((g) => g.id === 'Rate check B')).toMatchObject({ tests: 0, lowerBound95: 0, upperBound95: 1, verdict: 'undecided', testsNeeded: 149 });
		expect(jsonOf(items)).toEqual(all.filter((g) => g.verdict === 'below' || g.verdict === 'above'));
	});

	it('what was skipped is named with its counts in an execution hint, also when Only Marked Groups leaves no item', async () => {
		const today = sandbox.account.today();
		const [template] = sandbox.account.data.devices.values();
		const data = sandbox.account.data;
		data.devices.clear();
		data.testResults.clear();
		sandbox.account.recycleBin.clear();
		data.devices.set(template.id, template);
		const base = { customer_id: null, project_id: null, tester: 'A. Weber', test_sequence: 'DGUV V3', synced_time: `${today}T12:00:00Z` };
		data.testResults.set(1, { ...base, id: 1, device_id: template.id, test_date: addDays(today, -3), status: 'passed' });
		data.testResults.set(2, { ...base, id: 2, device_id: template.id, test_date: addDays(today, -2), status: 'aborted' as never });
		data.testResults.set(3, { ...base, id: 3, device_id: 987654, test_date: addDays(today, -1), status: 'failed' });
		const expected = '1 result of a device not in the device list skipped; 1 result neither passed nor failed skipped; see docs/compliance.md (Failure rates that justify test intervals)';
		const all = await runUtc(sandbox, { resource: 'compliance', operation: 'getFailureRates', groupBy: 'designation', months: 12 });
		expect(all.error).toBeUndefined();
		expect(jsonOf(all.items)).toEqual([expect.objectContaining({ tests: 1, unknownStatus: 1, unknownDevices: 1, verdict: 'undecided' })]);
		expect(hintsOf(all)).toEqual([expected]);
		const marked = await runUtc(sandbox, { resource: 'compliance', operation: 'getFailureRates', groupBy: 'designation', months: 12, onlyMarked: true });
		expect(marked.error).toBeUndefined();
		expect(marked.items).toEqual([]);
		expect(hintsOf(marked)).toEqual([expected]);
	});

	it('bad parameters are refused naming the parameter and the valid values', async () => {
		const groupBy = await runUtc(sandbox, { resource: 'compliance', operation: 'getFailureRates', groupBy: 'project' });
		expect(groupBy.error?.message).toMatch(/Group By.*designation, department, customer/);
		const months = await runUtc(sandbox, { resource: 'compliance', operation: 'getFailureRates', groupBy: 'designation', months: 6 });
		expect(months.error?.message).toMatch(/Period: must be 12 or 24 months, got 6/);
	});

	it('a failing list under continueOnFail: one error item, paired, the token nowhere', async () => {
		// 426 (licence expired) is not retried: the run ends at the first list of test results.
		sandbox.faults.add({ kind: 'status', status: 426, path: '/tests_performed/all/', count: 1 });
		const { items, error } = await runUtc(sandbox, { resource: 'compliance', operation: 'getFailureRates', groupBy: 'customer', months: 12 }, { nodeSettings: { onError: 'continueRegularOutput' } });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		expect(items[0].pairedItem).toEqual({ item: 0 });
		expect(items[0].json.error).toMatch(/HTTP 426/);
		expect(JSON.stringify(items)).not.toContain(sandbox.sandboxToken);
	});
});
