import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS, FILTER_KEY_TYPE, SUPPORTS_ENABLED, ServiceClient, ValidationError, encodePathId, endpoint, propertyValues, resolvePath, type OperationId } from '../../client';
import { API, BASE, json, newClock, rejected, router, thrown } from './helpers';

const OPS = Object.keys(ENDPOINTS) as OperationId[];

describe('encodePathId', () => {
	const bad: unknown[] = ['../x', '..', '.', 'a/b', '/a', 'a/', '%2F', 'a%2Fb', '%2e%2e', 'a.b', '', '   ', '\t', -1, -1042, 1.5, 0.1, NaN, Infinity, 2 ** 60, 'x'.repeat(200), '-1', '_a', 'a b', 'a?b', 'a#b', 'é', null, undefined, {}, [], true, '1042\n/x'];
	for (const id of bad) {
		it(`rejects ${typeof id === 'string' ? JSON.stringify(id.length > 20 ? `${id.slice(0, 20)}…` : id) : String(id)}`, () => {
			const err = thrown(() => encodePathId(id, 'deviceId'));
			expect(err).toBeInstanceOf(ValidationError);
			expect((err as ValidationError).parameter).toBe('deviceId');
		});
	}
	it('accepts identifiers', () => {
		expect(encodePathId(1042)).toBe('1042');
		expect(encodePathId('1042')).toBe('1042');
		expect(encodePathId('abc_DEF-1')).toBe('abc_DEF-1');
		expect(encodePathId(0)).toBe('0');
		expect(encodePathId(' 77 ')).toBe('77');
		expect(encodePathId('x'.repeat(128))).toBe('x'.repeat(128));
	});
	it('a 200-character id is shown shortened in the message', () => {
		const err = thrown(() => encodePathId('q'.repeat(200)));
		expect(err.message.length).toBeLessThan(200);
	});

	it('property: an accepted id has no "/", ".", "%" and stays one path segment', () => {
		fc.assert(
			fc.property(
				fc.oneof(
					fc.string({ unit: 'binary', maxLength: 20 }),
					fc.stringMatching(/^[A-Za-z0-9_.%/ -]{0,12}$/),
					fc.integer({ min: -1e6, max: 1e6 }),
					fc.double(),
					fc.constantFrom('..', '.', '%2F', '%2e', '%252F'),
				),
				(id) => {
					let enc: string;
					try {
						enc = encodePathId(id);
					} catch (e) {
						expect(e).toBeInstanceOf(ValidationError);
						return;
					}
					expect(enc).not.toMatch(/[/.%]/);
					expect(enc.length).toBeGreaterThan(0);
					const path = resolvePath('device.get', { id });
					expect(new URL(`${API}${path}`).pathname).toBe(`/api/v1/device/detail/${enc}/`);
				},
			),
			{ numRuns: 1000 },
		);
	});
});

describe('resolvePath', () => {
	it('fills {id}', () => {
		expect(resolvePath('device.get', { id: 1042 })).toBe('/device/detail/1042/');
		expect(resolvePath('testResult.get', { id: 'abc_DEF-1' })).toBe('/tests_performed/detailed/abc_DEF-1/');
		expect(resolvePath('device.list')).toBe('/data/devices/all/');
	});
	it('rejects a missing or unsafe id, naming the parameter', () => {
		expect((thrown(() => resolvePath('device.get', {})) as ValidationError).parameter).toBe('id');
		expect((thrown(() => resolvePath('device.get')) as ValidationError).parameter).toBe('id');
		for (const id of ['../x', '..', 'a/b', '%2F', 'a%2Fb', '', ' ', -3, 2.5, 'z'.repeat(200)]) {
			const err = thrown(() => resolvePath('device.get', { id }, 'deviceId'));
			expect(err).toBeInstanceOf(ValidationError);
			expect((err as ValidationError).parameter).toBe('deviceId');
		}
	});
	it('an unsafe id never reaches the request function', async () => {
		const clock = newClock();
		const r = router(clock, () => json(200, {}));
		const client = new ServiceClient({ baseUrl: BASE, request: r.request, clock });
		for (const id of ['../x', '..', 'a/b', '%2F', 'a%2Fb']) {
			const err = await rejected(clock.run(client.call('device.get', { pathParams: { id }, parameter: 'deviceId' })));
			expect(err).toBeInstanceOf(ValidationError);
			expect((err as ValidationError).parameter).toBe('deviceId');
		}
		expect(r.calls).toHaveLength(0);
		await clock.run(client.call('device.get', { pathParams: { id: 1042 } }));
		expect(r.calls.map((c) => c.url)).toEqual([`${API}/device/detail/1042/`]);
	});
});

