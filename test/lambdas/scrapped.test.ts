/**
 * The recycle bin's device entries kept for the monthly report (lambdas/pollers/scrapped.ts), in
 * DynamoDB (dynalite, which refuses an item over 400 KB as DynamoDB does): kept in parts, each well
 * under the item limit, read back whole, or as not read when the parts do not make one bin.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { DynamoStateStore } from '../../lambdas/adapters/dynamoStateStore';
import { SCRAPPED_PART_BYTES, readScrappedBin, writeScrappedBin } from '../../lambdas/pollers/scrappedBin';
import { NS } from '../../lambdas/pollers/state';
import { createStateTable, startDynamo } from '../support/localAws';

let dynamo: Awaited<ReturnType<typeof startDynamo>>;
let table = '';
let n = 0;
let store: DynamoStateStore;

beforeAll(async () => {
	dynamo = await startDynamo('scrapped-0');
});
afterAll(async () => {
	await dynamo.stop();
});
beforeEach(async () => {
	table = `scrapped-${++n}`;
	await createStateTable(dynamo.client, table);
	store = new DynamoStateStore(table, dynamo.client, async () => undefined);
});

const entries = (count: number, designation: (i: number) => string = (i) => `Angle grinder GWS ${i}`) =>
	Array.from({ length: count }, (_, i) => ({ deviceId: 100_000 + i, designation: designation(i), deletedOn: `2026-0${1 + (i % 9)}-01` }));

/** The stored items of the bin, as DynamoDB holds them. */
async function items() {
	const all = (await dynamo.client.send(new ScanCommand({ TableName: table }))).Items ?? [];
	return all.filter((i) => i.pk.S?.startsWith('scrapped'));
}

describe('the scrapped devices kept for the monthly report', () => {
	it('a bin of 6,000 entries (24 months of a 100,000-device fleet scrapping 3 % a year) is kept in parts under the item limit, and read back whole', async () => {
		const devices = entries(6000);
		// Whole, it would be one item of about 500 KB: over DynamoDB's 400 KB.
		expect(JSON.stringify(devices).length).toBeGreaterThan(400_000);
		await writeScrappedBin(store, 'sandbox', { readOn: '2026-11-20', from: '2024-11-01', devices }, 1);
		expect(await readScrappedBin(store, 'sandbox')).toEqual(devices);
		const stored = await items();
		expect(stored.length).toBeGreaterThan(2);
		// The wire's JSON of an item (type tags included) is more than DynamoDB counts for it: under half the limit.
		for (const i of stored) expect(Buffer.byteLength(JSON.stringify(i))).toBeLessThan(200_000);
	});

	it('parts are cut by size, not by count: 6,000 entries with designations of 1,000 characters (6 MB) are kept too', async () => {
		const devices = entries(6000, (i) => `${'Prüfgerät '.repeat(100)}${i}`);
		await writeScrappedBin(store, 'sandbox', { readOn: '2026-11-20', from: '2024-11-01', devices }, 1);
		expect(await readScrappedBin(store, 'sandbox')).toEqual(devices);
		expect(SCRAPPED_PART_BYTES).toBeLessThanOrEqual(200_000);
	});

	it('a smaller bin read later replaces the larger one: no entry of the earlier one is read again', async () => {
		await writeScrappedBin(store, 'sandbox', { readOn: '2026-11-20', from: '2024-11-01', devices: entries(6000) }, 1);
		const later = entries(10);
		await writeScrappedBin(store, 'sandbox', { readOn: '2026-11-21', from: '2024-11-01', devices: later }, 2);
		expect(await readScrappedBin(store, 'sandbox')).toEqual(later);
	});

	it('a bin the token may not read is kept as not read (null); none read yet is null too', async () => {
		expect(await readScrappedBin(store, 'sandbox')).toBeNull();
		await writeScrappedBin(store, 'sandbox', { readOn: '2026-11-20', from: '2024-11-01', devices: entries(6000) }, 1);
		await writeScrappedBin(store, 'sandbox', { readOn: '2026-11-21', from: '2024-11-01', devices: null }, 2);
		expect(await readScrappedBin(store, 'sandbox')).toBeNull();
	});

	it('a write that stopped midway (parts of a newer bin beside the older bin’s record) reads as not read, never as a mix', async () => {
		await writeScrappedBin(store, 'sandbox', { readOn: '2026-11-20', from: '2024-11-01', devices: entries(6000) }, 1);
		const failing = Object.create(store) as DynamoStateStore;
		let writes = 0;
		failing.putMany = async (ns, put) => {
			if (++writes > 1) throw new Error('ValidationException');
			return store.putMany(ns, put);
		};
		await expect(writeScrappedBin(failing, 'sandbox', { readOn: '2026-11-21', from: '2024-11-01', devices: entries(6000, (i) => `Drill ${i}`) }, 2)).rejects.toThrow('ValidationException');
		expect(await readScrappedBin(store, 'sandbox')).toBeNull();
	});

	it('what an earlier version kept (the bin whole under one key) still reads', async () => {
		const devices = entries(20);
		await store.putMany(NS.scrapped('sandbox'), [{ key: 'bin', value: { readOn: '2026-11-20', from: '2024-11-01', devices } }]);
		expect(await readScrappedBin(store, 'sandbox')).toEqual(devices);
	});
});
