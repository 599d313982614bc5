import { describe, expect, it } from 'vitest';
import { SizingStore } from '../../bench/sizingStore';
import { NS } from '../../lambdas/pollers/state';

/** The bench's store weighs items as DynamoDB bills them: the rebuild row's sizes and write units rest on it. */

const tests = NS.tests('sandbox');

describe('SizingStore', () => {
	it('weighs each item as the JSON of pk, sk, v and expiresAt (seconds), and counts started KBs and batches of 25', async () => {
		const store = new SizingStore();
		const items = Array.from({ length: 26 }, (_, i) => ({ key: String(i + 1), value: { device: 7, on: '2026-01-02', failed: i % 2 === 0 }, expiresAt: 1_800_000_000_500 }));
		await store.putMany(tests, items);
		const expected = items.map((i) => Buffer.byteLength(JSON.stringify({ pk: tests, sk: i.key, v: i.value, expiresAt: 1_800_000_001 })));

		expect(store.written().tests).toEqual({ items: 26, bytes: expected.reduce((s, b) => s + b, 0), wru: 26, batches: 2 });
		expect(store.held().tests).toEqual({ items: 26, bytes: expected.reduce((s, b) => s + b, 0), largest: Math.max(...expected) });
	});

	it('bills an item over 1 KB a write unit per started KB, and keeps only the last write of a key', async () => {
		const store = new SizingStore();
		const history = NS.dueDates('sandbox');
		const value = (n: number) => ({ device: { seenOn: '2026-01-02' }, entries: Array.from({ length: n }, () => ({ due: '2026-01-01', openedOn: '2025-01-01', firstSeenOverdue: false, outcome: 'open' })) });
		await store.putMany(history, [{ key: '1', value: value(1) }]);
		await store.putMany(history, [{ key: '1', value: value(40) }]);
		const big = Buffer.byteLength(JSON.stringify({ pk: history, sk: '1', v: value(40) }));

		expect(big).toBeGreaterThan(2048);
		expect(store.written().dueDates.items).toBe(2);
		expect(store.written().dueDates.wru).toBe(1 + Math.ceil(big / 1024));
		expect(store.held().dueDates).toEqual({ items: 1, bytes: big, largest: big });
	});

	it('reads back what it was given, checked against the stored shapes as the DynamoDB adapter does', async () => {
		const store = new SizingStore();
		await store.putMany(tests, [{ key: '5', value: { device: 3, on: '2026-02-03', failed: false } }]);
		expect(await store.get(tests, '5')).toEqual({ device: 3, on: '2026-02-03', failed: false });
		await store.putMany(tests, [{ key: '6', value: { device: 'three' } }]);
		await expect(async () => {
			for await (const _ of store.list(tests));
		}).rejects.toThrow(/bad stored value at tests:sandbox › 6/);
	});
});
