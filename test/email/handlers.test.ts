import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as collectHandler } from '../../lambdas/handlers/collectEmailEvents';
import { handler as complianceReportHandler } from '../../lambdas/handlers/complianceReport';
import { handler as digestHandler } from '../../lambdas/handlers/digestEmail';
import { DynamoStateStore } from '../../lambdas/adapters/dynamoStateStore';
import { delivery, device, failedTest, INSULATION_STEP, overdue, pollersSaw } from '../support/emailEvents';
import { NS } from '../../lambdas/pollers/state';
import { previewHistories } from '../support/compliancePreview';
import { captureOutput, jsonLines } from '../support/handlers';
import { startDynamo } from '../support/localAws';
import { LocalSes, mimeParts, useEmailLambdaEnvironment } from '../support/localSes';

/**
 * The deployed handlers, as Lambda runs them: configuration from the environment, real AWS SDK
 * clients (DynamoDB on dynalite, SES v2 on a local wire-level endpoint), Powertools Idempotency.
 */
let dynamo: Awaited<ReturnType<typeof startDynamo>>;
let ses: LocalSes;
// The handlers read their configuration at the first invocation, after beforeAll set it.
const collect = (event: unknown, context: Context) => collectHandler(event as Parameters<typeof collectHandler>[0], context);
const digest = digestHandler;
const report = complianceReportHandler;

/** The pollers' state for these events, in the handlers' table (the digest's view of today's truth). */
const saw = (e: Parameters<typeof pollersSaw>[1]) => pollersSaw(new DynamoStateStore(dynamo.table, dynamo.client, async () => undefined), e);
const context = (requestId: string) => ({ awsRequestId: requestId, functionName: 'email', getRemainingTimeInMillis: () => 60_000 }) as unknown as Context;

beforeAll(async () => {
	dynamo = await startDynamo('email-handlers');
	ses = await new LocalSes().start();
	useEmailLambdaEnvironment(
		{ dynamoUrl: dynamo.url, sesUrl: ses.url, table: dynamo.table, timeZone: 'Europe/Berlin', settings: { mailFrom: 'alerts@lab.example.com', recipients: { default: ['maintenance@example.com'] } } },
		{ AWS_LAMBDA_FUNCTION_NAME: 'email' },
	);
});
afterAll(async () => {
	await ses.stop();
	await dynamo.stop();
});

