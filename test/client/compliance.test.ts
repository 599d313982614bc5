/** Compliance figures: the snapshot now and a month from the history of due dates (pure, property-tested). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
	COMPLIANCE_GROUP_BY,
	addDays,
	daysLate,
	monthBefore,
	monthDays,
	monthFigures,
	overdueOn,
	snapshotFigures,
	type DueEntry,
	type SnapshotDevice,
} from '../../client';

const BASE = '2026-01-01';
const day = (n: number) => addDays(BASE, n);
const customers = [
	{ customerId: 1, customerName: 'Acme GmbH' },
	{ customerId: 2, customerName: 'Brightwater Ltd' },
	{ customerId: null, customerName: null },
];
const departments = ['Workshop', 'Laboratory', null];

const device: fc.Arbitrary<SnapshotDevice> = fc.record({
	id: fc.integer({ min: 1, max: 10_000 }),
	customer: fc.constantFrom(...customers),
	department: fc.constantFrom(...departments),
	next: fc.option(fc.integer({ min: -800, max: 800 }), { nil: null }),
}).map(({ id, customer, department, next }) => ({ id, ...customer, department, nextTestDate: next === null ? null : day(next) }));

const entry: fc.Arbitrary<DueEntry> = fc
	.record({
		deviceId: fc.integer({ min: 1, max: 50 }),
		customer: fc.constantFrom(...customers),
		department: fc.constantFrom(...departments),
		due: fc.integer({ min: -60, max: 120 }),
		openedBefore: fc.integer({ min: -30, max: 400 }),
		outcome: fc.constantFrom('open', 'tested', 'deleted', 'moved' as const),
		testedAfterDue: fc.integer({ min: -60, max: 90 }),
		closedAfterTest: fc.integer({ min: 0, max: 10 }),
	})
	.map((r) => {
		const due = day(r.due);
		const openedOn = day(r.due - r.openedBefore);
		const e: DueEntry = { deviceId: r.deviceId, ...r.customer, department: r.department, due, openedOn, firstSeenOverdue: r.openedBefore < 0, outcome: r.outcome };
		if (r.outcome === 'tested') {
			const testedOn = [day(r.due + r.testedAfterDue), openedOn].sort()[1];
			return { ...e, testedOn, closedOn: addDays(testedOn, r.closedAfterTest) };
		}
		return r.outcome === 'open' ? e : { ...e, closedOn: addDays(openedOn, Math.abs(r.testedAfterDue)) };
	});

const sum = <T>(list: T[], f: (t: T) => number) => list.reduce((s, t) => s + f(t), 0);

describe('snapshotFigures', () => {
	it('property: every device counted once per grouping; overdue and due soon by the overdue list rule; compliance the share not overdue', () => {
		fc.assert(
			fc.property(fc.array(device, { maxLength: 80 }), fc.integer({ min: -100, max: 100 }), (devices, t) => {
				const today = day(t);
				const [all] = snapshotFigures(devices, today, 'all');
				expect(all).toMatchObject({ group: 'all', id: null, name: null, devices: devices.length });
				expect(all.overdue).toBe(devices.filter((d) => d.nextTestDate !== null && d.nextTestDate < today).length);
				expect(all.dueWithin30Days).toBe(devices.filter((d) => d.nextTestDate !== null && d.nextTestDate >= today && d.nextTestDate <= addDays(today, 30)).length);
				expect(all.withoutDueDate).toBe(devices.filter((d) => d.nextTestDate === null).length);
				for (const groupBy of COMPLIANCE_GROUP_BY) {
					const groups = snapshotFigures(devices, today, groupBy);
					for (const field of ['devices', 'overdue', 'dueWithin30Days', 'withoutDueDate'] as const) expect(sum(groups, (g) => g[field])).toBe(all[field]);
					for (const g of groups) {
						expect(g.group).toBe(groupBy);
						const dated = g.devices - g.withoutDueDate;
						expect(g.compliance).toBe(dated === 0 ? null : (dated - g.overdue) / dated);
						if (g.compliance !== null) expect(g.compliance).toBeGreaterThanOrEqual(0);
						if (g.compliance !== null) expect(g.compliance).toBeLessThanOrEqual(1);
					}
					expect(new Set(groups.map((g) => String(g.id))).size).toBe(groups.length);
				}
			}),
			{ numRuns: 500 },
		);
	});

	it('names groups by customer ID and name, or by department; devices with neither come last; no devices still gives the "all" group', () => {
		const devices: SnapshotDevice[] = [
			{ id: 1, customerId: 2, customerName: 'Brightwater Ltd', department: 'Workshop', nextTestDate: '2026-02-01' },
			{ id: 2, customerId: 1, customerName: 'Acme GmbH', department: null, nextTestDate: '2026-03-20' },
			{ id: 3, customerId: null, customerName: null, department: 'Workshop', nextTestDate: null },
		];
		expect(snapshotFigures(devices, '2026-03-01', 'customer').map((g) => [g.id, g.name, g.devices, g.overdue, g.dueWithin30Days, g.compliance])).toEqual([
			[1, 'Acme GmbH', 1, 0, 1, 1],
			[2, 'Brightwater Ltd', 1, 1, 0, 0],
			[null, null, 1, 0, 0, null],
		]);
		expect(snapshotFigures(devices, '2026-03-01', 'department').map((g) => [g.id, g.name, g.devices])).toEqual([
			['Workshop', 'Workshop', 2],
			[null, null, 1],
		]);
		expect(snapshotFigures([], '2026-03-01', 'all')).toEqual([{ group: 'all', id: null, name: null, devices: 0, overdue: 0, dueWithin30Days: 0, withoutDueDate: 0, compliance: null }]);
		expect(snapshotFigures([], '2026-03-01', 'customer')).toEqual([]);
	});
});

describe('monthFigures', () => {
	it('property: each due date of the month falls in exactly one outcome; groups add up to all; the rate and days late stay in range', () => {
		fc.assert(
			fc.property(fc.array(entry, { maxLength: 60 }), fc.integer({ min: -40, max: 200 }), (entries, a) => {
				const asOf = day(a);
				const month = '2026-02';
				const [all] = monthFigures(entries, month, asOf, 'all');
				const { first, last } = monthDays(month);
				expect(all.due).toBe(entries.filter((e) => e.due >= first && e.due <= last && e.openedOn <= asOf).length);
				expect(all.testedOnTime + all.testedLate + all.stillOverdue + all.closedWithoutTest + all.notYetDue).toBe(all.due);
				for (const groupBy of COMPLIANCE_GROUP_BY) {
					const groups = monthFigures(entries, month, asOf, groupBy);
					for (const field of ['due', 'testedOnTime', 'testedLate', 'stillOverdue', 'closedWithoutTest', 'notYetDue', 'firstSeenOverdue'] as const) {
						expect(sum(groups, (g) => g[field])).toBe(all[field]);
					}
					for (const g of groups) {
						const counted = g.testedOnTime + g.testedLate + g.stillOverdue;
						expect(g.onTimeRate).toBe(counted === 0 ? null : g.testedOnTime / counted);
						expect(g.maxDaysLate === null).toBe(g.testedLate === 0);
						if (g.maxDaysLate !== null) {
							expect(g.medianDaysLate).toBeGreaterThanOrEqual(1);
							expect(g.medianDaysLate).toBeLessThanOrEqual(g.maxDaysLate);
						}
					}
				}
				// Read as of a later day, nothing the history knew disappears from the month.
				const later = monthFigures(entries, month, addDays(asOf, 30), 'all')[0];
				expect(later.due).toBeGreaterThanOrEqual(all.due);
				expect(later.testedOnTime).toBeGreaterThanOrEqual(all.testedOnTime);
			}),
			{ numRuns: 500 },
		);
	});

	it('counts a late test with its days late, a device first seen overdue, a deleted one and one whose date moved; the month before is its own', () => {
		const base = { customerId: 1, customerName: 'Acme GmbH', department: 'Workshop', firstSeenOverdue: false };
		const entries: DueEntry[] = [
			{ ...base, deviceId: 1, due: '2026-02-10', openedOn: '2025-02-10', outcome: 'tested', testedOn: '2026-02-03', closedOn: '2026-02-03' },
			{ ...base, deviceId: 2, due: '2026-02-10', openedOn: '2025-02-10', outcome: 'tested', testedOn: '2026-02-10', closedOn: '2026-02-11' },
			{ ...base, deviceId: 3, due: '2026-02-05', openedOn: '2025-02-05', outcome: 'tested', testedOn: '2026-02-28', closedOn: '2026-02-28' },
			{ ...base, deviceId: 4, due: '2026-02-01', openedOn: '2026-02-20', firstSeenOverdue: true, outcome: 'tested', testedOn: '2026-03-03', closedOn: '2026-03-03' },
			{ ...base, deviceId: 5, due: '2026-02-12', openedOn: '2025-02-12', outcome: 'deleted', closedOn: '2026-02-20' },
			{ ...base, deviceId: 6, due: '2026-02-14', openedOn: '2025-02-14', outcome: 'moved', closedOn: '2026-01-20' },
			{ ...base, deviceId: 7, due: '2026-02-27', openedOn: '2025-02-27', outcome: 'open', customerId: 2, customerName: 'Brightwater Ltd' },
			{ ...base, deviceId: 8, due: '2026-01-31', openedOn: '2025-01-31', outcome: 'open' },
		];
		const [feb] = monthFigures(entries, '2026-02', '2026-02-28', 'all');
		expect(feb).toMatchObject({ due: 7, testedOnTime: 2, testedLate: 1, medianDaysLate: 23, maxDaysLate: 23, stillOverdue: 2, closedWithoutTest: 2, notYetDue: 0, firstSeenOverdue: 1, onTimeRate: 2 / 5 });
		// A month later device 4's late test is known.
		expect(monthFigures(entries, '2026-02', '2026-03-31', 'all')[0]).toMatchObject({ testedLate: 2, medianDaysLate: 26.5, maxDaysLate: 30, stillOverdue: 1 });
		// Counted where it was due: device 7 under its customer on the due date.
		expect(monthFigures(entries, '2026-02', '2026-02-28', 'customer').map((g) => [g.id, g.due, g.stillOverdue])).toEqual([
			[1, 6, 1],
			[2, 1, 1],
		]);
		expect(monthFigures(entries, '2026-01', '2026-01-31', 'all')[0]).toMatchObject({ due: 1, notYetDue: 1, onTimeRate: null });
		expect(overdueOn(entries, '2026-03-01', 'all')[0].overdue).toBe(3);
		expect(daysLate('2026-02-05', '2026-02-01')).toBe(0);
	});

	it('months count across years both ways', () => {
		expect(monthBefore('2026-01')).toBe('2025-12');
		expect(monthBefore('2026-01', 12)).toBe('2025-01');
		expect(monthBefore('2025-12', -1)).toBe('2026-01');
		expect(monthDays('2024-02')).toEqual({ first: '2024-02-01', last: '2024-02-29' });
		fc.assert(
			fc.property(fc.integer({ min: 3, max: 9996 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: -30, max: 30 }), (y, m, k) => {
				const month = `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}`;
				expect(monthBefore(monthBefore(month, k), -k)).toBe(month);
				expect(addDays(monthDays(month).last, 1)).toBe(`${monthBefore(month, -1)}-01`);
			}),
		);
	});
});
