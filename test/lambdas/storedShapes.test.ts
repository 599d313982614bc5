import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { DynamoStateStore } from '../../lambdas/adapters/dynamoStateStore';
import { FileStateStore } from '../../lambdas/adapters/fileStateStore';
import { pollDueDates } from '../../lambdas/pollers/dueDates';
import { pollDueSoon } from '../../lambdas/pollers/dueSoon';
import { pollOverdueDevices } from '../../lambdas/pollers/overdueDevices';
import { NS, storedShape } from '../../lambdas/pollers/state';
import { pollTestResults } from '../../lambdas/pollers/testResults';
import { newTable, pollerContext, usePollerWorld } from '../support/pollers';

/**
 * The pollers own the shapes they store (lambdas/pollers/state.ts); both stores check what they
 * read against them: the file when it is opened, DynamoDB items when they are read.
 */
const world = usePollerWorld({ devices: 120, customers: 4, testResults: 40 });
const dir = mkdtempSync(join(tmpdir(), 'tec-shapes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const put = (table: string, pk: string, sk: string, v: unknown) =>
	DynamoDBDocumentClient.from(world.dynamo).send(new PutCommand({ TableName: table, Item: { pk, sk, v } }));

describe('the stored shapes', () => {
	it('every namespace a run of each poller writes has its shape, and the file it wrote reads again', async () => {
		const path = join(dir, 'state.json');
		const store = new FileStateStore(path);
		const ctx = pollerContext(world, '', { store });
		expect((await pollOverdueDevices(ctx)).complete).toBe(true);
		expect((await pollDueSoon(ctx)).complete).toBe(true);
		expect((await pollTestResults(ctx)).complete).toBe(true);
		world.sandbox.account.clockOffsetMs += 3_600_000;
		expect((await pollTestResults(ctx)).complete).toBe(true);
		expect((await pollDueDates(ctx)).complete).toBe(true);
		const namespaces = Object.keys(JSON.parse(readFileSync(path, 'utf8')) as object).filter((ns) => ns !== 'lease');
		expect(namespaces).toEqual(expect.arrayContaining([NS.overdue('sandbox'), NS.dueSoon('sandbox'), NS.resultsCursor('sandbox'), NS.seenResults('sandbox'), NS.dueDates('sandbox')]));
		for (const ns of namespaces) expect(storedShape(ns), ns).toBeDefined();
		expect(() => new FileStateStore(path)).not.toThrow();
	});

	it('DynamoDB: an item of a wrong shape is refused by get and list, naming the table, the item and the field', async () => {
		const table = await newTable(world.dynamo);
		const store = new DynamoStateStore(table, world.dynamo);
		await put(table, NS.resultsCursor('sandbox'), 'testResults', { watermark: '2026-02-30' });
		await expect(store.get(NS.resultsCursor('sandbox'), 'testResults')).rejects.toThrow(
			`The state table ${table} has a bad stored value at "cursor:sandbox" › "testResults": v.watermark: expected a calendar date written YYYY-MM-DD; fix or delete that item`,
		);
		await put(table, NS.overdue('sandbox'), '5', { overdue: true, episode: 1, since: 'yesterday', reminders: 0, digestPending: false, device: { id: 5 } });
		const listed = async () => {
			for await (const _ of store.list(NS.overdue('sandbox'))) void _;
		};
		await expect(listed()).rejects.toThrow(/bad stored value at "overdue:sandbox" › "5": v\.since: /);
	});

	it('what earlier versions stored still reads, in the table as in the file', async () => {
		const table = await newTable(world.dynamo);
		const store = new DynamoStateStore(table, world.dynamo);
		await put(table, NS.resultsCursor('sandbox'), 'testResults', { watermark: '2026-01-31' });
		await put(table, NS.seenResults('sandbox'), '17', { testDate: '2026-01-30' });
		await put(table, 'somethingNewer:sandbox', 'x', [1]);
		expect(await store.get(NS.resultsCursor('sandbox'), 'testResults')).toEqual({ watermark: '2026-01-31' });
		const seen: string[] = [];
		for await (const item of store.list(NS.seenResults('sandbox'))) seen.push(item.key);
		expect(seen).toEqual(['17']);
		expect(await store.get('somethingNewer:sandbox', 'x')).toEqual([1]);
	});
});
