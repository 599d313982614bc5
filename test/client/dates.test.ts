/** Calendar days as numbers, and the service's today read from overdue records (once per record in a scan). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EPOCH_DAY_RANGE, dayIn, dayOfEpochDay, epochDay, serviceTodayOf, serviceTodayOfPage, todayOf } from '../../client';

const DAY_MS = 86_400_000;
const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** The reference: a Date set field by field (no two-digit-year mapping), kept only when it did not roll over. */
function referenceEpochDay(year: number, month: number, day: number): number | undefined {
	const date = new Date(0);
	date.setUTCFullYear(year, month - 1, day);
	if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
	return date.getTime() / DAY_MS;
}

describe('epochDay', () => {
	it('property: agrees with the calendar for any YYYY-MM-DD shape, real day or not, whatever follows it', () => {
		fc.assert(
			fc.property(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 }), fc.constantFrom('', 'T10:00:00Z', ' 08:15', 'x'), (y, m, d, tail) => {
				expect(epochDay(`${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}${tail}`)).toBe(referenceEpochDay(y, m, d));
			}),
			{ numRuns: 5000 },
		);
		expect(epochDay('1970-01-01')).toBe(0);
		expect(epochDay('2024-02-29')).toBe(19_782);
		expect(epochDay('2023-02-29')).toBeUndefined();
		expect(epochDay('2000-02-29')).toBe(11_016);
		expect(epochDay('1900-02-29')).toBeUndefined();
		for (const text of ['', '2026-1-01', '26-01-01', 'x2026-01-01', '２０２６-01-01']) expect(epochDay(text), text).toBeUndefined();
	});

	it('property: dayOfEpochDay writes back the day read, over the whole four-digit range', () => {
		fc.assert(
			fc.property(fc.integer({ min: EPOCH_DAY_RANGE.first, max: EPOCH_DAY_RANGE.last }), (n) => {
				expect(epochDay(dayOfEpochDay(n))).toBe(n);
			}),
			{ numRuns: 2000 },
		);
		expect([dayOfEpochDay(EPOCH_DAY_RANGE.first), dayOfEpochDay(EPOCH_DAY_RANGE.last)]).toEqual(['0000-01-01', '9999-12-31']);
	});
});

describe("the service's today from overdue records", () => {
	it('property: never throws on any record; a real day plus whole days overdue is that later day', () => {
		const record = fc.record(
			{
				next_test_date: fc.oneof(fc.anything(), fc.string(), fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10))),
				days_overdue: fc.oneof(fc.anything(), fc.integer(), fc.integer({ min: -400, max: 4000 }), fc.double()),
			},
			{ requiredKeys: [] },
		);
		fc.assert(
			fc.property(fc.oneof(fc.anything(), record), (raw) => {
				const today = serviceTodayOf(raw);
				const r = raw as { next_test_date?: unknown; days_overdue?: unknown } | null;
				if (today === undefined) return;
				expect(today).toMatch(/^\d{4}-\d{2}-\d{2}$/);
				const next = r?.next_test_date as string;
				const expected = (Date.parse(`${next.slice(0, 10)}T00:00:00Z`) + (r?.days_overdue as number) * DAY_MS) / DAY_MS;
				expect(epochDay(today)).toBe(expected);
			}),
			{ numRuns: 3000 },
		);
	});

	it('a record whose next test date is not a real day tells nothing, and stops nothing', () => {
		for (const next_test_date of ['2026-13-01', '2026-99-99', '2026-02-30', '2026-00-10']) {
			expect(serviceTodayOf({ next_test_date, days_overdue: 1 }), next_test_date).toBeUndefined();
		}
		expect(serviceTodayOf({ next_test_date: '9999-12-31', days_overdue: 1 })).toBeUndefined();
		expect(serviceTodayOf({ next_test_date: '2026-08-26', days_overdue: 89 })).toBe('2026-11-23');
		expect(serviceTodayOf({ next_test_date: '2026-08-26T00:00:00Z', days_overdue: 89 })).toBe('2026-11-23');
	});

	it('property: a page tells the latest today of its records', () => {
		const record = fc.oneof(
			fc.anything(),
			fc.record({ next_test_date: fc.date({ min: new Date('1990-01-01'), max: new Date('2040-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)), days_overdue: fc.integer({ min: 0, max: 3000 }) }),
		);
		fc.assert(
			fc.property(fc.array(record, { maxLength: 20 }), (page) => {
				const days = page.map(serviceTodayOf).filter((d): d is string => d !== undefined);
				expect(serviceTodayOfPage(page)).toBe(days.length === 0 ? undefined : days.reduce((a, b) => (a >= b ? a : b)));
			}),
		);
	});
});

describe('todayOf: one rule for "today" on every face', () => {
	it('the calendar day in the face’s time zone, whatever day the service shows (property)', () => {
		const at = Date.parse('2026-11-30T12:00:00Z');
		expect(todayOf(at, 'Pacific/Auckland')).toBe('2026-12-01');
		expect(todayOf(at, 'UTC')).toBe('2026-11-30');
		// 20:00 on 30 November in Los Angeles is 04:00 UTC on 1 December: the face's day is the 30th.
		expect(todayOf(Date.parse('2026-12-01T04:00:00Z'), 'America/Los_Angeles')).toBe('2026-11-30');
		fc.assert(
			fc.property(fc.integer({ min: 0, max: 4_000_000_000_000 }), fc.constantFrom('UTC', 'Europe/Berlin', 'America/Los_Angeles', 'Pacific/Auckland', 'Asia/Kolkata', 'Pacific/Kiritimati', 'Pacific/Pago_Pago'), (ms, zone) => {
				const today = todayOf(ms, zone);
				expect(today).toBe(dayIn(ms, zone));
				// The zone's day is the UTC day of the instant moved by the zone's offset at that instant.
				const offset = Date.parse(new Date(ms).toLocaleString('sv-SE', { timeZone: zone }).replace(' ', 'T') + 'Z') - Math.floor(ms / 1000) * 1000;
				expect(today).toBe(dayOfEpochDay(Math.floor((ms + offset) / DAY_MS)));
				expect(Math.abs(epochDay(today)! - Math.floor(ms / DAY_MS))).toBeLessThanOrEqual(1);
			}),
		);
	});
});
