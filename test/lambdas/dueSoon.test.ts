import { describe, expect, it } from 'vitest';
import { ServiceClient, type RequestFn } from '../../client';
import { addDays, daysBetween } from '../../client/dates';
import { systemClock, undiciRequestFn } from '../../lambdas/adapters/undiciService';
import { pollDueSoon, stageFor } from '../../lambdas/pollers/dueSoon';
import { pollOverdueDevices } from '../../lambdas/pollers/overdueDevices';
import { DEVICE } from '../../sandbox/properties';
import { newTable, pollerContext, useFreshScenarios, usePollerWorld } from '../support/pollers';

// Read at the sandbox's raised rate: these tests are of what is announced, not of pacing.
const world = usePollerWorld({ devices: 400, customers: 8, testResults: 20 }, { ratePerSecond: 200 });
const scenario = useFreshScenarios(world);

const account = () => world.sandbox.account;
const DAY = 86_400_000;
const dueSoon = () => world.aws.events().filter((e) => e['detail-type'] === 'Device Due Soon');
const announced = () =>
	dueSoon()
		.map((e) => {
			const d = e.detail.data as { device: { id: number; nextTestDate: string; daysLeft: number }; stage: number };
			return `${d.device.id}:${d.device.nextTestDate}:${d.stage}`;
		})
		.sort();
/** Ground truth: every device inside a stage today, with the most urgent stage it is in. */
function expected(stages: number[]): string[] {
	const today = account().today();
	const out: string[] = [];
	for (const d of account().data.devices.values()) {
		const next = d.values[DEVICE.nextTest];
		if (typeof next !== 'string') continue;
		const stage = stageFor(daysBetween(today, next), stages);
		if (stage !== undefined) out.push(`${d.id}:${next}:${stage}`);
	}
	return out.sort();
}
/** A device due in `min` to `max` days, and its days left. */
function deviceDueIn(min: number, max: number): { id: number; days: number } {
	const today = account().today();
	for (const d of account().data.devices.values()) {
		const next = d.values[DEVICE.nextTest];
		const days = typeof next === 'string' ? daysBetween(today, next) : NaN;
		if (days >= min && days <= max) return { id: d.id, days };
	}
	throw new Error(`no device due in ${min} to ${max} days`);
}

