import { ConditionalCheckFailedException, DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { SendBudget } from '../email/ports';

/**
 * The rate assumed until a function that can read the SES account (the notices, `GetAccount`) has
 * recorded it: SES's smallest production rate. A function that knows the rate records it here.
 */
export const UNKNOWN_SEND_RATE = 14;

/**
 * One SES sending budget for the whole deployment, in the state table: SES's maximum sending rate
 * is the AWS account's, shared by every function and every service account's run that sends (the
 * notices of several accounts fire in the same minute, and the digest with them). Each send
 * reserves the next free slot with one conditional write (item `mail:sesBudget`: `next`, when the
 * slot after it begins; `interval`, recorded by a function that read the rate), then waits for its
 * slot; so all senders together start at most `rate` sends in any second, whichever Lambda they run in.
 */
export class DynamoSendBudget implements SendBudget {
	constructor(
		private readonly table: string,
		private readonly client: DynamoDBClient,
		private readonly options: { rate?: number; now?: () => number; sleep?: (ms: number) => Promise<void> } = {},
	) {}

	/** Records the rate this function read from SES, for the functions that cannot read it (the digest, the collector). */
	async record(): Promise<void> {
		if (!this.options.rate) return;
		await this.client.send(
			new UpdateItemCommand({ TableName: this.table, Key: KEY, UpdateExpression: 'SET #iv = :iv', ExpressionAttributeNames: { '#iv': 'interval' }, ExpressionAttributeValues: { ':iv': { N: String(intervalOf(this.options.rate)) } } }),
		);
	}

	async slot(): Promise<void> {
		const now = this.options.now ?? Date.now;
		// The recorded interval wins over an assumed one, so every sender spaces its slots alike.
		const own = { ':iv': { N: String(intervalOf(this.options.rate ?? UNKNOWN_SEND_RATE)) } };
		const spacing = this.options.rate ? { set: '#iv = :iv, ', step: ':iv' } : { set: '', step: 'if_not_exists(#iv, :iv)' };
		const names = { '#n': 'next', '#iv': 'interval' };
		let at: number | undefined;
		for (let attempt = 0; at === undefined || now() - at > LATE_MS; attempt++) {
			if (attempt >= 50) throw new Error('The SES sending budget could not be reserved after 50 attempts (the state table kept changing under it)');
			at = undefined;
			const t = now();
			// The budget is idle: this send takes the slot now.
			try {
				await this.client.send(
					new UpdateItemCommand({
						TableName: this.table,
						Key: KEY,
						UpdateExpression: `SET ${spacing.set}#n = ${spacing.step} + :t`,
						ConditionExpression: 'attribute_not_exists(#n) OR #n <= :t',
						ExpressionAttributeNames: names,
						ExpressionAttributeValues: { ':t': { N: String(t) }, ...own },
					}),
				);
				at = t;
				break;
			} catch (error) {
				if (!(error instanceof ConditionalCheckFailedException)) throw error;
			}
			// Slots are reserved ahead: this send takes the next one.
			try {
				const out = await this.client.send(
					new UpdateItemCommand({
						TableName: this.table,
						Key: KEY,
						UpdateExpression: `SET ${spacing.set}#n = #n + ${spacing.step}`,
						ConditionExpression: '#n > :t',
						ExpressionAttributeNames: names,
						ExpressionAttributeValues: { ':t': { N: String(t) }, ...own },
						ReturnValues: 'ALL_NEW',
					}),
				);
				at = Number(out.Attributes?.next?.N) - Number(out.Attributes?.interval?.N ?? own[':iv'].N);
			} catch (error) {
				if (!(error instanceof ConditionalCheckFailedException)) throw error;
			}
		}
		const wait = at - now();
		if (wait > 0) await (this.options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms))))(wait);
	}
}

/**
 * A slot whose reservation came back this late is given up and another one taken: sends that leave
 * late would crowd the ones after them (slots a fifth apart more than needed leave 200 ms in all,
 * the rest is for the way to SES).
 */
const LATE_MS = 80;

/** Slots a fifth more than 1/rate apart: requests do not arrive at SES as evenly as they leave. */
const intervalOf = (rate: number) => Math.ceil(1200 / rate);

const KEY = { pk: { S: 'mail:sesBudget' }, sk: { S: 'deployment' } };
