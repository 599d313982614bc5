/**
 * One poll at a time per trigger node: a poll that starts while the last one of the same node is
 * still running (the service slow) returns at once without a request and says why in n8n's log;
 * the running poll finishes normally, and the next poll runs again.
 */
import { describe, expect, it } from 'vitest';
import { captureLogs, runPoll } from '../support/n8n';
import { Poller, credentials, setOverdue, useWorld } from '../support/trigger';

const world = useWorld();

const settled = async () => {
	await new Promise((resolve) => setTimeout(resolve, 50));
	return world.sandbox.stats.requests;
};

describe('overlapping polls of one node', () => {
	it('the second poll returns null with no request and a log line naming the running poll', async () => {
		const poller = new Poller(world, { event: 'deviceOverdue' });
		await poller.poll(); // first activation: remembers the list

		// One poll alone costs this many requests.
		let before = await settled();
		await poller.poll();
		const solo = (await settled()) - before;
		expect(solo).toBeGreaterThan(0);

		const [entering] = [...world.sandbox.account.data.devices.keys()];
		setOverdue(world.sandbox, entering, false);
		await poller.poll();
		setOverdue(world.sandbox, entering, true);

		// The service answers slowly: the first poll is still waiting when the second starts.
		world.sandbox.faults.add({ kind: 'latency', latencyMs: 1500 });
		before = await settled();
		const { result, logs } = await captureLogs(async () => {
			const first = poller.tick();
			await new Promise((resolve) => setTimeout(resolve, 300));
			const second = await runPoll({ parameters: poller.parameters, credentials: credentials(world.sandbox), staticData: poller.staticData });
			return { first: await first, second };
		});
		expect(result.second.error).toBeUndefined();
		expect(result.second.items).toBeNull();
		// The running poll finished its work: the device that entered the list is emitted once.
		expect(result.first.error).toBeUndefined();
		expect(result.first.items?.map((i) => i.json.id)).toEqual([entering]);
		expect((await settled()) - before).toBe(solo);
		const skipped = logs.filter((l) => l.level === 'warn' && l.message.includes('skipped'));
		expect(skipped).toHaveLength(1);
		expect(skipped[0].message).toMatch(/the previous poll of this node, started \d+ s ago, is still running/);
		expect(skipped[0].message).not.toMatch(/No response from the service|No bridge/);

		// Once it has finished, polls run again.
		world.sandbox.faults.clear();
		before = await settled();
		expect(await poller.poll()).toEqual([]);
		expect((await settled()) - before).toBe(solo);
	});

	it('"Fetch Test Event" is not held back by a running poll', async () => {
		const poller = new Poller(world, { event: 'deviceOverdue' });
		await poller.poll();
		world.sandbox.faults.add({ kind: 'latency', latencyMs: 1000, count: 1 });
		const running = poller.tick();
		await new Promise((resolve) => setTimeout(resolve, 200));
		const manual = await poller.manual();
		expect(manual.error).toBeUndefined();
		expect(manual.items).toHaveLength(1);
		expect((await running).error).toBeUndefined();
	});
});
