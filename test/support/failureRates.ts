/**
 * Get Failure Rates checked against the sandbox's own record: the figures per group counted here
 * from its devices and test results (whatever the demo data holds), independently of the client.
 */
import Ajv from 'ajv';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IDataObject } from 'n8n-workflow';
import { expect } from 'vitest';
import { INTERVAL_DECISION_NOTE, addDays, addMonths } from '../../client';
import { NODE_SCHEMA_DIR } from '../../contract/nodeSchemas';
import { CUSTOMER, DEVICE } from '../../sandbox/properties';
import type { Sandbox } from '../../sandbox/server';

export type By = 'designation' | 'department' | 'customer';

interface Expected {
	name: string | null;
	devices: number;
	tested: Set<number>;
	tests: number;
	failed: number;
	unknown: number;
	scrapped: number;
	intervals: Set<number>;
}

/** Counted from the sandbox's record, group id → figures, and the results of devices it no longer has. */
export function failureRateTruth(s: Sandbox, by: By, months: 12 | 24): { groups: Map<string, Expected>; unknownDevices: number; scrappedNotGrouped: number } {
	const today = s.account.today();
	const after = addMonths(today, -months);
	const groups = new Map<string, Expected>();
	const groupOf = new Map<number, Expected>();
	for (const d of s.account.data.devices.values()) {
		const id = by === 'customer' ? (d.customer_id ?? null) : ((d.values[by === 'designation' ? DEVICE.designation : DEVICE.department] as string | null) ?? null);
		const name = by === 'customer' ? (id === null ? null : (s.account.data.customers.get(id as number)?.values[CUSTOMER.name] as string)) : (id as string | null);
		const g = groups.get(String(id)) ?? { name, devices: 0, tested: new Set<number>(), tests: 0, failed: 0, unknown: 0, scrapped: 0, intervals: new Set<number>() };
		g.devices++;
		const interval = d.values[DEVICE.testInterval];
		if (typeof interval === 'number' && interval >= 1 && interval <= 120) g.intervals.add(interval);
		groups.set(String(id), g);
		groupOf.set(d.id, g);
	}
	// Devices in the recycle bin, deleted in the window: per device type in the group the bin's name gives.
	const scrapped = [...s.account.recycleBin.values()].filter((e) => e.resource === 'device' && !s.account.data.devices.has(e.item_id) && e.deleted_time.slice(0, 10) > after && e.deleted_time.slice(0, 10) <= today);
	const scrappedNotGrouped = by === 'designation' ? 0 : scrapped.length;
	if (by === 'designation') {
		for (const e of scrapped) {
			const id = e.name === '' ? null : e.name;
			const g = groups.get(String(id)) ?? { name: id, devices: 0, tested: new Set<number>(), tests: 0, failed: 0, unknown: 0, scrapped: 0, intervals: new Set<number>() };
			groups.set(String(id), g);
			groupOf.set(e.item_id, g);
		}
	}
	const failedIn = new Set<number>();
	let unknownDevices = 0;
	for (const r of s.account.data.testResults.values()) {
		if (!(r.test_date.slice(0, 10) > after && r.test_date.slice(0, 10) <= today)) continue;
		const g = groupOf.get(r.device_id);
		if (!g) unknownDevices++;
		else if (r.status !== 'passed' && r.status !== 'failed') g.unknown++;
		else {
			g.tests++;
			g.tested.add(r.device_id);
			if (r.status === 'failed') {
				g.failed++;
				failedIn.add(r.device_id);
			}
		}
	}
	for (const e of by === 'designation' ? scrapped : []) {
		const g = groupOf.get(e.item_id)!;
		g.scrapped++;
		g.tested.add(e.item_id);
		if (failedIn.has(e.item_id)) continue;
		g.tests++;
		g.failed++;
	}
	return { groups, unknownDevices, scrappedNotGrouped };
}

/**
 * The bounds as docs/n8n.md states them, computed apart from client/binomial.ts: the binomial CDF
 * by the recurrence of its terms over k (no log-factorials), its root by bisection to 1e-12. Coarser than the
 * client's, so compared to 9 digits.
 */
function cdf(x: number, n: number, p: number): number {
	if (x >= n) return 1;
	// Logs of the terms by the recurrence, summed relative to the largest (no underflow for large n).
	const logs = [n * Math.log1p(-p)];
	for (let k = 1; k <= x; k++) logs.push(logs[k - 1] + Math.log((n - k + 1) / k) + Math.log(p / (1 - p)));
	const max = Math.max(...logs);
	return Math.exp(max) * logs.reduce((s, l) => s + Math.exp(l - max), 0);
}
function root(f: (p: number) => number, target: number, lo: number, hi: number): number {
	while (hi - lo > 1e-12) {
		const mid = (lo + hi) / 2;
		if (f(mid) > target) lo = mid;
		else hi = mid;
	}
	return (lo + hi) / 2;
}
export function boundsTruth(tests: number, failed: number): { lower: number; upper: number; verdict: string; testsNeeded: number } {
	const upper = failed === tests ? 1 : root((p) => cdf(failed, tests, p), 0.05, 0, 1);
	const lower = failed === 0 ? 0 : root((p) => cdf(failed - 1, tests, p), 0.95, 0, 1);
	const verdict = upper < 0.02 ? 'below' : lower > 0.02 ? 'above' : 'undecided';
	let more = 0;
	if (verdict !== 'below') while (cdf(failed, tests + more, 0.02) >= 0.05) more++;
	return { lower, upper, verdict, testsNeeded: more };
}

const schema = () => new Ajv({ strict: false }).compile(JSON.parse(readFileSync(join(__dirname, '..', '..', NODE_SCHEMA_DIR, 'v1.0.0', 'compliance', 'getFailureRates.json'), 'utf8')));

/** Every item of a run is its group's figures as the sandbox's record gives them, valid for the output schema, paired with item 0. */
export function expectFailureRatesOf(s: Sandbox, items: Array<{ json: IDataObject; pairedItem?: unknown }>, by: By, months: 12 | 24) {
	const { groups, unknownDevices, scrappedNotGrouped } = failureRateTruth(s, by, months);
	const got = items.map((i) => i.json);
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
			scrappedDevices: e.scrapped,
			failureRate: e.tests === 0 ? null : e.failed / e.tests,
			verdict: boundsTruth(e.tests, e.failed).verdict,
			testsNeeded: boundsTruth(e.tests, e.failed).testsNeeded,
			testIntervalsMonths: [...e.intervals].sort((a, b) => a - b),
			months,
			today: s.account.today(),
			from: addDays(addMonths(s.account.today(), -months), 1),
			to: s.account.today(),
			limit: 0.02,
			confidence: 0.95,
			unknownDevices,
			scrappedNotGrouped,
			scrappedCounted: true,
			note: INTERVAL_DECISION_NOTE,
		});
		const truth = boundsTruth(e.tests, e.failed);
		expect(g.upperBound95 as number, String(g.id)).toBeCloseTo(truth.upper, 9);
		expect(g.lowerBound95 as number, String(g.id)).toBeCloseTo(truth.lower, 9);
		expect(validate(g), JSON.stringify(validate.errors)).toBe(true);
	}
	// Named groups by name, the one without last.
	const ids = got.map((g) => g.id);
	if (ids.includes(null)) expect(ids[ids.length - 1]).toBeNull();
	expect(items.every((i) => JSON.stringify(i.pairedItem) === '{"item":0}')).toBe(true);
}