describe('the deployed e-mail handlers', () => {
	it('a redelivered digest invocation sends once; a redelivered event is filed once, even after the digest took it', async () => {
		const e = overdue(device(1, { customerName: null, department: null, nextTestDate: '2026-11-10' }));
		await saw(e);
		await collect(delivery(e), context('c-1'));
		await collect(delivery(e), context('c-2'));
		const scheduled = { scheduledTime: '2026-11-20T06:00:00Z' };
		const first = await digest(scheduled, context('d-1'));
		const again = await digest(scheduled, context('d-2'));
		expect(first.sent).toHaveLength(1);
		expect(again.sent).toEqual(first.sent);
		expect(ses.sent).toHaveLength(1);
		expect(mimeParts(ses.sent[0].raw).text).toContain('NEWLY OVERDUE SINCE THE LAST DIGEST (1)');
		// The digest read the SES account's rate (14 per second) and recorded it in the sending budget, for the collector.
		const budget = await dynamo.client.send(new GetItemCommand({ TableName: dynamo.table, Key: { pk: { S: 'mail:sesBudget' }, sk: { S: 'deployment' } } }));
		expect(budget.Item?.interval?.N).toBe(String(Math.ceil(1200 / 14)));

		// EventBridge delivers the same event once more, after the digest: nothing new tomorrow.
		await collect(delivery(e), context('c-3'));
		await digest({ scheduledTime: '2026-11-21T06:00:00Z' }, context('d-3'));
		expect(ses.sent).toHaveLength(2);
		expect(mimeParts(ses.sent[1].raw).text).not.toContain('NEWLY OVERDUE');
		expect(mimeParts(ses.sent[1].raw).text).toContain('STILL OVERDUE, LONGEST FIRST (1)');
	});

	it('on the first of a month the report function sends the compliance report of the month before, once however often it runs, its CSV attached; the digest sends none', async () => {
		// The history as the due-date poller stored it in the same table.
		await new DynamoStateStore(dynamo.table, dynamo.client).putMany(NS.dueDates('sandbox'), previewHistories());
		const before = ses.sent.length;
		const subjects = (from: number) => ses.sent.slice(from).map((m) => mimeParts(m.raw).headers.subject);
		// The digest of the 1st: its own e-mail only.
		await digest({ scheduledTime: '2026-11-01T06:00:00Z' }, context('r-0'));
		expect(subjects(before).filter((s) => s.startsWith('Calibration compliance'))).toEqual([]);
		process.env.POWERTOOLS_METRICS_DISABLED = 'false';
		const first = await captureOutput(() => report({ scheduledTime: '2026-11-01T06:00:00Z' }, context('r-1')));
		const again = await captureOutput(() => report({ scheduledTime: '2026-11-01T06:00:00Z' }, context('r-2'))).finally(() => delete process.env.POWERTOOLS_METRICS_DISABLED);
		// The rerun finds the first run's send: already sent, not sent again (nor counted as sent).
		expect(again.result).toEqual({ ...first.result, sent: [], alreadySent: ['maintenance@example.com'] });
		expect(jsonLines(again.lines).find((l) => l.message === 'Compliance report sent')).toMatchObject({ month: '2026-10', sent: 0, alreadySent: 1 });
		expect(jsonLines(again.lines).filter((l) => 'EmailsSent' in l).map((l) => l.EmailsSent)).toEqual([0]);
		const reports = ses.sent.slice(before).map((m) => mimeParts(m.raw)).filter((m) => m.headers.subject.startsWith('Calibration compliance'));
		expect(reports).toHaveLength(1);
		expect(reports[0].headers.to).toBe('maintenance@example.com');
		expect(reports[0].headers.subject).toMatch(/^Calibration compliance October 2026: /);
		expect(reports[0].attachments.map((a) => a.filename)).toEqual(['calibration-compliance-2026-10.csv', 'failure-rates-2026-10.csv', 'forecast-2026-10.csv', 'interval-recommendations-2026-10.csv', 'devices-out-of-line-2026-10.csv']);
		// What it did, in its log and its e-mails metric.
		const lines = jsonLines(first.lines);
		expect(lines.find((l) => l.message === 'Compliance report sent')).toMatchObject({ month: '2026-10', sent: 1, alreadySent: 0, function_request_id: 'r-1' });
		expect(lines.filter((l) => l.EmailsSent === 1)).toHaveLength(1);
		// The 2nd (scheduled too, for a 1st whose hour a daylight-saving gap left out): the 1st's went out, nothing twice.
		const count = ses.sent.length;
		await digest({ scheduledTime: '2026-11-02T06:00:00Z' }, context('r-3'));
		await expect(report({ scheduledTime: '2026-11-02T06:00:00Z' }, context('r-4'))).resolves.toMatchObject({ sent: [], alreadySent: ['maintenance@example.com'] });
		expect(subjects(count).some((s) => s.startsWith('Calibration compliance'))).toBe(false);
		// The 3rd: no report.
		await expect(report({ scheduledTime: '2026-11-03T06:00:00Z' }, context('r-5'))).resolves.toBeUndefined();
		expect(subjects(count).some((s) => s.startsWith('Calibration compliance'))).toBe(false);
	});

	it("a 1st whose run never came (the digest hour in a daylight-saving gap: 2:00 on 1 October 2028 in Sydney): the 2nd makes the month's report (the first test: it sends nothing the 1st sent)", async () => {
		// 2 December 2026, the 1st's run missing: November's report is made (the preview's devices have nothing due in November).
		const run = await captureOutput(() => report({ scheduledTime: '2026-12-02T06:00:00Z' }, context('g-1')));
		expect(run.result).toMatchObject({ sent: [], nothingToSay: [expect.anything()] });
		expect(jsonLines(run.lines).find((l) => l.message === 'Compliance report sent')).toMatchObject({ month: '2026-11', function_request_id: 'g-1' });
	});

	it('a failed test is e-mailed at once, once, however often the event comes', async () => {
		const before = ses.sent.length;
		const e = failedTest(device(9, { customerName: null, department: null }), 4711, [INSULATION_STEP]);
		await collect(delivery(e), context('f-1'));
		await collect(delivery(e), context('f-2'));
		expect(ses.sent.length - before).toBe(1);
		expect(mimeParts(ses.sent.at(-1)!.raw).headers.subject).toMatch(/^Test failed: Device 9/);
	});

	it('an event whose detail does not match its schema is refused, naming the detail type and the field; nothing is filed or sent', async () => {
		const sent = ses.sent.length;
		const good = overdue(device(31, { customerName: null, department: null }));
		await saw(good);
		const bad = delivery(good) as { detail: { data: { episode: unknown } } };
		bad.detail = { ...bad.detail, data: { ...bad.detail.data, episode: 'first' } };
		const refused = await captureOutput(() => collect(bad, context('m-1')).then(() => 'accepted', (error: Error) => error.message));
		expect(refused.result).toMatch(/^The "Device Overdue" event does not match its schema: data\.episode: /);
		// On-call sees why in the log: the detail type and each field, in the contract's terms.
		const logged = jsonLines(refused.lines).find((l) => l.message === 'Event refused: it does not match its schema');
		expect(logged).toMatchObject({ level: 'ERROR', detailType: 'Device Overdue', function_request_id: 'm-1', issues: [{ field: 'data.episode' }] });
		// The same event, well formed, is read and filed: the refusal left nothing behind.
		await collect(delivery(good), context('m-2'));
		const { sent: digests } = await digest({ scheduledTime: '2026-11-22T06:00:00Z' }, context('m-3'));
		expect(digests).toHaveLength(1);
		expect(mimeParts(ses.sent.at(-1)!.raw).text).toMatch(/NEWLY OVERDUE SINCE THE LAST DIGEST \(1\)[\s\S]*Device 31/);
		expect(ses.sent.length - sent).toBe(1);
	});

	it('a collector retry that lands after the digest (its immediate e-mail failed first): one immediate e-mail, in one digest', async () => {
		const before = ses.sent.length;
		const e = failedTest(device(12, { customerName: null, department: null }), 4712, [INSULATION_STEP]);
		ses.failCall = () => ({ status: 500, type: 'InternalFailure' });
		await expect(collect(delivery(e), context('r-1'))).rejects.toThrow();
		ses.failCall = () => undefined;
		await digest({ scheduledTime: '2026-11-24T06:00:00Z' }, context('r-2'));
		// EventBridge retries the failed invocation after the digest went out.
		await collect(delivery(e), context('r-3'));
		await digest({ scheduledTime: '2026-11-25T06:00:00Z' }, context('r-4'));
		const mails = ses.sent.slice(before).map((m) => mimeParts(m.raw));
		expect(mails.filter((m) => m.headers.subject.startsWith('Test failed: Device 12'))).toHaveLength(1);
		expect(mails.filter((m) => m.text.includes('FAILED TESTS SINCE THE LAST DIGEST') && m.text.includes('Device 12'))).toHaveLength(1);
	});

	it('an event the e-mails do not read is ignored, and says so; nothing is filed', async () => {
		const sent = ses.sent.length;
		const other = { ...delivery(overdue(device(41))), 'detail-type': 'Test Result Recorded' };
		await expect(collect(other, context('i-1'))).resolves.toEqual({ detailType: 'Test Result Recorded', ignored: 'detail-type "Test Result Recorded" is not used by the e-mails' });
		await expect(collect({ ...delivery(overdue(device(41))), source: 'elsewhere' }, context('i-2'))).resolves.toMatchObject({ ignored: 'source "elsewhere" is not test-equipment-cloud' });
		const { sent: digests } = await digest({ scheduledTime: '2026-11-23T06:00:00Z' }, context('i-3'));
		expect(mimeParts(ses.sent.at(-1)!.raw).text).not.toContain('Device 41');
		expect(ses.sent.length - sent).toBe(digests.length);
	});

	it('a digest invocation whose scheduledTime is no time is refused, naming the field; nothing is sent', async () => {
		const sent = ses.sent.length;
		const refused = await captureOutput(() => digest({ scheduledTime: 'yesterday' }, context('t-1')).then(() => 'sent', (error: Error) => error.message));
		expect(refused.result).toMatch(/^The "Digest Invocation" event does not match its schema: scheduledTime: /);
		expect(jsonLines(refused.lines).find((l) => l.message === 'Event refused: it does not match its schema')).toMatchObject({ detailType: 'Digest Invocation', issues: [{ field: 'scheduledTime' }] });
		expect(ses.sent.length).toBe(sent);
	});

	it('an event without a dedupeKey is refused (it would not be idempotent)', async () => {
		await expect(collect({ source: 'test-equipment-cloud', 'detail-type': 'Device Overdue', detail: {} }, context('x-1'))).rejects.toThrow();
	});
});
