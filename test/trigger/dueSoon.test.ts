/**
 * Event "deviceDueSoon" (Lead Time) and New Test Result's "Include Failed Steps", polled through
 * n8n-core's PollContext against the sandbox over HTTP, with the service's clock and data moving.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import { addDays, addMonths, daysBetween } from '../../client/dates';
import { DEVICE } from '../../sandbox/properties';
import { runPoll } from '../support/n8n';
import { DAY_MS, Poller, credentials, ids, random, sorted, startWorld, type World } from '../support/trigger';

let world: World;
beforeAll(async () => {
	world = await startWorld();
});
afterAll(async () => world.stop());
beforeEach(() => {
	world.sandbox.account.clockOffsetMs = 0;
	world.sandbox.account.reset({ size: { devices: 300, testResults: 50 } });
});

/** Ground truth: devices whose next test date is 0 to `lead` days from the service's today. */
function dueWithin(lead: number): Map<number, string> {
	const today = world.today();
	const out = new Map<number, string>();
	for (const d of world.sandbox.account.data.devices.values()) {
		const next = d.values[DEVICE.nextTest];
		if (typeof next === 'string' && daysBetween(today, next) >= 0 && daysBetween(today, next) <= lead) out.set(d.id, next);
	}
	return out;
}

describe('deviceDueSoon', () => {
	it('the first activation remembers the devices already due; later ones are emitted once, with their due date and days left', async () => {
		const poller = new Poller(world, { event: 'deviceDueSoon', options: { leadDays: 14 } });
		expect(dueWithin(14).size).toBeGreaterThan(3);
		expect(await poller.poll()).toEqual([]);
		expect(poller.staticData.cursor).toMatchObject({ v: 1, event: 'deviceDueSoon', day: world.today() });
		world.advance(3 * DAY_MS);
		const emitted = await poller.poll();
		// Exactly the devices that came within 14 days in these 3 days.
		const expected = [...dueWithin(14).entries()].filter(([, due]) => daysBetween(world.today(), due) > 11).map(([id]) => id);
		expect(expected.length).toBeGreaterThan(0);
		expect(ids(emitted)).toEqual(sorted(expected));
		for (const r of emitted) expect(r).toMatchObject({ next_test_date: dueWithin(14).get(Number(r.id)), days_left: daysBetween(world.today(), r.next_test_date as string) });
		expect(await poller.poll()).toEqual([]);
	});

	it('60 polls over 60 days with devices tested along the way: every device once per due date, never outside the lead time', async () => {
		const rnd = random(11);
		const poller = new Poller(world, { event: 'deviceDueSoon', options: { leadDays: 7 } });
		await poller.poll();
		const remembered = new Set(dueWithin(7).keys());
		const emittedKeys = new Set<string>();
		for (let day = 0; day < 60; day++) {
			world.advance(DAY_MS);
			// Some devices coming due are tested early: they get a new due date.
			for (const id of [...dueWithin(7).keys()]) if (rnd.next() < 0.1) world.sandbox.account.syncTestResult({ device_id: id, status: 'passed' });
			const now = dueWithin(7);
			for (const r of await poller.poll()) {
				const key = `${String(r.id)}:${String(r.next_test_date)}`;
				expect(emittedKeys.has(key), key).toBe(false);
				emittedKeys.add(key);
				expect(now.get(Number(r.id))).toBe(r.next_test_date);
			}
			// Every device within the lead time now was emitted for its due date (or was there at activation).
			for (const [id, due] of now) expect(emittedKeys.has(`${id}:${due}`) || remembered.has(id), `${id}:${due} on day ${day}`).toBe(true);
		}
		expect(emittedKeys.size).toBeGreaterThan(20);
		// State stays bounded by the devices within the lead time.
		expect(JSON.stringify(poller.staticData.cursor).length).toBeLessThan(2000);
	});

	it('a clock set back brings no passed due date back', async () => {
		const poller = new Poller(world, { event: 'deviceDueSoon', options: { leadDays: 7 } });
		await poller.poll();
		world.advance(10 * DAY_MS);
		await poller.poll();
		world.advance(-5 * DAY_MS);
		expect(await poller.poll()).toEqual([]);
	});

	it('today is the day in the workflow’s time zone: in Los Angeles at 8 pm a device due tomorrow is emitted with 1 day left, not as due today', async () => {
		// 03:00 UTC, when Los Angeles is still on the day before.
		world.advance(15 * 3_600_000);
		const utcDay = world.today();
		const laDay = addDays(utcDay, -1);
		const parameters = { event: 'deviceDueSoon', options: { leadDays: 7 } };
		const poll = async (staticData: IDataObject) => {
			const result = await runPoll({ parameters, credentials: credentials(world.sandbox), staticData, workflowSettings: { timezone: 'America/Los_Angeles' } });
			expect(result.error).toBeUndefined();
			return result;
		};
		const first = await poll({});
		// Device 5 comes due on the UTC day: tomorrow in Los Angeles.
		world.sandbox.account.edit('device', { id: 5, properties: { [DEVICE.testInterval]: 12, [DEVICE.lastTested]: addMonths(utcDay, -12) } }, 't');
		expect(world.sandbox.account.get('device', 5).values[DEVICE.nextTest]).toBe(utcDay);
		const second = await poll(first.staticData);
		const emitted = (second.items ?? []).map((i) => i.json).filter((r) => r.id === 5);
		expect(emitted).toEqual([expect.objectContaining({ next_test_date: utcDay, days_left: daysBetween(laDay, utcDay) })]);
		expect(emitted[0].days_left).toBe(1);
	});

	it('a memory stored with a UTC day (the previous version, or before the time zone changed) is no floor: in Los Angeles at 8 pm a device due tomorrow is emitted with 1 day left', async () => {
		// 03:00 UTC, when Los Angeles is still on the day before.
		world.advance(15 * 3_600_000);
		const utcDay = world.today();
		const parameters = { event: 'deviceDueSoon', options: { leadDays: 7 } };
		const poll = async (staticData: IDataObject) => {
			const result = await runPoll({ parameters, credentials: credentials(world.sandbox), staticData, workflowSettings: { timezone: 'America/Los_Angeles' } });
			expect(result.error).toBeUndefined();
			return result;
		};
		const first = await poll({});
		const cursor = first.staticData.cursor as IDataObject;
		expect(cursor).toMatchObject({ day: addDays(utcDay, -1) });
		// The memory as the previous version wrote it: the UTC day, no zone.
		const { zone: _zone, ...old } = cursor;
		world.sandbox.account.edit('device', { id: 5, properties: { [DEVICE.testInterval]: 12, [DEVICE.lastTested]: addMonths(utcDay, -12) } }, 't');
		const second = await poll({ ...first.staticData, cursor: { ...old, day: utcDay } });
		expect((second.items ?? []).map((i) => i.json).filter((r) => r.id === 5)).toEqual([expect.objectContaining({ next_test_date: utcDay, days_left: 1 })]);
		expect(second.staticData.cursor).toMatchObject({ day: addDays(utcDay, -1), zone: 'America/Los_Angeles' });
	});

	it('Fetch Test Event shows a device due within the lead time', async () => {
		const poller = new Poller(world, { event: 'deviceDueSoon', options: { leadDays: 30 } });
		const result = await poller.manual();
		const [sample] = (result.items ?? []).map((i) => i.json);
		expect(dueWithin(30).get(Number(sample.id))).toBe(sample.next_test_date);
	});
});

