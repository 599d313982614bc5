/**
 * Get Forecast checked against the sandbox's own record: each group's due dates per month counted
 * here from its devices (next test date, interval, customer, department), by the rule of
 * docs/compliance.md in month numbers, independently of the client.
 */
import Ajv from 'ajv';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IDataObject } from 'n8n-workflow';
import { expect } from 'vitest';
import { NODE_SCHEMA_DIR } from '../../contract/nodeSchemas';
import { CUSTOMER, DEVICE } from '../../sandbox/properties';
import type { Sandbox } from '../../sandbox/server';

export type ForecastBy = 'all' | 'customer' | 'department';

const monthIndex = (day: string) => Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7)) - 1;
const monthOf = (index: number) => `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;

interface Truth {
	name: string | null;
	devices: number;
	overdue: number;
	withoutDueDate: number;
	due: Map<string, number>;
}

/** group id → its figures, counted from the sandbox's devices as of its today. */
export function forecastTruth(s: Sandbox, by: ForecastBy): Map<string, Truth> {
	const today = s.account.today();
	const first = monthIndex(today);
	const groups = new Map<string, Truth>();
	for (const d of s.account.data.devices.values()) {
		const id = by === 'all' ? null : by === 'customer' ? (d.customer_id ?? null) : ((d.values[DEVICE.department] as string | null | undefined) || null);
		const name = by === 'customer' ? (id === null ? null : ((s.account.data.customers.get(id as number)?.values[CUSTOMER.name] as string | undefined) ?? null)) : (id as string | null);
		const g = groups.get(String(id)) ?? { name, devices: 0, overdue: 0, withoutDueDate: 0, due: new Map() };
		groups.set(String(id), g);
		g.devices++;
		const next = d.values[DEVICE.nextTest];
		const interval = d.values[DEVICE.testInterval];
		if (typeof next !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(next)) {
			g.withoutDueDate++;
			continue;
		}
		const overdue = next.slice(0, 10) < today;
		if (overdue) g.overdue++;
		const step = typeof interval === 'number' && Number.isInteger(interval) && interval >= 1 && interval <= 120 ? interval : null;
		// Tested on its due date (an overdue one today): due again every `step` months.
		let at = overdue ? (step === null ? Infinity : first + step) : monthIndex(next);
		while (at <= first + 11) {
			g.due.set(monthOf(at), (g.due.get(monthOf(at)) ?? 0) + 1);
			at = step === null ? Infinity : at + step;
		}
	}
	if (by === 'all' && groups.size === 0) groups.set('null', { name: null, devices: 0, overdue: 0, withoutDueDate: 0, due: new Map() });
	return groups;
}

const schema = () => new Ajv({ strict: false }).compile(JSON.parse(readFileSync(join(__dirname, '..', '..', NODE_SCHEMA_DIR, 'v1.0.0', 'compliance', 'getForecast.json'), 'utf8')));

/** The run's items are 12 per group, each month's figures the sandbox's own; returns the due dates counted. */
export function expectForecastOf(s: Sandbox, items: Array<{ json: IDataObject; pairedItem?: unknown }>, by: ForecastBy): number {
	const truth = forecastTruth(s, by);
	const first = monthIndex(s.account.today());
	const months = Array.from({ length: 12 }, (_, i) => monthOf(first + i));
	const got = items.map((i) => i.json);
	expect(got).toHaveLength(truth.size * 12);
	const validate = schema();
	let due = 0;
	for (const g of got) {
		const t = truth.get(String(g.id));
		expect(t, String(g.id)).toBeDefined();
		expect(g, `${String(g.id)} ${String(g.month)}`).toMatchObject({ group: by, name: t!.name, due: t!.due.get(g.month as string) ?? 0, overdueNow: t!.overdue, devices: t!.devices, withoutDueDate: t!.withoutDueDate, today: s.account.today() });
		expect(validate(g), JSON.stringify(validate.errors)).toBe(true);
		due += g.due as number;
	}
	// Each group's 12 months in order, the groups as the compliance figures order them (the one without last).
	for (let i = 0; i < got.length; i += 12) expect(got.slice(i, i + 12).map((g) => g.month)).toEqual(months);
	const ids = got.map((g) => g.id);
	if (by !== 'all' && ids.includes(null)) expect(ids[ids.length - 1]).toBeNull();
	expect(items.every((i) => JSON.stringify(i.pairedItem) === '{"item":0}')).toBe(true);
	return due;
}
