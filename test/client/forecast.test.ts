/** The workload ahead: due dates in each of the next 12 months, overdue now (pure, property-tested). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COMPLIANCE_GROUP_BY, addMonths, allForecasts, forecast, forecastDeviceOf, forecastMonths, usableInterval, type ComplianceGroupBy, type ForecastDevice } from '../../client';

const customers = [
	{ customerId: 1, customerName: 'Acme GmbH' },
	{ customerId: 2, customerName: 'Brightwater Ltd' },
	{ customerId: null, customerName: null },
];

const dayArb = fc.date({ min: new Date('2020-01-01'), max: new Date('2030-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));

const deviceArb = (id: number): fc.Arbitrary<ForecastDevice> =>
	fc
		.record({
			department: fc.constantFrom('Workshop', 'Office', null),
			customer: fc.constantFrom(...customers),
			next: fc.oneof(dayArb, fc.constantFrom(null, '2026-02-30', 'soon')),
			interval: fc.constantFrom(1, 2, 3, 5, 6, 11, 12, 13, 24, 0, -3, 600, 1.5, null),
		})
		.map(({ department, customer, next, interval }) => ({ id, department, ...customer, nextTestDate: next, testIntervalMonths: interval }));

const devicesArb = fc.array(fc.nat(40), { maxLength: 40 }).chain((ids) => fc.tuple(...[...new Set(ids)].map((id) => deviceArb(id + 1))));
const groupByArb = fc.constantFrom<ComplianceGroupBy>(...COMPLIANCE_GROUP_BY);

/** Months from `from` (YYYY-MM) to `to`. */
const monthsBetween = (from: string, to: string) => Number(to.slice(0, 4)) * 12 + Number(to.slice(5, 7)) - (Number(from.slice(0, 4)) * 12 + Number(from.slice(5, 7)));
const isDay = (s: string | null) => s !== null && /^\d{4}-\d{2}-\d{2}$/.test(s) && new Date(`${s}T00:00:00Z`).toISOString().slice(0, 10) === s;

/** How often a device falls due in the horizon, by the rule stated in docs/compliance.md, counted without the module. */
function expectedCount(d: ForecastDevice, today: string): number {
	if (!isDay(d.nextTestDate)) return 0;
	const interval = usableInterval(d.testIntervalMonths);
	const overdue = d.nextTestDate! < today;
	if (interval === null) return !overdue && monthsBetween(today, d.nextTestDate!) <= 11 ? 1 : 0;
	// Tested on its due date (today when overdue): due again every `interval` months; the last month is 11 after today's.
	const first = overdue ? monthsBetween(today, today) + interval : monthsBetween(today, d.nextTestDate!);
	return first > 11 ? 0 : Math.floor((11 - first) / interval) + 1;
}

