/**
 * The credential's test request against the sandbox, the editor's loadOptions / listSearch
 * methods through n8n-core's LoadOptionsContext, and the node description as n8n loads it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { INodeProperties, INodePropertyOptions, INodeTypeDescription } from 'n8n-workflow';
import { DEVICE_KEYS, CUSTOMER_KEYS } from '../../sandbox/properties';
import { CREDENTIAL_TYPE, PACKAGE_DIR, callMethod, loadPackage, testCredential } from '../support/n8n';
import { credentialsFor, useSandbox } from './helpers';

const sandbox = useSandbox();

const credential = (token: string, extra: Record<string, string> = {}) => ({
	accessToken: token,
	environment: 'sandbox',
	sandboxBaseUrl: sandbox.url,
	...extra,
});

describe('credential connection test (the node tests the credential: testedBy)', () => {
	const requests = () => sandbox.stats.requests;

	it('a valid token passes with one cheap request', async () => {
		const before = requests();
		expect(await testCredential(credential(sandbox.sandboxToken))).toEqual({ status: 'OK', message: 'Connection tested successfully' });
		expect(requests() - before).toBe(1);
	});

	it('normalises the base URL like the client (trailing slash, /api/v1 given or not)', async () => {
		for (const base of [`${sandbox.url}/`, `${sandbox.url}/api/v1`, `${sandbox.url}/api/v1/`]) {
			expect(await testCredential(credential(sandbox.sandboxToken, { sandboxBaseUrl: base }))).toMatchObject({ status: 'OK' });
		}
	});

	it('uses the Production Base URL when Environment is Production', async () => {
		const result = await testCredential(
			credential(sandbox.sandboxToken, { environment: 'production', sandboxBaseUrl: 'http://127.0.0.1:1', productionBaseUrl: sandbox.url }),
		);
		expect(result.status).toBe('OK');
	});

	it("a bad token: what to do and the service's own description, never the token", async () => {
		const result = await testCredential(credential('0'.repeat(40)));
		expect(result.status).toBe('Error');
		expect(result.message).toContain('HTTP 401');
		expect(result.message).toContain('belongs to the other environment');
		expect(result.message).toContain('Invalid token: it does not exist or was deleted.');
		expect(result.message).not.toContain('0'.repeat(40));
	});

	it('a valid token without read scopes passes too (the cheapest request: property keys, limit 1), naming the scopes reads need', async () => {
		for (const scopes of [['customers:read'], ['devices:write'], []]) {
			const { token } = sandbox.account.createToken({ scopes });
			const before = requests();
			const result = await testCredential(credential(token));
			expect(result.status, scopes.join()).toBe('OK');
			if (scopes.length !== 1 || scopes[0] !== 'customers:read') expect(result.message).toContain('API Access tab');
			expect(requests() - before).toBe(1);
		}
	});

	it('a plain-http base URL on another host is refused before any request', async () => {
		const before = requests();
		const result = await testCredential(credential(sandbox.sandboxToken, { sandboxBaseUrl: 'http://tec.example.com' }));
		expect(result).toMatchObject({ status: 'Error' });
		expect(result.message).toContain('Sandbox Base URL (credential): must use https');
		expect(requests()).toBe(before);
	});

	it('the trigger tests the credential the same way', async () => {
		expect(await testCredential(credential(sandbox.sandboxToken), 'testEquipmentCloudTrigger')).toMatchObject({ status: 'OK' });
	});
});

describe('editor methods (loadOptions, listSearch)', () => {
	const call = (kind: 'loadOptions' | 'listSearch', method: string, parameters: Record<string, unknown>, filter?: string) =>
		callMethod({ kind, method, parameters: parameters as never, credentials: credentialsFor(sandbox), filter });

	it('property keys come from the service, per resource and per data type', async () => {
		const device = (await call('loadOptions', 'getPropertyKeys', { resource: 'device', operation: 'getAll' })) as INodePropertyOptions[];
		expect(device.map((o) => o.value).sort((a, b) => Number(a) - Number(b))).toEqual(DEVICE_KEYS.map((k) => k.id));
		const customer = (await call('loadOptions', 'getPropertyKeys', { resource: 'customer', operation: 'getAll' })) as INodePropertyOptions[];
		expect(customer.map((o) => o.value).sort((a, b) => Number(a) - Number(b))).toEqual(CUSTOMER_KEYS.map((k) => k.id));
		const dates = (await call('loadOptions', 'getDateKeys', { resource: 'overdueDevice', operation: 'getAll' })) as INodePropertyOptions[];
		expect(dates.map((o) => o.name).sort()).toEqual(['Last tested', 'Next test']);
	});

	it('field names come from the client field table for field-filtered lists', async () => {
		const text = (await call('loadOptions', 'getTextKeys', { resource: 'subUser', operation: 'getAll' })) as INodePropertyOptions[];
		expect(text.map((o) => o.value).sort()).toEqual(['email', 'first_name', 'last_name', 'role', 'username']);
		const sort = (await call('loadOptions', 'getSortKeys', { resource: 'project', operation: 'getAll' })) as INodePropertyOptions[];
		expect(sort.map((o) => o.value)).toContain('updated_time');
	});

	it('record pickers list and search devices, customers and test results', async () => {
		const devices = (await call('listSearch', 'searchDevices', { resource: 'device', operation: 'get' }, 'TEC-000042')) as {
			results: Array<{ name: string; value: string }>;
		};
		expect(devices.results).toEqual([{ name: expect.stringContaining('(TEC-000042) · #42'), value: '42' }]);
		const customers = (await call('listSearch', 'searchCustomers', { resource: 'customer', operation: 'update' })) as { results: unknown[] };
		expect(customers.results).toHaveLength(12);
		const results = (await call('listSearch', 'searchTestResults', { resource: 'testResult', operation: 'get' })) as { results: unknown[] };
		expect(results.results).toHaveLength(100);
	});

	it('a record picker loads the next 100 when scrolled (paginationToken) until the list ends', async () => {
		const seen: string[] = [];
		let token: string | undefined;
		let pages = 0;
		do {
			const page = (await callMethod({
				kind: 'listSearch',
				method: 'searchDevices',
				parameters: { resource: 'device', operation: 'get' },
				credentials: credentialsFor(sandbox),
				paginationToken: token,
			})) as { results: Array<{ value: string }>; paginationToken?: string };
			seen.push(...page.results.map((r) => r.value));
			token = page.paginationToken;
			pages++;
		} while (token !== undefined && pages < 10);
		const ids = [...sandbox.account.data.devices.keys()].map(String);
		expect(ids.length).toBeGreaterThan(100);
		expect(pages).toBe(Math.ceil(ids.length / 100));
		expect(seen.sort()).toEqual(ids.sort());
		// A token n8n did not get from the picker is refused by name, before any request.
		await expect(
			callMethod({ kind: 'listSearch', method: 'searchDevices', parameters: { resource: 'device', operation: 'get' }, credentials: credentialsFor(sandbox), paginationToken: 'x' }),
		).rejects.toThrow(/offset: must be a whole number of 0 or more, got NaN/);
	});
});

describe('node and credential as n8n loads them', () => {
	const EXPECTED: Record<string, string[]> = {
		compliance: ['getFailureRates', 'getForecast', 'getIntervalRecommendations', 'getMeasurementWarnings', 'getSummary'],
		email: ['complianceReport', 'customerNotices', 'digest', 'failedTest'],
		customer: ['create', 'delete', 'getAll', 'update'],
		device: ['create', 'delete', 'get', 'getAll', 'getMeasurementTrend', 'update', 'updateMany'],
		overdueDevice: ['getAll'],
		testResult: ['get', 'getAll'],
		project: ['getAll'],
		subUser: ['getAll'],
		recycleBin: ['getAll', 'restore'],
		file: ['download'],
	};

	it('has exactly the public resource and operation values', async () => {
		const pkg = await loadPackage();
		const description = pkg.nodeTypes.getByNameAndVersion(`${pkg.packageName}.testEquipmentCloud`).description as INodeTypeDescription;
		const resource = description.properties.find((p) => p.name === 'resource')!;
		const resources = (resource.options as INodePropertyOptions[]).map((o) => o.value);
		expect(resources.sort()).toEqual(Object.keys(EXPECTED).sort());
		for (const r of resources) {
			const op = description.properties.find(
				(p: INodeProperties) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(r),
			)!;
			expect((op.options as INodePropertyOptions[]).map((o) => o.value).sort(), String(r)).toEqual(EXPECTED[String(r)]);
		}
		expect(description).toMatchObject({
			name: 'testEquipmentCloud',
			displayName: 'Test Equipment Cloud',
			version: [1, 2, 3],
			defaultVersion: 3,
			usableAsTool: true,
			subtitle: expect.stringMatching(/operation.*resource/),
			credentials: [{ name: CREDENTIAL_TYPE, required: true }],
		});
	});

	it('Get Failure Rates tells how a group is marked as the verdicts read it: by the exact 95 % bounds, not by a number of tests', async () => {
		const pkg = await loadPackage();
		const description = pkg.nodeTypes.getByNameAndVersion(`${pkg.packageName}.testEquipmentCloud`).description as INodeTypeDescription;
		const ops = description.properties.find((p: INodeProperties) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes('compliance'))!;
		const rates = (ops.options as INodePropertyOptions[]).find((o) => o.value === 'getFailureRates')!;
		expect(rates.description).toMatch(/95 % upper bound under 2 %/);
		expect(rates.description).toMatch(/95 % lower bound over 2 %/);
		expect(rates.description).not.toMatch(/\b50\b|at least/);
	});

	it('icons and the codex file are in dist/ where n8n looks for them', async () => {
		const dir = join(PACKAGE_DIR, 'dist', 'nodes', 'TestEquipmentCloud');
		for (const f of ['testEquipmentCloud.svg', 'testEquipmentCloud.dark.svg', 'TestEquipmentCloud.node.json']) {
			expect(existsSync(join(dir, f)), f).toBe(true);
		}
		const codex = JSON.parse(readFileSync(join(dir, 'TestEquipmentCloud.node.json'), 'utf8'));
		expect(codex).toMatchObject({ node: 'n8n-nodes-test-equipment-cloud.testEquipmentCloud', categories: expect.any(Array) });
		expect(codex.resources.primaryDocumentation[0].url).toMatch(/^https:\/\//);
		for (const f of ['testEquipmentCloud.svg', 'testEquipmentCloud.dark.svg']) {
			expect(existsSync(join(PACKAGE_DIR, 'dist', 'credentials', f)), f).toBe(true);
		}
	});

	it('the node panel finds both nodes by what users type: aliases and subcategories as n8n loads them', async () => {
		const pkg = await loadPackage();
		const codexOf = (name: string) => pkg.loader.types.nodes.find((n) => n.name === name)?.codex;
		for (const name of ['testEquipmentCloud', 'testEquipmentCloudTrigger']) {
			const codex = codexOf(name);
			expect(codex?.alias, name).toEqual(expect.arrayContaining(['device', 'overdue', 'calibration', 'test result', 'PAT']));
			expect(Object.keys(codex?.subcategories ?? {}), name).not.toHaveLength(0);
		}
		// The editor's panel shows the two as one entry that carries the action node's codex, and
		// searches its aliases only: the action node's list holds the trigger's words too.
		expect(codexOf('testEquipmentCloud')?.alias).toEqual(expect.arrayContaining(codexOf('testEquipmentCloudTrigger')?.alias ?? []));
		expect(codexOf('testEquipmentCloud')?.alias).toEqual(expect.arrayContaining(['failed test', 'new test result', 'due soon', 'coming due']));
	});

	it('the credential: token is a password field, Sandbox is the default environment, generic auth header', async () => {
		const pkg = await loadPackage();
		const type = pkg.credentialTypes[CREDENTIAL_TYPE];
		expect(type.displayName).toBe('Test Equipment Cloud API');
		const token = type.properties.find((p) => p.name === 'accessToken')!;
		expect(token.typeOptions?.password).toBe(true);
		expect(type.properties.find((p) => p.name === 'environment')?.default).toBe('sandbox');
		expect(type.authenticate).toEqual({
			type: 'generic',
			properties: { headers: { Authorization: '=Token {{$credentials.accessToken}}' } },
		});
		expect(pkg.loader.known.credentials[CREDENTIAL_TYPE]?.supportedNodes?.slice().sort()).toEqual(['testEquipmentCloud', 'testEquipmentCloudTrigger']);
	});
});
