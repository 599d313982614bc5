/**
 * Get Failure Rates under each variant layout of the service (sandbox/profiles/): renamed test
 * result fields (test_date, status), a renamed department property, page numbers with small
 * pages, so the test results of the period come in several pages. The figures are the sandbox's own.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import { addMonths } from '../../client';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { expectFailureRatesOf } from '../support/failureRates';
import { VARIANTS } from '../support/profiles';
import { credentialsFor, runUtc } from './helpers';

// Whole histories: each device is tested about once a year, so 12 months hold more results than a page of either variant.
const SIZE = { devices: 1200, customers: 8 };

for (const [name, profile] of Object.entries(VARIANTS)) {
	describe(`variant ${name}`, () => {
		const sandbox = {} as Sandbox;
		const extra: IDataObject = { serviceProfile: JSON.stringify(profile) };
		beforeAll(async () => {
			Object.assign(sandbox, await startSandbox({ port: 0, size: SIZE, profile }));
		});
		afterAll(() => sandbox.stop());
		beforeEach(() => sandbox.account.reset({ size: SIZE }));

		it.each([
			['department', 24],
			['designation', 12],
		] as const)('grouped by %s over %i months: the figures are the sandbox’s own', async (groupBy, months) => {
			// More results in the period than the variant's largest page: several pages are read.
			const after = addMonths(sandbox.account.today(), -months);
			const inPeriod = [...sandbox.account.data.testResults.values()].filter((r) => r.test_date > after).length;
			expect(inPeriod).toBeGreaterThan(profile.paging.maxPageSize);
			const { items, error } = await runUtc(sandbox, { resource: 'compliance', operation: 'getFailureRates', groupBy, months }, { credentials: credentialsFor(sandbox, undefined, extra) });
			expect(error).toBeUndefined();
			expectFailureRatesOf(sandbox, items, groupBy, months);
			expect(items.reduce((n, i) => n + (i.json.tests as number), 0)).toBeGreaterThan(0);
		});
	});
}
