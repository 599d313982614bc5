/**
 * Event "deviceDueSoon" (Lead Time) and New Test Result's "Include Failed Steps", polled through
 * n8n-core's PollContext against the sandbox over HTTP, with the service's clock and data moving.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import { addDays, addMonths, daysBetween } from '../../client/dates';
import { DEVICE } from '../../sandbox/properties';
import { decodeIds } from '../../nodes/TestEquipmentCloud/trigger/state';
import { captureLogs, runPoll } from '../support/n8n';
import { withInstantWaits } from '../support/instantWaits';
import { DAY_MS, Poller, credentials, ids, random, sorted, startWorld, type World } from '../support/trigger';

let world: World;
beforeAll(async () => {
	world = await startWorld();
});
afterAll(async () => world.stop());
beforeEach(() => {
	world.sandbox.account.clockOffsetMs = 0;
	world.sandbox.account.reset({ size: { devices: 300, testResults: 50 } });
	world.sandbox.faults.clear();
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

	it('a detail request that fails holds its result back; the next poll emits the result with its steps', async () => {
		const poller = new Poller(world, { event: 'testResultNew', options: { includeFailedSteps: true, maxRetryWait: 0 } });
		await poller.poll();
		const bad = world.sandbox.account.syncTestResult({ device_id: 1, status: 'failed', test_date: addDays(world.today(), 0) });
		world.sandbox.faults.add({ kind: 'status', status: 404, path: '/tests_performed/detailed/', count: 1 });
		expect(await poller.poll()).toEqual([]);
		const emitted = await poller.poll();
		expect(ids(emitted)).toEqual([bad.id]);
		expect(emitted[0].failed_step_count).toBe(1);
	});

	it('a detail that answers 500 every time never stops the trigger: later results go out, and after 3 polls it goes out without its steps, marked', async () => {
		const poller = new Poller(world, { event: 'testResultNew', options: { includeFailedSteps: true, maxRetryWait: 0 } });
		await poller.poll();
		const bad = world.sandbox.account.syncTestResult({ device_id: 1, status: 'failed' });
		world.sandbox.faults.add({ kind: 'status', status: 500, path: `/tests_performed/detailed/${bad.id}/` });
		const { result: first, logs } = await captureLogs(async () => await poller.poll());
		expect(first).toEqual([]);
		expect(logs).toContainEqual({ level: 'warn', message: expect.stringMatching(new RegExp(`^Test result ${bad.id}: its failed steps could not be read .*HTTP 500.*try 1 of 3`)) });
		const later = world.sandbox.account.syncTestResult({ device_id: 2, status: 'failed', performed: { steps: 4, failedSteps: 1 } });
		const second = await poller.poll();
		expect(ids(second)).toEqual([later.id]);
		expect(second[0].failed_step_count).toBe(1);
		const third = await poller.poll();
		expect(third).toEqual([expect.objectContaining({ id: bad.id, steps_unavailable: true, steps_unavailable_reason: expect.stringContaining('500') })]);
		expect(third[0]).not.toHaveProperty('failed_steps');
		expect(await poller.poll()).toEqual([]);
		expect(poller.staticData.cursor).not.toHaveProperty('pending');
	});

	it('details that cannot be read (503 for a while) cost one poll at most one Max Retry Wait, not one per failed result', async () => {
		const poller = new Poller(world, { event: 'testResultNew', options: { includeFailedSteps: true, maxRetryWait: 60 } });
		await poller.poll();
		const failed = [1, 2, 3, 4, 5, 6].map((device_id) => world.sandbox.account.syncTestResult({ device_id, status: 'failed' }));
		const passed = world.sandbox.account.syncTestResult({ device_id: 7, status: 'passed' });
		world.sandbox.faults.add({ kind: 'status', status: 503, path: '/tests_performed/detailed/' });
		const first = await withInstantWaits(world.advance, async () => await poller.poll());
		expect(ids(first.result)).toEqual([passed.id]);
		const waited = first.waits.reduce((a, b) => a + b, 0);
		expect(waited).toBeGreaterThanOrEqual(60_000);
		expect(waited).toBeLessThanOrEqual(2 * 60_000);
		// Each was tried: after 3 polls all go out, marked.
		await withInstantWaits(world.advance, async () => await poller.poll());
		const third = await withInstantWaits(world.advance, async () => await poller.poll());
		expect(ids(third.result)).toEqual(sorted(failed.map((r) => r.id)));
		expect(third.result.every((r) => r.steps_unavailable === true)).toBe(true);
	});

	it('after a detail failed, a rate limit (429) on the next detail is still waited out, not a failed poll', async () => {
		const poller = new Poller(world, { event: 'testResultNew', options: { includeFailedSteps: true, maxRetryWait: 30 } });
		await poller.poll();
		const bad = world.sandbox.account.syncTestResult({ device_id: 1, status: 'failed' });
		const next = world.sandbox.account.syncTestResult({ device_id: 2, status: 'failed' });
		world.sandbox.faults.add({ kind: 'status', status: 503, path: `/tests_performed/detailed/${bad.id}/` });
		const limit = world.sandbox.faults.add({ kind: 'status', status: 429, path: `/tests_performed/detailed/${next.id}/`, count: 1 });
		const { result } = await withInstantWaits(world.advance, async () => await poller.poll());
		expect(limit.hits).toBe(1);
		expect(result).toEqual([expect.objectContaining({ id: next.id, failed_step_count: 1 })]);
	});
});

describe('what Device Due Soon keeps', () => {
	// docs/n8n-trigger.md's table gives this measure: 10,000 devices, a 365-day lead time.
	const BOUND = 40_000;
	it(`10,000 devices with a lead time of 365 days: the static data stays under ${BOUND} characters, as the docs' table says`, async () => {
		world.sandbox.account.reset({ size: { devices: 10_000, testResults: 0 } });
		const poller = new Poller(world, { event: 'deviceDueSoon', options: { leadDays: 365 } });
		expect(await poller.poll()).toEqual([]);
		const cursor = poller.staticData.cursor as { emitted: Record<string, string> };
		const kept = Object.values(cursor.emitted).reduce((n, text) => n + decodeIds(text).length, 0);
		const size = JSON.stringify(poller.staticData).length;
		expect(kept).toBeGreaterThan(5_000);
		expect(size).toBeLessThan(BOUND);
		// The docs' table of what the trigger keeps states this measure (within 10 %).
		const docs = readFileSync(join(__dirname, '..', '..', 'docs', 'n8n-trigger.md'), 'utf8');
		const row = docs.split('\n').find((line) => line.startsWith('| Device Due Soon |'));
		expect(row, 'a Device Due Soon row in docs/n8n-trigger.md').toBeDefined();
		const stated = Number(/measured ([\d,]+) characters/.exec(row!)?.[1].replace(/,/g, ''));
		expect(Math.abs(stated - size) / size).toBeLessThan(0.1);
	});
});
