import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
	ENDPOINTS,
	ServiceClient,
	ValidationError,
	deleteParams,
	listParams,
	parseEnabled,
	queryString,
	validateLimit,
	validateListQuery,
	type OperationId,
} from '../../client';
import { API, BASE, json, newClock, router, thrown } from './helpers';

/** From the spec: which lists take `enabled`, and how each list names what it filters/orders on. */
const LISTS: Record<string, { enabled: boolean; keys: 'id' | 'name' }> = {
	'customer.list': { enabled: true, keys: 'id' },
	'device.list': { enabled: true, keys: 'id' },
	'overdueDevice.list': { enabled: true, keys: 'id' },
	'testResult.list': { enabled: false, keys: 'name' },
	'project.list': { enabled: false, keys: 'name' },
	'subUser.list': { enabled: false, keys: 'name' },
	'recycleBin.list': { enabled: false, keys: 'name' },
	'propertyKey.list': { enabled: false, keys: 'name' },
};

describe('validateListQuery', () => {
	it('covers every list of the catalogue', () => {
		const lists = Object.entries(ENDPOINTS)
			.filter(([, e]) => e.kind === 'list')
			.map(([op]) => op)
			.sort();
		expect(lists).toEqual(Object.keys(LISTS).sort());
	});

	it('refuses operations that are not lists', () => {
		for (const op of Object.keys(ENDPOINTS) as OperationId[]) {
			if (ENDPOINTS[op].kind === 'list') continue;
			const err = thrown(() => validateListQuery(op, {}));
			expect(err).toBeInstanceOf(ValidationError);
			expect((err as ValidationError).parameter).toBe('operation');
		}
	});

	for (const [op, { enabled, keys }] of Object.entries(LISTS) as Array<[OperationId, (typeof LISTS)[string]]>) {
		describe(op, () => {
			it(enabled ? 'accepts enabled property key ids' : 'rejects enabled', () => {
				if (enabled) {
					const v = validateListQuery(op, { enabled: [3, '12', 7] });
					expect(v.enabled).toEqual([3, 12, 7]);
					expect(listParams(v)[0]).toEqual(['enabled', '[3,12,7]']);
					for (const bad of [[1.5], [0], [-1], ['abc'], [NaN], ['1.0'], [1, 'x']]) {
						const err = thrown(() => validateListQuery(op, { enabled: bad as number[] }));
						expect(err).toBeInstanceOf(ValidationError);
						expect((err as ValidationError).parameter).toBe('enabled');
					}
				} else {
					const err = thrown(() => validateListQuery(op, { enabled: [1, 2] }));
					expect(err).toBeInstanceOf(ValidationError);
					expect((err as ValidationError).parameter).toBe('enabled');
				}
				// an empty selection is the same as none
				expect(validateListQuery(op, { enabled: [] }).enabled).toBeUndefined();
			});

			it(`orders by ${keys === 'id' ? 'property key id' : 'field name'}, - for descending`, () => {
				const good = keys === 'id' ? 12 : 'updated_time';
				const bad = keys === 'id' ? 'updated_time' : 12;
				expect(listParams(validateListQuery(op, { ordering: { key: good, direction: 'asc' } }))).toEqual([['ordering', `${good}`]]);
				expect(listParams(validateListQuery(op, { ordering: { key: good, direction: 'desc' } }))).toEqual([['ordering', `-${good}`]]);
				for (const key of [bad, '', -3, 'a b', '-12', '-updated_time']) {
					const err = thrown(() => validateListQuery(op, { ordering: { key, direction: 'asc' } }));
					expect(err).toBeInstanceOf(ValidationError);
					expect((err as ValidationError).parameter).toBe('ordering');
				}
				expect(() => validateListQuery(op, { ordering: { key: good, direction: 'down' as 'asc' } })).toThrow(ValidationError);
			});

			it(`filters by ${keys === 'id' ? 'property key id' : 'field name'}`, () => {
				const good = keys === 'id' ? 12 : 'updated_time';
				const bad = keys === 'id' ? 'updated_time' : 12;
				const v = validateListQuery(op, { filters: [{ key: good, conditions: [{ keyword: 'newer', value: '2026-01-01' }] }] });
				expect(listParams(v)).toEqual([[`${good}`, 'newer"2026-01-01"']]);
				const err = thrown(() => validateListQuery(op, { filters: [{ key: bad, conditions: [{ keyword: 'newer', value: '2026-01-01' }] }] }));
				expect(err).toBeInstanceOf(ValidationError);
				expect((err as ValidationError).parameter).toBe('filters[0]');
			});
		});
	}

	it('passes search through, omits an empty one, rejects a non-string', () => {
		expect(listParams(validateListQuery('device.list', { search: 'pump A&B' }))).toEqual([['search', 'pump A&B']]);
		expect(queryString(listParams(validateListQuery('device.list', { search: 'pump A&B' })))).toBe('?search=pump+A%26B');
		expect(listParams(validateListQuery('device.list', { search: '' }))).toEqual([]);
		expect(() => validateListQuery('device.list', { search: 42 as unknown as string })).toThrow(ValidationError);
	});

	it('rejects two filters on the same key (also 5 and "5"), naming the second', () => {
		const c = [{ keyword: 'greaterThan', value: 1 }];
		const err = thrown(() => validateListQuery('device.list', { filters: [{ key: 5, conditions: c }, { key: 6, conditions: c }, { key: '5', conditions: c }] }));
		expect(err).toBeInstanceOf(ValidationError);
		expect((err as ValidationError).parameter).toBe('filters[2]');
		expect(err.message).toMatch(/AND or OR/);
		expect(() =>
			validateListQuery('project.list', {
				filters: [
					{ key: 'updated_time', conditions: [{ keyword: 'newer', value: '2026-01-01' }] },
					{ key: 'updated_time', conditions: [{ keyword: 'olderThan', value: '2026-02-01' }] },
				],
			}),
		).toThrow(ValidationError);
	});

	it('names the failing filter by index', () => {
		const err = thrown(() =>
			validateListQuery('device.list', {
				filters: [
					{ key: 5, conditions: [{ keyword: 'contains', value: 'a' }] },
					{ key: 6, conditions: [{ keyword: 'greaterThan', value: 'abc' }] },
				],
			}),
		);
		expect((err as ValidationError).parameter).toContain('filters[1]');
	});
});

