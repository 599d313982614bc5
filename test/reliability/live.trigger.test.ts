import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import { LiveTally, putLive } from '../support/live';
import { run } from '../node/helpers';
import { Poller, startWorld, type World } from '../support/trigger';
import { soaked } from '../support/soak';

/**
 * The trigger's three events through n8n-core's poll context, and the action node's Return All,
 * under the sandbox's live mode (see live.test.ts for the pollers). The overdue list is longer
 * than one page of 1000, so scans have page boundaries for the list to shift across.
 */
/** 2 rounds in `npm test`, 20 in `npm run soak`. */
const ROUNDS = soaked(2, 20);
const POLLS_PER_ROUND = 6;

let world: World;
beforeAll(async () => {
	world = await startWorld({ devices: 3200, customers: 6, testResults: 100 });
});
afterAll(() => world.stop());

describe('trigger and Return All on a live service', () => {
	it(`${ROUNDS} randomized rounds of ${POLLS_PER_ROUND} polls of each event: exact against the ground truth`, async () => {
		const totals = new LiveTally('trigger');
		const returnAll = { reads: 0, items: 0, duplicates: 0, missing: 0 };
		const projects = { updates: 0, emitted: 0, reemitted: 0, lost: 0 };
		for (let round = 1; round <= ROUNDS; round++) {
			const { sandbox } = world;
			sandbox.account.reset({ seed: 9000 + round });
			await putLive(sandbox, { on: true, seed: 300 + round, changes_per_page: 0 });
			const tally = new LiveTally(`round ${round}`);
			const overdue = new Poller(world, { event: 'deviceOverdue' });
			const results = new Poller(world, { event: 'testResultNew' });
			const updated = new Poller(world, { event: 'projectUpdated' });

			// First polls remember the account as it is (and emit nothing).
			tally.runStart(sandbox);
			expect(await overdue.poll()).toEqual([]);
			tally.runDone(sandbox, sandbox.live.truth().overdue, []);
			expect(await results.poll()).toEqual([]);
			expect(await updated.poll()).toEqual([]);
			const before = new Set(sandbox.live.truth().results);
			const projectTimes = new Map(sandbox.account.data.projects.map((p) => [p.id, p.updated_time]));
			const emittedResults: number[] = [];
			const emittedProjects: IDataObject[] = [];

			await putLive(sandbox, { on: true, changes_per_page: 12 });
			for (let poll = 1; poll <= POLLS_PER_ROUND + 2; poll++) {
				if (poll === POLLS_PER_ROUND + 1) await putLive(sandbox, { on: false }); // settle
				else if (poll <= POLLS_PER_ROUND) sandbox.live.step(6);
				tally.runStart(sandbox);
				const entered = (await overdue.poll()).map((r) => Number(r.id));
				tally.runDone(sandbox, entered, []);
				emittedResults.push(...(await results.poll()).map((r) => Number(r.id)));
				emittedProjects.push(...(await updated.poll()));
				if (poll <= POLLS_PER_ROUND) {
					// Return All of the overdue list while it changes: each device once, and every device
					// overdue from before the read to after it is there.
					const startDep = new Map(sandbox.live.departures);
					const overdueBefore = sandbox.live.truth().overdue;
					const { items, error } = await run(sandbox, { resource: 'overdueDevice', operation: 'getAll', returnAll: true });
					expect(error).toBeUndefined();
					const ids = items.map((i) => Number(i.json.id));
					const got = new Set(ids);
					const overdueAfter = new Set(sandbox.live.truth().overdue);
					returnAll.reads++;
					returnAll.items += ids.length;
					returnAll.duplicates += ids.length - got.size;
					for (const id of overdueBefore) {
						const stayed = overdueAfter.has(id) && (sandbox.live.departures.get(id) ?? 0) === (startDep.get(id) ?? 0);
						if (stayed && !got.has(id)) returnAll.missing++;
					}
				}
			}
			tally.counts.changes = sandbox.live.changes.length;
			tally.results(sandbox, emittedResults, before);
			tally.keys(emittedResults.map(String));
			// Projects: each update emitted once; every project updated since the first poll emitted
			// with its latest update.
			const pairs = emittedProjects.map((p) => `${String(p.id)}@${String(p.updated_time)}`);
			projects.emitted += pairs.length;
			projects.reemitted += pairs.length - new Set(pairs).size;
			for (const p of sandbox.account.data.projects) {
				if (p.updated_time === projectTimes.get(p.id)) continue;
				projects.updates++;
				if (!pairs.includes(`${p.id}@${p.updated_time}`)) projects.lost++;
			}
			console.info(`live (trigger, round ${round}): ${JSON.stringify(tally.counts)}`);
			totals.add(tally);
		}
		console.info(`live (trigger, total): ${JSON.stringify(totals.counts)}`);
		console.info(`live (Return All of the overdue list): ${JSON.stringify(returnAll)}`);
		console.info(`live (trigger, Updated Project): ${JSON.stringify(projects)}`);
		totals.expectExact({ resolved: false });
		expect(projects.updates).toBeGreaterThan(0);
		expect({ reemitted: projects.reemitted, lost: projects.lost }).toEqual({ reemitted: 0, lost: 0 });
		// Return All pages with an overlap: each device once, none that stayed on the list missed.
		expect(returnAll.reads).toBe(ROUNDS * POLLS_PER_ROUND);
		expect(returnAll.items).toBeGreaterThan(0);
		expect({ duplicates: returnAll.duplicates, missing: returnAll.missing }).toEqual({ duplicates: 0, missing: 0 });
	}, soaked(300_000, 3_000_000));
});
