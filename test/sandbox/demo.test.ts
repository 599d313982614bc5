import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, addMonths, dayString, isoTime } from '../../client/dates';
import { addMonthsToDay } from '../../sandbox/calendar';
import { DEFAULT_SEED, SCRAPPED_SHARE, generateDemo, type DemoSize } from '../../sandbox/demo';
import { FIXED_NOW, useSandbox, type Item } from '../support/sandbox';
import { brokenRule, daysLate, failureRates, resultsByDevice, type StoryBinned, type StoryDevice, type StoryResult } from './demoStory';
import { PATHS } from './helpers';

/**
 * The demo's past adds up: each device's history follows its interval from its creation to today,
 * its Last tested is its latest result, failed tests are re-tested, and the figures a quality
 * manager reads (overdue share, lateness, failure rates) look like a real account's.
 */

function device(item: Item): StoryDevice {
	const value = (name: string) => item.properties.find((p) => p.name === name)?.value ?? null;
	return {
		id: item.id,
		created: String(item.created_time),
		designation: String(value('Designation')),
		department: String(value('Department')),
		interval: Number(value('Test interval (months)')),
		lastTested: value('Last tested') as string | null,
		nextTest: value('Next test') as string | null,
	};
}

const CASES: Array<{ name: string; seed: number; size?: Partial<DemoSize>; now: number }> = [
	{ name: 'default seed and size', seed: DEFAULT_SEED, now: FIXED_NOW },
	{ name: 'seed 7, 300 devices, just after midnight on a leap day', seed: 7, size: { devices: 300, customers: 15 }, now: Date.parse('2028-02-29T00:20:00Z') },
	{ name: 'seed 11, the newest 150 results kept', seed: 11, size: { testResults: 150 }, now: FIXED_NOW },
	{ name: 'seed 5, no results kept', seed: 5, size: { devices: 200, testResults: 0 }, now: Date.parse('2026-12-31T23:30:00Z') },
];

/** Reads the account as a client does: its devices, test results and overdue list. */
function reader(api: ReturnType<typeof useSandbox>) {
	return async () => ({
		devices: (await api.all(PATHS.devices)).map(device),
		results: (await api.all(PATHS.testResults)) as unknown as StoryResult[],
		overdue: await api.all(PATHS.overdue),
		binned: (await api.all(PATHS.bin)).filter((e) => e.resource === 'device').map((e): StoryBinned => ({ id: Number(e.item_id), deletedOn: String(e.deleted_time).slice(0, 10) })),
	});
}

describe.each(CASES)('demo history over HTTP: $name', ({ seed, size, now }) => {
	const api = useSandbox({ seed, size, now: () => now });
	const read = reader(api);

	it('Last tested is the latest result, Next test follows from it, failed tests are re-tested, uploads in id order', async () => {
		const { devices, results, binned } = await read();
		expect(brokenRule(devices, results, now, size?.testResults === undefined, binned)).toBeUndefined();
		if (size?.testResults !== undefined) expect(results.length).toBe(size.testResults);
	});

	it('1 % of the device count more scrapped within the last 24 months: device entries of the recycle bin, each deleted 0–14 days after its last test, which failed', async () => {
		const { devices, results, binned } = await read();
		const bin = await api.all(PATHS.bin);
		expect(bin.length).toBe(binned.length);
		expect(binned.length).toBe(Math.round(devices.length * SCRAPPED_SHARE));
		expect(binned.length).toBeGreaterThan(0);
		const byDevice = resultsByDevice(results);
		for (const b of binned) {
			expect(b.deletedOn > addMonths(dayString(now), -24) && b.deletedOn < dayString(now), `device ${b.id} deleted ${b.deletedOn}`).toBe(true);
			const last = byDevice.get(b.id)?.at(-1);
			// Kept results are the newest: a scrapping failure older than them is not among them.
			if (!last) {
				expect(size?.testResults).toBeDefined();
				continue;
			}
			expect(last.status, `device ${b.id}`).toBe('failed');
			expect(last.test_date <= b.deletedOn && addDays(last.test_date, 14) >= b.deletedOn, `device ${b.id}: failed ${last.test_date}, deleted ${b.deletedOn}`).toBe(true);
		}
	});

	it('about a fifth overdue now, a few never tested since they were created (recently)', async () => {
		const { devices, overdue } = await read();
		expect(overdue.length / devices.length).toBeGreaterThanOrEqual(0.15);
		expect(overdue.length / devices.length).toBeLessThanOrEqual(0.25);
		const never = devices.filter((d) => d.lastTested === null);
		expect(never.length / devices.length).toBeGreaterThanOrEqual(0.02);
		expect(never.length / devices.length).toBeLessThanOrEqual(0.04);
		for (const d of never) expect(d.created.slice(0, 10) >= addDays(dayString(now), -30), `device ${d.id} created ${d.created}`).toBe(true);
	});
});

