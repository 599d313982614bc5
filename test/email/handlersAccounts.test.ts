import type { Context } from 'aws-lambda';
import PostalMime from 'postal-mime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../infra/config';
import { emailEnvironment } from '../../infra/constructs/emailAlerts';
import { EMAIL_PARTITIONS, partitionsAllow } from '../../infra/constructs/stateAccess';
import { DynamoStateStore } from '../../lambdas/adapters/dynamoStateStore';
import { handler as collect } from '../../lambdas/handlers/collectEmailEvents';
import { handler as report } from '../../lambdas/handlers/complianceReport';
import { handler as digest } from '../../lambdas/handlers/digestEmail';
import { writeScrappedBin } from '../../lambdas/pollers/scrappedBin';
import { NS, type DeviceState } from '../../lambdas/pollers/state';
import { previewHistories } from '../support/compliancePreview';
import { delivery, device, failedTest, INSULATION_STEP } from '../support/emailEvents';
import { DynamoRecorder, type DynamoCall } from '../support/dynamoRecorder';
import { captureOutput, jsonLines } from '../support/handlers';
import { startDynamo } from '../support/localAws';
import { LocalSes, mimeParts, useEmailLambdaEnvironment } from '../support/localSes';

/**
 * The digest handler of a stack that watches several production accounts, with the environment the
 * stack gives it (cdk.json's `environment` stays "sandbox"): it reads each account's state where
 * that account's pollers write it; the report function routes each account's compliance report by its own recipients.
 */
const ACCOUNTS = [
	{ id: 'site-a', environment: 'production', baseUrl: 'https://tec-a.lab.test', recipients: { default: ['a-lead@lab.test'] } },
	{ id: 'site-b', environment: 'production', baseUrl: 'https://tec-b.lab.test', recipients: { default: ['b-lead@lab.test'] } },
	// A sandbox account beside them (its e-mails go to the deployment's recipients, alertEmails).
	{ id: 'site-s', environment: 'sandbox', baseUrl: 'https://tec-s.lab.test' },
];
const config = parseConfig({ environment: 'sandbox', alertEmails: 'ops@lab.test', mailFrom: 'alerts@lab.test', accounts: ACCOUNTS });
let dynamo: Awaited<ReturnType<typeof startDynamo>>;
let ses: LocalSes;
let recorder: DynamoRecorder;
/** The digest's calls on the state table (the first test's run). */
let digestCalls: DynamoCall[] = [];
const context = (requestId: string) => ({ awsRequestId: requestId, functionName: 'email', getRemainingTimeInMillis: () => 60_000 }) as unknown as Context;

beforeAll(async () => {
	dynamo = await startDynamo('email-accounts');
	ses = await new LocalSes().start();
	const env = emailEnvironment(config, dynamo.table);
	recorder = new DynamoRecorder(dynamo.url);
	useEmailLambdaEnvironment({ dynamoUrl: await recorder.start(), sesUrl: ses.url, table: dynamo.table, timeZone: env.TIME_ZONE, settings: JSON.parse(env.EMAIL_SETTINGS) }, { ...env, AWS_LAMBDA_FUNCTION_NAME: 'email' });
});
afterAll(async () => {
	await recorder.stop();
	await ses.stop();
	await dynamo.stop();
});

const mailsTo = (to: string) => ses.sent.map((m) => mimeParts(m.raw)).filter((m) => m.headers.to === to);

