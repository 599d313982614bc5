/** Event "projectUpdated": updated_time watermark plus the ids at the boundary. */
import { describe, expect, it } from 'vitest';
import { ids, Poller, random, sorted, useWorld } from '../support/trigger';

const world = useWorld();

const projects = () => world.sandbox.account.data.projects;
const snapshot = () => new Map(projects().map((p) => [p.id, p.updated_time]));

describe('projectUpdated', () => {
	it('first activation emits nothing; an update is emitted once with its new updated_time', async () => {
		const poller = new Poller(world, { event: 'projectUpdated' });
		expect(await poller.poll()).toEqual([]);
		world.advance(5_000);
		world.sandbox.account.touchProject(3);
		const emitted = await poller.poll();
		expect(emitted).toEqual([expect.objectContaining({ id: 3, updated_time: projects()[2].updated_time })]);
		expect(await poller.poll()).toEqual([]);
		world.advance(5_000);
		world.sandbox.account.touchProject(3);
		expect(ids(await poller.poll())).toEqual([3]);
	});

	it('a project stamped in the same second as the watermark (seen after the poll read) is not lost', async () => {
		const poller = new Poller(world, { event: 'projectUpdated' });
		await poller.poll();
		world.advance(5_000);
		world.sandbox.account.touchProject(2);
		expect(ids(await poller.poll())).toEqual([2]);
		// Another update carrying the very same time stamp becomes visible only now.
		projects()[4].updated_time = projects()[1].updated_time;
		expect(ids(await poller.poll())).toEqual([5]);
		expect(await poller.poll()).toEqual([]);
	});

	it('100 polls with updates between them: each poll emits exactly the projects whose updated_time moved', async () => {
		const rnd = random(5);
		const poller = new Poller(world, { event: 'projectUpdated' });
		await poller.poll();
		let before = snapshot();
		let total = 0;
		for (let i = 0; i < 100; i++) {
			world.advance(rnd.int(1, 3) * 1000 + rnd.int(0, 2) * 3_600_000);
			for (let k = rnd.int(0, 3); k > 0; k--) world.sandbox.account.touchProject(rnd.int(1, projects().length));
			if (rnd.next() < 0.2) world.sandbox.account.syncTestResult({ device_id: 1, project_id: rnd.int(1, projects().length) });
			const now = snapshot();
			const moved = sorted([...now].filter(([id, t]) => before.get(id) !== t).map(([id]) => id));
			const emitted = await poller.poll();
			expect(ids(emitted), `poll ${i + 1}`).toEqual(moved);
			for (const p of emitted) expect(p.updated_time).toBe(now.get(Number(p.id)));
			total += emitted.length;
			before = now;
		}
		expect(total).toBeGreaterThan(80);
	});

	it('applies the filters: only open projects', async () => {
		const poller = new Poller(world, {
			event: 'projectUpdated',
			filters: { text: [{ key: 'status', conditions: { condition: [{ keyword: 'equals', value: 'open' }] } }] },
		});
		await poller.poll();
		world.advance(2_000);
		const open = projects().filter((p) => p.status === 'open').map((p) => p.id);
		for (const p of projects()) world.sandbox.account.touchProject(p.id);
		expect(ids(await poller.poll())).toEqual(sorted(open));
	});
});
