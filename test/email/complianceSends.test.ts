import type { Context } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DynamoStateStore } from '../../lambdas/adapters/dynamoStateStore';
import { awsDeps } from '../../lambdas/email/aws';
import { runComplianceReport } from '../../lambdas/email/complianceRun';
import { readEmailEnv } from '../../lambdas/email/env';
import { NS } from '../../lambdas/pollers/state';
import { previewHistories } from '../support/compliancePreview';
import { createStateTable, startDynamo } from '../support/localAws';
import { LocalSes, mimeParts, useEmailLambdaEnvironment } from '../support/localSes';

/**
 * The report function's sends against what the 1st sent before: records written under the digest
 * function's name (where the report was sent before it had a function of its own), and a redrive
 * of the 2nd's run days later. Each test a cold start of the deployed handler on a table of its own.
 */
let dynamo: Awaited<ReturnType<typeof startDynamo>>;
let ses: LocalSes;
const context = (requestId: string) => ({ awsRequestId: requestId, functionName: 'report', getRemainingTimeInMillis: () => 60_000 }) as unknown as Context;
const reportsSent = () => ses.sent.filter((m) => mimeParts(m.raw).headers.subject.startsWith('Calibration compliance'));

/** A new table with the preview's due-date history, and the report function's first invocation to come. */
async function coldStart(table: string, env: Record<string, string>) {
	await createStateTable(dynamo.client, table);
	await new DynamoStateStore(table, dynamo.client).putMany(NS.dueDates('sandbox'), previewHistories());
	useEmailLambdaEnvironment({ dynamoUrl: dynamo.url, sesUrl: ses.url, table, timeZone: 'Europe/Berlin', settings: { mailFrom: 'alerts@lab.example.com', recipients: { default: ['maintenance@example.com'] } } }, env);
	vi.resetModules();
	return (await import('../../lambdas/handlers/complianceReport.js')).handler;
}

beforeAll(async () => {
	dynamo = await startDynamo('compliance-sends');
	ses = await new LocalSes().start();
});
afterEach(() => {
	vi.useRealTimers();
	delete process.env.SEND_KEY_PREFIX;
});
afterAll(async () => {
	await ses.stop();
	await dynamo.stop();
});

describe("the compliance report's sends", () => {
	it("deployed between the 1st's digest hour and the 2nd: the 2nd finds what the digest function sent on the 1st, and sends nothing again", async () => {
		const before = ses.sent.length;
		// The digest function, before the report had a function of its own: its deps, its records under its name.
		const report = await coldStart('deploy', { AWS_LAMBDA_FUNCTION_NAME: 'tec-EmailDigest' });
		const digestDeps = awsDeps(readEmailEnv(process.env));
		digestDeps.mailer.registerLambdaContext(context('d-1'));
		const first = await runComplianceReport(digestDeps, '2026-10');
		expect(first.sent).toHaveLength(1);
		expect(reportsSent().slice(before)).toHaveLength(1);
		// The report's own function, as infra/ deploys it: its own name, the digest's as its sends' key prefix.
		Object.assign(process.env, { AWS_LAMBDA_FUNCTION_NAME: 'tec-EmailReport', SEND_KEY_PREFIX: 'tec-EmailDigest' });
		const second = await report({ scheduledTime: '2026-11-02T06:00:00Z' }, context('p-1'));
		expect(reportsSent().slice(before)).toHaveLength(1);
		expect(second).toMatchObject({ month: '2026-10', sent: [], alreadySent: ['maintenance@example.com'] });
	});

	it("a redrive of the 2nd's run on the 5th (after the 1st's records of a digest day would have expired) sends nothing the 1st sent", async () => {
		const before = ses.sent.length;
		vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-01T06:00:03Z') });
		const report = await coldStart('redrive', { AWS_LAMBDA_FUNCTION_NAME: 'tec-EmailReport' });
		await report({ scheduledTime: '2026-11-01T06:00:00Z' }, context('x-1'));
		expect(reportsSent().slice(before)).toHaveLength(1);
		// The 2nd's message, redriven from the dead-letter queue on the 5th.
		vi.setSystemTime(new Date('2026-11-05T09:30:00Z'));
		await report({ scheduledTime: '2026-11-02T06:00:00Z' }, context('x-2'));
		// And at the month's end, once more.
		vi.setSystemTime(new Date('2026-11-30T22:00:00Z'));
		await report({ scheduledTime: '2026-11-02T06:00:00Z' }, context('x-3'));
		expect(reportsSent().slice(before)).toHaveLength(1);
	});
});
