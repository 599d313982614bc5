import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { MailStore } from '../email/ports';
import { DynamoStateStore } from './dynamoStateStore';

/** The e-mail facts in the stack's state table: the pollers' layout (`pk`, `sk`, `v`), plus batch deletes. */
export class DynamoMailStore extends DynamoStateStore implements MailStore {
	private readonly doc: DynamoDBDocumentClient;

	constructor(
		private readonly tableName: string,
		client: DynamoDBClient = new DynamoDBClient({}),
		private readonly pause: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
	) {
		super(tableName, client, pause);
		this.doc = DynamoDBDocumentClient.from(client);
	}

	async deleteMany(namespace: string, keys: string[]): Promise<void> {
		for (let i = 0; i < keys.length; i += 25) {
			let requests = keys.slice(i, i + 25).map((sk) => ({ DeleteRequest: { Key: { pk: namespace, sk } } }));
			for (let attempt = 0; requests.length > 0; attempt++) {
				if (attempt >= 8) throw new Error(`DynamoDB left ${requests.length} deletes unprocessed after ${attempt} attempts`);
				if (attempt > 0) await this.pause(Math.min(2000, 50 * 2 ** attempt));
				const out = await this.doc.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: requests } }));
				requests = (out.UnprocessedItems?.[this.tableName] ?? []) as typeof requests;
			}
		}
	}
}