describe.each(CASES.filter((c) => c.size?.testResults === undefined))('whole demo histories over HTTP: $name', ({ seed, size, now }) => {
	const api = useSandbox({ seed, size, now: () => now });
	const read = reader(api);
	const today = dayString(now);

	it('histories reach back four years and more where the device is that old', async () => {
		const { devices, results } = await read();
		const byDevice = resultsByDevice(results);
		const fourYearsAgo = addDays(today, -4 * 365 - 1);
		const old = devices.filter((d) => d.created.slice(0, 10) <= fourYearsAgo);
		expect(old.length / devices.length).toBeGreaterThan(0.6);
		for (const d of old) expect(byDevice.get(d.id)![0].test_date <= addDays(fourYearsAgo, 7), `device ${d.id}`).toBe(true);
	});

	it('mostly on time, some late by days, some by weeks to months; uploads mostly the same day', async () => {
		const { devices, results } = await read();
		const late = daysLate(devices, results);
		const share = (f: (days: number) => boolean) => late.filter(f).length / late.length;
		expect(share((x) => x <= 0)).toBeGreaterThan(0.55);
		expect(share((x) => x > 0 && x <= 14)).toBeGreaterThan(0.08);
		expect(share((x) => x > 14)).toBeGreaterThan(0.05);
		expect(Math.max(...late)).toBeGreaterThan(45);
		const sameDay = results.filter((r) => r.synced_time.slice(0, 10) === r.test_date).length / results.length;
		expect(sameDay).toBeGreaterThan(0.6);
		expect(sameDay).toBeLessThan(1);
	});

	it('failure rates differ by device type and by department; a re-test usually passes', async () => {
		const { devices, results } = await read();
		const byType = failureRates(devices, results, (d) => d.designation);
		const rate = (names: string[], rates: typeof byType) => {
			const groups = names.map((n) => rates.get(n) ?? { tests: 0, failed: 0 });
			return groups.reduce((s, g) => s + g.failed, 0) / groups.reduce((s, g) => s + g.tests, 0);
		};
		const rough = rate(['Extension cable 10 m', 'Angle grinder', 'Kettle'], byType);
		const gentle = rate(['Monitor 27"', 'Laptop charger', 'Oscilloscope'], byType);
		expect(gentle).toBeLessThan(0.02);
		expect(rough).toBeGreaterThan(0.08);
		const enough = [...byType.values()].filter((g) => g.tests >= 40);
		expect(enough.some((g) => g.rate < 0.02)).toBe(true);
		expect(enough.some((g) => g.rate > 0.08)).toBe(true);
		const byDepartment = failureRates(devices, results, (d) => d.department);
		expect(rate(['Workshop', 'Warehouse', 'Kitchen'], byDepartment)).toBeGreaterThan(2 * rate(['Office', 'IT'], byDepartment));
		const retests = [...resultsByDevice(results).values()].flatMap((own) => own.filter((_, i) => i > 0 && own[i - 1].status === 'failed'));
		expect(retests.length).toBeGreaterThan(10);
		expect(retests.filter((r) => r.status === 'passed').length / retests.length).toBeGreaterThan(0.7);
	});
});

