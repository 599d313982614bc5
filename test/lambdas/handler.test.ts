import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../lambdas/config';
import { handler as overdueHandler } from '../../lambdas/handlers/overdueDevices';
import { handler as resultsHandler } from '../../lambdas/handlers/testResults';
import { schemaErrors } from '../support/eventSchemas';
import { captureOutput, useHandlerWorld } from '../support/handlers';

/**
 * The deployed entry points, end to end: configuration from the environment, the token from
 * Secrets Manager, state in DynamoDB, events to EventBridge (all over the wire, locally).
 */
const world = useHandlerWorld({ devices: 50, customers: 4, testResults: 30 });

const context = (ms = 120_000) =>
	({ awsRequestId: `req-${Math.random()}`, getRemainingTimeInMillis: () => ms, functionName: 'test' }) as unknown as Context;

describe('Lambda handlers', () => {
	it('the overdue poller handler publishes to the configured bus and never logs the token', async () => {
		const { lines } = await captureOutput(async () => {
			const report = await overdueHandler({}, context());
			expect(report.complete).toBe(true);
			expect((await resultsHandler({}, context())).complete).toBe(true);
		});
		const events = world.aws.events();
		expect(events.filter((e) => e['detail-type'] === 'Device Overdue').length).toBeGreaterThan(0);
		expect(world.aws.accepted.every((e) => e.EventBusName === 'tec-alerts')).toBe(true);
		for (const e of events) expect(schemaErrors(e)).toEqual([]);
		expect(lines.some((l) => l.includes('Poll run finished'))).toBe(true);
		expect(lines.join('\n')).not.toContain(world.sandbox.sandboxToken);
	});

	it('configuration errors are clear and name the variable', () => {
		expect(() => readConfig({})).toThrow(/TEC_BASE_URL is required/);
		expect(() => readConfig({ ...process.env, TEC_BASE_URL: 'http://tec.example.com' })).toThrow(/TEC_BASE_URL: must use https/);
		expect(() => readConfig({ ...process.env, REMINDER_DAYS: 'weekly' })).toThrow(/REMINDER_DAYS must be a whole number from 0 to 365, got "weekly"/);
		expect(() => readConfig({ ...process.env, TEC_ENVIRONMENT: 'staging' })).toThrow(/TEC_ENVIRONMENT must be sandbox or production/);
		expect(() => readConfig({ ...process.env, DUE_SOON_DAYS: '30,soon' })).toThrow(/DUE_SOON_DAYS must be whole days from 0 to 365 separated by commas/);
		const env = { TEC_BASE_URL: 'https://tec.example.com', TEC_TOKEN_SECRET_ARN: 'arn', STATE_TABLE: 't', EVENT_BUS_NAME: 'b' };
		expect(readConfig(env).DUE_SOON_DAYS).toEqual([30, 7]);
		expect(readConfig({ ...env, DUE_SOON_DAYS: '60, 14,1' }).DUE_SOON_DAYS).toEqual([60, 14, 1]);
		expect(readConfig({ ...env, DUE_SOON_DAYS: '0' }).DUE_SOON_DAYS).toEqual([]);
		expect(readConfig({ ...process.env, REMINDER_DAYS: '0' }).REMINDER_DAYS).toBe(0);
	});
});
