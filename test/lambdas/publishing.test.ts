import { describe, expect, it } from 'vitest';
import { batches } from '../../lambdas/adapters/eventBridgePublisher';
import { MAX_ENTRY_BYTES, entrySize, makeEvent } from '../../lambdas/events/event';
import { DETAIL_TYPES, type OverdueDevice } from '../../lambdas/events/schemas';
import { buildDigest } from '../../lambdas/pollers/digest';
import { PublishError } from '../../lambdas/ports';
import { schemaErrors } from '../support/eventSchemas';

const device = (id: number, pad = 0): OverdueDevice => ({
	id,
	designation: `Insulation tester ${'x'.repeat(pad)}`,
	idBarcode: `TEC-${id}`,
	department: ['Workshop', 'Office', 'Laboratory'][id % 3],
	customerId: id % 7,
	customerName: `Customer ${id % 7}`,
	lastTestedDate: '2024-01-02',
	nextTestDate: '2025-01-02',
	daysOverdue: 300 + (id % 50),
});

describe('the digest stays inside the PutEvents entry limit', () => {
	it('a digest too large for one entry is cut, and says how many it left out', () => {
		const entries = Array.from({ length: 3000 }, (_, i) => ({ device: device(i + 1, 200), episode: 1 }));
		const digest = buildDigest({ environment: 'sandbox' }, entries, 5000, Date.now());
		const data = digest.detail.data as { count: number; listed: number; truncated: number; groups: Array<{ count: number; devices: unknown[] }> };
		expect(entrySize(digest)).toBeLessThanOrEqual(MAX_ENTRY_BYTES);
		expect(data.count).toBe(3000);
		expect(data.listed).toBeGreaterThan(0);
		expect(data.truncated).toBe(3000 - data.listed);
		expect(data.groups.reduce((n, g) => n + g.count, 0)).toBe(3000);
		expect(data.groups.reduce((n, g) => n + g.devices.length, 0)).toBe(data.listed);
		expect(schemaErrors(digest)).toEqual([]);
	});

	it('groups by customer, then department; the cap applies; the key is stable for the same set', () => {
		const entries = Array.from({ length: 30 }, (_, i) => ({ device: device(i + 1), episode: 1 }));
		const a = buildDigest({ environment: 'sandbox' }, entries, 10, 1);
		const b = buildDigest({ environment: 'sandbox' }, [...entries].reverse(), 10, 2);
		const data = a.detail.data as { listed: number; truncated: number; groups: Array<{ customerName: string; department: string }> };
		expect(data.listed).toBe(10);
		expect(data.truncated).toBe(20);
		const order = data.groups.map((g) => `${g.customerName}/${g.department}`);
		expect(order).toEqual([...order].sort());
		expect(new Set(order).size).toBe(order.length);
		expect(a.detail.metadata.dedupeKey).toBe(b.detail.metadata.dedupeKey);
		expect(buildDigest({ environment: 'sandbox' }, entries.slice(1), 10, 1).detail.metadata.dedupeKey).not.toBe(a.detail.metadata.dedupeKey);
	});
});

describe('PutEvents batching', () => {
	const event = (i: number, bytes = 100) =>
		makeEvent(DETAIL_TYPES.deviceOverdue, 'sandbox', `k${i}`, { device: { ...device(i), designation: 'd'.repeat(bytes) }, episode: 1, reminder: 0 }, 0);

	it('at most 10 entries and 256 KB per call, every event exactly once, in order', () => {
		const events = [...Array.from({ length: 23 }, (_, i) => event(i)), ...Array.from({ length: 6 }, (_, i) => event(100 + i, 60_000))];
		const calls = batches(events);
		for (const call of calls) {
			expect(call.length).toBeLessThanOrEqual(10);
			expect(call.reduce((n, e) => n + entrySize(e), 0)).toBeLessThanOrEqual(MAX_ENTRY_BYTES);
		}
		expect(calls.flat()).toEqual(events);
		// 29 entries need 3 calls by count; 6 × 60 KB cannot share one call: 4 in all.
		expect(calls).toHaveLength(4);
	});

	it('one event over 256 KB is refused with its dedupe key, never dropped silently', () => {
		expect(() => batches([event(1), event(2, 300_000)])).toThrow(PublishError);
		expect(() => batches([event(2, 300_000)])).toThrow(/k2/);
	});
});
