import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { StateStore, StoredItem } from '../ports';
import { storedItemFault } from '../pollers/state';

/**
 * The state store on DynamoDB: one table, `pk` = namespace, `sk` = key, `v` = value,
 * `expiresAt` (seconds) as the TTL attribute. Writes are plain puts (state is per key, last
 * writer wins inside the lease); the lease itself is a conditional write. What is read is checked
 * against the pollers' stored shapes (pollers/state.ts): an item of a wrong shape is refused
 * naming it, never read as "nothing stored".
 */
export class DynamoStateStore implements StateStore {
	private readonly db: DynamoDBDocumentClient;

	constructor(
		private readonly table: string,
		client: DynamoDBClient = new DynamoDBClient({}),
		private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
	) {
		this.db = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
	}

	async *list<T>(namespace: string): AsyncIterable<StoredItem<T>> {
		for await (const items of this.queryPages(namespace)) {
			for (const item of items) yield { key: item.sk as string, value: this.checked<T>(namespace, item.sk as string, item.v) };
		}
	}

	async *listPages<T>(namespace: string): AsyncIterable<Array<StoredItem<T>>> {
		for await (const items of this.queryPages(namespace)) yield items.map((item) => ({ key: item.sk as string, value: this.checked<T>(namespace, item.sk as string, item.v) }));
	}

	/** The namespace's raw items, one query page at a time. */
	private async *queryPages(namespace: string): AsyncIterable<Array<Record<string, unknown>>> {
		let start: Record<string, unknown> | undefined;
		do {
			const page = await this.db.send(
				new QueryCommand({ TableName: this.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': namespace }, ExclusiveStartKey: start }),
			);
			yield page.Items ?? [];
			start = page.LastEvaluatedKey;
		} while (start);
	}

	async get<T>(namespace: string, key: string): Promise<T | undefined> {
		const out = await this.db.send(new GetCommand({ TableName: this.table, Key: { pk: namespace, sk: key }, ConsistentRead: true }));
		return out.Item ? this.checked<T>(namespace, key, out.Item.v) : undefined;
	}

	private checked<T>(namespace: string, key: string, value: unknown): T {
		const fault = storedItemFault(namespace, key, value);
		if (fault) throw new Error(`The state table ${this.table} has a bad stored value at "${namespace}" › "${key}": ${fault}; fix or delete that item`);
		return value as T;
	}

	async putMany<T>(namespace: string, items: Array<StoredItem<T> & { expiresAt?: number }>): Promise<void> {
		for (let i = 0; i < items.length; i += 25) {
			let requests = items.slice(i, i + 25).map((item) => ({
				PutRequest: {
					Item: { pk: namespace, sk: item.key, v: item.value, expiresAt: item.expiresAt === undefined ? undefined : Math.ceil(item.expiresAt / 1000) },
				},
			}));
			// DynamoDB may leave items unprocessed under load: send them again with backoff.
			for (let attempt = 0; requests.length > 0; attempt++) {
				if (attempt >= 8) throw new Error(`DynamoDB left ${requests.length} writes unprocessed after ${attempt} attempts`);
				if (attempt > 0) await this.sleep(Math.min(2000, 50 * 2 ** attempt));
				const out = await this.db.send(new BatchWriteCommand({ RequestItems: { [this.table]: requests } }));
				requests = (out.UnprocessedItems?.[this.table] ?? []) as typeof requests;
			}
		}
	}

	async acquireLease(name: string, owner: string, now: number, durationMs: number): Promise<boolean> {
		try {
			await this.db.send(
				new PutCommand({
					TableName: this.table,
					Item: { pk: 'lease', sk: name, v: { owner, until: now + durationMs }, expiresAt: Math.ceil((now + durationMs) / 1000) + 3600 },
					ConditionExpression: 'attribute_not_exists(pk) OR v.#until < :now OR v.#owner = :owner',
					ExpressionAttributeNames: { '#until': 'until', '#owner': 'owner' },
					ExpressionAttributeValues: { ':now': now, ':owner': owner },
				}),
			);
			return true;
		} catch (error) {
			if (error instanceof ConditionalCheckFailedException) return false;
			throw error;
		}
	}

	async releaseLease(name: string, owner: string): Promise<void> {
		try {
			await this.db.send(
				new DeleteCommand({
					TableName: this.table,
					Key: { pk: 'lease', sk: name },
					ConditionExpression: 'v.#owner = :owner',
					ExpressionAttributeNames: { '#owner': 'owner' },
					ExpressionAttributeValues: { ':owner': owner },
				}),
			);
		} catch (error) {
			if (!(error instanceof ConditionalCheckFailedException)) throw error;
		}
	}
}
