/** The re-test notices through the AWS adapters: SES (a wire-level stand-in) and the state table (local DynamoDB), read from the sandbox over HTTP. */
import type { Context } from 'aws-lambda';
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readNoticeInput } from '../../client/noticesRead';
import { DynamoMailStore } from '../../lambdas/adapters/dynamoMailStore';
import { awsDeps } from '../../lambdas/email/aws';
import { runDigest, type DigestError } from '../../lambdas/email/digest';
import { formatLongDay } from '../../email/texts';
import { awaitNoticesSummaries, NOTICES_SUMMARY_NS, noticesDigestLines, noticesPending, noticesSummary, noticesSummaryKey, recordNoticesSummary, type NoticesSummary } from '../../lambdas/email/notices';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { CUSTOMER } from '../../sandbox/properties';
import { handler } from '../../lambdas/handlers/customerNotices';
import { noticeMonthOf, noticesNamespace, NoticesError, runNotices, type NoticeDeps } from '../../lambdas/email/notices';
import { parseEmailSettings } from '../../lambdas/email/settings';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { AWS_TEST_CONFIG, createStateTable, LocalAws, startDynamo } from '../support/localAws';
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DynamoStateStore } from '../../lambdas/adapters/dynamoStateStore';
import { sendNotices } from '../../lambdas/email/noticesAws';
import { accountLeaseName } from '../../lambdas/pollers/context';
import { silentLog } from '../../lambdas/ports';
import { LocalSes, mimeParts, useEmailLambdaEnvironment } from '../support/localSes';
import { pollerClient } from '../reliability/support';
import { SteppingClock } from '../support/virtualClock';

const RATE = 200;
let sandbox: Sandbox;
let dynamo: Awaited<ReturnType<typeof startDynamo>>;
let ses: LocalSes;