describe('the e-mails of several production accounts, as the stack configures them', () => {
	it("the digest reads each account's state where its pollers keep it (overdue:production:<id>)", async () => {
		const store = new DynamoStateStore(dynamo.table, dynamo.client);
		const overdue = (id: number): DeviceState => ({ overdue: true, episode: 1, since: Date.parse('2026-11-02T00:00:00Z'), reminders: 0, digestPending: false, device: device(id, { customerName: null, department: null }) });
		await store.putMany(NS.overdue('production:site-a'), [{ key: '1', value: overdue(1) }]);
		await store.putMany(NS.overdue('production:site-b'), [{ key: '2', value: overdue(2) }]);
		process.env.POWERTOOLS_METRICS_DISABLED = 'false';
		const from = recorder.calls.length;
		const { lines } = await captureOutput(() => digest({ scheduledTime: '2026-11-20T06:00:00Z' }, context('d-1'))).finally(() => delete process.env.POWERTOOLS_METRICS_DISABLED);
		// A complete run beats the digest's heartbeat.
		expect(jsonLines(lines).filter((l) => l.RunCompleted === 1)).toHaveLength(1);
		expect(mailsTo('a-lead@lab.test').map((m) => m.text)).toEqual([expect.stringMatching(/STILL OVERDUE[\s\S]*Device 1\b/)]);
		expect(mailsTo('b-lead@lab.test').map((m) => m.text)).toEqual([expect.stringMatching(/STILL OVERDUE[\s\S]*Device 2\b/)]);
		expect(mailsTo('a-lead@lab.test')[0].text).not.toMatch(/Device 2\b/);
		digestCalls = recorder.calls.slice(from);
	});

	it("the monthly compliance report (its own function) reads each account's own history and goes to that account's recipients, within its role's partitions", async () => {
		const store = new DynamoStateStore(dynamo.table, dynamo.client);
		await store.putMany(NS.dueDates('production:site-a'), previewHistories());
		// The recycle bin as the due-date poller keeps it, in parts (scrappedBin:).
		await writeScrappedBin(store, 'production:site-a', { readOn: '2026-10-31', from: '2024-10-01', devices: [{ deviceId: 901, designation: 'Scrapped meter', deletedOn: '2026-05-04' }] }, Date.parse('2026-10-31T03:00:00Z'));
		const before = ses.sent.length;
		const from = recorder.calls.length;
		await report({ scheduledTime: '2026-11-01T06:00:00Z' }, context('r-1'));
		const mails = await Promise.all(ses.sent.slice(before).map((m) => PostalMime.parse(m.raw)));
		const reports = mails.filter((m) => m.subject?.startsWith('Calibration compliance'));
		// site-b has no history yet: no report for its recipients, and none of site-a's.
		expect(reports.map((m) => m.to?.map((t) => t.address))).toEqual([['a-lead@lab.test']]);
		expect(reports[0].subject).toMatch(/^Calibration compliance October 2026: .* · account site-a$/);
		expect(reports[0].attachments[0].filename).toBe('calibration-compliance-2026-10.csv');
		const calls = recorder.calls.slice(from).filter((c) => c.keys.length > 0);
		expect(calls.map((c) => c.keys[0])).toEqual(expect.arrayContaining(['dueDates:production:site-a', 'tests:production:site-a', 'scrappedBin:production:site-a', 'measurementWarnings:production:site-b', 'idempotency:email', 'mail:sesBudget']));
		expect(calls.flatMap((c) => c.keys.filter((pk) => !partitionsAllow(EMAIL_PARTITIONS.report, `dynamodb:${c.action}`, pk)).map((pk) => `${c.action} ${pk}`))).toEqual([]);
	});

	it("the digest's calls on the state table (its own partitions, the pollers' read only) are within its role's", () => {
		const calls = digestCalls.filter((c) => c.keys.length > 0);
		expect(calls.map((c) => c.keys[0])).toEqual(expect.arrayContaining(['overdue:production:site-a', 'idempotency:email']));
		expect(calls.flatMap((c) => c.keys.filter((pk) => !partitionsAllow(EMAIL_PARTITIONS.digest, `dynamodb:${c.action}`, pk)).map((pk) => `${c.action} ${pk}`))).toEqual([]);
	});

	it("a failed test's e-mail names the environment of its account, not the stack's", async () => {
		const failed = (account: string, environment: 'sandbox' | 'production', resultId: number) => {
			const e = failedTest(device(resultId), resultId, [INSULATION_STEP]);
			e.detail.metadata = { ...e.detail.metadata, environment, account, dedupeKey: `test-result-failed:${account}:${resultId}` };
			return delivery(e);
		};
		const before = ses.sent.length;
		await collect(failed('site-s', 'sandbox', 71), context('c-1'));
		await collect(failed('site-a', 'production', 72), context('c-2'));
		const mails = ses.sent.slice(before).map((m) => mimeParts(m.raw));
		expect(mails.map((m) => [m.headers.to, m.headers.subject.endsWith('(sandbox)')])).toEqual([
			['ops@lab.test', true],
			['a-lead@lab.test', false],
		]);
		const from = recorder.calls.length;
		await collect(failed('site-s', 'sandbox', 73), context('c-3'));
		const calls = recorder.calls.slice(from).filter((c) => c.keys.length > 0);
		expect(calls.length).toBeGreaterThan(0);
		expect(calls.flatMap((c) => c.keys.filter((pk) => !partitionsAllow(EMAIL_PARTITIONS.collector, `dynamodb:${c.action}`, pk)).map((pk) => `${c.action} ${pk}`))).toEqual([]);
	});
});
