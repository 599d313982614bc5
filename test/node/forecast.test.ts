/**
 * Compliance → Get Forecast in n8n's engine against the sandbox: each group's due dates per month
 * and its devices overdue now equal those counted here from the sandbox's own devices, for each
 * grouping and under each variant layout of the service; changes to the account show; a bad
 * Group By is refused by name; the reader skips nothing the sandbox serves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import { addDays, readForecastInput } from '../../client';
import { DEVICE } from '../../sandbox/properties';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { expectForecastOf } from '../support/forecast';
import { VARIANTS } from '../support/profiles';
import { pollerClient } from '../reliability/support';
import { credentialsFor, runUtc, useSandbox } from './helpers';

// At a raised rate: these tests are of what the node reads and builds, not of pacing.
const sandbox = useSandbox({ ratePerSecond: 200 });

describe('Compliance → Get Forecast', () => {
	it.each(['all', 'customer', 'department'] as const)('grouped by %s: each group’s months are the sandbox’s own', async (groupBy) => {
		const { items, error } = await runUtc(sandbox, { resource: 'compliance', operation: 'getForecast', groupBy });
		expect(error).toBeUndefined();
		expect(expectForecastOf(sandbox, items, groupBy)).toBeGreaterThan(0);
	});

	it('follows changes: a device overdue, one due today with a 1-month interval, one without a next test date', async () => {
		const today = sandbox.account.today();
		const [a, b, c] = [...sandbox.account.data.devices.values()];
		a.values[DEVICE.nextTest] = addDays(today, -10);
		b.values[DEVICE.nextTest] = today;
		b.values[DEVICE.testInterval] = 1;
		c.values[DEVICE.nextTest] = null;
		const { items, error } = await runUtc(sandbox, { resource: 'compliance', operation: 'getForecast', groupBy: 'all' });
		expect(error).toBeUndefined();
		expectForecastOf(sandbox, items, 'all');
		expect(items[0].json.withoutDueDate).toBeGreaterThanOrEqual(1);
		expect(items[0].json.overdueNow).toBeGreaterThanOrEqual(1);
	});

	it('a bad Group By is refused naming the parameter and the valid values', async () => {
		const { error } = await runUtc(sandbox, { resource: 'compliance', operation: 'getForecast', groupBy: 'site' });
		expect(error?.message).toContain('Group By: must be one of all, customer, department, got "site"');
	});

	it('the reader reads every device the sandbox serves', async () => {
		const input = await readForecastInput(pollerClient(sandbox, sandbox.sandboxToken));
		expect(input.skippedRecords).toBe(0);
		expect(input.today).toBe(sandbox.account.today());
		expect(input.devices.map((d) => d.id).sort((x, y) => x - y)).toEqual([...sandbox.account.data.devices.keys()].sort((x, y) => x - y));
	});
});

// Several pages of devices under each variant's page size.
const SIZE = { devices: 900, customers: 8 };

for (const [name, profile] of Object.entries(VARIANTS)) {
	describe(`variant ${name}`, () => {
		const variant = {} as Sandbox;
		const extra: IDataObject = { serviceProfile: JSON.stringify(profile) };
		beforeAll(async () => {
			Object.assign(variant, await startSandbox({ port: 0, size: SIZE, profile }));
		});
		afterAll(() => variant.stop());

		it.each(['customer', 'department'] as const)('grouped by %s: the figures are the sandbox’s own', async (groupBy) => {
			expect(variant.account.data.devices.size).toBeGreaterThan(profile.paging.maxPageSize);
			const { items, error } = await runUtc(variant, { resource: 'compliance', operation: 'getForecast', groupBy }, { credentials: credentialsFor(variant, undefined, extra) });
			expect(error).toBeUndefined();
			expect(expectForecastOf(variant, items, groupBy)).toBeGreaterThan(0);
		});
	});
}
