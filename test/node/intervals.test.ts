/**
 * Compliance → Get Interval Recommendations in n8n's engine against the sandbox: every group's
 * recommendation is the one client/intervals.ts gives for the sandbox's own record of its devices
 * and results (whatever the demo data holds), valid for the output schema, every result of the
 * period used or counted as excluded; a group built here with a known answer; department limits;
 * nothing written to the service; bad parameters refused by name.
 */
import Ajv from 'ajv';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addDays, addMonths, intervalRecommendations, DEFAULT_INTERVAL_SETTINGS, type RateDevice, type RateTestResult } from '../../client';
import { NODE_SCHEMA_DIR } from '../../contract/nodeSchemas';
import { DEVICE } from '../../sandbox/properties';
import type { Sandbox } from '../../sandbox/server';
import { hintsOf, jsonOf, run, runUtc, useSandbox } from './helpers';

const sandbox = useSandbox();
const validate = new Ajv({ strict: false }).compile(JSON.parse(readFileSync(join(__dirname, '..', '..', NODE_SCHEMA_DIR, 'v1.0.0', 'compliance', 'getIntervalRecommendations.json'), 'utf8')));

/** The sandbox's record as the recommendations read it, straight from its maps (not through the client's reader). */
function record(s: Sandbox): { devices: RateDevice[]; results: RateTestResult[] } {
	const devices = [...s.account.data.devices.values()].map((d) => ({
		id: d.id,
		designation: (d.values[DEVICE.designation] as string | undefined) ?? null,
		department: (d.values[DEVICE.department] as string | undefined) ?? null,
		customerId: null,
		customerName: null,
		testIntervalMonths: (d.values[DEVICE.testInterval] as number | undefined) ?? null,
	}));
	const results = [...s.account.data.testResults.values()].map((r) => ({
		id: r.id,
		deviceId: r.device_id,
		testDate: r.test_date.slice(0, 10),
		failed: r.status === 'failed' ? true : r.status === 'passed' ? false : null,
	}));
	return { devices, results };
}

