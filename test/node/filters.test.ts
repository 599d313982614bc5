/**
 * The property-first Filters of node version 3, run by n8n's real engine against the sandbox over
 * HTTP: keys from the list (property and field lists), the date picker, days from today and the
 * "Within the …" ranges on the sandbox's clock, keys from expressions, the errors' wording, and a
 * version 2 workflow running as before. The service's clock and this process's `Date.now` (which
 * the node reads for "today") show the same time: 02:00 UTC, when New York is still on the day
 * before.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { NodeHelpers, Workflow } from 'n8n-workflow';
import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';
import { addDays } from '../../client';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { DEVICE } from '../../sandbox/properties';
import { loadPackage, NODE_TYPE, runNode, type RunNodeOptions } from '../support/n8n';
import { credentialsFor, jsonOf } from './helpers';

const realNow = Date.now.bind(Date);
const T0 = Date.parse('2026-03-16T02:00:00Z');
const TODAY_UTC = '2026-03-16';
const TODAY_NEW_YORK = '2026-03-15';

let sandbox: Sandbox;
const requests: string[] = [];

beforeAll(async () => {
	const r0 = realNow();
	const clock = () => T0 + (realNow() - r0);
	vi.spyOn(Date, 'now').mockImplementation(clock);
	// Not the ones refused by the rate limit (a busy machine): the client sends them again.
	sandbox = await startSandbox({ port: 0, now: clock, log: (line) => (line.split(' ')[3] !== '429' ? requests.push(line.split(' ')[2]) : undefined) });
});
afterAll(async () => {
	vi.restoreAllMocks();
	await sandbox.stop();
});
beforeEach(() => {
	sandbox.account.reset();
	sandbox.faults.clear();
	requests.length = 0;
});

/** Runs version 3 (what the node panel adds) in a workflow whose timezone is UTC unless given. */
async function v3(parameters: IDataObject, options: Partial<RunNodeOptions> = {}) {
	return await runNode({ credentials: credentialsFor(sandbox), typeVersion: 3, workflowSettings: { timezone: 'UTC' }, ...options, parameters });
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

/** The filter query parameters of the requests to a list path, in order (after the sandbox logged them). */
async function filtersSentTo(path: string): Promise<Array<Record<string, string>>> {
	await settle();
	return requests
		.filter((r) => r.startsWith(`/api/v1${path}`))
		.map((r) => {
			const params = new URL(r, 'http://x').searchParams;
			return Object.fromEntries([...params].filter(([k]) => !['limit', 'offset', 'ordering', 'enabled', 'search'].includes(k)));
		});
}

async function propertyReads(): Promise<number> {
	await settle();
	return requests.filter((r) => r.startsWith('/api/v1/data/properties/all')).length;
}

const devices = () => [...sandbox.account.data.devices.values()];
const ids = (items: Array<{ json: IDataObject }>) => items.map((i) => Number(i.json.id)).sort((a, b) => a - b);
const idsOf = (records: Array<{ id: number }>) => records.map((r) => r.id).sort((a, b) => a - b);
const nextTest = (d: { values: Record<number, unknown> }) => String(d.values[DEVICE.nextTest]);
const filter = (...rows: IDataObject[]) => ({ filter: rows });

describe('property first: keys from the list carry their type', () => {
	it('a property list (devices): Text conditions on Department, two of them joined by OR', async () => {
		const { items, error } = await v3({
			resource: 'device',
			operation: 'getAll',
			returnAll: true,
			filterJoin: 'OR',
			filters: filter(
				{ key: `${DEVICE.department}|Text`, textCondition: 'equals', textValue: 'Workshop' },
				{ key: `${DEVICE.department}|Text`, textCondition: 'startsWith', textValue: 'Lab' },
			),
		});
		expect(error).toBeUndefined();
		expect(await filtersSentTo('/data/devices/all')).toEqual([{ [DEVICE.department]: 'equalsOR"Workshop"\\startsWithOR"Lab"' }]);
		const expected = devices().filter((d) => /^(workshop$|lab)/i.test(String(d.values[DEVICE.department])));
		expect(expected.length).toBeGreaterThan(0);
		expect(ids(items)).toEqual(idsOf(expected));
		// A key from the list needs no read of the property table.
		expect(await propertyReads()).toBe(0);
	});

	it('a field list (test results, projects): fields by name, Text and Date', async () => {
		const failed = await v3({
			resource: 'testResult',
			operation: 'getAll',
			returnAll: true,
			filters: filter({ key: 'status|Text', textCondition: 'equals', textValue: 'failed' }),
		});
		expect(failed.error).toBeUndefined();
		const expectedFailed = [...sandbox.account.data.testResults.values()].filter((r) => r.status === 'failed');
		expect(expectedFailed.length).toBeGreaterThan(0);
		expect(ids(failed.items)).toEqual(idsOf(expectedFailed));

		const cutoff = sandbox.account.data.projects.map((p) => p.updated_time.slice(0, 10)).sort()[3];
		const projects = await v3({
			resource: 'project',
			operation: 'getAll',
			returnAll: true,
			filters: filter({ key: 'updated_time|Date', dateCondition: 'newerOrSame', dateValue: `${cutoff}T00:00:00` }),
		});
		expect(projects.error).toBeUndefined();
		expect(ids(projects.items)).toEqual(idsOf(sandbox.account.data.projects.filter((p) => p.updated_time.slice(0, 10) >= cutoff)));
	});

	it('filters on different properties all apply (Number and Date)', async () => {
		const { items, error } = await v3({
			resource: 'device',
			operation: 'getAll',
			returnAll: true,
			filters: filter(
				{ key: `${DEVICE.testInterval}|Number`, numberCondition: 'greaterThanOrEquals', numberValue: 12 },
				{ key: `${DEVICE.nextTest}|Date`, dateCondition: 'olderOrSame', dateValue: '2026-06-30T00:00:00' },
			),
		});
		expect(error).toBeUndefined();
		const expected = devices().filter((d) => Number(d.values[DEVICE.testInterval]) >= 12 && nextTest(d) <= '2026-06-30');
		expect(expected.length).toBeGreaterThan(0);
		expect(ids(items)).toEqual(idsOf(expected));
	});
});

describe('dates: the date picker, days from today and ranges, on the sandbox’s clock', () => {
	it('the date picker’s value is cut to the day the service compares', async () => {
		const { items, error } = await v3({
			resource: 'device',
			operation: 'getAll',
			returnAll: true,
			filters: filter({ key: `${DEVICE.nextTest}|Date`, dateCondition: 'olderOrSame', dateValue: '2026-03-20T00:00:00' }),
		});
		expect(error).toBeUndefined();
		expect(await filtersSentTo('/data/devices/all')).toEqual([{ [DEVICE.nextTest]: 'olderOrSame"2026-03-20"' }]);
		expect(ids(items)).toEqual(idsOf(devices().filter((d) => nextTest(d) <= '2026-03-20')));
	});

	it('Within the Next N Days: today … today + N, both included', async () => {
		expect(sandbox.account.today()).toBe(TODAY_UTC);
		const { items, error } = await v3({
			resource: 'device',
			operation: 'getAll',
			returnAll: true,
			filters: filter({ key: `${DEVICE.nextTest}|Date`, dateCondition: 'withinNext', days: 30 }),
		});
		expect(error).toBeUndefined();
		const end = addDays(TODAY_UTC, 30);
		expect(await filtersSentTo('/data/devices/all')).toEqual([{ [DEVICE.nextTest]: `newerOrSameAND"${TODAY_UTC}"\\olderOrSameAND"${end}"` }]);
		const expected = devices().filter((d) => nextTest(d) >= TODAY_UTC && nextTest(d) <= end);
		expect(expected.length).toBeGreaterThan(0);
		expect(ids(items)).toEqual(idsOf(expected));
	});

	it('Within the Last N Days: today − N … today', async () => {
		const { items, error } = await v3({
			resource: 'testResult',
			operation: 'getAll',
			returnAll: true,
			filters: filter({ key: 'test_date|Date', dateCondition: 'withinLast', days: 7 }),
		});
		expect(error).toBeUndefined();
		const start = addDays(TODAY_UTC, -7);
		expect(await filtersSentTo('/tests_performed/all')).toEqual([{ test_date: `newerOrSameAND"${start}"\\olderOrSameAND"${TODAY_UTC}"` }]);
		const expected = [...sandbox.account.data.testResults.values()].filter((r) => r.test_date.slice(0, 10) >= start && r.test_date.slice(0, 10) <= TODAY_UTC);
		expect(expected.length).toBeGreaterThan(0);
		expect(ids(items)).toEqual(idsOf(expected));
	});

	it('Days From Today: Older Than 0 is "before today"; Same Date 30 is the day 30 days ahead', async () => {
		const before = await v3({
			resource: 'device',
			operation: 'getAll',
			returnAll: true,
			filters: filter({ key: `${DEVICE.nextTest}|Date`, dateCondition: 'olderThan', dateValueMode: 'relative', daysFromToday: 0 }),
		});
		expect(before.error).toBeUndefined();
		const overdue = devices().filter((d) => nextTest(d) < TODAY_UTC);
		expect(overdue.length).toBeGreaterThan(0);
		expect(ids(before.items)).toEqual(idsOf(overdue));

		const day = addDays(TODAY_UTC, 30);
		const on = await v3({
			resource: 'device',
			operation: 'getAll',
			returnAll: true,
			filters: filter({ key: `${DEVICE.nextTest}|Date`, dateCondition: 'sameDate', dateValueMode: 'relative', daysFromToday: 30 }),
		});
		expect(on.error).toBeUndefined();
		expect((await filtersSentTo('/data/devices/all')).at(-1)).toEqual({ [DEVICE.nextTest]: `sameDate"${day}"` });
		expect(ids(on.items)).toEqual(idsOf(devices().filter((d) => nextTest(d) === day)));
	});

	it('"today" is the day in the workflow’s timezone (New York is still on the 15th at 02:00 UTC)', async () => {
		const { error } = await v3(
			{ resource: 'device', operation: 'getAll', filters: filter({ key: `${DEVICE.nextTest}|Date`, dateCondition: 'withinNext', days: 1 }) },
			{ workflowSettings: { timezone: 'America/New_York' } },
		);
		expect(error).toBeUndefined();
		expect(await filtersSentTo('/data/devices/all')).toEqual([{ [DEVICE.nextTest]: `newerOrSameAND"${TODAY_NEW_YORK}"\\olderOrSameAND"${TODAY_UTC}"` }]);
	});
});

describe('a range and the operator of its property', () => {
	const range = { key: `${DEVICE.nextTest}|Date`, dateCondition: 'withinNext', days: 30 };

	it('alone on its property, a range is sent with AND even when Conditions on One Property is OR', async () => {
		const { error } = await v3({ resource: 'device', operation: 'getAll', filterJoin: 'OR', filters: filter(range) });
		expect(error).toBeUndefined();
		expect(await filtersSentTo('/data/devices/all')).toEqual([{ [DEVICE.nextTest]: `newerOrSameAND"${TODAY_UTC}"\\olderOrSameAND"${addDays(TODAY_UTC, 30)}"` }]);
	});

	it('with AND, a range and another condition on its property all hold', async () => {
		const { items, error } = await v3({
			resource: 'device',
			operation: 'getAll',
			returnAll: true,
			filters: filter(range, { key: `${DEVICE.nextTest}|Date`, dateCondition: 'notSameDate', dateValueMode: 'relative', daysFromToday: 0 }),
		});
		expect(error).toBeUndefined();
		const end = addDays(TODAY_UTC, 30);
		expect(await filtersSentTo('/data/devices/all')).toEqual([
			{ [DEVICE.nextTest]: `newerOrSameAND"${TODAY_UTC}"\\olderOrSameAND"${end}"\\notSameDateAND"${TODAY_UTC}"` },
		]);
		expect(ids(items)).toEqual(idsOf(devices().filter((d) => nextTest(d) > TODAY_UTC && nextTest(d) <= end)));
	});

	it('with OR, a range beside another condition on its property is refused, and nothing is sent', async () => {
		const { error } = await v3({
			resource: 'device',
			operation: 'getAll',
			filterJoin: 'OR',
			filters: filter(range, { key: `${DEVICE.nextTest}|Date`, dateCondition: 'sameDate', dateValue: '2026-01-01' }),
		});
		expect(error?.message).toBe(
			'Filter "Next test": "Within the Next N Days" is a range that needs AND, but Conditions on One Property is OR and "Next test" has 2 filters; set Conditions on One Property to AND, or keep the range alone on "Next test"',
		);
		expect(await filtersSentTo('/data/devices/all')).toEqual([]);
	});
});

describe('a key given by an expression', () => {
	it('a plain property key ID gets its type from the account, read once for all items', async () => {
		const { items, error } = await v3(
			{
				resource: 'device',
				operation: 'getAll',
				returnAll: true,
				filters: filter({ key: '={{ $json.property }}', condition: 'olderThan', value: '2026-04-01' }),
			},
			{ inputItems: [{ json: { property: DEVICE.nextTest } }, { json: { property: DEVICE.nextTest } }] },
		);
		expect(error).toBeUndefined();
		const expected = idsOf(devices().filter((d) => nextTest(d) < '2026-04-01'));
		expect(ids(items.filter((i) => (i.pairedItem as { item: number }).item === 0))).toEqual(expected);
		expect(ids(items.filter((i) => (i.pairedItem as { item: number }).item === 1))).toEqual(expected);
		expect(await propertyReads()).toBe(1);
	});

	it('a field name (and a property’s name) works too', async () => {
		const failed = await v3({
			resource: 'testResult',
			operation: 'getAll',
			returnAll: true,
			filters: filter({ key: '={{ "status" }}', condition: 'equals', value: 'failed' }),
		});
		expect(failed.error).toBeUndefined();
		expect(failed.items.length).toBeGreaterThan(0);
		expect(jsonOf(failed.items).every((r) => r.status === 'failed')).toBe(true);

		const byName = await v3({
			resource: 'device',
			operation: 'getAll',
			limit: 5,
			filters: filter({ key: '={{ "Department" }}', condition: 'equals', value: 'Workshop' }),
		});
		expect(byName.error).toBeUndefined();
		expect(byName.items.length).toBeGreaterThan(0);
		expect(byName.items.every((i) => (i.json.properties as IDataObject).Department === 'Workshop')).toBe(true);
		expect(await filtersSentTo('/data/devices/all')).toEqual([{ [DEVICE.department]: 'equals"Workshop"' }]);
	});
});

describe('errors name the property as the account lists it, and the value', () => {
	const description = 'Check the parameter "Filters". Nothing was sent to the service.';

	it('an unknown key', async () => {
		const property = await v3({ resource: 'device', operation: 'getAll', filters: filter({ key: '={{ 999 }}', condition: 'equals', value: 'x' }) });
		expect(property.error?.message).toBe(
			'Filter "999": this account has no device property with this ID or name (use one of: 1 (Designation), 2 (ID Barcode), 3 (Last tested), 4 (Department), 5 (Test interval (months)), 6 (Manufacturer), 7 (Serial number), 8 (Location), 9 (Next test), 10 (Protection class))',
		);
		expect(property.error?.description).toBe(description);
		const field = await v3({ resource: 'project', operation: 'getAll', filters: filter({ key: '={{ "colour" }}', condition: 'equals', value: 'red' }) });
		expect(field.error?.message).toBe('Filter "colour": projects have no field of this name (use one of: id, name, customer_id, status, created_time, updated_time)');
		expect(await filtersSentTo('/data/devices/all')).toEqual([]);
		expect(await filtersSentTo('/project/viewset')).toEqual([]);
	});

	it('a keyword that does not apply to the property’s type', async () => {
		const { error } = await v3({
			resource: 'device',
			operation: 'getAll',
			filters: filter({ key: `={{ ${DEVICE.designation} }}`, condition: 'greaterThan', value: '3' }),
		});
		expect(error?.message).toBe(
			'Filter "Designation": keyword "greaterThan" does not apply to Text (use one of: equals, notEquals, startsWith, notStartsWith, endsWith, notEndsWith, contains, notContains)',
		);
		expect(error?.description).toBe(description);
	});

	it('a value that is not a date', async () => {
		const picked = await v3({
			resource: 'device',
			operation: 'getAll',
			filters: filter({ key: `${DEVICE.nextTest}|Date`, dateCondition: 'olderThan', dateValue: '2026-13-01' }),
		});
		expect(picked.error?.message).toBe('Filter "Next test": "2026-13-01" is not a date (write YYYY-MM-DD or pick a date)');
		expect(picked.error?.description).toBe(description);
		const typed = await v3({
			resource: 'testResult',
			operation: 'getAll',
			filters: filter({ key: '={{ "test_date" }}', condition: 'sameDate', value: 'yesterday' }),
		});
		expect(typed.error?.message).toBe('Filter "test_date": "yesterday" is not a date (write YYYY-MM-DD or pick a date)');
		expect(await filtersSentTo('/data/devices/all')).toEqual([]);
	});
});

describe('errors of the form itself', () => {
	it('a filter without a property, and an unknown Conditions on One Property, name what to fix', async () => {
		const empty = await v3({ resource: 'project', operation: 'getAll', filters: filter({ key: 'name|Text', textCondition: 'contains', textValue: 'a' }, { key: '', condition: 'equals', value: 'x' }) });
		expect(empty.error?.message).toBe('Filter 2: choose a field to filter on');
		expect(empty.error?.description).toBe('Check the parameter "Filters". Nothing was sent to the service.');
		const join = await v3({ resource: 'project', operation: 'getAll', filterJoin: 'XOR', filters: filter({ key: 'name|Text', textCondition: 'contains', textValue: 'a' }) });
		expect(join.error?.message).toBe('Conditions on One Property: must be AND or OR, got "XOR"');
		expect(join.error?.description).toBe('Check the parameter "Conditions on One Property". Nothing was sent to the service.');
		expect(await filtersSentTo('/project/viewset')).toEqual([]);
	});
});

describe('saved workflows keep their filters', () => {
	it('version 2’s type-first Filters run unchanged (the same request as before)', async () => {
		const { items, error } = await runNode({
			credentials: credentialsFor(sandbox),
			typeVersion: 2,
			parameters: {
				resource: 'device',
				operation: 'getAll',
				returnAll: true,
				filters: {
					date: [{ key: DEVICE.nextTest, conditions: { condition: [{ keyword: 'olderOrSame', value: '2026-03-20' }] } }],
					text: [{ key: DEVICE.department, join: 'OR', conditions: { condition: [{ keyword: 'equals', value: 'Workshop' }, { keyword: 'startsWith', value: 'Lab' }] } }],
				},
			},
		});
		expect(error).toBeUndefined();
		expect(await filtersSentTo('/data/devices/all')).toEqual([
			{ [DEVICE.nextTest]: 'olderOrSame"2026-03-20"', [DEVICE.department]: 'equalsOR"Workshop"\\startsWithOR"Lab"' },
		]);
		const expected = devices().filter((d) => nextTest(d) <= '2026-03-20' && /^(workshop$|lab)/i.test(String(d.values[DEVICE.department])));
		expect(ids(items)).toEqual(idsOf(expected));
		// Version 2 keeps its Simplify default.
		expect(items.every((i) => !Array.isArray(i.json.properties))).toBe(true);
	});

	it('version 2’s errors keep their wording', async () => {
		const { error } = await runNode({
			credentials: credentialsFor(sandbox),
			typeVersion: 2,
			parameters: {
				resource: 'device',
				operation: 'getAll',
				filters: { date: [{ key: DEVICE.nextTest, conditions: { condition: [{ keyword: 'sameDate', value: '2026-13-01' }] } }] },
			},
		});
		expect(error?.message).toMatch(/^Filters › Date Filter 1 \(property 9\): "2026-13-01" is not a calendar date/);
	});
});

describe('the form as n8n reads it', () => {
	it('version 3 shows the property-first Filters, versions 1–2 the type-first ones; a saved row keeps its values and has no issues', async () => {
		const pkg = await loadPackage();
		const type = pkg.nodeTypes.getByNameAndVersion(`${pkg.packageName}.${NODE_TYPE}`, 3);
		const parameters = {
			resource: 'device',
			operation: 'getAll',
			filters: filter({ key: `${DEVICE.nextTest}|Date`, dateCondition: 'withinNext', days: 14 }, { key: `${DEVICE.department}|Text`, textCondition: 'equals', textValue: 'Lab' }),
		};
		const resolve = (typeVersion: number, values: IDataObject) => {
			const node = { id: 'n', name: 'n', type: NODE_TYPE, typeVersion, position: [0, 0], parameters: values } as unknown as INode;
			const resolved = NodeHelpers.getNodeParameters(type.description.properties, values as INodeParameters, true, false, node, type.description) as IDataObject;
			const issues = NodeHelpers.getNodeParametersIssues(type.description.properties, { ...node, parameters: resolved as INodeParameters }, type.description);
			return { resolved, issues };
		};
		const v3 = resolve(3, parameters);
		expect(v3.issues).toBeNull();
		expect(v3.resolved).toMatchObject({ filterJoin: 'AND', filters: { filter: [{ key: '9|Date', dateCondition: 'withinNext', days: 14 }, { key: '4|Text', textCondition: 'equals', textValue: 'Lab' }] } });
		const v2 = resolve(2, { resource: 'device', operation: 'getAll', filters: { text: [{ key: DEVICE.department, conditions: { condition: [{ keyword: 'equals', value: 'Lab' }] } }] } });
		expect(v2.issues).toBeNull();
		expect(v2.resolved).not.toHaveProperty('filterJoin');
		expect(v2.resolved.filters).toMatchObject({ text: [{ key: DEVICE.department }] });
	});

	it('the hidden Type that picks the fields: the type after "|", else Any (no key yet, or a key from an expression)', async () => {
		const pkg = await loadPackage();
		const type = pkg.nodeTypes.getByNameAndVersion(`${pkg.packageName}.${NODE_TYPE}`, 3);
		const builder = type.description.properties.find((p) => p.name === 'filters' && JSON.stringify(p.displayOptions).includes('gte'))!;
		const hidden = (builder.options as Array<{ values: Array<{ name: string; default: unknown }> }>)[0].values.find((v) => v.name === 'type')!.default as string;
		// The editor must not flag a key from an expression (a plain ID) as "not supported".
		expect((builder.options as Array<{ values: Array<{ name: string; allowArbitraryValues?: boolean }> }>)[0].values.find((v) => v.name === 'key')).toMatchObject({ allowArbitraryValues: true });
		const workflow = new Workflow({ nodes: [{ id: 'n', name: 'n', type: `${pkg.packageName}.${NODE_TYPE}`, typeVersion: 3, position: [0, 0], parameters: {} }], connections: {}, active: false, nodeTypes: pkg.nodeTypes });
		const typeOf = (key: unknown) =>
			(workflow.expression.getParameterValue({ key, type: hidden } as never, null, 0, 0, 'n', [{ json: { id: 9 } }], 'manual', {}) as IDataObject).type;
		expect(typeOf('9|Date')).toBe('Date');
		expect(typeOf('status|Text')).toBe('Text');
		expect(typeOf('updated_time|Number')).toBe('Number');
		expect(typeOf('')).toBe('Any');
		expect(typeOf('status')).toBe('Any');
		expect(typeOf('={{ $json.id }}')).toBe('Any');
		expect(typeOf('={{ $json.missing }}')).toBe('Any');
	});
});
