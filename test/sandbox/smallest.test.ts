import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { smallest } from '../../sandbox/listing';

describe('smallest (the page cut of an ordered list)', () => {
	it('equals sorting everything and taking the first k', () => {
		fc.assert(
			fc.property(fc.array(fc.integer({ min: -50, max: 50 }), { maxLength: 400 }), fc.nat({ max: 120 }), (values, k) => {
				const items = values.map((v, id) => ({ v, id }));
				const order = (a: { v: number; id: number }, b: { v: number; id: number }) => a.v - b.v || a.id - b.id;
				expect(smallest([...items], k, order)).toEqual([...items].sort(order).slice(0, k));
			}),
		);
	});
});
