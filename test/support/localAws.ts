import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import dynalite from 'dynalite';
import { serveLocally, type LocalServer } from './localServer';

export const AWS_TEST_CONFIG = { region: 'eu-central-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } };

export interface PutEventsEntry {
	Source: string;
	DetailType: string;
	Detail: string;
	EventBusName?: string;
	Time?: number;
}

/**
 * A wire-level stand-in for the AWS JSON endpoints the pollers call (no emulator exists on npm):
 * `AWSEvents.PutEvents` (with scripted partial failures and throttling) and
 * `secretsmanager.GetSecretValue`. Real SDK clients talk to it over HTTP.
 */
export class LocalAws {
	readonly accepted: PutEventsEntry[] = [];
	calls = 0;
	/** Decides per entry: undefined = accept, else an error code (e.g. ThrottlingException). */
	failEntry: (entry: PutEventsEntry, call: number) => string | undefined = () => undefined;
	/** Fails the whole call with this status and error type when it returns one. */
	failCall: (call: number) => { status: number; type: string } | undefined = () => undefined;
	readonly secrets = new Map<string, string>();
	private server?: LocalServer;
	url = '';

	async start(): Promise<this> {
		this.server = await serveLocally((req, raw, res) => {
			const target = String(req.headers['x-amz-target'] ?? '');
			const body = JSON.parse(raw.toString('utf8') || '{}') as Record<string, unknown>;
			const reply = (status: number, payload: unknown) => {
				res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
				res.end(JSON.stringify(payload));
			};
			if (target === 'AWSEvents.PutEvents') {
				const call = ++this.calls;
				const entries = body.Entries as PutEventsEntry[];
				if (!Array.isArray(entries) || entries.length < 1 || entries.length > 10) {
					return reply(400, { __type: 'ValidationException', message: `1 to 10 entries per call, got ${entries?.length}` });
				}
				const size = entries.reduce((n, e) => n + (e.Time !== undefined ? 14 : 0) + Buffer.byteLength(e.Source) + Buffer.byteLength(e.DetailType) + Buffer.byteLength(e.Detail), 0);
				if (size > 256 * 1024) return reply(400, { __type: 'ValidationException', message: `request of ${size} bytes is over 256 KB` });
				const whole = this.failCall(call);
				if (whole) return reply(whole.status, { __type: whole.type, message: 'scripted failure' });
				let failed = 0;
				const results = entries.map((entry) => {
					const code = this.failEntry(entry, call);
					if (code) {
						failed++;
						return { ErrorCode: code, ErrorMessage: 'scripted failure' };
					}
					this.accepted.push(entry);
					return { EventId: `evt-${this.accepted.length}` };
				});
				return reply(200, { FailedEntryCount: failed, Entries: results });
			}
			if (target === 'secretsmanager.GetSecretValue') {
				const id = String(body.SecretId);
				const value = this.secrets.get(id);
				if (value === undefined) return reply(400, { __type: 'ResourceNotFoundException', message: 'no such secret' });
				return reply(200, { ARN: id, Name: id, SecretString: value, VersionId: 'v1' });
			}
			reply(400, { __type: 'UnknownOperationException', message: target });
		});
		this.url = this.server.url;
		return this;
	}

	events(): Array<{ source: string; 'detail-type': string; detail: { metadata: { dedupeKey: string; account?: string }; data: Record<string, unknown> } }> {
		return this.accepted.map((e) => ({ source: e.Source, 'detail-type': e.DetailType, detail: JSON.parse(e.Detail) }));
	}

	eventBridge(): EventBridgeClient {
		return new EventBridgeClient({ ...AWS_TEST_CONFIG, endpoint: this.url, maxAttempts: 1 });
	}

	async stop(): Promise<void> {
		await this.server?.stop();
	}
}

/** DynamoDB's wire protocol (dynalite) with the pollers' state table. */
export async function startDynamo(table = 'tec-state'): Promise<{ url: string; client: DynamoDBClient; table: string; stop: () => Promise<void> }> {
	const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	const client = new DynamoDBClient({ ...AWS_TEST_CONFIG, endpoint: url });
	await createStateTable(client, table);
	return { url, client, table, stop: () => new Promise((r) => server.close(() => r())) };
}

/** The pollers' state table, as infra/ deploys it: `pk` and `sk` strings. */
export async function createStateTable(client: DynamoDBClient, table: string): Promise<void> {
	await client.send(
		new CreateTableCommand({
			TableName: table,
			BillingMode: 'PAY_PER_REQUEST',
			AttributeDefinitions: [
				{ AttributeName: 'pk', AttributeType: 'S' },
				{ AttributeName: 'sk', AttributeType: 'S' },
			],
			KeySchema: [
				{ AttributeName: 'pk', KeyType: 'HASH' },
				{ AttributeName: 'sk', KeyType: 'RANGE' },
			],
		}),
	);
	// dynalite answers CreateTable with the table still CREATING and makes it ACTIVE on a timer: a
	// request that arrives first is refused with ResourceNotFoundException, as DynamoDB does.
	for (let i = 0; (await client.send(new DescribeTableCommand({ TableName: table }))).Table?.TableStatus !== 'ACTIVE'; i++) {
		if (i >= 200) throw new Error(`the local table ${table} did not become ACTIVE`);
		await new Promise((r) => setTimeout(r, 5));
	}
}

/**
 * The environment a deployed poller reads (lambdas/config.ts), pointed at local endpoints: the
 * AWS SDK clients and Powertools pick these up as they would in Lambda.
 */
export function useLambdaEnvironment(e: { baseUrl: string; secretArn: string; table: string; bus: string; aws: LocalAws; dynamoUrl: string }): void {
	Object.assign(process.env, {
		AWS_REGION: AWS_TEST_CONFIG.region,
		AWS_ACCESS_KEY_ID: 'test',
		AWS_SECRET_ACCESS_KEY: 'test',
		AWS_ENDPOINT_URL_DYNAMODB: e.dynamoUrl,
		AWS_ENDPOINT_URL_EVENTBRIDGE: e.aws.url,
		AWS_ENDPOINT_URL_SECRETS_MANAGER: e.aws.url,
		POWERTOOLS_DEV: 'true',
		TEC_BASE_URL: e.baseUrl,
		TEC_ENVIRONMENT: 'sandbox',
		TEC_TOKEN_SECRET_ARN: e.secretArn,
		STATE_TABLE: e.table,
		EVENT_BUS_NAME: e.bus,
		// The deployed default backfills the demo's measured values on the first run (2 requests a second):
		// these tests are of handlers, the backfill has its own (test/lambdas/measurementBackfill.test.ts).
		BACKFILL_SHARE: '0',
	});
}