describe('the catalogue', () => {
	const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'];
	const RESOURCES = ['customer', 'device', 'overdueDevice', 'testResult', 'project', 'subUser', 'recycleBin', 'file', 'propertyKey'];

	it('every entry is well formed', () => {
		expect(OPS.length).toBeGreaterThan(10);
		for (const op of OPS) {
			const e = endpoint(op);
			expect(METHODS, op).toContain(e.method);
			expect(e.path.startsWith('/'), op).toBe(true);
			expect(e.path.endsWith('/'), op).toBe(true);
			expect(e.path, op).not.toMatch(/\/\/|\/api\/v1|\?/);
			expect(RESOURCES, op).toContain(e.resource);
			expect(['list', 'detail', 'write', 'link'], op).toContain(e.kind);
			expect(typeof e.assumed).toBe('boolean');
			expect(op.split('.')[0], op).toBe(e.resource);
			if (e.kind === 'list' || e.kind === 'detail') expect(e.method, op).toBe('GET');
			if (e.kind === 'detail') expect(e.path, op).toContain('{id}');
			if (e.kind === 'list') expect(e.path, op).not.toContain('{');
			// every placeholder is {id}
			expect(e.path.replace(/\{id\}/g, ''), op).not.toMatch(/[{}]/);
		}
	});

	it('carries the paths the spec shows, not marked as assumed', () => {
		const shown: Array<[string, string]> = [
			['GET', '/data/devices/all/'],
			['GET', '/data/customers/all/'],
			['GET', '/project/viewset/'],
			['GET', '/device/detail/{id}/'],
			['GET', '/tests_performed/detailed/{id}/'],
			['PUT', '/data/devices/multiple_edit/'],
		];
		for (const [method, path] of shown) {
			const found = OPS.map((op) => endpoint(op)).filter((e) => e.path === path);
			expect(found, path).toHaveLength(1);
			expect(found[0].method).toBe(method);
			expect(found[0].assumed).toBe(false);
		}
		expect(OPS.filter((op) => !ENDPOINTS[op].assumed)).toHaveLength(shown.length);
	});

	it('no two operations share method and path', () => {
		const seen = new Set(OPS.map((op) => `${endpoint(op).method} ${endpoint(op).path}`));
		expect(seen.size).toBe(OPS.length);
	});

	it('filter key types and enabled follow the spec', () => {
		expect(FILTER_KEY_TYPE.customer).toBe('propertyKeyId');
		expect(FILTER_KEY_TYPE.device).toBe('propertyKeyId');
		expect(FILTER_KEY_TYPE.overdueDevice).toBe('propertyKeyId');
		expect(FILTER_KEY_TYPE.testResult).toBe('fieldName');
		expect(FILTER_KEY_TYPE.project).toBe('fieldName');
		expect(FILTER_KEY_TYPE.subUser).toBe('fieldName');
		expect([...SUPPORTS_ENABLED].sort()).toEqual(['customer', 'device', 'overdueDevice']);
	});
});

describe('propertyValues (reading a record the service sends)', () => {
	it('maps a property list to name → value, falls back to the key id, accepts a map, ignores junk', () => {
		expect(
			propertyValues({
				id: 1,
				properties: [
					{ key_id: 1, name: 'Designation', data_type: 'Text', value: 'Drill' },
					{ key_id: 7, value: 3 },
					null,
					'x',
					{ key_id: 9, name: 'Next test', value: null, unknown: true },
				],
			}),
		).toEqual({ Designation: 'Drill', '7': 3, 'Next test': null });
		expect(propertyValues({ properties: { Department: 'IT' } })).toEqual({ Department: 'IT' });
		expect(propertyValues({ id: 1 })).toBeUndefined();
		expect(propertyValues(null)).toBeUndefined();
	});
});