describe('demo history, generator over seeds, sizes and clocks', () => {
	it('its month arithmetic on day numbers answers what addMonths answers', () => {
		fc.assert(
			fc.property(fc.integer({ min: -30_000, max: 60_000 }), fc.integer({ min: -400, max: 400 }), (days, months) => {
				const day = dayString(days * 86_400_000);
				expect(dayString(addMonthsToDay(days, months) * 86_400_000)).toBe(addMonths(day, months));
			}),
			{ numRuns: 2000 },
		);
	});

	it('every rule holds for any seed, size and clock', () => {
		fc.assert(
			fc.property(
				fc.integer({ min: 0, max: 2 ** 31 - 1 }),
				fc.integer({ min: 0, max: 150 }),
				fc.integer({ min: 0, max: 20 }),
				fc.option(fc.integer({ min: 0, max: 1200 }), { nil: undefined }),
				fc.integer({ min: Date.parse('2024-01-01T00:00:00Z'), max: Date.parse('2031-12-31T23:59:59Z') }),
				(seed, devices, customers, testResults, now) => {
					const data = generateDemo(seed, { devices, customers, testResults }, now);
					const storyDevices = [...data.devices.values()].map((d) => ({
						id: d.id,
						created: d.created_time,
						designation: String(d.values[1]),
						department: String(d.values[4]),
						interval: Number(d.values[5]),
						lastTested: d.values[3] as string | null,
						nextTest: d.values[9] as string | null,
					}));
					const results = [...data.testResults.values()];
					// Times are written as the service writes them (whole seconds, Z).
					for (const t of [...storyDevices.map((d) => d.created), ...results.map((r) => r.synced_time)]) expect(isoTime(Date.parse(t))).toBe(t);
					if (testResults !== undefined) expect(results.length).toBeLessThanOrEqual(testResults);
					const binned = data.recycleBin.map((e) => ({ id: e.item_id, deletedOn: e.deleted_time.slice(0, 10) }));
					expect(binned.length).toBe(Math.round(devices * SCRAPPED_SHARE));
					expect(brokenRule(storyDevices, results, now, testResults === undefined, binned)).toBeUndefined();
				},
			),
			{ numRuns: 60 },
		);
	});

	it('keeping the newest N results keeps the devices and the newest part of the whole history', () => {
		fc.assert(
			fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.integer({ min: 1, max: 600 }), (seed, keep) => {
				const whole = generateDemo(seed, { devices: 80, customers: 5 }, FIXED_NOW);
				const cut = generateDemo(seed, { devices: 80, customers: 5, testResults: keep }, FIXED_NOW);
				expect([...cut.devices.values()]).toEqual([...whole.devices.values()]);
				const key = (r: StoryResult) => `${r.device_id} ${r.test_date} ${r.status}`;
				const newest = [...whole.testResults.values()].sort((a, b) => b.test_date.localeCompare(a.test_date) || b.id - a.id).slice(0, keep);
				expect([...cut.testResults.values()].map(key).sort()).toEqual(newest.map(key).sort());
			}),
			{ numRuns: 30 },
		);
	});
});

describe('test_results on reset', () => {
	const api = useSandbox({ seed: 3, size: { devices: 60, customers: 4 } });

	it('N keeps the newest N, null brings back the whole histories, anything else is refused naming test_results', async () => {
		const count = async () => (await api.ok(`${PATHS.testResults}?limit=1`)).count;
		const whole = await count();
		expect(whole).toBeGreaterThan(200);
		expect((await api.admin.call('POST', '/reset', { test_results: 5 })).body).toMatchObject({ reset: true, test_results: 5 });
		expect(await count()).toBe(5);
		// A size not given stays as it was.
		await api.admin.reset();
		expect(await count()).toBe(5);
		await api.admin.call('POST', '/reset', { test_results: null });
		expect(await count()).toBe(whole);
		for (const bad of [-1, 2.5, '10', true]) {
			const a = await api.admin.call('POST', '/reset', { test_results: bad });
			expect(a.status, a.text).toBe(400);
			expect(a.body.description).toMatch(/^test_results: expected a whole number of 0 or more .* or null/);
		}
		expect(await count()).toBe(whole);
	});
});
