/**
 * Compliance → Get Summary in n8n's engine against the sandbox: the counts equal the sandbox's own
 * record of its devices, per group; the lists are read whole at the largest page size.
 */
import Ajv from 'ajv';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { addDays } from '../../client';
import { NODE_SCHEMA_DIR } from '../../contract/nodeSchemas';
import { CUSTOMER, DEVICE } from '../../sandbox/properties';
import type { Sandbox } from '../../sandbox/server';
import { jsonOf, runUtc, settledOkRequests, useSandbox } from './helpers';

// At a raised rate: these tests are of what the node reads and builds, not of pacing.
const sandbox = useSandbox({ ratePerSecond: 200 });

/** Ground truth from the sandbox's own record: group id → [devices, overdue, due within 30 days, without a due date]. */
function truth(s: Sandbox, groupBy: 'all' | 'customer' | 'department'): Map<string, number[]> {
	const today = s.account.today();
	const out = new Map<string, number[]>();
	for (const d of s.account.data.devices.values()) {
		const id = groupBy === 'customer' ? (d.customer_id ?? null) : groupBy === 'department' ? ((d.values[DEVICE.department] as string | null) ?? null) : null;
		const next = d.values[DEVICE.nextTest] as string | null;
		const row = out.get(String(id)) ?? [0, 0, 0, 0];
		row[0]++;
		if (next === null) row[3]++;
		else if (next < today) row[1]++;
		else if (next <= addDays(today, 30)) row[2]++;
		out.set(String(id), row);
	}
	return out;
}

describe('Compliance → Get Summary', () => {
	it.each(['all', 'customer', 'department'] as const)('grouped by %s: one item per group, counts equal the sandbox’s devices', async (groupBy) => {
		// Some devices without a due date, one customer moved: the figures follow the record.
		sandbox.account.data.devices.get(3)!.values[DEVICE.nextTest] = null;
		sandbox.account.data.devices.get(4)!.customer_id = 2;
		const before = await settledOkRequests(sandbox);
		const { items, error } = await runUtc(sandbox, { resource: 'compliance', operation: 'getSummary', groupBy });
		expect(error).toBeUndefined();
		// Each list in pages of 1000; today is the workflow's day, read from no list
		// (answers counted: a 429 right after the case before is pacing, retried, not a read).
		expect((await settledOkRequests(sandbox)) - before).toBe(2);
		const expected = truth(sandbox, groupBy);
		const got = jsonOf(items);
		expect(got.map((g) => String(g.id)).sort()).toEqual([...expected.keys()].sort());
		for (const g of got) {
			const [devices, overdue, dueSoon, undated] = expected.get(String(g.id))!;
			expect(g, String(g.id)).toMatchObject({ group: groupBy, devices, overdue, dueWithin30Days: dueSoon, withoutDueDate: undated, today: sandbox.account.today() });
			expect(g.compliance).toBeCloseTo((devices - undated - overdue) / (devices - undated), 12);
			if (groupBy === 'customer' && g.id !== null) expect(g.name).toBe(sandbox.account.data.customers.get(g.id as number)!.values[CUSTOMER.name]);
			if (groupBy === 'department') expect(g.name).toBe(g.id);
		}
		expect(items.every((i) => JSON.stringify(i.pairedItem) === '{"item":0}')).toBe(true);
		const schema = JSON.parse(readFileSync(join(__dirname, '..', '..', NODE_SCHEMA_DIR, 'v1.0.0', 'compliance', 'getSummary.json'), 'utf8'));
		const validate = new Ajv({ strict: false }).compile(schema);
		for (const g of got) expect(validate(g), JSON.stringify(validate.errors)).toBe(true);
	});

	it('follows the day it runs on (the clocks of the workflow and the service a year on: more overdue)', async () => {
		const now = await runUtc(sandbox, { resource: 'compliance', operation: 'getSummary', groupBy: 'all' });
		const year = 365 * 86_400_000;
		const realNow = Date.now.bind(Date);
		const spy = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + year);
		sandbox.account.clockOffsetMs = year;
		try {
			const later = await runUtc(sandbox, { resource: 'compliance', operation: 'getSummary', groupBy: 'all' });
			expect(later.items[0].json.today).toBe(sandbox.account.today());
			expect(later.items[0].json.overdue).toBe(truth(sandbox, 'all').get('null')![1]);
			expect(later.items[0].json.overdue as number).toBeGreaterThan(now.items[0].json.overdue as number);
		} finally {
			spy.mockRestore();
			sandbox.account.clockOffsetMs = 0;
		}
	});

	it('a Group By that is none of the three is refused, naming the parameter and the valid values', async () => {
		const { error } = await runUtc(sandbox, { resource: 'compliance', operation: 'getSummary', groupBy: 'project' });
		expect(error?.message).toMatch(/Group By.*all, customer, department/);
	});
});
