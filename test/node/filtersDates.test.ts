/**
 * Property-based tests of the Filters builder: its day arithmetic (the day of an instant in a
 * timezone, date values cut to the day the service compares, days from today, the "Within the …"
 * ranges) and the rows → filters encoding.
 */
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { addDays, daysBetween, encodeFilter, isCalendarDate, keywordsFor, parseFilter, validateFilter } from '../../client';
import { filtersFromBuilder, type BuilderContext } from '../../nodes/TestEquipmentCloud/shared/filtersBuilder';
import { fieldKeys } from '../../nodes/TestEquipmentCloud/shared/filtersKeys';
import { DATE_PRESETS, dayIn, dayOfValue, daysFromToday, presetConditions, type DatePreset } from '../../nodes/TestEquipmentCloud/shared/filtersDates';

const MIN = Date.UTC(1971, 0, 1);
const MAX = Date.UTC(2199, 11, 31);
const instant = fc.integer({ min: MIN, max: MAX });
const day = instant.map((ms) => new Date(ms).toISOString().slice(0, 10));
/** Fixed-offset zones (Etc/GMT+5 is UTC−5) whose day is computable without a zone database. */
const fixedZone = fc.integer({ min: -12, max: 14 }).map((h) => ({ zone: h === 0 ? 'UTC' : `Etc/GMT${h > 0 ? '-' : '+'}${Math.abs(h)}`, offsetHours: h }));

describe('dayIn: the calendar day of an instant in a timezone', () => {
	it('in a fixed-offset zone, it is the UTC day of the instant moved by the offset', () => {
		fc.assert(
			fc.property(instant, fixedZone, (ms, { zone, offsetHours }) => {
				expect(dayIn(ms, zone)).toBe(new Date(ms + offsetHours * 3_600_000).toISOString().slice(0, 10));
			}),
		);
	});

	it('in any zone it is a calendar date at most one day from the UTC day', () => {
		const zones = ['America/New_York', 'Europe/Berlin', 'Asia/Kolkata', 'Pacific/Auckland', 'Pacific/Kiritimati', 'Pacific/Pago_Pago'];
		fc.assert(
			fc.property(instant, fc.constantFrom(...zones), (ms, zone) => {
				const local = dayIn(ms, zone);
				expect(isCalendarDate(local)).toBe(true);
				expect(Math.abs(daysBetween(new Date(ms).toISOString().slice(0, 10), local))).toBeLessThanOrEqual(1);
			}),
		);
	});
});

describe('dayOfValue: a date value cut to its day', () => {
	it('the date picker’s value and ISO timestamps keep the day as written, whatever follows it', () => {
		const rest = fc.constantFrom('', 'T00:00:00', 'T23:59:59.999+14:00', 'T12:00:00Z', ' 08:30', 'T05:00:00.000-11:00');
		fc.assert(
			fc.property(day, rest, fc.constantFrom('UTC', 'Pacific/Kiritimati'), (d, tail, zone) => {
				expect(dayOfValue(`${d}${tail}`, zone)).toBe(d);
				expect(dayOfValue(`  ${d}${tail}  `, zone)).toBe(d);
			}),
		);
	});

	it('a JavaScript Date or a Luxon DateTime (in any zone of its own) is its day in the workflow’s timezone', () => {
		fc.assert(
			fc.property(instant, fixedZone, fixedZone, (ms, { zone }, own) => {
				expect(dayOfValue(new Date(ms), zone)).toBe(dayIn(ms, zone));
				expect(dayOfValue(DateTime.fromMillis(ms).setZone(own.zone), zone)).toBe(dayIn(ms, zone));
			}),
		);
		// `{{ $now.setZone('UTC') }}` at 02:00 UTC is still the 15th in New York.
		expect(dayOfValue(DateTime.fromISO('2026-03-16T02:00:00Z').setZone('UTC'), 'America/New_York')).toBe('2026-03-15');
	});

	it('anything that is not a calendar date is refused (no rollover of 2026-02-30 into March)', () => {
		const notDay = fc.oneof(
			fc.string().filter((s) => !/^\s*\d{4}-\d{2}-\d{2}(?:$|[T ])/.test(s.trim())),
			fc.tuple(fc.integer({ min: 1000, max: 9999 }), fc.integer({ min: 13, max: 99 }), fc.integer({ min: 1, max: 28 })).map(([y, m, d]) => `${y}-${m}-${String(d).padStart(2, '0')}`),
			fc.tuple(fc.integer({ min: 1000, max: 9999 }), fc.integer({ min: 1, max: 12 })).map(([y, m]) => `${y}-${String(m).padStart(2, '0')}-32`),
			fc.constantFrom('2026-02-30', '2025-02-29', '2026-04-31', '2026-00-10', '20260316', '16.03.2026'),
		);
		fc.assert(
			fc.property(notDay, (text) => {
				expect(dayOfValue(text, 'UTC')).toBeUndefined();
			}),
		);
		for (const v of [undefined, null, 42, true, {}, new Date(Number.NaN), { toMillis: () => Number.NaN }]) expect(dayOfValue(v, 'UTC')).toBeUndefined();
	});
});

