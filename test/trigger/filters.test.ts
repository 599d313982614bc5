/**
 * The trigger's property-first Filters (trigger version 2), polled through n8n-core's PollContext
 * against the sandbox over HTTP: a filter from the key list, a "Within the Last N Days" range
 * that moves with the calendar without restarting the trigger's memory, and an error that names
 * the property. Version 1's type-first Filters are covered by the other trigger tests (they run
 * version 1).
 */
import { describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import { addDays } from '../../client';
import { DEVICE } from '../../sandbox/properties';
import { runPoll } from '../support/n8n';
import { credentials, DAY_MS, ids, overdueNow, setOverdue, sorted, useWorld } from '../support/trigger';

const world = useWorld();

/** A version 2 trigger node of an active workflow (timezone UTC, as the service's days). */
class PollerV2 {
	staticData: IDataObject = {};
	constructor(readonly parameters: IDataObject) {}

	async tick() {
		const result = await runPoll({
			parameters: this.parameters,
			credentials: credentials(world.sandbox),
			staticData: this.staticData,
			typeVersion: 2,
			workflowSettings: { timezone: 'UTC' },
		});
		if (!result.error) this.staticData = result.staticData;
		return result;
	}

	async poll(): Promise<IDataObject[]> {
		const result = await this.tick();
		if (result.error) throw new Error(`poll failed: ${result.error.message}`);
		return (result.items ?? []).map((i) => i.json);
	}
}

const department = (id: number) => String(world.sandbox.account.data.devices.get(id)?.values[DEVICE.department] ?? '');

describe('trigger version 2: property-first Filters', () => {
	it('Device Overdue with a Department filter from the list emits only that department’s devices', async () => {
		const poller = new PollerV2({
			event: 'deviceOverdue',
			filters: { filter: [{ key: `${DEVICE.department}|Text`, textCondition: 'equals', textValue: 'Workshop' }] },
		});
		expect(await poller.poll()).toEqual([]);
		const waiting = [...world.sandbox.account.data.devices.keys()].filter((id) => !overdueNow(world.sandbox).has(id));
		const workshop = waiting.find((id) => department(id).toLowerCase() === 'workshop')!;
		const other = waiting.find((id) => department(id).toLowerCase() !== 'workshop')!;
		expect(workshop && other).toBeTruthy();
		setOverdue(world.sandbox, workshop, true);
		setOverdue(world.sandbox, other, true);
		expect(ids(await poller.poll())).toEqual([workshop]);
	});

	it('a "Within the Last N Days" range moves with the calendar and keeps the memory: the next day emits exactly what entered', async () => {
		const poller = new PollerV2({
			event: 'deviceOverdue',
			filters: { filter: [{ key: `${DEVICE.lastTested}|Date`, dateCondition: 'withinLast', days: 1000 }] },
		});
		const inRange = (today: string) => (values: Record<number, unknown>) => String(values[DEVICE.lastTested]) >= addDays(today, -1000);
		expect(await poller.poll()).toEqual([]);
		let before = overdueNow(world.sandbox, inRange(world.today()));
		expect(before.size).toBeGreaterThan(0);
		for (let day = 1; day <= 3; day++) {
			world.advance(DAY_MS);
			const [id] = [...world.sandbox.account.data.devices.keys()].filter((k) => !overdueNow(world.sandbox).has(k));
			setOverdue(world.sandbox, id, true);
			const now = overdueNow(world.sandbox, inRange(world.today()));
			const entered = sorted([...now].filter((k) => !before.has(k)));
			expect(entered).toContain(id);
			// Had the memory restarted with the new day's dates, this poll would emit nothing.
			expect(ids(await poller.poll()), `day ${day}`).toEqual(entered);
			before = now;
		}
	});

	it('Fetch Test Event applies them too: the sample is an overdue device of the department asked for', async () => {
		const fetch = async (filters: IDataObject) => {
			const result = await runPoll({ parameters: { event: 'deviceOverdue', filters }, credentials: credentials(world.sandbox), mode: 'manual', typeVersion: 2, workflowSettings: { timezone: 'UTC' } });
			expect(result.error).toBeUndefined();
			return Number((result.items ?? [])[0].json.id);
		};
		const unfiltered = await fetch({});
		// A department other than the unfiltered sample's, so that only the filter can explain the answer.
		const wanted = [...overdueNow(world.sandbox)].map(department).find((d) => d !== '' && d.toLowerCase() !== department(unfiltered).toLowerCase())!;
		expect(wanted).toBeDefined();
		const sample = await fetch({ filter: [{ key: '={{ "Department" }}', condition: 'equals', value: wanted }] });
		expect(overdueNow(world.sandbox).has(sample)).toBe(true);
		expect(department(sample).toLowerCase()).toBe(wanted.toLowerCase());
	});

	it('a bad value fails the poll with the property’s name and the value, and nothing is remembered', async () => {
		const poller = new PollerV2({
			event: 'deviceDueSoon',
			filters: { filter: [{ key: `${DEVICE.nextTest}|Date`, dateCondition: 'olderThan', dateValue: '2026-02-30' }] },
		});
		const result = await poller.tick();
		expect(result.error?.message).toBe('Filter "Next test": "2026-02-30" is not a date (write YYYY-MM-DD or pick a date)');
		expect(poller.staticData).toEqual({});
	});
});