describe('validateLimit', () => {
	it('accepts 1..1000', () => {
		expect(validateLimit(1)).toBe(1);
		expect(validateLimit(1000)).toBe(1000);
		expect(validateLimit(250)).toBe(250);
	});
	for (const bad of [0, -1, 1.5, NaN, Infinity, 1001, '10', null, undefined]) {
		it(`rejects ${String(bad)} (${typeof bad}) naming the parameter`, () => {
			const err = thrown(() => validateLimit(bad, 'pageSize'));
			expect(err).toBeInstanceOf(ValidationError);
			expect((err as ValidationError).parameter).toBe('pageSize');
			expect(err.message).toContain('1000');
		});
	}
	it('property: accepts exactly the whole numbers from 1 to max', () => {
		fc.assert(
			fc.property(fc.oneof(fc.integer({ min: -5, max: 1005 }), fc.double()), fc.integer({ min: 1, max: 5000 }), (n, max) => {
				const ok = Number.isInteger(n) && n >= 1 && n <= max;
				if (ok) expect(validateLimit(n, 'limit', max)).toBe(n);
				else expect(() => validateLimit(n, 'limit', max)).toThrow(ValidationError);
			}),
		);
	});
});

describe('listParams and queryString', () => {
	const v = validateListQuery('device.list', {
		enabled: [1, 2],
		ordering: { key: 12, direction: 'desc' },
		search: 'pump',
		filters: [
			{ key: 5, conditions: [{ keyword: 'contains', value: 'abc' }] },
			{ key: 7, conditions: [{ keyword: 'greaterThan', value: 1 }, { keyword: 'lessThan', value: 9 }] },
		],
	});

	it('puts parameters in a fixed order', () => {
		expect(listParams(v, { limit: 50, offset: 100 })).toEqual([
			['enabled', '[1,2]'],
			['ordering', '-12'],
			['search', 'pump'],
			['5', 'contains"abc"'],
			['7', 'greaterThanAND"1"\\lessThanAND"9"'],
			['limit', '50'],
			['offset', '100'],
		]);
	});

	it('gives the exact query string, without offset 0', () => {
		expect(queryString(listParams(v, { limit: 50, offset: 100 }))).toBe(
			'?enabled=%5B1%2C2%5D&ordering=-12&search=pump&5=contains%22abc%22&7=greaterThanAND%221%22%5ClessThanAND%229%22&limit=50&offset=100',
		);
		expect(queryString(listParams(v, { limit: 50, offset: 0 }))).toBe(
			'?enabled=%5B1%2C2%5D&ordering=-12&search=pump&5=contains%22abc%22&7=greaterThanAND%221%22%5ClessThanAND%229%22&limit=50',
		);
		expect(queryString([])).toBe('');
		expect(queryString(listParams(validateListQuery('project.list', {})))).toBe('');
	});
});