describe('forecast', () => {
	it('12 months from today’s, the first one counted from today; each group’s months sum to its due dates; groups sum to the account', () => {
		fc.assert(
			fc.property(devicesArb, dayArb, groupByArb, (devices, today, groupBy) => {
				const f = forecast(devices, today, groupBy);
				const [all] = forecast(devices, today, 'all').groups;
				expect(f.groups.every((g) => g.months.map((m) => m.month).join() === forecastMonths(today).join())).toBe(true);
				expect(f.groups.every((g) => g.dueInHorizon === g.months.reduce((n, m) => n + m.due, 0))).toBe(true);
				for (const k of ['devices', 'overdue', 'withoutDueDate', 'withoutInterval', 'dueInHorizon'] as const) expect(f.groups.reduce((n, g) => n + g[k], 0), k).toBe(all[k]);
				for (const [i, month] of all.months.entries()) expect(f.groups.reduce((n, g) => n + g.months[i].due, 0), month.month).toBe(month.due);
				expect(all.devices).toBe(devices.length);
				expect(f.from).toBe(today);
				expect(f.to.slice(0, 7)).toBe(addMonths(today, 11).slice(0, 7));
			}),
		);
	});

	it('every device with a next test date appears as often as the rule says; none without one; an interval of 12 months or more at most once', () => {
		fc.assert(
			fc.property(devicesArb, dayArb, (devices, today) => {
				const [all] = forecast(devices, today, 'all').groups;
				expect(all.dueInHorizon).toBe(devices.reduce((n, d) => n + expectedCount(d, today), 0));
				expect(all.withoutDueDate).toBe(devices.filter((d) => !isDay(d.nextTestDate)).length);
				expect(all.overdue).toBe(devices.filter((d) => isDay(d.nextTestDate) && d.nextTestDate! < today).length);
				for (const d of devices) {
					const [one] = forecast([d], today, 'all').groups;
					expect(one.dueInHorizon).toBe(expectedCount(d, today));
					if ((usableInterval(d.testIntervalMonths) ?? 12) >= 12) expect(one.dueInHorizon).toBeLessThanOrEqual(1);
					// Intervals are whole months: a device falls due at most once a month.
					expect(one.months.every((m) => m.due <= 1)).toBe(true);
				}
			}),
		);
	});

	it('examples: a due date today counts in the current month; an overdue device is due again one interval after today; month ends clamp as the service does', () => {
		const today = '2026-01-15';
		const device = (id: number, next: string | null, interval: number | null): ForecastDevice => ({ id, customerId: 1, customerName: 'Acme GmbH', department: 'Workshop', nextTestDate: next, testIntervalMonths: interval });
		const months = (d: ForecastDevice) => forecast([d], today, 'all').groups[0].months.filter((m) => m.due > 0).map((m) => m.month);
		expect(months(device(1, '2026-01-15', 6))).toEqual(['2026-01', '2026-07']);
		expect(months(device(2, '2025-12-01', 3))).toEqual(['2026-04', '2026-07', '2026-10']);
		expect(forecast([device(2, '2025-12-01', 3)], today, 'all').groups[0].overdue).toBe(1);
		// 31 Jan + 1 month = 28 Feb, then 28 Mar (tested on its due date): still once a month.
		expect(months(device(3, '2026-01-31', 1))).toEqual(forecastMonths(today));
		expect(months(device(4, '2026-03-01', null))).toEqual(['2026-03']);
		expect(months(device(5, '2027-01-01', 1))).toEqual([]);
		const g = forecast([device(6, null, 12), device(7, '2026-13-01', 12)], today, 'all').groups[0];
		expect(g).toMatchObject({ devices: 2, withoutDueDate: 2, dueInHorizon: 0 });
	});

	it('groups are shaped like the compliance figures’: customer ID and name, department name as both, the one without last', () => {
		const devices: ForecastDevice[] = [
			{ id: 1, customerId: 2, customerName: 'Brightwater Ltd', department: null, nextTestDate: '2026-05-01', testIntervalMonths: 12 },
			{ id: 2, customerId: null, customerName: null, department: 'Office', nextTestDate: '2026-05-01', testIntervalMonths: 12 },
			{ id: 3, customerId: 1, customerName: 'Acme GmbH', department: 'Office', nextTestDate: '2026-06-01', testIntervalMonths: 12 },
		];
		const f = allForecasts(devices, '2026-04-10');
		expect(f.customer.groups.map((g) => [g.group, g.id, g.name])).toEqual([['customer', 1, 'Acme GmbH'], ['customer', 2, 'Brightwater Ltd'], ['customer', null, null]]);
		expect(f.department.groups.map((g) => [g.id, g.name])).toEqual([['Office', 'Office'], [null, null]]);
		expect(f.all.groups.map((g) => [g.group, g.id, g.devices])).toEqual([['all', null, 3]]);
		expect(forecast([], '2026-04-10', 'all').groups).toHaveLength(1);
	});

	it('bad input is refused naming the parameter and the valid values', () => {
		expect(() => forecast([], '2026-02-30', 'all')).toThrow('today: must be a day YYYY-MM-DD that exists, got "2026-02-30"');
		expect(() => forecast([], '2026-02-03', 'site' as ComplianceGroupBy)).toThrow('groupBy: must be one of all, customer, department, got "site"');
	});
});

describe('forecastDeviceOf', () => {
	const prop = (name: string, value: unknown) => ({ key_id: null, name, data_type: 'Text', value });
	it('reads the snapshot’s fields and the interval by the profile’s roles; a record without an id is skipped', () => {
		const names = new Map([[4, 'Acme GmbH']]);
		const raw = { id: 7, customer_id: 4, properties: [prop('Next test', '2026-05-01'), prop('Department', 'Workshop'), prop('Test interval (months)', '6')] };
		expect(forecastDeviceOf(raw, names)).toEqual({ id: 7, customerId: 4, customerName: 'Acme GmbH', department: 'Workshop', nextTestDate: '2026-05-01', testIntervalMonths: 6 });
		expect(forecastDeviceOf({ ...raw, properties: [prop('Test interval (months)', 0)] }, names)).toMatchObject({ nextTestDate: null, department: null, testIntervalMonths: null });
		expect(forecastDeviceOf({ properties: raw.properties }, names)).toBeUndefined();
		expect(forecastDeviceOf(null, names)).toBeUndefined();
	});
});
