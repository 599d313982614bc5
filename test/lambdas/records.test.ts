/** The pollers' reader of records: one bad record is skipped with a reason, never announced, never a crash. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventSchemas } from '../../lambdas/events/schemas';
import { readableRecords, readingOfOverdueDevice, readingOfTestResult } from '../../lambdas/pollers/records';
import { unreadableRecords } from '../../sandbox/faults';

describe('reading records', () => {
	it('ids that are not positive safe integers are unreadable, with the reason', () => {
		for (const id of [-3, 0, 2 ** 53, 2 ** 53 + 2, 1.5, 'abc', '12x', '', null, true, {}, [1]]) {
			const reading = readingOfOverdueDevice({ id });
			expect(reading, JSON.stringify(id)).toEqual({ unreadable: expect.stringMatching(/^id is not a positive whole number/) });
		}
		expect(readingOfOverdueDevice({ id: '42' })).toMatchObject({ record: { id: 42 } });
		expect(readingOfOverdueDevice({ id: 2 ** 53 - 1 })).toMatchObject({ record: { id: 2 ** 53 - 1 } });
	});

	it('a test result needs a real test date and device id', () => {
		const ok = { id: 5, device_id: 7, test_date: '2026-02-28T10:00:00Z', status: 'passed' };
		expect(readingOfTestResult(ok)).toMatchObject({ record: { id: 5, deviceId: 7, testDate: '2026-02-28' } });
		for (const test_date of ['garbage', '2026-02-30', '2026-13-01', 20260101, null, '']) {
			expect(readingOfTestResult({ ...ok, test_date }), String(test_date)).toEqual({ unreadable: expect.stringMatching(/test_date is not a date/) });
		}
		for (const device_id of [0, -1, 'x', 2 ** 53]) {
			expect(readingOfTestResult({ ...ok, device_id })).toEqual({ unreadable: expect.stringMatching(/device_id is not a positive whole number/) });
		}
		expect(readingOfTestResult({ ...ok, synced_time: 'soon' })).toMatchObject({ record: { syncedTime: null } });
	});

	it('property: any value is read or refused, never a throw; what is read passes the Device Overdue schema', () => {
		fc.assert(
			fc.property(fc.oneof(fc.anything(), fc.record({ id: fc.oneof(fc.integer(), fc.string(), fc.double()), customer_id: fc.anything(), days_overdue: fc.anything(), customer_name: fc.anything(), properties: fc.anything() })), (raw) => {
				const reading = readingOfOverdueDevice(raw);
				if ('record' in reading) expect(eventSchemas().OverdueDevice.safeParse(reading.record).success).toBe(true);
				else expect(typeof reading.unreadable).toBe('string');
				expect(() => readingOfTestResult(raw)).not.toThrow();
			}),
			{ numRuns: 1000 },
		);
	});

	it('property: device properties are found by name in any case, the preferred name first, the last of equal names', () => {
		// The reference: every property into a map by its lower-case name (the last one wins), then each field's names in order.
		const NAMES = { designation: ['designation'], idBarcode: ['id barcode', 'barcode', 'id-barcode'], department: ['department'], lastTestedDate: ['last tested', 'last tested date', 'last test', 'last test date'] };
		const reference = (properties: Array<{ name: string; value: unknown }>) => {
			const byName = new Map(properties.map((p) => [p.name.toLowerCase(), p.value]));
			const field = (names: string[]) => {
				const name = names.find((n) => byName.has(n));
				const value = name === undefined ? undefined : byName.get(name);
				return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null;
			};
			return Object.fromEntries(Object.entries(NAMES).map(([f, names]) => [f, field(names)]));
		};
		const name = fc.constantFrom(...Object.values(NAMES).flat(), 'location', 'serial number').chain((n) => fc.constantFrom(n, n.toUpperCase(), n[0].toUpperCase() + n.slice(1)));
		const property = fc.record({ key_id: fc.nat(20), name, data_type: fc.constant('Text'), value: fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant(null)) });
		fc.assert(
			fc.property(fc.array(property, { maxLength: 12 }), (properties) => {
				const reading = readingOfOverdueDevice({ id: 1, properties });
				expect('record' in reading && reading.record).toMatchObject(reference(properties));
			}),
			{ numRuns: 2000 },
		);
	});

	it('readableRecords logs each skipped record with its position and counts them', () => {
		const logs: Array<Record<string, unknown> | undefined> = [];
		const counted: Array<[string, number | undefined]> = [];
		const page = [{ id: 1 }, ...unreadableRecords('overdueDevice'), { id: 2 }];
		const read = readableRecords(page, 1000, readingOfOverdueDevice, {
			log: { info: () => undefined, warn: (_m, x) => logs.push(x), error: () => undefined },
			metrics: { count: (name, value) => counted.push([name, value]) },
			list: 'overdueDevice.list',
		});
		expect(read.map((d) => d.id)).toEqual([1, 2]);
		expect(logs.map((x) => x?.position)).toEqual(unreadableRecords('overdueDevice').map((_, i) => 1001 + i));
		expect(counted).toEqual([['RecordsSkipped', unreadableRecords('overdueDevice').length]]);
	});
});
