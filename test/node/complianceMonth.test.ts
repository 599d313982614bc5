/**
 * Compliance → Get Summary for past months in n8n's engine against the sandbox: the figures equal
 * counting the sandbox's own devices and test results by the rebuild's rules (written here again,
 * not taken from the client), per group; bad months are refused before any request.
 */
import Ajv from 'ajv';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IDataObject } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_SCHEMA_DIR } from '../../contract/nodeSchemas';
import { expectMatches, monthsBack, plusMonths, reachOf } from '../support/complianceMonth';
import { CREDENTIAL_TYPE, runNode } from '../support/n8n';
import { startWorld, type World } from '../support/trigger';
import { jsonOf, runUtc, settledRequests, useSandbox } from './helpers';

// At a raised rate: these tests are of what the node reads and builds, not of pacing.
const sandbox = useSandbox({ ratePerSecond: 200 });
const schema = () => new Ajv({ strict: false }).compile(JSON.parse(readFileSync(join(__dirname, '..', '..', NODE_SCHEMA_DIR, 'v1.0.0', 'compliance', 'getSummary.json'), 'utf8')));

describe('Compliance → Get Summary, Period Month', () => {
	it.each(['all', 'customer', 'department'] as const)('last month grouped by %s: figures equal the sandbox’s results counted by the rules', async (groupBy) => {
		// A device deleted (the one tested last, so its results are in reach): not used, and counted.
		const latest = [...sandbox.account.data.testResults.values()].sort((a, b) => a.test_date.localeCompare(b.test_date)).at(-1)!;
		sandbox.account.data.devices.delete(latest.device_id);
		const month = monthsBack(sandbox.account.today(), 1);
		const { items, error } = await runUtc(sandbox, { resource: 'compliance', operation: 'getSummary', period: 'month', month, groupBy });
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
		const { items, error } = await runUtc(sandbox, { resource: 'compliance', operation: 'getSummary', period: 'month', month: today.slice(0, 7), groupBy: 'all' });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		expect(items[0].json.asOf).toBe(today);
		expectMatches(sandbox, jsonOf(items), today.slice(0, 7), 'all');
	});

	it('Last 12 Months: one item per month and group, oldest first, each equal to the count by hand', async () => {
		const today = sandbox.account.today();
		const { items, error } = await runUtc(sandbox, { resource: 'compliance', operation: 'getSummary', period: 'last12Months', groupBy: 'department' });
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
		const { error } = await runUtc(sandbox, { resource: 'compliance', operation: 'getSummary', period: 'month', month: month(sandbox.account.today()), groupBy: 'all' });
		expect(error?.message).toMatch(message);
		// A malformed month is refused before any request; a future one after the service's today (one request).
		expect((await settledRequests(sandbox)) - before).toBeLessThanOrEqual(1);
	});

	it('an empty Month is refused by n8n itself before the node runs (the parameter is required)', async () => {
		await expect(runUtc(sandbox, { resource: 'compliance', operation: 'getSummary', period: 'month', month: '', groupBy: 'all' })).rejects.toThrow(/Parameter "Month" is required/);
	});

	it('a test-result list that does not end normally stops the node: no figures from part of the results', async () => {
		sandbox.faults.add({ kind: 'countHigh', path: '/tests_performed/' });
		const { items, error } = await runUtc(sandbox, { resource: 'compliance', operation: 'getSummary', period: 'month', month: monthsBack(sandbox.account.today(), 1), groupBy: 'all' });
		expect(items).toEqual([]);
		expect(error?.message).toMatch(/tests_performed.*could not be read to its end/);
	});

	it('with Continue On Fail, each input item gets its own figures or its own error, paired with it', async () => {
		const today = sandbox.account.today();
		const { items, error } = await runUtc(
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
		const { error } = await runUtc(sandbox, { resource: 'compliance', operation: 'getSummary', period: 'week', groupBy: 'all' });
		expect(error?.message).toMatch(/Period.*now, month, last12Months/);
	});
});

describe('Compliance → Get Summary: today is the workflow’s', () => {
	let world: World;
	beforeAll(async () => {
		world = await startWorld();
	});
	afterAll(async () => world.stop());

	it('in Auckland on 1 December (30 November in UTC) a month expression for December is taken, counted as of that day', async () => {
		// 12:00 UTC on 30 November: 01:00 on 1 December in Auckland (UTC+13).
		const now = world.sandbox.account.now();
		const year = new Date(now).getUTCFullYear();
		const target = [year, year + 1].map((y) => Date.UTC(y, 10, 30, 12)).find((t) => t >= now)!;
		world.advance(target - now);
		expect(world.today().slice(5)).toBe('11-30');
		const december = `${new Date(target).getUTCFullYear()}-12`;
		const credentials = { [CREDENTIAL_TYPE]: { accessToken: world.sandbox.account.createToken().token, environment: 'sandbox', sandboxBaseUrl: world.sandbox.url, productionBaseUrl: '' } };
		const { items, error } = await runNode({
			credentials,
			parameters: { resource: 'compliance', operation: 'getSummary', period: 'month', month: "={{ $today.toFormat('yyyy-MM') }}", groupBy: 'all' },
			workflowSettings: { timezone: 'Pacific/Auckland' },
		});
		expect(error).toBeUndefined();
		expect(jsonOf(items)).toEqual([expect.objectContaining({ month: december, asOf: `${december}-01`, today: `${december}-01` })]);
		// Last 12 Months ends with December too.
		const last12 = await runNode({ credentials, parameters: { resource: 'compliance', operation: 'getSummary', period: 'last12Months', groupBy: 'all' }, workflowSettings: { timezone: 'Pacific/Auckland' } });
		expect(last12.error).toBeUndefined();
		expect(jsonOf(last12.items).at(-1)).toMatchObject({ month: december });
		// Now: the snapshot is of the workflow's day.
		const snapshot = await runNode({ credentials, parameters: { resource: 'compliance', operation: 'getSummary', period: 'now', groupBy: 'all' }, workflowSettings: { timezone: 'Pacific/Auckland' } });
		expect(snapshot.error).toBeUndefined();
		expect(jsonOf(snapshot.items)[0]).toMatchObject({ today: `${december}-01` });
	});

	it('in Los Angeles at 8 pm on 30 November (1 December in UTC, the service’s day) the current month is November, as $today and Device Due Soon say', async () => {
		const now = world.sandbox.account.now();
		const year = new Date(now).getUTCFullYear();
		// 04:00 UTC on 1 December: 20:00 on 30 November in Los Angeles (UTC−8).
		const target = [year, year + 1].map((y) => Date.UTC(y, 11, 1, 4)).find((t) => t >= now)!;
		world.advance(target - now);
		const november = `${new Date(target).getUTCFullYear()}-11`;
		// A device overdue, so the service's today (1 December) is known from its overdue list.
		expect(world.sandbox.account.today()).toBe(`${november.slice(0, 4)}-12-01`);
		const credentials = { [CREDENTIAL_TYPE]: { accessToken: world.sandbox.account.createToken().token, environment: 'sandbox', sandboxBaseUrl: world.sandbox.url, productionBaseUrl: '' } };
		const settings = { workflowSettings: { timezone: 'America/Los_Angeles' } };
		const snapshot = await runNode({ credentials, parameters: { resource: 'compliance', operation: 'getSummary', period: 'now', groupBy: 'all' }, ...settings });
		expect(snapshot.error).toBeUndefined();
		expect(jsonOf(snapshot.items)[0]).toMatchObject({ today: `${november}-30` });
		const last12 = await runNode({ credentials, parameters: { resource: 'compliance', operation: 'getSummary', period: 'last12Months', groupBy: 'all' }, ...settings });
		expect(last12.error).toBeUndefined();
		expect(jsonOf(last12.items).at(-1)).toMatchObject({ month: november, today: `${november}-30` });
		// A result dated the service's today (1 December) is not refused as future: the rebuild's cut-off is the later day.
		const serviceToday = world.sandbox.account.today();
		world.sandbox.account.syncTestResult({ device_id: [...world.sandbox.account.data.devices.keys()][0], test_date: serviceToday });
		const future = [...world.sandbox.account.data.testResults.values()].filter((r) => r.test_date.slice(0, 10) > serviceToday).length;
		const again = await runNode({ credentials, parameters: { resource: 'compliance', operation: 'getSummary', period: 'last12Months', groupBy: 'all' }, ...settings });
		expect(again.error).toBeUndefined();
		expect(jsonOf(again.items).at(-1)).toMatchObject({ month: november, skipped: expect.objectContaining({ futureTests: future }) });
	});
});