describe('testResultNew: Include Failed Steps', () => {
	it('failed results carry their failed steps with measured values and limits; passed ones are as before', async () => {
		const poller = new Poller(world, { event: 'testResultNew', options: { includeFailedSteps: true } });
		await poller.poll();
		const bad = world.sandbox.account.syncTestResult({ device_id: 1, status: 'failed', performed: { steps: 6, failedSteps: 2 } });
		const good = world.sandbox.account.syncTestResult({ device_id: 2, status: 'passed' });
		const emitted = await poller.poll();
		expect(ids(emitted)).toEqual(sorted([bad.id, good.id]));
		const failed = emitted.find((r) => r.id === bad.id)!;
		expect(failed.failed_step_count).toBe(2);
		expect(failed.failed_steps).toEqual([
			expect.objectContaining({ step: 1, status: 'failed', measurements: [expect.objectContaining({ passed: false, value: expect.any(Number), unit: expect.any(String) })] }),
			expect.objectContaining({ step: 2, status: 'failed' }),
		]);
		expect(emitted.find((r) => r.id === good.id)).not.toHaveProperty('failed_steps');
	});

	it('a detail request that fails fails the poll; the next poll emits the result with its steps', async () => {
		const poller = new Poller(world, { event: 'testResultNew', options: { includeFailedSteps: true, maxRetryWait: 0 } });
		await poller.poll();
		const bad = world.sandbox.account.syncTestResult({ device_id: 1, status: 'failed', test_date: addDays(world.today(), 0) });
		world.sandbox.faults.add({ kind: 'status', status: 404, path: '/tests_performed/detailed/', count: 1 });
		await expect(poller.poll()).rejects.toThrow();
		const emitted = await poller.poll();
		expect(ids(emitted)).toEqual([bad.id]);
		expect(emitted[0].failed_step_count).toBe(1);
	});
});
