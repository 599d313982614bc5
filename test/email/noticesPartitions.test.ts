import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMAIL_PARTITIONS, partitionsAllow, type StatePartitions } from '../../infra/constructs/stateAccess';
import { handler as digest } from '../../lambdas/handlers/digestEmail';
import { handler as notices } from '../../lambdas/handlers/customerNotices';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { DynamoRecorder, type DynamoCall } from '../support/dynamoRecorder';
import { LocalAws, startDynamo } from '../support/localAws';
import { LocalSes, useEmailLambdaEnvironment } from '../support/localSes';

/**
 * What the re-test notices function really does to the state table (its records, summary, lease,
 * idempotency and the deployment's SES budget), held against what its role allows
 * (infra/constructs/stateAccess.ts, dynamodb:LeadingKeys): one account, and an account of several.
 */
let sandbox: Sandbox;
let dynamo: Awaited<ReturnType<typeof startDynamo>>;
let ses: LocalSes;
let aws: LocalAws;
let recorder: DynamoRecorder;
const SECRET = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:tec-token-AbCdEf';
const EAST = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:tec-token/stack/east-AbCdEf';
const context = (id: string) => ({ awsRequestId: id, functionName: 'notices', getRemainingTimeInMillis: () => 120_000 }) as unknown as Context;

beforeAll(async () => {
	process.env.AWS_LAMBDA_FUNCTION_NAME = 'notices-partitions';
	sandbox = await startSandbox({ port: 0, accounts: 2, size: { customers: 4, devices: 40 } });
	dynamo = await startDynamo('notices-partitions');
	ses = await new LocalSes().start();
	aws = await new LocalAws().start();
	aws.secrets.set(SECRET, JSON.stringify({ token: sandbox.sandboxToken }));
	aws.secrets.set(EAST, sandbox.accounts[1].token);
	recorder = new DynamoRecorder(dynamo.url);
	const settings = { mailFrom: 'service@lab.example.com', recipients: { default: ['ops@lab.example.com'] }, customerNotices: { enabled: true } };
	useEmailLambdaEnvironment({ dynamoUrl: await recorder.start(), sesUrl: ses.url, secretsUrl: aws.url, table: dynamo.table, timeZone: 'UTC', settings }, { TEC_BASE_URL: sandbox.url, TEC_TOKEN_SECRET_ARN: SECRET });
});
afterAll(async () => {
	await recorder.stop();
	await aws.stop();
	await ses.stop();
	await dynamo.stop();
	await sandbox.stop();
});

const refused = (allowed: StatePartitions, calls: DynamoCall[]) => calls.flatMap((c) => c.keys.filter((pk) => !partitionsAllow(allowed, `dynamodb:${c.action}`, pk)).map((pk) => `${c.action} ${pk}`));

describe("the notices' calls on the state table are within their role's partitions", () => {
	it('one account and an account of several, on the 1st and the day after; the digest of the 1st reading their summaries', async () => {
		const first = `${sandbox.account.today().slice(0, 7)}-01`;
		const next = `${first.slice(0, 8)}02`;
		const east = { id: 'east', environment: 'sandbox', baseUrl: sandbox.url, tokenSecretArn: EAST, account: 'east', partition: 'east' };
		let from = recorder.calls.length;
		const one = await notices({ scheduledTime: `${first}T07:00:00Z` }, context('n-1'));
		const several = await notices({ scheduledTime: `${first}T07:00:00Z`, account: east }, context('n-2'));
		await notices({ scheduledTime: `${next}T07:00:00Z`, account: east }, context('n-3'));
		expect(one!.sent.length + several!.sent.length).toBeGreaterThan(0);
		const calls = recorder.calls.slice(from);
		expect(calls.map((c) => c.action)).toEqual(expect.arrayContaining(['PutItem', 'DeleteItem', 'BatchWriteItem', 'UpdateItem']));
		expect(refused(EMAIL_PARTITIONS.notices, calls)).toEqual([]);

		from = recorder.calls.length;
		await digest({ scheduledTime: `${first}T07:00:00Z` }, context('d-1'));
		expect(refused(EMAIL_PARTITIONS.digest, recorder.calls.slice(from))).toEqual([]);
	}, 120_000);
});
