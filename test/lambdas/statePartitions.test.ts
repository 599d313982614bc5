import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POLLER_PARTITIONS, partitionsAllow } from '../../infra/constructs/stateAccess';
import type { PollerName } from '../../infra/constructs/pollers';
import { handler as dueDates } from '../../lambdas/handlers/dueDates';
import { handler as dueSoon } from '../../lambdas/handlers/dueSoon';
import { handler as overdueDevices } from '../../lambdas/handlers/overdueDevices';
import { handler as testResults } from '../../lambdas/handlers/testResults';
import { DynamoRecorder, type DynamoCall } from '../support/dynamoRecorder';
import { useHandlerWorld } from '../support/handlers';

/**
 * What each poller really does to the state table, held against what its role allows
 * (infra/constructs/stateAccess.ts: the partitions the stack grants with dynamodb:LeadingKeys):
 * a namespace added to a poller without its grant fails here, not with AccessDenied in Lambda.
 */
const world = useHandlerWorld({ devices: 30, customers: 3, testResults: 8 });
let recorder: DynamoRecorder;
beforeAll(async () => {
	recorder = new DynamoRecorder(world.dynamoUrl);
	process.env.AWS_ENDPOINT_URL_DYNAMODB = await recorder.start();
});
afterAll(() => recorder.stop());

const context = (name: string) => ({ awsRequestId: `req-${name}`, functionName: name, getRemainingTimeInMillis: () => 120_000 }) as unknown as Context;
const handlers: Record<PollerName, (event: unknown, context: Context) => Promise<{ complete: boolean }>> = { overdueDevices, testResults, dueSoon, dueDates };

async function callsOf(name: PollerName, input?: unknown): Promise<DynamoCall[]> {
	const from = recorder.calls.length;
	const report = await handlers[name](input ?? {}, context(name));
	expect(report.complete).toBe(true);
	return recorder.calls.slice(from);
}

const refused = (name: PollerName, calls: DynamoCall[]) => calls.flatMap((c) => c.keys.filter((pk) => !partitionsAllow(POLLER_PARTITIONS[name], `dynamodb:${c.action}`, pk)).map((pk) => `${c.action} ${pk}`));

describe("each poller's calls on the state table are within its role's partitions", () => {
	// Twice each: a first run (rebuild, first sight) and a second (what it remembered).
	it.each(['overdueDevices', 'testResults', 'dueSoon', 'dueDates', 'testResults', 'dueDates'] as PollerName[])('%s (one account)', async (name) => {
		const calls = await callsOf(name);
		expect(calls.length).toBeGreaterThan(0);
		expect(calls.every((c) => c.keys.length > 0)).toBe(true);
		expect(refused(name, calls)).toEqual([]);
	});

	it.each(['overdueDevices', 'testResults', 'dueSoon', 'dueDates'] as PollerName[])('%s (an account of several, named by its schedule)', async (name) => {
		const secretArn = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:tec-token/stack/site-p';
		world.aws.secrets.set(secretArn, JSON.stringify({ token: world.sandbox.sandboxToken }));
		const calls = await callsOf(name, { account: { id: 'site-p', environment: 'production', baseUrl: world.sandbox.url, tokenSecretArn: secretArn, account: 'site-p', partition: 'site-p' } });
		expect(calls.some((c) => c.keys.some((k) => k.endsWith(':production:site-p')))).toBe(true);
		expect(refused(name, calls)).toEqual([]);
	});

	it('dueDates with devices in the recycle bin: the bin is kept in parts (scrappedBin:), within its role', async () => {
		world.sandbox.account.delete('device', 3, false);
		world.sandbox.account.clockOffsetMs += 86_400_000; // a new day: the bin is read again
		const calls = await callsOf('dueDates');
		expect(calls.some((c) => c.action === 'BatchWriteItem' && c.keys.some((k) => k.startsWith('scrappedBin:')))).toBe(true);
		expect(refused('dueDates', calls)).toEqual([]);
	});

	it('a partition another function keeps is refused (the check can fail)', () => {
		expect(refused('overdueDevices', [{ action: 'BatchWriteItem', keys: ['dueDates:sandbox', 'mail:facts'] }])).toEqual(['BatchWriteItem dueDates:sandbox', 'BatchWriteItem mail:facts']);
		expect(refused('dueDates', [{ action: 'BatchWriteItem', keys: ['latestResult:sandbox'] }])).toEqual(['BatchWriteItem latestResult:sandbox']);
	});
});
