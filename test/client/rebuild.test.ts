import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_INTERVAL_MONTHS, addDays, addMonths, monthFigures, noSkips, rebuildDueEntries, rebuildReach, usableInterval, type RebuildDevice } from '../../client';

const device = (over: Partial<RebuildDevice> = {}): RebuildDevice => ({ id: 4, customerId: 2, customerName: 'Hansa AG', department: 'Workshop', testIntervalMonths: 12, createdOn: '2020-01-01', ...over });

describe('rebuildDueEntries: the rules', () => {
	it('each test opens the next due date (t + interval months); the next test closes it, on time or late; the last stays open', () => {
		const entries = rebuildDueEntries(device(), ['2024-03-10', '2025-03-01', '2026-04-20'], '2026-11-27');
		expect(entries.map((e) => [e.due, e.openedOn, e.outcome, e.testedOn ?? null])).toEqual([
			['2025-03-10', '2024-03-10', 'tested', '2025-03-01'],
			['2026-03-01', '2025-03-01', 'tested', '2026-04-20'],
			['2027-04-20', '2026-04-20', 'open', null],
		]);
		expect(entries.every((e) => e.rebuilt === true && e.firstSeenOverdue === false && e.customerName === 'Hansa AG' && e.department === 'Workshop')).toBe(true);
		const [march] = monthFigures(entries, '2026-03', '2026-11-27', 'all');
		expect(march).toMatchObject({ due: 1, testedOnTime: 0, testedLate: 1, medianDaysLate: 50 });
	});

	it('months as the service counts them: the 31st plus one month is the last day of the next', () => {
		expect(rebuildDueEntries(device({ testIntervalMonths: 1 }), ['2026-01-31'], '2026-02-01')[0].due).toBe('2026-02-28');
	});

	it('a deleted device ends with its last result; a device never tested has no due date', () => {
		expect(rebuildDueEntries(device({ deletedOn: '2026-06-01' }), ['2024-05-01', '2025-05-02'], '2026-11-27').map((e) => [e.due, e.outcome])).toEqual([['2025-05-01', 'tested']]);
		expect(rebuildDueEntries(device(), [], '2026-11-27')).toEqual([]);
	});

	it('refuses and counts: tests after today or before the device was created, a second result on a day, a device without a usable interval', () => {
		const skips = noSkips();
		const entries = rebuildDueEntries(device({ createdOn: '2024-01-01' }), ['2023-12-31', '2024-02-01', '2024-02-01', '2026-12-01'], '2026-11-27', skips);
		expect(entries.map((e) => e.due)).toEqual(['2025-02-01']);
		expect(skips).toEqual({ devicesWithoutInterval: 0, futureTests: 1, testsBeforeCreated: 1, sameDayTests: 1 });
		for (const bad of [null, 0, -6, 600, 1.5]) {
			const s = noSkips();
			expect(rebuildDueEntries(device({ testIntervalMonths: bad as number | null }), ['2025-01-01'], '2026-11-27', s), String(bad)).toEqual([]);
			expect(s.devicesWithoutInterval).toBe(1);
		}
	});

	it('usableInterval: whole months from 1 to the maximum, numbers or digit strings', () => {
		expect([1, 12, '24', MAX_INTERVAL_MONTHS].map(usableInterval)).toEqual([1, 12, 24, MAX_INTERVAL_MONTHS]);
		expect([0, -1, 1.5, MAX_INTERVAL_MONTHS + 1, '12 months', '', null, undefined, Number.NaN].map(usableInterval)).toEqual(Array(9).fill(null));
	});

	it('rebuildReach: the first of the month the retention starts, one longest interval back', () => {
		expect(rebuildReach('2026-11-27', 27, 24)).toBe('2022-08-01');
		expect(rebuildReach('2026-11-27', 27, 0)).toBe('2024-08-01');
	});
});

const day = fc.integer({ min: 0, max: 3000 }).map((n) => addDays('2018-01-01', n));

describe('rebuildDueEntries: properties', () => {
	it('one entry per distinct test day (none after the last when deleted); each due date is its test plus the interval; at most one open, the last; outcomes follow the next test', () => {
		fc.assert(
			fc.property(fc.array(day, { maxLength: 30 }), fc.integer({ min: 1, max: 36 }), fc.boolean(), (days, interval, deleted) => {
				const today = '2026-06-30';
				const skips = noSkips();
				const entries = rebuildDueEntries(device({ testIntervalMonths: interval, createdOn: null, ...(deleted ? { deletedOn: today } : {}) }), days, today, skips);
				const distinct = [...new Set(days)].sort();
				expect(entries.length).toBe(distinct.length === 0 ? 0 : deleted ? distinct.length - 1 : distinct.length);
				expect(skips.sameDayTests).toBe(days.length - distinct.length);
				entries.forEach((e, i) => {
					expect(e.openedOn).toBe(distinct[i]);
					expect(e.due).toBe(addMonths(distinct[i], interval));
					if (i + 1 < distinct.length) expect(e).toMatchObject({ outcome: 'tested', testedOn: distinct[i + 1], closedOn: distinct[i + 1] });
					else expect(e.outcome).toBe('open');
				});
			}),
			{ numRuns: 300 },
		);
	});

	it('the order of the results does not matter', () => {
		fc.assert(
			fc.property(fc.array(day, { maxLength: 20 }).chain((d) => fc.tuple(fc.constant(d), fc.shuffledSubarray(d, { minLength: d.length, maxLength: d.length }))), ([a, b]) => {
				expect(rebuildDueEntries(device(), b, '2026-06-30')).toEqual(rebuildDueEntries(device(), a, '2026-06-30'));
			}),
		);
	});
});