beforeAll(async () => {
	process.env.AWS_LAMBDA_FUNCTION_NAME = 'notices-test';
	sandbox = await startSandbox({ port: 0, ratePerSecond: RATE, accounts: 2 });
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
		// An SES rate read (50 per second), as the notices function reads it when it starts: this test is not of the pacing.
		const aws = awsDeps({ table: 'notices-1', settings, timeZone: 'UTC', environment: 'sandbox' }, { dynamo: dynamo.client, ses: ses.client(), maxSendRate: 50 });
		aws.mailer.registerLambdaContext({ getRemainingTimeInMillis: () => 60_000 } as Context);
		const client = pollerClient(sandbox, sandbox.sandboxToken, { ratePerSecond: RATE });
		const deps: NoticeDeps = { store: aws.store, mailer: aws.mailer, settings, environment: 'sandbox', now: () => sandbox.account.now(), read: () => readNoticeInput(client, () => sandbox.account.now(), 'UTC') };
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

	it('the deployed notices function, one account and several: reads each account with its token secret, sends once per customer and month, records what the digest of the day says', async () => {
		await createStateTable(dynamo.client, 'notices-2');
		ses.sent.length = 0;
		ses.failCall = () => undefined;
		const aws = await new LocalAws().start();
		const secretArn = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:tec-token-AbCdEf';
		const eastArn = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:tec-token/stack/east-AbCdEf';
		aws.secrets.set(secretArn, JSON.stringify({ token: sandbox.sandboxToken }));
		aws.secrets.set(eastArn, sandbox.accounts[1].token);
		useEmailLambdaEnvironment(
			{ dynamoUrl: dynamo.url, sesUrl: ses.url, secretsUrl: aws.url, table: 'notices-2', timeZone: 'UTC', settings: { mailFrom: 'Lab Service <service@lab.example.com>', recipients: { default: ['ops@lab.example.com'] }, customerNotices: { enabled: true } } },
			{ TEC_BASE_URL: sandbox.url, TEC_TOKEN_SECRET_ARN: secretArn },
		);
		try {
			const context = (id: string) => ({ awsRequestId: id, functionName: 'notices', getRemainingTimeInMillis: () => 60_000 }) as unknown as Context;
			const day = `${sandbox.account.today().slice(0, 7)}-01`;
			const scheduledTime = `${day}T07:00:00Z`;
			const month = noticeMonthOf(day);

			// Paced to the account's SES sending rate (read with GetAccount): SES refuses nothing for rate.
			ses.maxSendRate = 3;
			ses.enforceRate = true;
			const first = (await handler({ scheduledTime }, context('n-1')))!;
			expect(first.sent.length).toBeGreaterThan(3);
			expect(ses.sent).toHaveLength(first.sent.length);
			expect(ses.refusedForRate).toBe(0);
			const times = ses.sent.map((m) => m.at);
			expect(times.every((t) => times.filter((u) => u > t - 1000 && u <= t).length <= 3)).toBe(true);
			const again = (await handler({ scheduledTime }, context('n-2')))!;
			expect(again.sent).toEqual([]);
			expect(again.alreadySent).toHaveLength(first.sent.length);
			expect(ses.sent).toHaveLength(first.sent.length);
			const store = new DynamoMailStore('notices-2', dynamo.client);
			expect((await store.get<NoticesSummary>(NOTICES_SUMMARY_NS, day))?.customers).toBe(first.sent.length);
			expect(JSON.stringify(first)).not.toContain(sandbox.sandboxToken);

			// Several accounts: the schedule names the account; its customers are its own, kept apart (ids repeat across accounts).
			const east = { id: 'east', environment: 'sandbox', baseUrl: sandbox.url, tokenSecretArn: eastArn, account: 'east' };
			const eastReport = (await handler({ scheduledTime, account: east }, context('n-3')))!;
			expect(eastReport.sent.length).toBeGreaterThan(0);
			expect(eastReport.sent.every((e) => e.account === 'east')).toBe(true);
			expect(ses.sent).toHaveLength(first.sent.length + eastReport.sent.length);
			const eastItems = (await dynamo.client.send(new QueryCommand({ TableName: 'notices-2', KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: noticesNamespace(month, 'east') } } }))).Items ?? [];
			expect(eastItems).toHaveLength(eastReport.sent.length);
			expect((await store.get<NoticesSummary>(NOTICES_SUMMARY_NS, noticesSummaryKey(day, 'east')))?.account).toBe('east');
			// The digest of the day waits for each account's summary: here both are there at once.
			expect(await awaitNoticesSummaries(store, day, [undefined, 'east'], 60_000)).toEqual([]);
			expect(JSON.stringify(eastReport)).not.toContain(sandbox.accounts[1].token);

			// A schedule naming no valid account is refused, naming the key.
			await expect(handler({ scheduledTime, account: { ...east, baseUrl: '' } }, context('n-4'))).rejects.toThrow(/account\.baseUrl/);
		} finally {
			await aws.stop();
		}
	}, 120_000);

	it('sends at the rate it is given and never faster; without pacing SES refuses sends above its rate', async () => {
		await createStateTable(dynamo.client, 'notices-4');
		const settings = parseEmailSettings({ mailFrom: 'service@lab.example.com', recipients: { default: ['ops@lab.example.com'] }, customerNotices: { enabled: true } }, 'test');
		const client = pollerClient(sandbox, sandbox.sandboxToken, { ratePerSecond: RATE });
		const send = async (table: string, maxSendRate?: number) => {
			const aws = awsDeps({ table, settings, timeZone: 'UTC', environment: 'sandbox' }, { dynamo: dynamo.client, ses: ses.client(), maxSendRate });
			aws.mailer.registerLambdaContext({ getRemainingTimeInMillis: () => 60_000 } as Context);
			return runNotices({ store: aws.store, mailer: aws.mailer, settings, environment: 'sandbox', now: () => sandbox.account.now(), read: () => readNoticeInput(client, () => sandbox.account.now(), 'UTC') }, noticeMonthOf(sandbox.account.today()));
		};
		ses.sent.length = 0;
		ses.failCall = () => undefined;
		ses.maxSendRate = 2;
		ses.enforceRate = true;
		ses.refusedForRate = 0;
		// Paced to a rate SES does not allow, the sends outrun its 2 per second: SES refuses some (the baseline this pacing exists for).
		const unpaced = await send('notices-4', 20).catch((e: unknown) => (e as NoticesError).report);
		expect(ses.refusedForRate).toBeGreaterThan(0);
		expect(unpaced.failed.length).toBeGreaterThan(0);
		await createStateTable(dynamo.client, 'notices-5');
		ses.sent.length = 0;
		ses.refusedForRate = 0;
		const paced = await send('notices-5', 2);
		expect(paced.failed).toEqual([]);
		expect(ses.refusedForRate).toBe(0);
		expect(ses.sent.length).toBeGreaterThan(2);
		ses.enforceRate = false;
	}, 120_000);

	it('one SES sending budget for the deployment: two accounts\' notices and the digest at once, each in a function of its own, at 5 per second: SES refuses none', async () => {
		await createStateTable(dynamo.client, 'notices-6');
		const recipients = Array.from({ length: 8 }, (_, i) => `ops${i}@lab.example.com`);
		const settings = parseEmailSettings({ mailFrom: 'service@lab.example.com', recipients: { default: recipients }, customerNotices: { enabled: true } }, 'test');
		// Each function its own container: its own clients and mailer, sharing only the state table and SES.
		const container = (maxSendRate?: number) => {
			const aws = awsDeps({ table: 'notices-6', settings, timeZone: 'UTC', environment: 'sandbox' }, { dynamo: dynamo.client, ses: ses.client(), maxSendRate });
			aws.mailer.registerLambdaContext({ getRemainingTimeInMillis: () => 60_000 } as Context);
			return aws;
		};
		// Each notices function records the rate it read when it starts (handlers/noticesAws.ts), before the digest's first send.
		const [westAws, eastAws] = [container(5), container(5)];
		await Promise.all([westAws.budget.record(), eastAws.budget.record()]);
		const notices = (aws: ReturnType<typeof container>, token: string, account: string) => {
			const client = pollerClient(sandbox, token, { ratePerSecond: RATE });
			return runNotices({ store: aws.store, mailer: aws.mailer, settings, environment: 'sandbox', now: Date.now, account, read: () => readNoticeInput(client, () => sandbox.account.now(), 'UTC') }, noticeMonthOf(sandbox.account.today()));
		};
		const day = sandbox.account.today();
		// The day's digest says what notices went out: one e-mail for each of its 8 recipients.
		await new DynamoMailStore('notices-6', dynamo.client).putMany(NOTICES_SUMMARY_NS, [{ key: noticesSummaryKey(day), value: { month: '2027-01', customers: 1, devices: 2, noAddress: [] } }]);
		ses.sent.length = 0;
		ses.failCall = () => undefined;
		ses.maxSendRate = 5;
		ses.enforceRate = true;
		ses.refusedForRate = 0;
		try {
			const [west, east, digest] = await Promise.all([
				notices(westAws, sandbox.sandboxToken, 'west').catch((e: unknown) => (e as NoticesError).report),
				notices(eastAws, sandbox.accounts[1].token, 'east').catch((e: unknown) => (e as NoticesError).report),
				runDigest({ ...container(), view: { list: async function* () {} } }, day).catch((e: unknown) => (e as DigestError).report),
			]);
			expect(west.sent.length + west.failed.length + east.sent.length + east.failed.length).toBeGreaterThan(10);
			expect(ses.refusedForRate).toBe(0);
			expect([west.failed, east.failed, digest.failed]).toEqual([[], [], []]);
			expect(digest.sent).toHaveLength(8);
			const times = ses.sent.map((m) => m.at);
			expect(times.every((t) => times.filter((u) => u > t - 1000 && u <= t).length <= 5)).toBe(true);
		} finally {
			ses.enforceRate = false;
		}
	}, 120_000);

	it("no function has recorded the SES rate (the notices are off, or have not run yet): the digest paces to SES's smallest rate, a sandbox account's 1 per second, and SES refuses none", async () => {
		await createStateTable(dynamo.client, 'notices-12');
		const settings = parseEmailSettings({ mailFrom: 'service@lab.example.com', recipients: { default: ['ops0@lab.example.com', 'ops1@lab.example.com', 'ops2@lab.example.com'] }, customerNotices: { enabled: true } }, 'test');
		const aws = awsDeps({ table: 'notices-12', settings, timeZone: 'UTC', environment: 'sandbox' }, { dynamo: dynamo.client, ses: ses.client() });
		aws.mailer.registerLambdaContext({ getRemainingTimeInMillis: () => 60_000 } as Context);
		const day = sandbox.account.today();
		await aws.store.putMany(NOTICES_SUMMARY_NS, [{ key: noticesSummaryKey(day), value: { month: '2027-01', customers: 1, devices: 2, noAddress: [] } }]);
		ses.sent.length = 0;
		ses.failCall = () => undefined;
		ses.maxSendRate = 1;
		ses.enforceRate = true;
		ses.refusedForRate = 0;
		try {
			const digest = await runDigest({ ...aws, view: { list: async function* () {} } }, day).catch((e: unknown) => (e as DigestError).report);
			expect(digest.failed).toEqual([]);
			expect(ses.refusedForRate).toBe(0);
			expect(digest.sent).toHaveLength(3);
		} finally {
			ses.enforceRate = false;
		}
	}, 120_000);

	it('the sending budget waits for its slots on the clock awsDeps is given (a simulated month waits in its own time)', async () => {
		await createStateTable(dynamo.client, 'notices-15');
		const settings = parseEmailSettings({ mailFrom: 'service@lab.example.com', recipients: { default: ['ops@lab.example.com'] }, customerNotices: { enabled: true } }, 'test');
		const clock = new SteppingClock(1_700_000_000_000);
		const aws = awsDeps({ table: 'notices-15', settings, timeZone: 'UTC', environment: 'sandbox' }, { dynamo: dynamo.client, ses: ses.client(), maxSendRate: 1, clock });
		for (let i = 0; i < 3; i++) await aws.budget.slot();
		// One send a second, with a fifth to spare (DynamoSendBudget): the second and third waited 1.2 s each.
		expect(clock.now() - 1_700_000_000_000).toBe(2400);
	});

	it('two runs of the same notices at once: a customer the other run is sending is not a failure, the run does not fail, each customer gets one notice', async () => {
		await createStateTable(dynamo.client, 'notices-7');
		const settings = parseEmailSettings({ mailFrom: 'service@lab.example.com', recipients: { default: ['ops@lab.example.com'] }, customerNotices: { enabled: true } }, 'test');
		const client = pollerClient(sandbox, sandbox.sandboxToken, { ratePerSecond: RATE });
		const run = () => {
			const aws = awsDeps({ table: 'notices-7', settings, timeZone: 'UTC', environment: 'sandbox' }, { dynamo: dynamo.client, ses: ses.client(), maxSendRate: 4 });
			aws.mailer.registerLambdaContext({ getRemainingTimeInMillis: () => 60_000 } as Context);
			return runNotices({ store: aws.store, mailer: aws.mailer, settings, environment: 'sandbox', now: Date.now, read: () => readNoticeInput(client, () => sandbox.account.now(), 'UTC') }, noticeMonthOf(sandbox.account.today()));
		};
		ses.sent.length = 0;
		ses.failCall = () => undefined;
		const [a, b] = await Promise.all([run(), run()]);
		const inProgress = [...a.inProgress, ...b.inProgress];
		expect(inProgress.length).toBeGreaterThan(0);
		expect([a.failed, b.failed]).toEqual([[], []]);
		const sent = [...a.sent, ...b.sent].map((e) => e.address);
		expect(ses.sent.map((m) => m.to[0]).sort()).toEqual([...new Set(sent)].sort());
		expect(ses.sent.length).toBe(new Set(ses.sent.map((m) => m.to[0])).size);
	}, 120_000);

	it('a customer another run was sending when that run died is not done: the month stays pending, so the next day sends it', async () => {
		await createStateTable(dynamo.client, 'notices-13');
		const settings = parseEmailSettings({ mailFrom: 'service@lab.example.com', recipients: { default: ['ops@lab.example.com'] }, customerNotices: { enabled: true } }, 'test');
		const client = pollerClient(sandbox, sandbox.sandboxToken, { ratePerSecond: RATE });
		const day = sandbox.account.today();
		const run = (sesClient: ReturnType<LocalSes['client']>) => {
			const aws = awsDeps({ table: 'notices-13', settings, timeZone: 'UTC', environment: 'sandbox' }, { dynamo: dynamo.client, ses: sesClient, maxSendRate: 50 });
			aws.mailer.registerLambdaContext({ getRemainingTimeInMillis: () => 60_000 } as Context);
			return { aws, done: runNotices({ store: aws.store, mailer: aws.mailer, settings, environment: 'sandbox', now: Date.now, read: () => readNoticeInput(client, () => sandbox.account.now(), 'UTC') }, noticeMonthOf(day)) };
		};
		// The first run's SES call never comes back (its Lambda dies there): its first customer stays in progress.
		const sockets: Socket[] = [];
		const hung = createServer((socket) => sockets.push(socket));
		await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
		const dying = run(new SESv2Client({ ...AWS_TEST_CONFIG, endpoint: `http://127.0.0.1:${(hung.address() as AddressInfo).port}` }));
		const stopped = dying.done.catch(() => undefined);
		try {
			while (sockets.length === 0) await new Promise((r) => setTimeout(r, 20));
			ses.failCall = () => undefined;
			const other = run(ses.client());
			const report = await other.done;
			expect(report.inProgress).toHaveLength(1);
			await recordNoticesSummary(other.aws.store, report, day, Date.now());
			expect(await noticesPending(other.aws.store, day, [undefined])).toEqual([undefined]);
		} finally {
			for (const socket of sockets) socket.destroy();
			hung.close();
			await stopped;
		}
	}, 120_000);

	it('addresses SES refuses: a domain with umlauts goes out in Punycode; a local part that is not 7-bit ASCII is no usable address, named in the digest, not a failed send', async () => {
		await createStateTable(dynamo.client, 'notices-8');
		const settings = parseEmailSettings({ mailFrom: 'service@lab.example.com', recipients: { default: ['ops@lab.example.com'] }, customerNotices: { enabled: true } }, 'test');
		const aws = awsDeps({ table: 'notices-8', settings, timeZone: 'UTC', environment: 'sandbox' }, { dynamo: dynamo.client, ses: ses.client(), maxSendRate: 50 });
		aws.mailer.registerLambdaContext({ getRemainingTimeInMillis: () => 60_000 } as Context);
		const client = pollerClient(sandbox, sandbox.sandboxToken, { ratePerSecond: RATE });
		const month = noticeMonthOf(sandbox.account.today());
		const due = (await readNoticeInput(client, () => sandbox.account.now(), 'UTC')).devices.filter((d) => d.nextTestDate?.startsWith(month)).map((d) => d.customerId);
		const [umlautDomain, umlautLocal] = [...new Set(due)].filter((id): id is number => id !== null && ![2, 3, 5].includes(id));
		const customers = sandbox.account.table('customer');
		const was = [umlautDomain, umlautLocal].map((id) => customers.get(id)!.values[CUSTOMER.contactEmail]);
		customers.get(umlautDomain)!.values[CUSTOMER.contactEmail] = 'Werkstatt@Müller-Prüftechnik.example';
		customers.get(umlautLocal)!.values[CUSTOMER.contactEmail] = 'jörg@lab.example';
		ses.sent.length = 0;
		ses.failCall = () => undefined;
		try {
			const report = await runNotices({ store: aws.store, mailer: aws.mailer, settings, environment: 'sandbox', now: Date.now, read: () => readNoticeInput(client, () => sandbox.account.now(), 'UTC') }, month);
			expect(report.failed).toEqual([]);
			const sent = report.sent.find((e) => e.customerId === umlautDomain)!;
			expect(sent.address).toBe('werkstatt@xn--mller-prftechnik-jzbh.example');
			expect(ses.sent.find((m) => m.to[0] === sent.address)).toBeDefined();
			expect(mimeParts(ses.sent.find((m) => m.to[0] === sent.address)!.raw).headers.to).toBe(sent.address);
			expect(report.noAddress).toContainEqual(expect.objectContaining({ customerId: umlautLocal, reason: expect.stringContaining('not 7-bit ASCII') }));
			const name = String(customers.get(umlautLocal)!.values[CUSTOMER.name]);
			expect(noticesDigestLines(noticesSummary(report), 'en').join('\n')).toContain(name);
		} finally {
			customers.get(umlautDomain)!.values[CUSTOMER.contactEmail] = was[0];
			customers.get(umlautLocal)!.values[CUSTOMER.contactEmail] = was[1];
		}
	}, 120_000);

	it('a reply-to address with an internationalized domain goes into the header in Punycode (SES takes 7-bit headers), the text shows it as written; one with a local part beyond ASCII is refused by the settings', async () => {
		await createStateTable(dynamo.client, 'notices-14');
		const settings = parseEmailSettings({ mailFrom: 'service@lab.example.com', recipients: { default: ['ops@lab.example.com'] }, customerNotices: { enabled: true, replyTo: 'Termine@Prüf-Dienst.example' } }, 'test');
		const aws = awsDeps({ table: 'notices-14', settings, timeZone: 'UTC', environment: 'sandbox' }, { dynamo: dynamo.client, ses: ses.client(), maxSendRate: 50 });
		aws.mailer.registerLambdaContext({ getRemainingTimeInMillis: () => 60_000 } as Context);
		const client = pollerClient(sandbox, sandbox.sandboxToken, { ratePerSecond: RATE });
		ses.sent.length = 0;
		ses.failCall = () => undefined;
		const report = await runNotices({ store: aws.store, mailer: aws.mailer, settings, environment: 'sandbox', now: Date.now, read: () => readNoticeInput(client, () => sandbox.account.now(), 'UTC') }, noticeMonthOf(sandbox.account.today()));
		expect(report.sent.length).toBeGreaterThan(0);
		const raw = ses.sent[0].raw;
		const headers = raw.slice(0, raw.indexOf('\r\n\r\n'));
		expect(headers).not.toMatch(/[^\t\r\n\x20-\x7e]/);
		expect(mimeParts(raw).headers['reply-to']).toBe('termine@xn--prf-dienst-beb.example');
		expect(mimeParts(raw).text).toContain('termine@prüf-dienst.example');
		expect(() => parseEmailSettings({ mailFrom: 'service@lab.example.com', recipients: { default: ['ops@lab.example.com'] }, customerNotices: { enabled: true, replyTo: 'jörg@lab.example' } }, 'test')).toThrow(/customerNotices\.replyTo.*7-bit ASCII/);
	}, 120_000);

	it("the notices take the account's lease as the pollers do: while a poller holds it they read nothing, and they release it when done", async () => {
		await createStateTable(dynamo.client, 'notices-9');
		const local = await new LocalAws().start();
		try {
			const arn = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:tec-token-lease';
			local.secrets.set(arn, JSON.stringify({ token: sandbox.sandboxToken }));
			const secrets = new SecretsProvider({ awsSdkV3Client: new SecretsManagerClient({ ...AWS_TEST_CONFIG, endpoint: local.url }) });
			const settings = parseEmailSettings({ mailFrom: 'service@lab.example.com', recipients: { default: ['ops@lab.example.com'] }, customerNotices: { enabled: true } }, 'test');
			const aws = awsDeps({ table: 'notices-9', settings, timeZone: 'UTC', environment: 'sandbox' }, { dynamo: dynamo.client, ses: ses.client(), maxSendRate: 50 });
			aws.mailer.registerLambdaContext({ getRemainingTimeInMillis: () => 60_000 } as Context);
			const leases = new DynamoStateStore('notices-9', dynamo.client);
			const lease = accountLeaseName({ environment: 'sandbox' });
			const target = { baseUrl: sandbox.url, environment: 'sandbox' as const, tokenSecretArn: arn };
			const before = sandbox.stats.requests;
			const day = sandbox.account.today();
			ses.sent.length = 0;
			ses.failCall = () => undefined;

			expect(await leases.acquireLease(lease, 'overdue poller run', Date.now(), 60_000)).toBe(true);
			await expect(sendNotices(aws, day, target, secrets, silentLog, { leaseWaitMs: 1500, remainingMs: () => 60_000 })).rejects.toThrow(/account's lease/);
			expect(sandbox.stats.requests).toBe(before);
			expect(ses.sent).toEqual([]);

			await leases.releaseLease(lease, 'overdue poller run');
			const report = (await sendNotices(aws, day, target, secrets, silentLog, { leaseWaitMs: 1500, remainingMs: () => 60_000 }))!;
			expect(report.sent.length).toBeGreaterThan(0);
			expect(sandbox.stats.requests).toBeGreaterThan(before);
			expect(await leases.acquireLease(lease, 'probe', Date.now(), 1000)).toBe(true);
		} finally {
			await local.stop();
		}
	}, 120_000);

	it('a second notices run while the first is sending (longer than the lease wait) ends quietly: no failure, no alarm, nothing read or sent twice', async () => {
		await createStateTable(dynamo.client, 'notices-9b');
		const local = await new LocalAws().start();
		try {
			const arn = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:tec-token-run';
			local.secrets.set(arn, JSON.stringify({ token: sandbox.sandboxToken }));
			const secrets = new SecretsProvider({ awsSdkV3Client: new SecretsManagerClient({ ...AWS_TEST_CONFIG, endpoint: local.url }) });
			const settings = parseEmailSettings({ mailFrom: 'service@lab.example.com', recipients: { default: ['ops@lab.example.com'] }, customerNotices: { enabled: true } }, 'test');
			const aws = awsDeps({ table: 'notices-9b', settings, timeZone: 'UTC', environment: 'sandbox' }, { dynamo: dynamo.client, ses: ses.client(), maxSendRate: 50 });
			aws.mailer.registerLambdaContext({ getRemainingTimeInMillis: () => 60_000 } as Context);
			const leases = new DynamoStateStore('notices-9b', dynamo.client);
			const lease = accountLeaseName({ environment: 'sandbox' });
			const target = { baseUrl: sandbox.url, environment: 'sandbox' as const, tokenSecretArn: arn };
			const before = sandbox.stats.requests;
			ses.sent.length = 0;
			ses.failCall = () => undefined;
			// The first run, mid-way through thousands of notices: it holds its run and the account's lease.
			expect(await leases.acquireLease(`notices-run:${lease}`, 'first notices run', Date.now(), 60_000)).toBe(true);
			expect(await leases.acquireLease(lease, 'first notices run', Date.now(), 60_000)).toBe(true);
			await expect(sendNotices(aws, sandbox.account.today(), target, secrets, silentLog, { leaseWaitMs: 1500, remainingMs: () => 60_000 })).resolves.toBeUndefined();
			expect(sandbox.stats.requests).toBe(before);
			expect(ses.sent).toEqual([]);
		} finally {
			await local.stop();
		}
	}, 120_000);

	it("a month whose notices did not go out on the 1st (a daylight-saving gap skipped the schedule): the next day's run sends them, the digest says they are late; the day after, nothing is read", async () => {
		await createStateTable(dynamo.client, 'notices-10');
		const local = await new LocalAws().start();
		try {
			const arn = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:tec-token-late';
			local.secrets.set(arn, JSON.stringify({ token: sandbox.sandboxToken }));
			const secrets = new SecretsProvider({ awsSdkV3Client: new SecretsManagerClient({ ...AWS_TEST_CONFIG, endpoint: local.url }) });
			const settings = parseEmailSettings({ mailFrom: 'service@lab.example.com', recipients: { default: ['ops@lab.example.com'] }, customerNotices: { enabled: true } }, 'test');
			const aws = awsDeps({ table: 'notices-10', settings, timeZone: 'UTC', environment: 'sandbox' }, { dynamo: dynamo.client, ses: ses.client(), maxSendRate: 50 });
			aws.mailer.registerLambdaContext({ getRemainingTimeInMillis: () => 60_000 } as Context);
			const target = { baseUrl: sandbox.url, environment: 'sandbox' as const, tokenSecretArn: arn };
			const month = sandbox.account.today().slice(0, 7);
			ses.sent.length = 0;
			ses.failCall = () => undefined;
			// The digest of the 2nd waits for the notices: their month is not done yet.
			expect(await noticesPending(aws.store, `${month}-02`, [undefined])).toEqual([undefined]);

			const late = (await sendNotices(aws, `${month}-02`, target, secrets, silentLog, { remainingMs: () => 60_000 }))!;
			expect(late.sent.length).toBeGreaterThan(0);
			const summary = (await aws.store.get<NoticesSummary>(NOTICES_SUMMARY_NS, noticesSummaryKey(`${month}-02`)))!;
			expect(summary.lateFrom).toBe(`${month}-01`);
			expect(noticesDigestLines(summary, 'en').join('\n')).toContain(`due on ${formatLongDay(`${month}-01`, 'en')}`);
			expect(noticesDigestLines(summary, 'de').join('\n')).toContain(formatLongDay(`${month}-01`, 'de'));

			const before = sandbox.stats.requests;
			expect(await noticesPending(aws.store, `${month}-03`, [undefined])).toEqual([]);
			expect(await sendNotices(aws, `${month}-03`, target, secrets, silentLog, { remainingMs: () => 60_000 })).toBeUndefined();
			expect(sandbox.stats.requests).toBe(before);
			expect(ses.sent).toHaveLength(late.sent.length);
		} finally {
			await local.stop();
		}
	}, 120_000);

	it('sentAt is when the notice was sent: a run that records a notice an earlier run sent (and died before recording) keeps the time of the send', async () => {
		await createStateTable(dynamo.client, 'notices-11');
		const settings = parseEmailSettings({ mailFrom: 'service@lab.example.com', recipients: { default: ['ops@lab.example.com'] }, customerNotices: { enabled: true } }, 'test');
		const aws = awsDeps({ table: 'notices-11', settings, timeZone: 'UTC', environment: 'sandbox' }, { dynamo: dynamo.client, ses: ses.client(), maxSendRate: 50 });
		aws.mailer.registerLambdaContext({ getRemainingTimeInMillis: () => 60_000 } as Context);
		const client = pollerClient(sandbox, sandbox.sandboxToken, { ratePerSecond: RATE });
		const month = noticeMonthOf(sandbox.account.today());
		// The first run's records cannot be written (the run dies after SES accepted each notice).
		const dying = { ...aws.store, list: aws.store.list.bind(aws.store), get: aws.store.get.bind(aws.store), deleteMany: aws.store.deleteMany.bind(aws.store), putMany: () => Promise.reject(new Error('the run ended')) };
		const sentAt = Date.now();
		const first = await runNotices({ store: dying, mailer: aws.mailer, settings, environment: 'sandbox', now: Date.now, read: () => readNoticeInput(client, () => sandbox.account.now(), 'UTC') }, month).catch((e: unknown) => (e as NoticesError).report);
		expect(first.failed.length).toBeGreaterThan(0);
		// The rerun, an hour later by its clock: SES sends nothing again, and the records say when the notices went out.
		const count = ses.sent.length;
		const later = sentAt + 3_600_000;
		const rerun = await runNotices({ store: aws.store, mailer: aws.mailer, settings, environment: 'sandbox', now: () => later, read: () => readNoticeInput(client, () => sandbox.account.now(), 'UTC') }, month);
		expect(ses.sent.length).toBe(count);
		expect(rerun.sent.length).toBe(first.failed.length);
		for (const e of rerun.sent) expect(Date.parse(e.sentAt)).toBeLessThan(later - 600_000);
	}, 120_000);

	it("the digest of a month's first day waits for the notices' summaries, up to its bound, and names the accounts still missing", async () => {
		await createStateTable(dynamo.client, 'notices-3');
		const store = new DynamoMailStore('notices-3', dynamo.client);
		let t = 0;
		const sleeps: number[] = [];
		const summary = (account?: string) => ({ key: noticesSummaryKey('2026-12-01', account), value: { month: '2027-01', customers: 1, devices: 2, noAddress: [] } });
		// The default account's summary arrives while the digest waits; east's never does.
		const sleep = async (ms: number) => {
			sleeps.push(ms);
			t += ms;
			if (sleeps.length === 2) await store.putMany(NOTICES_SUMMARY_NS, [summary()]);
		};
		expect(await awaitNoticesSummaries(store, '2026-12-01', [undefined, 'east'], 60_000, sleep, () => t)).toEqual(['east']);
		expect(t).toBe(60_000);
		await store.putMany(NOTICES_SUMMARY_NS, [summary('east')]);
		sleeps.length = 0;
		expect(await awaitNoticesSummaries(store, '2026-12-01', [undefined, 'east'], 60_000, sleep, () => t)).toEqual([]);
		expect(sleeps).toEqual([]);
	});
});