describe('delete', () => {
	it('deleteParams is the direct_delete flag or nothing', () => {
		expect(deleteParams(true)).toEqual([['direct_delete', 'true']]);
		expect(deleteParams(false)).toEqual([]);
	});

	it('ServiceClient.delete sends DELETE to the item, with direct_delete only when asked', async () => {
		const clock = newClock();
		const r = router(clock, () => json(200, { ok: true }));
		const client = new ServiceClient({ baseUrl: BASE, request: r.request, clock });
		await clock.run(client.delete('device.delete', 42, false));
		await clock.run(client.delete('customer.delete', '7', true));
		expect(r.calls.map((c) => [c.method, c.url])).toEqual([
			['DELETE', `${API}/data/devices/delete/42/`],
			['DELETE', `${API}/data/customers/delete/7/?direct_delete=true`],
		]);
		await expect(clock.run(client.delete('device.delete', '../x', true, 'deviceId'))).rejects.toMatchObject({ name: 'ValidationError', parameter: 'deviceId' });
		expect(r.calls).toHaveLength(2);
	});
});

describe('parseEnabled', () => {
	it('round-trips what listParams writes (property)', () => {
		fc.assert(
			fc.property(fc.array(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), { maxLength: 20 }), fc.boolean(), (ids, spaced) => {
				const written = listParams(validateListQuery('device.list', { enabled: ids }));
				const raw = ids.length === 0 ? '[]' : written[0][1];
				expect(parseEnabled(spaced ? raw.replace(/,/g, ' , ').replace('[', '[ ').replace(']', ' ]') : raw)).toEqual(ids);
				// and through a URL
				const url = new URL(`${API}/data/devices/all/${queryString(written)}`);
				if (ids.length > 0) expect(parseEnabled(url.searchParams.get('enabled')!)).toEqual(ids);
			}),
		);
	});
	for (const bad of ['1,2', '[1,,2]', '[a]', '[0]', '[-1]', '[1.5]', '', '[', '[1,2', '(1,2)', '[1][2]', '[99999999999999999999]']) {
		it(`rejects ${JSON.stringify(bad)}`, () => {
			const err = thrown(() => parseEnabled(bad));
			expect(err).toBeInstanceOf(ValidationError);
			expect((err as ValidationError).parameter).toBe('enabled');
		});
	}
	it('never throws anything but a ValidationError (property)', () => {
		fc.assert(
			fc.property(fc.oneof(fc.string(), fc.array(fc.oneof(fc.nat().map(String), fc.constantFrom(',', ' ', '[', ']', '-', '.'))).map((a) => a.join(''))), (raw) => {
				try {
					const ids = parseEnabled(raw);
					for (const id of ids) expect(Number.isSafeInteger(id) && id > 0).toBe(true);
				} catch (e) {
					expect(e).toBeInstanceOf(ValidationError);
				}
			}),
		);
	});
});
