import { ConditionalCheckFailedException, DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { SendBudget } from '../email/ports';

/**
 * The rate assumed until a function that can read the SES account (the digest, the notices:
 * `GetAccount`) has recorded it: SES's smallest rate, a sandbox account's 1 per second (a new
 * deployment's first alerts may come before either has run). A function that knows the rate records it here.
 */
export const UNKNOWN_SEND_RATE = 1;

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
		const known = !!this.options.rate;
		const step = known ? ':iv' : 'if_not_exists(#iv, :iv)';
		const iv = String(intervalOf(this.options.rate ?? UNKNOWN_SEND_RATE));
		for (let attempt = 0; attempt < 50; attempt++) {
			const t = now();
			// Idle: this send takes the slot now; else the one after the slots reserved ahead.
			const idle = attempt % 2 === 0;
			try {
				const out = await this.client.send(
					new UpdateItemCommand({
						TableName: this.table,
						Key: KEY,
						UpdateExpression: `SET ${known ? '#iv = :iv, ' : ''}#n = ${idle ? `${step} + :t` : `#n + ${step}`}`,
						ConditionExpression: idle ? 'attribute_not_exists(#n) OR #n <= :t' : '#n > :t',
						ExpressionAttributeNames: { '#n': 'next', '#iv': 'interval' },
						ExpressionAttributeValues: { ':t': { N: String(t) }, ':iv': { N: iv } },
						ReturnValues: 'ALL_NEW',
					}),
				);
				const at = idle ? t : Number(out.Attributes?.next?.N) - Number(out.Attributes?.interval?.N ?? iv);
				const wait = at - now();
				// A reserved slot whose reservation came back late is given up: sends that leave late crowd the ones after them.
				if (!idle && wait < -LATE_MS) continue;
				if (wait > 0) await (this.options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms))))(wait);
				return;
			} catch (error) {
				if (!(error instanceof ConditionalCheckFailedException)) throw error;
			}
		}
		throw new Error('SES sending budget: no slot after 50 attempts');
	}
}

/** How late a reserved slot may be taken (slots a fifth apart more than needed leave 200 ms in all). An idle budget's slot is always taken: giving it up under load cost more slots than it saved. */
const LATE_MS = 150;

/** Slots a fifth more than 1/rate apart: requests do not arrive at SES as evenly as they leave. */
const intervalOf = (rate: number) => Math.ceil(1200 / rate);

const KEY = { pk: { S: 'mail:sesBudget' }, sk: { S: 'deployment' } };
