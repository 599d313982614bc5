import { QueryCommand } from '@aws-sdk/client-dynamodb';
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handler as dueDatesHandler } from '../../lambdas/handlers/dueDates';
import { handler as overdueHandler } from '../../lambdas/handlers/overdueDevices';
import { schemaErrors } from '../support/eventSchemas';
import { captureOutput, jsonLines, useHandlerWorld } from '../support/handlers';

/** A poller invoked by one account's schedule (several accounts): the account comes from the input, not the environment. */
const world = useHandlerWorld({ devices: 30, customers: 3, testResults: 5 });
const context = { awsRequestId: 'req-account', functionName: 'OverdueDevicesPoller', getRemainingTimeInMillis: () => 120_000 } as unknown as Context;

describe('a scheduled invocation for one account of several', () => {
	it('reads the named account with its own token, scopes its events, state and heartbeat by it', async () => {
		const secretArn = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:tec-token/stack/site-b';
		const token = world.sandbox.account.createToken({ label: 'site-b' }).token;
		world.aws.secrets.set(secretArn, JSON.stringify({ token }));
		const input = { account: { id: 'site-b', environment: 'sandbox', baseUrl: world.sandbox.url, tokenSecretArn: secretArn, account: 'site-b', partition: 'site-b' } };
		// POWERTOOLS_DEV (the local Lambda environment) turns off the metrics made during an invocation, as the heartbeat is.
		process.env.POWERTOOLS_METRICS_DISABLED = 'false';
		const { result, lines } = await captureOutput(() => overdueHandler(input, context)).finally(() => delete process.env.POWERTOOLS_METRICS_DISABLED);
		expect(result.complete).toBe(true);

		const events = world.aws.events().filter((e) => e.detail.metadata.account === 'site-b');
		expect(events.filter((e) => e['detail-type'] === 'Device Overdue').length).toBeGreaterThan(0);
		for (const e of events) {
			expect(schemaErrors(e)).toEqual([]);
			expect(e.detail.metadata.dedupeKey).toMatch(/^[a-z-]+:sandbox:site-b:/);
		}
		const items = await world.dynamo.send(new QueryCommand({ TableName: world.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: 'overdue:sandbox:site-b' } } }));
		expect(items.Count).toBeGreaterThan(0);

		const json = jsonLines(lines);
		// The heartbeat with the account's dimension, beside the poller's own.
		const beat = json.find((l) => l.RunCompleted === 1 && l.account === 'site-b');
		expect((beat?._aws as { CloudWatchMetrics: Array<{ Dimensions: string[][] }> }).CloudWatchMetrics[0].Dimensions[0]).toEqual(expect.arrayContaining(['service', 'poller', 'account']));
		expect(json.filter((l) => typeof l.message === 'string').every((l) => l.account === 'site-b')).toBe(true);
		expect(lines.join('\n')).not.toContain(token);
	});

	it("the hourly due-date history reads the account its schedule names and keeps that account's history", async () => {
		const secretArn = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:tec-token/stack/site-h';
		world.aws.secrets.set(secretArn, JSON.stringify({ token: world.sandbox.account.createToken({ label: 'site-h' }).token }));
		const input = { account: { id: 'site-h', environment: 'sandbox', baseUrl: world.sandbox.url, tokenSecretArn: secretArn, account: 'site-h', partition: 'site-h' } };
		process.env.POWERTOOLS_METRICS_DISABLED = 'false';
		const { result: report, lines } = await captureOutput(() => dueDatesHandler(input, { ...context, functionName: 'DueDatesPoller' } as Context)).finally(() => delete process.env.POWERTOOLS_METRICS_DISABLED);
		expect(report.complete).toBe(true);
		// Its compliance figures carry the account: the dashboard shows each account's, not the last one's as the deployment's.
		const figures = jsonLines(lines).filter((l) => typeof l.OverdueDevices === 'number');
		expect(figures).toHaveLength(1);
		expect(figures[0]).toMatchObject({ account: 'site-h', poller: 'dueDates' });
		const items = await world.dynamo.send(new QueryCommand({ TableName: world.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: 'dueDates:sandbox:site-h' } } }));
		expect(items.Count).toBeGreaterThan(0);
	});

	it('refuses an input that names no valid account, saying which field', async () => {
		await expect(overdueHandler({ account: { id: 'bad id' } }, context)).rejects.toThrow(/The schedule's input names no valid account: account\.id/);
	});
});