describe('Device Due Soon poller', () => {
	it('first run: each device inside a stage once, at its most urgent stage, with the device fields', async () => {
		const want = expected([30, 7]);
		expect(want.length).toBeGreaterThan(5);
		expect(want.some((k) => k.endsWith(':7'))).toBe(true);
		const report = await pollDueSoon(pollerContext(world, scenario.table(), { settings: { pageSize: 7 } }));
		expect(report.complete).toBe(true);
		expect(report.pages).toBeGreaterThan(1);
		expect(announced()).toEqual(want);
		const e = dueSoon()[0];
		const data = e.detail.data as { device: Record<string, unknown>; stage: number };
		const device = account().get('device', data.device.id as number);
		expect(data.device).toMatchObject({
			designation: device.values[DEVICE.designation],
			idBarcode: device.values[DEVICE.idBarcode],
			department: device.values[DEVICE.department],
			lastTestedDate: device.values[DEVICE.lastTested],
			nextTestDate: device.values[DEVICE.nextTest],
			daysLeft: daysBetween(account().today(), device.values[DEVICE.nextTest] as string),
		});
		expect(typeof data.device.customerName).toBe('string');
		expect(e.detail.metadata.dedupeKey).toBe(`device-due-soon:sandbox:${data.device.id}:${data.device.nextTestDate}:${data.stage}`);

		// Steady state: nothing new.
		world.aws.accepted.length = 0;
		expect((await pollDueSoon(pollerContext(world, scenario.table()))).complete).toBe(true);
		expect(dueSoon()).toHaveLength(0);
	});

	it('lead stages: a device is announced again when it enters the next stage, once', async () => {
		const { id, days } = deviceDueIn(15, 30);
		await pollDueSoon(pollerContext(world, scenario.table()));
		expect(announced()).toContain(`${id}:${addDays(account().today(), days)}:30`);
		world.aws.accepted.length = 0;
		account().clockOffsetMs += (days - 6) * DAY; // 6 days left: inside the 7-day stage
		await pollDueSoon(pollerContext(world, scenario.table()));
		expect(announced()).toContain(`${id}:${account().data.devices.get(id)!.values[DEVICE.nextTest]}:7`);
		expect(announced().filter((k) => k.startsWith(`${id}:`))).toHaveLength(1);
		world.aws.accepted.length = 0;
		account().clockOffsetMs += 2 * DAY;
		await pollDueSoon(pollerContext(world, scenario.table()));
		expect(announced().filter((k) => k.startsWith(`${id}:`))).toEqual([]);
	});

	it('configurable stages; 0 turns the poller off without a single request', async () => {
		await pollDueSoon(pollerContext(world, scenario.table(), { settings: { dueSoonStages: [14] } }));
		expect(announced()).toEqual(expected([14]));
		world.aws.accepted.length = 0;
		const before = world.sandbox.stats.requests;
		const report = await pollDueSoon(pollerContext(world, await newTable(world.dynamo), { settings: { dueSoonStages: [0] } }));
		expect(report.complete).toBe(true);
		expect(world.sandbox.stats.requests).toBe(before);
		expect(dueSoon()).toHaveLength(0);
	});

	it('a device re-tested before its due date starts over with its new due date', async () => {
		const { id } = deviceDueIn(1, 7);
		await pollDueSoon(pollerContext(world, scenario.table()));
		account().syncTestResult({ device_id: id, status: 'passed' });
		const newDue = account().data.devices.get(id)!.values[DEVICE.nextTest] as string;
		expect(newDue > addDays(account().today(), 30)).toBe(true);
		world.aws.accepted.length = 0;
		await pollDueSoon(pollerContext(world, scenario.table()));
		expect(dueSoon()).toHaveLength(0);
		// Months later the new due date comes within 30 days: announced again, for the new date.
		account().clockOffsetMs += (daysBetween(account().today(), newDue) - 25) * DAY;
		await pollDueSoon(pollerContext(world, scenario.table()));
		expect(announced()).toContain(`${id}:${newDue}:30`);
	});

	it('a due date that passes: the device leaves "coming due" for the overdue list, no Resolved, no due-soon event', async () => {
		const { id, days } = deviceDueIn(0, 7);
		await pollOverdueDevices(pollerContext(world, scenario.table()));
		await pollDueSoon(pollerContext(world, scenario.table()));
		world.aws.accepted.length = 0;
		account().clockOffsetMs += (days + 1) * DAY;
		await pollDueSoon(pollerContext(world, scenario.table()));
		await pollOverdueDevices(pollerContext(world, scenario.table()));
		expect(dueSoon().filter((e) => (e.detail.data as { device: { id: number } }).device.id === id)).toEqual([]);
		const types = world.aws.events().map((e) => e['detail-type']);
		expect(types).not.toContain('Device Overdue Resolved');
		expect(world.aws.events().some((e) => e['detail-type'] === 'Device Overdue' && (e.detail.data as { device: { id: number } }).device.id === id)).toBe(true);
	});

	it('a clock set back: passed due dates do not come back into a stage, nothing is announced twice', async () => {
		await pollDueSoon(pollerContext(world, scenario.table()));
		world.aws.accepted.length = 0;
		account().clockOffsetMs -= 10 * DAY;
		const report = await pollDueSoon(pollerContext(world, scenario.table()));
		expect(report.complete).toBe(true);
		expect(dueSoon()).toEqual([]);
	});

	it('devices re-tested while the scan pages: no false event, and the next run finds every device', async () => {
		// Between the pages, devices already read are re-tested: the rest of the list shifts forward.
		const base = undiciRequestFn(world.sandbox.sandboxToken);
		let pagesServed = 0;
		const retested: number[] = [];
		const request: RequestFn = async (req) => {
			const res = await base(req);
			if (req.url.includes('/data/devices/all/') && ++pagesServed === 1) {
				const first = (JSON.parse(typeof res.body === 'string' ? res.body : new TextDecoder().decode(res.body)) as { results: Array<{ id: number }> }).results;
				for (const d of first.slice(0, 3)) {
					account().syncTestResult({ device_id: d.id, status: 'passed' });
					retested.push(d.id);
				}
			}
			return res;
		};
		const want = expected([30, 7]);
		const ctx = pollerContext(world, scenario.table(), { settings: { pageSize: 6 } });
		ctx.client = new ServiceClient({ baseUrl: world.sandbox.url, request, clock: systemClock });
		await pollDueSoon(ctx);
		// Every announcement is a real fact of the moment it was read.
		for (const key of announced()) expect(want).toContain(key);
		await pollDueSoon(pollerContext(world, scenario.table(), { settings: { pageSize: 6 } }));
		const still = want.filter((k) => !retested.some((id) => k.startsWith(`${id}:`)));
		for (const key of still) expect(announced()).toContain(key);
		expect(new Set(dueSoon().map((e) => e.detail.metadata.dedupeKey)).size).toBe(dueSoon().length);
	});
});
