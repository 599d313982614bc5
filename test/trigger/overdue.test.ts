/**
 * Event "deviceOverdue", polled through n8n-core's PollContext against the sandbox over HTTP,
 * with the service's clock and data moving between polls.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeIds } from '../../nodes/TestEquipmentCloud/trigger/state';
import { DEVICE } from '../../sandbox/properties';
import { DAY_MS, Poller, ids, overdueNow, random, setOverdue, sorted, startWorld, type World } from './helpers';

let world: World;
beforeAll(async () => {
	world = await startWorld();
});
afterAll(async () => world.stop());
beforeEach(() => {
	world.sandbox.account.clockOffsetMs = 0;
	world.sandbox.account.reset();
});

const notOverdue = () => [...world.sandbox.account.data.devices.keys()].filter((id) => !overdueNow(world.sandbox).has(id));

describe('deviceOverdue', () => {
	it('the first activation emits nothing and remembers the current list; an unchanged list emits nothing', async () => {
		const poller = new Poller(world, { event: 'deviceOverdue' });
		expect(overdueNow(world.sandbox).size).toBeGreaterThan(20);
		expect(await poller.poll()).toEqual([]);
		expect(poller.staticData.cursor).toMatchObject({ v: 1, event: 'deviceOverdue' });
		expect(await poller.poll()).toEqual([]);
	});

	it('emits a device that enters the list once, and again after it left and came back', async () => {
		const poller = new Poller(world, { event: 'deviceOverdue' });
		await poller.poll();
		const [id] = notOverdue();
		setOverdue(world.sandbox, id, true);
		const first = await poller.poll();
		expect(ids(first)).toEqual([id]);
		expect(first[0]).toMatchObject({ id, next_test_date: expect.any(String), days_overdue: expect.any(Number) });
		expect(await poller.poll()).toEqual([]);
		setOverdue(world.sandbox, id, false); // tested: leaves the list
		expect(await poller.poll()).toEqual([]);
		expect(await poller.poll()).toEqual([]);
		setOverdue(world.sandbox, id, true); // overdue again later
		expect(ids(await poller.poll())).toEqual([id]);
		expect(await poller.poll()).toEqual([]);
	});

	it('100 polls with the clock and the data moving: each poll emits exactly the devices that entered the list since the last one', async () => {
		const rnd = random(7);
		const poller = new Poller(world, { event: 'deviceOverdue' });
		await poller.poll();
		let before = overdueNow(world.sandbox);
		const emittedTimes = new Map<number, number>();
		let total = 0;
		for (let i = 0; i < 100; i++) {
			world.advance(rnd.int(0, 2) * DAY_MS);
			for (let k = rnd.int(0, 4); k > 0; k--) {
				const id = rnd.int(1, world.sandbox.account.data.devices.size);
				setOverdue(world.sandbox, id, rnd.next() < 0.6);
			}
			const now = overdueNow(world.sandbox);
			const entered = sorted([...now].filter((id) => !before.has(id)));
			const emitted = ids(await poller.poll());
			expect(emitted, `poll ${i + 1}`).toEqual(entered);
			for (const id of emitted) emittedTimes.set(id, (emittedTimes.get(id) ?? 0) + 1);
			total += emitted.length;
			before = now;
		}
		expect(total).toBeGreaterThan(60);
		// Devices that left and came back were emitted once per time they entered.
		expect([...emittedTimes.values()].some((n) => n > 1)).toBe(true);
	});

	it('applies the filters (the action node’s filter model): only Workshop devices', async () => {
		const poller = new Poller(world, {
			event: 'deviceOverdue',
			filters: { text: [{ key: DEVICE.department, conditions: { condition: [{ keyword: 'equals', value: 'Workshop' }] } }] },
		});
		await poller.poll();
		const candidates = notOverdue();
		const dept = (id: number) => world.sandbox.account.data.devices.get(id)!.values[DEVICE.department];
		const workshop = candidates.filter((id) => dept(id) === 'Workshop').slice(0, 2);
		const office = candidates.filter((id) => dept(id) !== 'Workshop').slice(0, 2);
		for (const id of [...workshop, ...office]) setOverdue(world.sandbox, id, true);
		const emitted = await poller.poll();
		expect(ids(emitted)).toEqual(sorted(workshop));
		expect(await poller.poll()).toEqual([]);
	});

	it('Simplify gives the properties as one object; changed filters start over from now', async () => {
		const poller = new Poller(world, { event: 'deviceOverdue', options: { simplify: true } });
		await poller.poll();
		const [a, b] = notOverdue();
		setOverdue(world.sandbox, a, true);
		const [item] = await poller.poll();
		expect(item).toMatchObject({ id: a, properties: { Designation: expect.any(String), 'Last tested': expect.any(String) } });

		setOverdue(world.sandbox, b, true);
		const changed = new Poller(world, {
			event: 'deviceOverdue',
			filters: { number: [{ key: DEVICE.testInterval, conditions: { condition: [{ keyword: 'greaterThan', value: 0 }] } }] },
		});
		changed.staticData = poller.staticData; // same node, filters edited
		expect(await changed.poll()).toEqual([]);
		expect(changed.staticData.cursor).not.toEqual(poller.staticData.cursor);
	});

	it('an overdue list longer than one page (1000): a device that left is forgotten once a targeted read confirms it, then emitted again when it re-enters', async () => {
		world.sandbox.account.reset({ size: { devices: 6000 } });
		const overdue = overdueNow(world.sandbox);
		expect(overdue.size).toBeGreaterThan(1000);
		const poller = new Poller(world, { event: 'deviceOverdue' });
		expect(await poller.poll()).toEqual([]);
		const [id] = sorted(overdue);
		setOverdue(world.sandbox, id, false);
		expect(await poller.poll()).toEqual([]); // missing, and its detail confirms it left: forgotten
		expect(decodeIds((poller.staticData.cursor as { ids: string }).ids)).not.toContain(id);
		setOverdue(world.sandbox, id, true);
		expect(ids(await poller.poll())).toEqual([id]);
		const [fresh] = notOverdue();
		setOverdue(world.sandbox, fresh, true);
		expect(ids(await poller.poll())).toEqual([fresh]);
		expect(JSON.stringify(poller.staticData).length).toBeLessThan(5 * overdueNow(world.sandbox).size);
	});
});
