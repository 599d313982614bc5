/**
 * Compliance → Get Summary for a past month under each variant layout the sandbox serves (renamed
 * test_date, department property, page numbers with pages of 200: several pages of results): the
 * figures equal the sandbox's own record counted by hand.
 */
import type { IDataObject } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { expectMatches, monthsBack } from '../support/complianceMonth';
import { VARIANTS } from '../support/profiles';
import { credentialsFor, jsonOf, runUtc } from './helpers';

const SIZE = { devices: 420, customers: 12, testResults: 450 };

for (const [name, profile] of Object.entries(VARIANTS)) {
	describe(`variant ${name}`, () => {
		let sandbox: Sandbox;
		beforeAll(async () => {
			sandbox = await startSandbox({ port: 0, size: SIZE, profile });
		});
		afterAll(() => sandbox.stop());

		it.each(['customer', 'department'] as const)('last month grouped by %s: figures equal the sandbox’s results counted by the rules', async (groupBy) => {
			const extra: IDataObject = { serviceProfile: JSON.stringify(profile) };
			const month = monthsBack(sandbox.account.today(), 1);
			const { items, error } = await runUtc(sandbox, { resource: 'compliance', operation: 'getSummary', period: 'month', month, groupBy }, { credentials: credentialsFor(sandbox, undefined, extra) });
			expect(error).toBeUndefined();
			expect(expectMatches(sandbox, jsonOf(items), month, groupBy)).toBeGreaterThan(0);
		});
	});
}
