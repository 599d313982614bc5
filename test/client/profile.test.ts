import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE, ProfileError, profileDifferences, resolveProfile, testDetail, toCanonical, toWire, type ServiceProfile } from '../../client';
import { ServiceProfileSchema, serviceProfileInputSchema, serviceProfileJsonSchema } from '../../client/node/profileSchema';
import { profileArbitrary } from '../support/profiles';

function refusal(input: unknown): ProfileError {
	try {
		resolveProfile(input);
	} catch (error) {
		expect(error).toBeInstanceOf(ProfileError);
		return error as ProfileError;
	}
	throw new Error(`accepted ${JSON.stringify(input)}`);
}

describe('service profile', () => {
	it('no profile, an empty text or {} is the default profile', () => {
		expect(resolveProfile()).toEqual(DEFAULT_PROFILE);
		expect(resolveProfile('')).toEqual(DEFAULT_PROFILE);
		expect(resolveProfile('{}')).toEqual(DEFAULT_PROFILE);
		expect(resolveProfile({ version: 1 })).toEqual(DEFAULT_PROFILE);
	});

	it('a partial profile is merged over the defaults, key by key', () => {
		const p = resolveProfile({
			operations: { 'overdueDevice.list': { path: '/devices/overdue/' } },
			paging: { style: 'pageNumber', maxPageSize: 250 },
			fields: { testResult: { test_date: { name: 'tested_on' } } },
			properties: { nextTestDate: { names: ['Calibration due'] } },
		});
		expect(p.operations['overdueDevice.list']).toEqual({ method: 'GET', path: '/devices/overdue/' });
		expect(p.operations['device.list']).toEqual(DEFAULT_PROFILE.operations['device.list']);
		expect(p.paging).toEqual({ ...DEFAULT_PROFILE.paging, style: 'pageNumber', maxPageSize: 250 });
		expect(p.fields.testResult.test_date).toEqual({ name: 'tested_on', dataType: 'Date' });
		expect(p.fields.testResult.status).toEqual(DEFAULT_PROFILE.fields.testResult.status);
		expect(p.properties.nextTestDate).toEqual({ names: ['Calibration due'], keyId: null });
		expect(profileDifferences(p)).toEqual({
			version: 1,
			operations: { 'overdueDevice.list': { path: '/devices/overdue/' } },
			paging: { style: 'pageNumber', maxPageSize: 250 },
			fields: { testResult: { test_date: { name: 'tested_on' } } },
			properties: { nextTestDate: { names: ['Calibration due'] } },
		});
	});

	const bad: Array<[string, unknown, string, RegExp]> = [
		['not JSON', '{"paging": ', 'service profile', /is not JSON/],
		['not an object', '[1,2]', 'service profile', /must be one JSON object/],
		['another version', { version: 2 }, 'service profile: version', /must be 1/],
		['an unknown key', { paging: { pageSize: 50 } }, 'service profile: paging.pageSize', /not a key of the service profile; allowed here: style, limitParam/],
		['an unknown operation', { operations: { 'device.patch': { path: '/x/' } } }, 'service profile: operations.device.patch', /allowed here: customer\.list/],
		['a path without a leading /', { operations: { 'device.list': { path: 'data/devices/' } } }, "service profile: operations.device.list.path", /starting with "\/"/],
		['a path with ..', { operations: { 'device.list': { path: '/data/../admin/' } } }, 'service profile: operations.device.list.path', /without "\.\."/],
		['a path with a scheme', { operations: { 'device.list': { path: 'https://elsewhere.example/x/' } } }, 'service profile: operations.device.list.path', /a scheme/],
		['a path with a scheme after /', { operations: { 'device.list': { path: '//elsewhere.example/x/' } } }, 'service profile: operations.device.list.path', /starting with "\/"/],
		['a detail path without {id}', { operations: { 'device.get': { path: '/device/detail/' } } }, 'service profile: operations.device.get.path', /must contain \{id\}/],
		['a page size below 1', { paging: { maxPageSize: 0 } }, 'service profile: paging.maxPageSize', /a whole number from 1 to 10000, got 0/],
		['a default page above the largest', { paging: { maxPageSize: 50 } }, 'service profile: paging.defaultPageSize', /at most paging\.maxPageSize \(50\)/],
		['one property named for two roles', { properties: { department: { names: ['Designation'] } } }, 'service profile: properties.department.names', /already names the role properties\.designation/],
		['one key id for two roles', { properties: { department: { keyId: 4 }, designation: { keyId: 4 } } }, 'service profile: properties.department.keyId', /already holds the role/],
		['two fields with one name', { fields: { testResult: { tester: { name: 'status' } } } }, 'service profile: fields.testResult.tester.name', /already names fields\.testResult\.status/],
		['equal paging parameters', { paging: { style: 'pageNumber', pageParam: 'p', pageSizeParam: 'p' } }, 'service profile: paging.pageSizeParam', /must differ from paging\.pageParam/],
		['a field name with a space', { fields: { project: { name: { name: 'the name' } } } }, 'service profile: fields.project.name.name', /a name of letters/],
		['an unknown data type', { fields: { project: { name: { dataType: 'Boolean' } } } }, 'service profile: fields.project.name.dataType', /Number, Text, Date/],
	];
	for (const [what, input, parameter, message] of bad) {
		it(`refuses ${what}, naming the key path and what is allowed`, () => {
			const error = refusal(input);
			expect(error.parameter).toBe(parameter);
			expect(error.message).toMatch(message);
			expect(error.message.startsWith(`${parameter}: `)).toBe(true);
		});
	}

	it('a key every object has by inheritance ("valueOf", "constructor") is not a key of the service profile, at any depth', () => {
		for (const input of [{ valueOf: {} }, { constructor: 1 }, { paging: { toString: 'x' } }]) {
			expect(() => resolveProfile(input)).toThrow(/is not a key of the service profile; allowed here: /);
			expect(ServiceProfileSchema.safeParse(input).success).toBe(false);
		}
	});

	it('the zod schemas accept and refuse the parsed values resolveProfile does, with the same result and message', () => {
		fc.assert(
			fc.property(fc.oneof(profileArbitrary().map((p): unknown => p.input), fc.jsonValue().filter((v) => typeof v !== 'string')), (input) => {
				let expected: ServiceProfile | Error;
				try {
					expected = resolveProfile(input);
				} catch (error) {
					expected = error as Error;
				}
				const shape = serviceProfileInputSchema().safeParse(input);
				const parsed = ServiceProfileSchema.safeParse(input);
				if (expected instanceof Error) {
					expect(parsed.success).toBe(false);
					expect(parsed.error?.issues[0].message).toBe(expected.message);
				} else {
					expect(shape.success).toBe(true);
					expect(parsed.success ? parsed.data : parsed.error).toEqual(expected);
				}
				// Whatever the shape refuses, resolveProfile refuses too (the cross-key rules refuse more).
				if (!shape.success) expect(expected).toBeInstanceOf(Error);
			}),
			{ numRuns: 300 },
		);
	});

	it('docs/service-profile.schema.json is the one npm run contract writes', () => {
		const committed = JSON.parse(readFileSync(join(__dirname, '../../docs/service-profile.schema.json'), 'utf8'));
		expect(committed).toEqual(JSON.parse(JSON.stringify(serviceProfileJsonSchema())));
	});

	it("docs/service-profile.md's table is the default profile's", () => {
		const doc = readFileSync(join(__dirname, '../../docs/service-profile.md'), 'utf8');
		for (const [op, o] of Object.entries(DEFAULT_PROFILE.operations)) expect(doc).toContain(`| \`operations.${op}\` | \`${o.method} ${o.path}\``);
		for (const [resource, fields] of Object.entries(DEFAULT_PROFILE.fields)) {
			expect(doc).toContain(`| \`fields.${resource}\` | ${Object.values(fields).map((f) => `\`${f.name}\` (${f.dataType})`).join(', ')} |`);
		}
		for (const [role, r] of Object.entries(DEFAULT_PROFILE.properties)) expect(doc).toMatch(new RegExp(`\\| \`properties\\.${role}\` \\| ${r.names.map((n) => `"${n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`).join(', ')}[ |(]`));
		const p = DEFAULT_PROFILE.paging;
		for (const v of [p.limitParam, p.offsetParam, p.pageParam, p.pageSizeParam, String(p.defaultPageSize), String(p.maxPageSize), p.itemsKey, p.countKey, p.nextKey]) expect(doc).toContain(`\`${v}\``);
		for (const v of Object.values(DEFAULT_PROFILE.overdue)) expect(doc).toContain(`\`${v}\``);
	});

	it('property: records and detailed results translate to the wire and back unchanged', () => {
		const testResult = fc.dictionary(fc.constantFrom(...Object.keys(DEFAULT_PROFILE.fields.testResult), 'extra'), fc.jsonValue(), { maxKeys: 6 });
		const overdue = fc.dictionary(fc.constantFrom('id', 'next_test_date', 'days_overdue', 'properties'), fc.jsonValue(), { maxKeys: 4 });
		fc.assert(
			fc.property(profileArbitrary(), testResult, overdue, ({ profile }, r, o) => {
				expect(toCanonical(profile, 'testResult', toWire(profile, 'testResult', r))).toEqual(r);
				expect(toCanonical(profile, 'overdueDevice', toWire(profile, 'overdueDevice', o))).toEqual(o);
				const detail = { id: 1, steps: [{ step: 1, name: 'a', status: 'failed', measurements: [{ name: 'm', value: 1, unit: 'V', low_limit: 0, high_limit: 2, passed: false }] }], device: { designation: 'd', id_barcode: 'b' } };
				expect(testDetail(profile, testDetail(profile, detail, true), false)).toEqual(detail);
			}),
			{ numRuns: 200 },
		);
	});
});
