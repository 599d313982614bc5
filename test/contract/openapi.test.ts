import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS, encodeFilter, endpoint, validateFilter, type OperationId } from '../../client';
import { buildOpenApi } from '../../contract/openapi';
import { startSandbox, type Sandbox } from '../../sandbox/server';

const committed = JSON.parse(readFileSync(join(__dirname, '..', '..', 'docs', 'openapi.json'), 'utf8'));

function validatorFor(doc: Record<string, unknown>) {
	const ajv = new Ajv2020({ strict: false, allErrors: true });
	const schemas = (doc.components as { schemas: Record<string, object> }).schemas;
	ajv.addSchema({ $id: 'openapi', components: { schemas } });
	return (component: string, value: unknown) => {
		const validate = ajv.getSchema(`openapi#/components/schemas/${component}`);
		if (!validate) throw new Error(`no component ${component}`);
		return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
	};
}

describe('the published OpenAPI document', () => {
	it('is the one generated from the code (regenerate with npm run contract)', () => {
		expect(committed).toEqual(JSON.parse(JSON.stringify(buildOpenApi())));
	});

	it('has every catalogue operation, and marks exactly the assumed ones', () => {
		const ops = Object.keys(ENDPOINTS) as OperationId[];
		for (const operation of ops) {
			const e = endpoint(operation);
			const op = committed.paths[e.path]?.[e.method.toLowerCase()];
			expect(op, operation).toBeDefined();
			expect(op.operationId).toBe(operation);
			expect(op['x-assumed'] === true, operation).toBe(e.assumed);
		}
	});
});

describe('sandbox responses conform to the published contract', () => {
	let sandbox: Sandbox;
	const check = validatorFor(committed);

	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, size: { devices: 60, customers: 5, testResults: 80 } });
	});
	afterAll(() => sandbox.stop());

	async function get(path: string, token = sandbox.sandboxToken): Promise<{ status: number; body: unknown }> {
		const res = await fetch(`${sandbox.url}/api/v1${path}`, { headers: { authorization: `Token ${token}` } });
		return { status: res.status, body: await res.json() };
	}

	const cases: Array<[string, string]> = [
		['/data/customers/all/', 'CustomerPage'],
		['/data/devices/all/', 'DevicePage'],
		['/data/devices/overdue/', 'OverdueDevicePage'],
		['/tests_performed/all/', 'TestResultPage'],
		['/project/viewset/', 'ProjectPage'],
		['/users/all/', 'SubUserPage'],
		['/recycle_bin/all/', 'RecycleBinPage'],
		['/data/properties/all/', 'PropertyKeyPage'],
		['/device/detail/3/', 'Device'],
		['/tests_performed/detailed/3/', 'TestResultDetail'],
	];

	it.each([false, true])('every list and detail validates (unknown fields and enum values: %s)', async (extra) => {
		sandbox.account.extraFields = extra;
		for (const [path, component] of cases) {
			// A fresh token per request keeps this test clear of the 5 requests per second limit.
			const { status, body } = await get(path, sandbox.account.createToken().token);
			expect(status, path).toBe(200);
			expect(check(component, body), path).toEqual([]);
		}
		sandbox.account.extraFields = false;
	});

	it('error bodies validate, and a filtered list too', async () => {
		const token = sandbox.account.createToken().token;
		const [name, value] = encodeFilter(validateFilter({ key: 3, conditions: [{ keyword: 'newer', value: '2000-01-01' }] }, 'propertyKeyId'));
		const ok = await get(`/data/devices/all/?${new URLSearchParams({ [name]: value })}`, token);
		expect(check('DevicePage', ok.body)).toEqual([]);
		const bad = await get('/data/devices/all/?3=newer"2026-02-30"', token);
		expect(bad.status).toBe(400);
		expect(check('Error', bad.body)).toEqual([]);
		const unauthorized = await get('/data/devices/all/', 'not-a-token');
		expect(unauthorized.status).toBe(401);
		expect(check('Error', unauthorized.body)).toEqual([]);
	});

	it('a response that breaks the contract is caught (the check can fail)', () => {
		expect(check('Device', { id: 'x', properties: 'none' })).not.toEqual([]);
	});

	it('the sandbox serves the document', async () => {
		const res = await fetch(`${sandbox.url}/api/v1/openapi.json`);
		expect(await res.json()).toEqual(committed);
	});
});