describe('days from today and the ranges', () => {
	it('days from today moves by exactly that many calendar days, and back', () => {
		fc.assert(
			fc.property(day, fc.integer({ min: -36_500, max: 36_500 }), (today, n) => {
				const target = daysFromToday(today, n);
				expect(isCalendarDate(target)).toBe(true);
				expect(daysBetween(today, target)).toBe(n);
				expect(daysFromToday(target, -n)).toBe(today);
			}),
		);
	});

	it('a range is newerOrSame its first day AND olderOrSame its last; it spans N days and touches today', () => {
		fc.assert(
			fc.property(day, fc.integer({ min: 0, max: 36_500 }), fc.constantFrom(...(Object.keys(DATE_PRESETS) as DatePreset[])), (today, n, preset) => {
				const [from, to] = presetConditions(preset, today, n);
				expect(from.keyword).toBe('newerOrSame');
				expect(to.keyword).toBe('olderOrSame');
				expect(daysBetween(from.value, to.value)).toBe(n);
				expect(preset === 'withinNext' ? from.value : to.value).toBe(today);
				expect(preset === 'withinNext' ? to.value : from.value).toBe(addDays(today, preset === 'withinNext' ? n : -n));
			}),
		);
	});
});

describe('the builder: rows → the service’s filters', () => {
	const fields = fieldKeys('testResult');
	const ctx = (today: string): BuilderContext => ({ resource: 'testResult', timeZone: 'UTC', today: () => today, keys: async () => fields });
	const text = fc.string({ maxLength: 12 }).filter((s) => !s.includes('"') && !s.includes('\\') && !/[\uD800-\uDFFF]/.test(s));
	const row = fc.oneof(
		fc.record({ key: fc.constantFrom('status|Text', 'tester|Text'), textCondition: fc.constantFrom(...keywordsFor('Text')), textValue: text }),
		fc.record({ key: fc.constantFrom('device_id|Number', 'id|Number'), numberCondition: fc.constantFrom(...keywordsFor('Number')), numberValue: fc.integer({ min: -1e6, max: 1e6 }) }),
		fc.record({ key: fc.constantFrom('test_date|Date'), dateCondition: fc.constantFrom(...keywordsFor('Date')), dateValue: day.map((d) => `${d}T00:00:00`) }),
		fc.record({ key: fc.constantFrom('test_date|Date'), dateCondition: fc.constantFrom(...keywordsFor('Date')), dateValueMode: fc.constant('relative'), daysFromToday: fc.integer({ min: -3650, max: 3650 }) }),
		fc.record({ key: fc.constantFrom('test_date|Date'), dateCondition: fc.constantFrom('withinNext', 'withinLast'), days: fc.integer({ min: 0, max: 3650 }) }),
	);

	it('one filter per field, every row’s conditions in order, joined as set; each encodes and parses back', async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(row, { maxLength: 6 }), fc.constantFrom('AND', 'OR'), day, async (rows, join, today) => {
				const hasRangeBeside = rows.some((r) => 'days' in r) && rows.filter((r) => r.key === 'test_date|Date').length > 1;
				const built = filtersFromBuilder({ filter: rows }, join, ctx(today));
				if (join === 'OR' && hasRangeBeside) {
					await expect(built).rejects.toThrow(/is a range that needs AND/);
					return;
				}
				const { filters } = await built;
				const keys = [...new Set(rows.map((r) => r.key.split('|')[0]))];
				expect(filters.map((f) => String(f.key))).toEqual(keys);
				for (const f of filters) {
					const own = rows.filter((r) => r.key.startsWith(`${String(f.key)}|`));
					const expectedCount = own.reduce((n, r) => n + ('days' in r ? 2 : 1), 0);
					expect(f.conditions).toHaveLength(expectedCount);
					const canonical = validateFilter(f, 'fieldName');
					const [name, value] = encodeFilter(canonical);
					expect(parseFilter(name, value, 'fieldName')).toEqual(canonical);
					if (expectedCount > 1) expect(canonical.join).toBe(own.length === 1 ? 'AND' : join);
				}
			}),
			{ numRuns: 300 },
		);
	});
});
