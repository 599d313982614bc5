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

	it('tests whose due dates fall on one day (month ends clamp) make one due date: known from the first, ended by the next test after the later one', () => {
		const leap = rebuildDueEntries(device(), ['2024-02-28', '2024-02-29', '2025-03-05'], '2026-11-27');
		expect(leap.map((e) => [e.due, e.openedOn, e.outcome, e.testedOn ?? null])).toEqual([
			['2025-02-28', '2024-02-28', 'tested', '2025-03-05'],
			['2026-03-05', '2025-03-05', 'open', null],
		]);
		// The month's figure: one due date, tested 5 days late (not one on time and one late).
		expect(monthFigures(leap, '2025-02', '2025-03-01', 'all')[0]).toMatchObject({ due: 1, testedOnTime: 0, stillOverdue: 1, onTimeRate: 0 });
		expect(monthFigures(leap, '2025-02', '2025-04-01', 'all')[0]).toMatchObject({ due: 1, testedOnTime: 0, testedLate: 1, maxDaysLate: 5 });
		// The 30th and 31st with 6 months: both due on 30 September; still open.
		expect(rebuildDueEntries(device({ testIntervalMonths: 6 }), ['2026-03-30', '2026-03-31'], '2026-04-01').map((e) => [e.due, e.openedOn, e.outcome])).toEqual([['2026-09-30', '2026-03-30', 'open']]);
		// Deleted after both: its history ends with its last result.
		expect(rebuildDueEntries(device({ deletedOn: '2024-06-01' }), ['2024-02-28', '2024-02-29'], '2026-11-27')).toEqual([]);
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
	it('one entry per distinct due date (none after the last test when deleted), known from its first test; each due date is a test plus the interval; at most one open, the last; outcomes follow the next test after the due date\'s last', () => {
		// Month-end days are drawn often: their due dates clamp onto one day.
		const monthEnd = fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 1, max: 4 })).map(([n, back]) => addDays(addMonths('2024-02-01', n), -back));
		const anyDay = fc.oneof({ arbitrary: day, weight: 1 }, { arbitrary: monthEnd, weight: 3 });
		fc.assert(
			fc.property(fc.array(anyDay, { maxLength: 30 }), fc.integer({ min: 1, max: 36 }), fc.boolean(), (days, interval, deleted) => {
				const today = '2026-06-30';
				const skips = noSkips();
				const entries = rebuildDueEntries(device({ testIntervalMonths: interval, createdOn: null, ...(deleted ? { deletedOn: today } : {}) }), days, today, skips);
				const distinct = [...new Set(days)].sort();
				expect(skips.sameDayTests).toBe(days.length - distinct.length);
				// The tests in order, grouped by the due date each sets.
				const groups: string[][] = [];
				for (const t of distinct) {
					const last = groups.at(-1);
					if (last && addMonths(last[0], interval) === addMonths(t, interval)) last.push(t);
					else groups.push([t]);
				}
				expect(entries.length).toBe(groups.length === 0 ? 0 : deleted ? groups.length - 1 : groups.length);
				expect(new Set(entries.map((e) => e.due)).size).toBe(entries.length);
				entries.forEach((e, i) => {
					expect(e.openedOn).toBe(groups[i][0]);
					expect(e.due).toBe(addMonths(groups[i][0], interval));
					if (i + 1 < groups.length) expect(e).toMatchObject({ outcome: 'tested', testedOn: groups[i + 1][0], closedOn: groups[i + 1][0] });
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