describe('Compliance → Get Interval Recommendations', () => {
	it.each(['designation', 'designationDepartment'] as const)('grouped by %s: each item is the recommendation for the sandbox’s own record, every result of the period accounted for', async (groupBy) => {
		const { items, error } = await runUtc(sandbox, { resource: 'compliance', operation: 'getIntervalRecommendations', groupBy });
		expect(error).toBeUndefined();
		expect(items.length).toBeGreaterThan(0);
		const today = sandbox.account.today();
		const from = addDays(addMonths(today, -36), 1);
		const { devices, results } = record(sandbox);
		const inPeriod = results.filter((r) => r.testDate >= from);
		// Every result the sandbox holds: those before the period are the previous tests of its first ones.
		const expected = intervalRecommendations(results, devices, today, from, groupBy, DEFAULT_INTERVAL_SETTINGS);
		const got = jsonOf(items);
		expect(got.map((g) => ({ ...g, months: undefined, from: undefined, to: undefined, today: undefined, window: undefined, skippedRecords: undefined, ...Object.fromEntries(Object.keys(expected.totals).map((k) => [k, undefined])) }))).toEqual(
			expected.groups.map((g) => ({ ...g, months: undefined, from: undefined, to: undefined, today: undefined, window: undefined, skippedRecords: undefined, ...Object.fromEntries(Object.keys(expected.totals).map((k) => [k, undefined])) })),
		);
		for (const g of got) {
			expect(validate(g), JSON.stringify(validate.errors)).toBe(true);
			expect(g).toMatchObject({ months: 36, from, to: today, today, window: { from: 0.75, to: 1.25 }, reliabilityTarget: 0.98, confidence: 0.5 });
			expect(g.reason).toMatch(/A recommendation, not applied to the service: Setting a test interval is the employer's decision/);
		}
		// Every result of a device with an interval, in the period and not in the future, is used or excluded once.
		const withInterval = new Set(devices.filter((d) => Number.isInteger(d.testIntervalMonths) && d.testIntervalMonths! >= 1 && d.testIntervalMonths! <= 120).map((d) => d.id));
		const counted = inPeriod.filter((r) => withInterval.has(r.deviceId) && r.testDate <= today).length;
		expect(got.reduce((n, g) => n + (g.resultsUsed as number) + (g.resultsExcluded as number), 0)).toBe(counted);
		expect(got.some((g) => (g.resultsUsed as number) > 0)).toBe(true);
	});

	it('a type tested 150 times at its 12-month interval without a failure: 19 months in an office (NCSLI RP-1 A3: 12 · 10^(0.02 / (2 · 0.98^150)) = 19.33), 12 in a workshop (DGUV V3 maximum); nothing written', async () => {
		const today = sandbox.account.today();
		const [template] = sandbox.account.data.devices.values();
		// Past the list's ids and the recycle bin's (the demo's scrapped devices, whose results stay).
		const id = Math.max(...sandbox.account.data.devices.keys(), ...[...sandbox.account.recycleBin.values()].map((e) => e.item_id)) + 1;
		let rid = Math.max(0, ...sandbox.account.data.testResults.keys()) + 1;
		const base = { customer_id: null, project_id: null, tester: 'A. Weber', test_sequence: 'DGUV V3' };
		for (let n = 0; n < 150; n++) {
			sandbox.account.data.devices.set(id + n, { ...template, id: id + n, values: { ...template.values, [DEVICE.designation]: 'Interval check', [DEVICE.department]: 'Front office', [DEVICE.testInterval]: 12 } });
			const second = addDays(today, -(n % 30));
			for (const day of [addMonths(second, -12), second]) {
				sandbox.account.data.testResults.set(rid, { ...base, id: rid, device_id: id + n, test_date: day, synced_time: `${day}T12:00:00Z`, status: 'passed' });
				rid++;
			}
		}
		const before = JSON.stringify([...sandbox.account.data.devices.values()]);
		const params = { resource: 'compliance', operation: 'getIntervalRecommendations', groupBy: 'designationDepartment', onlyChanges: false };
		const shop = jsonOf((await runUtc(sandbox, params)).items).find((g) => g.designation === 'Interval check')!;
		// Q = 1 − 2 · 0.98^150 = 0.9034, 12 · 10^(0.02 / (1 − Q)) = 19.33 months: then the maximum.
		expect(shop).toMatchObject({ department: 'Front office', currentIntervalMonths: 12, resultsUsed: 150, failedUsed: 0, intervalTest: 'tooShort', recommendedIntervalMonths: 12, change: 'keep', limitedBy: 'maximum', maxMonths: 12, environments: ['workshop'] });
		expect(shop.rejectionConfidence as number).toBeCloseTo(1 - 2 * 0.98 ** 150, 12);
		expect(shop.modelIntervalMonths as number).toBeCloseTo(12 * 10 ** (0.02 / (2 * 0.98 ** 150)), 9);
		const { items, error } = await runUtc(sandbox, { ...params, onlyChanges: true, departmentLimits: { department: [{ name: 'Front office', environment: 'office', minMonths: 0, maxMonths: 0 }] } });
		expect(error).toBeUndefined();
		const office = jsonOf(items).find((g) => g.designation === 'Interval check')!;
		expect(office).toMatchObject({ recommendedIntervalMonths: 19, change: 'lengthen', limitedBy: 'model', maxMonths: 24, environments: ['office'] });
		expect(jsonOf(items).every((g) => g.change !== 'keep')).toBe(true);
		expect(office.reason).toContain('rejection confidence 90.3 % above the change confidence 50 %');
		expect(office.reason).toContain('Recommended: 19 months (NCSLI RP-1 method A3: current × 10^((R0 − R*)/(1 − Q)), whole months rounded down)');
		expect(JSON.stringify([...sandbox.account.data.devices.values()])).toBe(before);
		// Department Limits match names as the e-mail routing does (case, surrounding and doubled spaces); a row no device has is named in a hint.
		const loose = await runUtc(sandbox, { ...params, onlyChanges: false, departmentLimits: { department: [{ name: ' front  OFFICE ', environment: 'office', minMonths: 0, maxMonths: 0 }, { name: 'Nowhere', environment: 'office', minMonths: 0, maxMonths: 0 }] } });
		expect(loose.error).toBeUndefined();
		expect(jsonOf(loose.items).find((g) => g.designation === 'Interval check')).toMatchObject({ department: 'Front office', recommendedIntervalMonths: 19, maxMonths: 24, environments: ['office'] });
		expect(hintsOf(loose)).toContain('Department Limits "Nowhere" matches no device’s department (names match whatever their case and spacing): its limits set nothing');
		expect(hintsOf(loose).join('\n')).not.toContain('front  OFFICE');
	});

	it('what was skipped is named with its counts in an execution hint, also when no item is left: no device with a usable interval, or Only Changes removing every group', async () => {
		const today = sandbox.account.today();
		const [template, second] = sandbox.account.data.devices.values();
		const data = sandbox.account.data;
		data.devices.clear();
		data.testResults.clear();
		const base = { customer_id: null, project_id: null, tester: 'A. Weber', test_sequence: 'DGUV V3', status: 'passed' as const };
		const result = (id: number, deviceId: number, day: string) => data.testResults.set(id, { ...base, id, device_id: deviceId, test_date: day, synced_time: `${day}T12:00:00Z` });
		// Two devices without an interval (three results of the period), and a result of a device no longer listed.
		data.devices.set(template.id, { ...template, values: { ...template.values, [DEVICE.testInterval]: null } });
		data.devices.set(second.id, { ...second, values: { ...second.values, [DEVICE.testInterval]: 0 } });
		result(1, template.id, addDays(today, -10));
		result(2, template.id, addDays(today, -400));
		result(3, second.id, addDays(today, -20));
		result(4, 987654, addDays(today, -5));
		const see = 'see docs/compliance.md (Interval recommendations)';
		const nothing = await runUtc(sandbox, { resource: 'compliance', operation: 'getIntervalRecommendations' });
		expect(nothing.error).toBeUndefined();
		expect(nothing.items).toEqual([]);
		expect(hintsOf(nothing)).toEqual([`2 devices without a usable test interval skipped (their 3 results of the period not used); 1 result of a device not in the device list skipped; ${see}`]);

		// One device at 12 months, tested twice, kept: an item without Only Changes, none with it; the same hint both times.
		data.devices.set(template.id + 100000, { ...template, id: template.id + 100000, values: { ...template.values, [DEVICE.testInterval]: 12 } });
		result(5, template.id + 100000, addDays(today, -3));
		result(6, template.id + 100000, addMonths(addDays(today, -3), -12));
		result(7, template.id + 100000, addDays(today, 2));
		const expected = `2 devices without a usable test interval skipped (their 3 results of the period not used); 1 result of a device not in the device list skipped; 1 result dated after today skipped; ${see}`;
		const kept = await runUtc(sandbox, { resource: 'compliance', operation: 'getIntervalRecommendations' });
		expect(kept.error).toBeUndefined();
		expect(jsonOf(kept.items)).toEqual([expect.objectContaining({ change: 'keep', devicesWithoutInterval: 2, unknownDevices: 1, futureTests: 1 })]);
		expect(hintsOf(kept)).toEqual([expected]);
		const onlyChanges = await runUtc(sandbox, { resource: 'compliance', operation: 'getIntervalRecommendations', onlyChanges: true });
		expect(onlyChanges.error).toBeUndefined();
		expect(onlyChanges.items).toEqual([]);
		expect(hintsOf(onlyChanges)).toEqual([expected]);
	});

	it('today is the workflow’s day, not the service’s: the period ends and starts by the day in its time zone', async () => {
		const now = sandbox.account.now();
		// A zone whose day differs from the sandbox's (UTC) at this hour: a day ahead from 10:00 UTC, a day behind before 11:00.
		const ahead = new Date(now).getUTCHours() >= 10;
		const timezone = ahead ? 'Pacific/Kiritimati' : 'Pacific/Pago_Pago';
		const day = addDays(sandbox.account.today(), ahead ? 1 : -1);
		const { items, error } = await run(sandbox, { resource: 'compliance', operation: 'getIntervalRecommendations', groupBy: 'designation' }, { workflowSettings: { timezone } });
		expect(error).toBeUndefined();
		expect(items.length).toBeGreaterThan(0);
		for (const g of jsonOf(items)) expect(g).toMatchObject({ today: day, to: day, from: addDays(addMonths(day, -36), 1) });
	});

	it('bad parameters are refused naming the parameter and what would be valid', async () => {
		const p = { resource: 'compliance', operation: 'getIntervalRecommendations' };
		expect((await run(sandbox, { ...p, reliabilityTarget: 98 })).error?.message).toMatch(/Reliability Target: must be a share above 0.5 and below 1 \(0.98 for 98 %\), got 98/);
		expect((await run(sandbox, { ...p, months: 12 })).error?.message).toMatch(/Period: must be 24, 36, 48, 60 months, got 12/);
		expect((await run(sandbox, { ...p, groupBy: 'customer' })).error?.message).toMatch(/Group By: must be one of designation, designationDepartment/);
		const dept = await run(sandbox, { ...p, departmentLimits: { department: [{ name: 'IT', environment: 'workshop', minMonths: 13, maxMonths: 0 }] } });
		expect(dept.error?.message).toMatch(/Department Limits \(IT\): its minimum \(13 months\) must not exceed its maximum \(12 months\)/);
		// A node-wide minimum above the environment's maximum is refused, never silently replaced by that maximum.
		const workshop = await run(sandbox, { ...p, minMonths: 30 });
		expect(workshop.items).toEqual([]);
		expect(workshop.error?.message).toMatch(/Minimum Interval \(Months\): must be at most 12 months, the DGUV V3 maximum of the environment workshop .*got 30/);
		const twice = await run(sandbox, { ...p, departmentLimits: { department: [{ name: 'Verwaltung', environment: 'office' }, { name: 'verwaltung ', environment: 'workshop' }] } });
		expect(twice.error?.message).toMatch(/Department Limits: "Verwaltung" and "verwaltung " name the same department \(names match whatever their case and spacing\); keep one/);
		const same = await run(sandbox, { ...p, departmentLimits: { department: [{ name: 'IT', environment: 'office' }, { name: 'IT', environment: 'workshop' }] } });
		expect(same.error?.message).toMatch(/Department Limits: "IT" and "IT" name the same department/);
		const office = await run(sandbox, { ...p, minMonths: 30, defaultEnvironment: 'office' });
		expect(office.error?.message).toMatch(/Minimum Interval \(Months\): must be at most 24 months, the DGUV V3 maximum of the environment office .*got 30/);
	});
});
