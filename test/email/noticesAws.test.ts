/** The re-test notices through the AWS adapters: SES (a wire-level stand-in) and the state table (local DynamoDB), read from the sandbox over HTTP. */
import type { Context } from 'aws-lambda';
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readNoticeInput } from '../../client/noticesRead';
import type { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { awsDeps } from '../../lambdas/email/aws';
import { noticesOnTheFirst } from '../../lambdas/email/noticesAws';
import { NOTICES_SUMMARY_NS, type NoticesSummary } from '../../lambdas/email/notices';
import { silentLog } from '../../lambdas/ports';
import { noticeMonthOf, noticesNamespace, NoticesError, runNotices, type NoticeDeps } from '../../lambdas/email/notices';
import { parseEmailSettings } from '../../lambdas/email/settings';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { createStateTable, startDynamo } from '../support/localAws';
import { LocalSes, mimeParts } from '../support/localSes';
import { pollerClient } from '../reliability/support';

const RATE = 200;
let sandbox: Sandbox;
let dynamo: Awaited<ReturnType<typeof startDynamo>>;
let ses: LocalSes;

beforeAll(async () => {
	process.env.AWS_LAMBDA_FUNCTION_NAME = 'notices-test';
	sandbox = await startSandbox({ port: 0, ratePerSecond: RATE });
	dynamo = await startDynamo('notices-0');
	ses = await new LocalSes().start();
});
afterAll(async () => {
	await ses.stop();
	await dynamo.stop();
	await sandbox.stop();
});

describe('re-test notices on AWS adapters', () => {
	it('one address SES rejects does not stop the others; the retry sends only it; the sent notices are items under notices:<month>', async () => {
		await createStateTable(dynamo.client, 'notices-1');
		const settings = parseEmailSettings({ mailFrom: 'service@lab.example.com', recipients: { default: ['ops@lab.example.com'] }, customerNotices: { enabled: true } }, 'test');
		const aws = awsDeps({ table: 'notices-1', settings, timeZone: 'UTC', environment: 'sandbox' }, { dynamo: dynamo.client, ses: ses.client() });
		aws.mailer.registerLambdaContext({ getRemainingTimeInMillis: () => 60_000 } as Context);
		const client = pollerClient(sandbox, sandbox.sandboxToken, { ratePerSecond: RATE });
		const deps: NoticeDeps = { store: aws.store, mailer: aws.mailer, settings, environment: 'sandbox', now: () => sandbox.account.now(), read: () => readNoticeInput(client, () => sandbox.account.now()) };
		const month = noticeMonthOf(sandbox.account.today());

		let rejected: string | undefined;
		ses.failCall = (_call, to) => {
			rejected ??= to[0];
			return to[0] === rejected ? { status: 400, type: 'MessageRejected' } : undefined;
		};
		const error = await runNotices(deps, month).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(NoticesError);
		const first = (error as NoticesError).report;
		expect(first.failed.map((f) => f.address)).toEqual([rejected]);
		expect(first.sent.length).toBeGreaterThan(1);
		expect(ses.sent.map((m) => m.to[0]).sort()).toEqual(first.sent.map((s) => s.address).sort());

		ses.failCall = () => undefined;
		const retry = await runNotices(deps, month);
		expect(retry.sent.map((s) => s.address)).toEqual([rejected]);
		expect(retry.alreadySent).toHaveLength(first.sent.length);
		expect(ses.sent).toHaveLength(first.sent.length + 1);
		expect(mimeParts(ses.sent.at(-1)!.raw).attachments[0].contentType).toMatch(/text\/csv/);

		// The audit trail: one item per customer, queryable by month.
		const items = (await dynamo.client.send(new QueryCommand({ TableName: 'notices-1', KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: noticesNamespace(month) } } }))).Items ?? [];
		expect(items).toHaveLength(first.sent.length + 1);
	}, 120_000);

	it('the digest Lambda on the first of a month: reads the account with its token secret, sends once, records the summary for the digest; off on other days', async () => {
		await createStateTable(dynamo.client, 'notices-2');
		ses.sent.length = 0;
		ses.failCall = () => undefined;
		const settings = parseEmailSettings({ mailFrom: 'service@lab.example.com', recipients: { default: ['ops@lab.example.com'] }, customerNotices: { enabled: true } }, 'test');
		const aws = awsDeps({ table: 'notices-2', settings, timeZone: 'UTC', environment: 'sandbox' }, { dynamo: dynamo.client, ses: ses.client() });
		aws.mailer.registerLambdaContext({ getRemainingTimeInMillis: () => 60_000 } as Context);
		const deps = { ...aws, now: () => sandbox.account.now() };
		const secrets = { get: async () => JSON.stringify({ token: sandbox.sandboxToken }) } as unknown as SecretsProvider;
		const env = { TEC_BASE_URL: sandbox.url, TEC_TOKEN_SECRET_ARN: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:tec-token-AbCdEf' };
		const day = `${sandbox.account.today().slice(0, 7)}-01`;
		expect(await noticesOnTheFirst(deps, `${day.slice(0, 8)}02`, env, secrets, silentLog)).toBeUndefined();
		const first = (await noticesOnTheFirst(deps, day, env, secrets, silentLog))!;
		expect(first.sent.length).toBeGreaterThan(0);
		expect(ses.sent).toHaveLength(first.sent.length);
		const again = (await noticesOnTheFirst(deps, day, env, secrets, silentLog))!;
		expect(again.sent).toEqual([]);
		expect(ses.sent).toHaveLength(first.sent.length);
		const summary = await aws.store.get<NoticesSummary>(NOTICES_SUMMARY_NS, day);
		expect(summary?.customers).toBe(first.sent.length);
		expect(JSON.stringify(first)).not.toContain(sandbox.sandboxToken);
	}, 120_000);
});
