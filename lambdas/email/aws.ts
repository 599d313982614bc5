import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetAccountCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { DynamoMailStore } from '../adapters/dynamoMailStore';
import { DynamoSendBudget } from '../adapters/dynamoSendBudget';
import { SesMailer } from '../adapters/sesMailer';
import type { Context } from 'aws-lambda';
import type { Clock } from '../../client';
import type { DigestDeps } from './digest';
import type { EmailEnv } from './env';

/**
 * The e-mail functions' wiring in AWS: facts and idempotency records in the stack's state table
 * (idempotency records under their own partition, expiring through the table's TTL attribute).
 */
export const IDEMPOTENCY_PARTITION = 'idempotency:email';

export function idempotencyStore(table: string, client: DynamoDBClient): DynamoDBPersistenceLayer {
	return new DynamoDBPersistenceLayer({ tableName: table, keyAttr: 'pk', sortKeyAttr: 'sk', staticPkValue: IDEMPOTENCY_PARTITION, expiryAttr: 'expiresAt', awsSdkV3Client: client });
}

/** The DynamoDB and SES v2 clients, each passed through `capture` (the Tracer records them). */
export async function tracedClients(capture: <T>(client: T) => Promise<T>): Promise<{ dynamo: DynamoDBClient; ses: SESv2Client }> {
	const [dynamo, ses] = await Promise.all([capture(new DynamoDBClient({})), capture(new SESv2Client({}))]);
	return { dynamo, ses };
}

/**
 * The account's maximum SES sending rate (sends per second), for a function that sends many (the
 * re-test notices); SES's sandbox rate (1 per second) when the account cannot be read.
 */
export async function sesSendingRate(ses: SESv2Client, log: { warn: (m: string, x: Record<string, unknown>) => void }): Promise<number> {
	try {
		const rate = (await ses.send(new GetAccountCommand({}))).SendQuota?.MaxSendRate;
		if (rate && rate > 0) return rate;
	} catch (error) {
		log.warn("The SES account's sending rate could not be read: sending at 1 per second", { error: (error as Error).message });
	}
	return 1;
}

/**
 * `clock` times the sending budget's slots (the system clock when left out; a simulated month
 * passes its own, so a send's wait for its slot is simulated time too). `sentRecordSeconds`: how long
 * a send is remembered, where longer than a digest day's (SENT_RECORD_SECONDS).
 */
export function awsDeps(
	env: EmailEnv,
	clients: { dynamo?: DynamoDBClient; ses?: SESv2Client; maxSendRate?: number; clock?: Clock; sentRecordSeconds?: number } = {},
): DigestDeps & { mailer: SesMailer; persistence: DynamoDBPersistenceLayer; budget: DynamoSendBudget; leases: DynamoMailStore } {
	const dynamo = clients.dynamo ?? new DynamoDBClient({});
	const store = new DynamoMailStore(env.table, dynamo);
	const { clock } = clients;
	const budget = new DynamoSendBudget(env.table, dynamo, { rate: clients.maxSendRate, ...(clock && { now: () => clock.now(), sleep: async (ms: number) => await clock.sleep(ms) }) });
	return {
		store,
		// The pollers' state lives in the same table: the digest reads today's truth from it.
		view: store,
		// And their account leases, which the notices take as the pollers do.
		leases: store,
		// One persistence layer per idempotent function: each layer takes its function's key path.
		// Every e-mail function sends through the deployment's one SES budget; one that read the rate records it there.
		mailer: new SesMailer(idempotencyStore(env.table, dynamo), clients.ses ?? new SESv2Client({}), { configurationSetName: env.configurationSet, budget, expiresAfterSeconds: clients.sentRecordSeconds, keyPrefix: env.sendKeyPrefix }),
		budget,
		persistence: idempotencyStore(env.table, dynamo),
		settings: env.settings,
		timeZone: env.timeZone,
		environment: env.environment,
		now: Date.now,
		accounts: env.accounts,
	};
}

/**
 * `collect` run once per event: Powertools Idempotency on the event's dedupeKey (30 days), so a
 * redelivered event changes nothing. Here with the rest of the AWS side, which the handler loads
 * when the first event gets that far, so Idempotency is not part of its init. The dedupeKey is
 * selected here and hashed as Powertools hashed the JMESPath selection 'detail.metadata.dedupeKey'
 * before (the records stay found); the Lambda bundles leave JMESPath out (infra/bundling.ts).
 */
export function oncePerEvent<E, R>(collect: (event: E, context: Context) => Promise<R>, persistenceStore: DynamoDBPersistenceLayer) {
	const config = new IdempotencyConfig({ expiresAfterSeconds: 30 * 86_400, throwOnNoIdempotencyKey: true });
	// Inline, so the records' key prefix (Powertools adds the function's name) stays the one `collect`'s anonymous function gave.
	const once = makeIdempotent(async (_dedupeKey: unknown, event: unknown, context: Context) => collect(event as E, context), { persistenceStore, config, dataIndexArgument: 0 });
	return (event: E, context: Context): Promise<R> => {
		// Not a handler's (event, context) any more: an unfinished event counts as in progress for this invocation's remaining time.
		config.registerLambdaContext(context);
		return once(dedupeKeyOf(event), event, context);
	};
}

/** What 'detail.metadata.dedupeKey' selects: null where a step is missing or not an object. */
function dedupeKeyOf(event: unknown): unknown {
	const at = (v: unknown, k: string) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? ((v as Record<string, unknown>)[k] ?? null) : null);
	return at(at(at(event, 'detail'), 'metadata'), 'dedupeKey');
}
