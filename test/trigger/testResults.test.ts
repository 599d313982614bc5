/**
 * Event "testResultNew": late uploads inside the lookback, Only Failed Results, filters, and the
 * size of the static data after 10 000 results.
 */
import { describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import { addDays } from '../../client/dates';
import { decodeIds } from '../../nodes/TestEquipmentCloud/trigger/state';
import { captureLogs } from '../support/n8n';
import { DAY_MS, ids, Poller, random, sorted, useWorld } from '../support/trigger';

const world = useWorld({ testResults: 600, devices: 240 });

const sync = (input: { device_id?: number; status?: 'passed' | 'failed'; test_date?: string; tester?: string; synced_time?: string }) =>
	world.sandbox.account.syncTestResult({ device_id: 1, ...input });

describe('testResultNew', () => {
	it('the first activation emits nothing, though results are dated inside the window', async () => {
		sync({ test_date: world.today() });
		const poller = new Poller(world, { event: 'testResultNew' });
		expect(await poller.poll()).toEqual([]);
		// The window now starts at the upload day of the newest result.
		expect(poller.staticData.cursor).toMatchObject({ v: 1, event: 'testResultNew', from: world.today() });
		expect(await poller.poll()).toEqual([]);
	});

	it('results uploaded late are caught once, whatever their test date (5 or 30 days before)', async () => {
		const poller = new Poller(world, { event: 'testResultNew' });
		await poller.poll();
		world.advance(DAY_MS);
		const late = sync({ test_date: addDays(world.today(), -5), status: 'failed' });
		const tooOld = sync({ test_date: addDays(world.today(), -30) });
		const fresh = sync({ test_date: world.today() });
		const emitted = await poller.poll();
		expect(ids(emitted)).toEqual([late.id, tooOld.id, fresh.id]);
		expect(emitted[0]).toMatchObject({ id: late.id, status: 'failed', test_date: late.test_date, device_id: 1 });
		expect(await poller.poll()).toEqual([]);
	});

	it('a longer lookback option catches older uploads', async () => {
		const poller = new Poller(world, { event: 'testResultNew', options: { lookbackDays: 40 } });
		await poller.poll();
		const old = sync({ test_date: addDays(world.today(), -30) });
		expect(ids(await poller.poll())).toEqual([old.id]);
	});

	it('100 polls with uploads and the clock moving: every result once, Only Failed Results only the failed ones', async () => {
		const rnd = random(11);
		const all = new Poller(world, { event: 'testResultNew' });
		const failed = new Poller(world, { event: 'testResultNew', onlyFailed: true });
		await all.poll();
		await failed.poll();
		const seen = new Map<number, number>();
		let total = 0;
		let totalFailed = 0;
		for (let i = 0; i < 100; i++) {
			world.advance(rnd.int(0, 1) * DAY_MS + rnd.int(0, 3) * 60_000);
			const synced: IDataObject[] = [];
			for (let k = rnd.int(0, 5); k > 0; k--) {
				const roll = rnd.next();
				const testDate =
					roll < 0.7 ? world.today() : roll < 0.9 ? addDays(world.today(), -rnd.int(1, 6)) : addDays(world.today(), -rnd.int(20, 60));
				synced.push({ ...sync({ device_id: rnd.int(1, 240), status: rnd.next() < 0.3 ? 'failed' : 'passed', test_date: testDate }) });
			}
			// Every upload, whatever its test date.
			const expected = synced;
			const emitted = await all.poll();
			expect(ids(emitted), `poll ${i + 1}`).toEqual(ids(expected));
			const emittedFailed = await failed.poll();
			expect(ids(emittedFailed), `poll ${i + 1} (only failed)`).toEqual(ids(expected.filter((r) => r.status === 'failed')));
			expect(emittedFailed.every((r) => r.status === 'failed')).toBe(true);
			for (const r of emitted) seen.set(Number(r.id), (seen.get(Number(r.id)) ?? 0) + 1);
			total += emitted.length;
			totalFailed += emittedFailed.length;
		}
		expect(total).toBeGreaterThan(150);
		expect(totalFailed).toBeGreaterThan(30);
		expect([...seen.values()].every((n) => n === 1)).toBe(true);
	});

	it('applies the filters: only results of one device (Number filter) by one tester (Text filter)', async () => {
		const poller = new Poller(world, {
			event: 'testResultNew',
			filters: {
				number: [{ key: 'device_id', conditions: { condition: [{ keyword: 'equals', value: 7 }] } }],
				text: [{ key: 'tester', conditions: { condition: [{ keyword: 'equals', value: 'K. Nowak' }] } }],
			},
		});
		await poller.poll();
		const match = sync({ device_id: 7, tester: 'K. Nowak' });
		sync({ device_id: 7, tester: 'A. Weber' });
		sync({ device_id: 8, tester: 'K. Nowak' });
		expect(ids(await poller.poll())).toEqual([match.id]);
	});

	it('a filter on test_date applies (the window follows synced_time): only uploads of results tested since the date', async () => {
		const since = addDays(world.today(), -10);
		const poller = new Poller(world, {
			event: 'testResultNew',
			filters: { date: [{ key: 'test_date', conditions: { condition: [{ keyword: 'newerOrSame', value: since }] } }] },
		});
		await poller.poll();
		const recent = sync({ device_id: 3, test_date: addDays(world.today(), -2) });
		sync({ device_id: 4, test_date: addDays(world.today(), -40) });
		expect(ids(await poller.poll())).toEqual([recent.id]);
	});

	it('refuses a filter on synced_time (the window uses it) with a clear node error, before any request', async () => {
		const poller = new Poller(world, {
			event: 'testResultNew',
			filters: { date: [{ key: 'synced_time', conditions: { condition: [{ keyword: 'newer', value: '2026-01-01' }] } }] },
		});
		const before = world.sandbox.stats.requests;
		const result = await poller.tick();
		expect(result.error).toMatchObject({ name: 'NodeOperationError' });
		expect(result.error?.message).toContain('synced_time cannot be filtered in this trigger');
		expect(world.sandbox.stats.requests).toBe(before);
	});

	it('a result synced "in the future" does not blind the trigger: the window stops at now, the log warns, later uploads are emitted', async () => {
		const poller = new Poller(world, { event: 'testResultNew' });
		await poller.poll();
		const ahead = sync({ device_id: 5, synced_time: new Date(Date.now() + 30 * DAY_MS).toISOString() });
		const { result, logs } = await captureLogs(async () => await poller.poll());
		expect(ids(result)).toEqual([ahead.id]);
		expect(logs).toContainEqual({ level: 'warn', message: expect.stringMatching(new RegExp(`^Test result ${ahead.id} was uploaded at .* later than now`)) });
		expect(String((poller.staticData.cursor as IDataObject).from) <= world.today()).toBe(true);
		world.advance(DAY_MS);
		const next = sync({ device_id: 6 });
		expect(ids(await poller.poll())).toEqual([next.id]);
	});

	it('a result synced "in the future" late in the day (23:30 UTC) keeps the window at today: an upload a few minutes later that day is emitted', async () => {
		world.advance(11.5 * 3_600_000); // noon + 11.5 h: within the hour of tolerance of tomorrow
		const poller = new Poller(world, { event: 'testResultNew' });
		await poller.poll();
		const ahead = sync({ device_id: 5, synced_time: new Date(Date.now() + 30 * DAY_MS).toISOString() });
		expect(ids(await poller.poll())).toEqual([ahead.id]);
		expect((poller.staticData.cursor as IDataObject).from).toBe(world.today());
		world.advance(5 * 60_000);
		const sameDay = sync({ device_id: 6 });
		expect(sameDay.synced_time.slice(0, 10)).toBe(world.today());
		expect(ids(await poller.poll())).toEqual([sameDay.id]);
	});
});

describe('bounded static data', () => {
	const BOUND = 4096;

	it(`10 000 results over 100 polls (a day each, some uploaded late): each emitted once, static data stays under ${BOUND} characters`, async () => {
		world.sandbox.account.reset({ size: { testResults: 0, devices: 50, customers: 5 } });
		const rnd = random(3);
		const poller = new Poller(world, { event: 'testResultNew' });
		await poller.poll();
		let max = 0;
		let emittedTotal = 0;
		const emittedIds = new Set<number>();
		for (let day = 0; day < 100; day++) {
			world.advance(DAY_MS);
			const batch: number[] = [];
			for (let k = 0; k < 100; k++) {
				const late = k >= 90;
				const r = world.sandbox.account.syncTestResult({
					device_id: rnd.int(1, 50),
					status: rnd.next() < 0.1 ? 'failed' : 'passed',
					test_date: late ? addDays(world.today(), -rnd.int(1, 6)) : world.today(),
				});
				batch.push(r.id);
			}
			const emitted = ids(await poller.poll());
			expect(emitted, `day ${day + 1}`).toEqual(sorted(batch));
			for (const id of emitted) emittedIds.add(id);
			emittedTotal += emitted.length;
			max = Math.max(max, JSON.stringify(poller.staticData).length);
		}
		expect(emittedTotal).toBe(10_000);
		expect(emittedIds.size).toBe(10_000);
		// For comparison: every id forever as a JSON array would be about 50 000 characters.
		expect(JSON.stringify([...emittedIds]).length).toBeGreaterThan(45_000);
		console.log(`testResultNew static data after 10 000 results: max ${max} characters, last ${JSON.stringify(poller.staticData).length}`);
		expect(max).toBeLessThan(BOUND);
		// What it holds: the ids of the results uploaded on the newest upload day (~100), no more.
		const seen = (poller.staticData.cursor as { seen: Record<string, string> }).seen;
		expect(Object.keys(seen).length).toBeLessThanOrEqual(2);
		const held = Object.values(seen).reduce((n, text) => n + decodeIds(text).length, 0);
		expect(held).toBeGreaterThanOrEqual(100);
		expect(held).toBeLessThan(210);
	}, 60_000);
});
