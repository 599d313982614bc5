import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE, FirstRecords, resolveProfile, sortRecords } from '../../client';

/** A device record whose property 1 holds `value` (a record that does not say its data type). */
const device = (id: number, value: unknown) => ({ id, properties: [{ key_id: 1, name: 'Designation', value }] });
const ids = (records: Array<{ id: number }>) => records.map((r) => r.id);

describe('sortRecords', () => {
	it('numbers and texts mixed under one key (records that do not say their type) sort the same whatever order they were read in', () => {
		const value = fc.oneof(fc.integer({ min: -50, max: 50 }), fc.string({ maxLength: 3 }), fc.constant(null));
		fc.assert(
			// Distinct values as compared (text without regard to case; null and "" are both missing), so the order does not depend on ties.
			fc.property(fc.uniqueArray(value, { minLength: 2, maxLength: 12, selector: (v) => (v === null ? '' : String(v).toLowerCase()) }), fc.boolean(), (values, desc) => {
				const records = values.map((v, id) => device(id, v));
				const ordering = { key: 1, direction: desc ? ('desc' as const) : ('asc' as const) };
				const forward = ids(sortRecords(records, ordering, 'device'));
				const backward = ids(sortRecords([...records].reverse(), ordering, 'device'));
				expect(backward).toEqual(forward);
			}),
		);
	});

	it('a record without a value goes where the profile says, in both directions', () => {
		const records = [device(1, 'b'), device(2, null), device(3, 'A'), device(4, '')];
		const order = (ordering: object, direction: 'asc' | 'desc') => ids(sortRecords(records, { key: 1, direction }, 'device', resolveProfile({ ordering })));
		expect(order({}, 'asc')).toEqual([3, 1, 2, 4]);
		expect(order({}, 'desc')).toEqual([1, 3, 2, 4]);
		expect(order({ missing: 'first' }, 'desc')).toEqual([2, 4, 1, 3]);
		expect(order({ missing: 'lowest' }, 'asc')).toEqual([2, 4, 3, 1]);
		expect(order({ missing: 'lowest' }, 'desc')).toEqual([1, 3, 2, 4]);
		expect(order({ missing: 'highest' }, 'desc')).toEqual([2, 4, 1, 3]);
		// Case respected: "A" (65) before "b" (98) as well, but "B" would come before "a".
		expect(ids(sortRecords([device(1, 'a'), device(2, 'B')], { key: 1, direction: 'asc' }, 'device', resolveProfile({ ordering: { textCase: 'respect' } })))).toEqual([2, 1]);
		expect(ids(sortRecords([device(1, 'a'), device(2, 'B')], { key: 1, direction: 'asc' }, 'device', DEFAULT_PROFILE))).toEqual([1, 2]);
	});

	it('a profile with an unknown order is refused, naming the key and what is allowed', () => {
		expect(() => resolveProfile({ ordering: { missing: 'nowhere' } })).toThrow('service profile: ordering.missing: must be last, first, lowest, highest, got "nowhere"');
		expect(() => resolveProfile({ ordering: { textCase: 'upper' } })).toThrow('service profile: ordering.textCase: must be ignore or respect, got "upper"');
	});

	it('the first N kept while reading are the first N of the whole list sorted, holding at most 2 N once the type is known (property)', () => {
		const value = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom('a', 'B', 'b', '10', '9'), fc.constant(null));
		const record = fc.record({ value, declared: fc.constantFrom(undefined, 'Number', 'Text') });
		fc.assert(
			// Half the lists say no type at all: the type is then taken from the values, which may still change.
			fc.property(fc.array(record, { maxLength: 40 }), fc.integer({ min: 1, max: 4 }), fc.boolean(), fc.boolean(), (typedRows, limit, desc, untyped) => {
				const rows = untyped ? typedRows.map((r) => ({ ...r, declared: undefined })) : typedRows;
				const records = rows.map((r, id) => ({ id, properties: [{ key_id: 1, name: 'Designation', value: r.value, ...(r.declared ? { data_type: r.declared } : {}) }] }));
				const ordering = { key: 1, direction: desc ? ('desc' as const) : ('asc' as const) };
				const first = new FirstRecords<(typeof records)[number]>(limit, ordering, 'device');
				let most = 0;
				const typed = records.findIndex((_, n) => rows[n].declared !== undefined);
				records.forEach((r, n) => {
					first.add(r);
					if (typed >= 0 && n >= typed) most = Math.max(most, first.size);
				});
				expect(ids(first.sorted())).toEqual(ids(sortRecords(records, ordering, 'device').slice(0, limit)));
				expect(most).toBeLessThanOrEqual(2 * limit);
			}),
			{ numRuns: 500 },
		);
	});

	it('a field of a list with a declared type lets records go at once (test results by test date)', () => {
		const first = new FirstRecords<{ id: number; test_date: string }>(3, { key: 'test_date', direction: 'desc' }, 'testResult');
		for (let id = 0; id < 100; id++) first.add({ id, test_date: `2024-01-${String(((id * 7) % 28) + 1).padStart(2, '0')}` });
		expect(first.size).toBeLessThanOrEqual(6);
		expect(first.sorted().map((r) => r.test_date)).toEqual(['2024-01-22', '2024-01-22', '2024-01-22']);
	});
});
