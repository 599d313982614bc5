import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler as overdueHandler } from '../../lambdas/handlers/overdueDevices';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { LocalAws, startDynamo, useLambdaEnvironment } from '../support/localAws';

/** The wrapped handler: request context on every log line, metrics (with the heartbeat) flushed. */
let sandbox: Sandbox;
let aws: LocalAws;
let dynamo: Awaited<ReturnType<typeof startDynamo>>;
const SECRET_ARN = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:tec-token-PwTlS1';

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, size: { devices: 20, customers: 2, testResults: 5 } });
	aws = await new LocalAws().start();
	dynamo = await startDynamo('tec-powertools-state');
	aws.secrets.set(SECRET_ARN, JSON.stringify({ token: sandbox.sandboxToken }));
	useLambdaEnvironment({ baseUrl: sandbox.url, secretArn: SECRET_ARN, table: dynamo.table, bus: 'tec-alerts', aws, dynamoUrl: dynamo.url });
});
afterAll(async () => {
	await sandbox.stop();
	await aws.stop();
	await dynamo.stop();
});

async function invoke(requestId: string): Promise<Array<Record<string, unknown>>> {
	const context = { awsRequestId: requestId, functionName: 'OverdueDevicesPoller', functionVersion: '$LATEST', memoryLimitInMB: '512', invokedFunctionArn: 'arn:aws:lambda:eu-central-1:123456789012:function:OverdueDevicesPoller', getRemainingTimeInMillis: () => 120_000 } as unknown as Context;
	const out: string[] = [];
	const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (out.push(String(chunk)), true));
	try {
		await overdueHandler({}, context);
	} finally {
		write.mockRestore();
	}
	return out.join('').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('Powertools wrapping of the handlers', () => {
	it('every log line of an invocation carries its request id (addContext), and the next invocation its own', async () => {
		for (const id of ['req-first-1111', 'req-second-2222']) {
			const lines = await invoke(id);
			const logs = lines.filter((l) => typeof l.message === 'string');
			expect(logs.some((l) => l.message === 'Poll run finished')).toBe(true);
			for (const l of logs) {
				expect(l.function_request_id, String(l.message)).toBe(id);
				expect(l.function_name).toBe('OverdueDevicesPoller');
			}
		}
	});

	it('flushes the metrics after the invocation: RunCompleted per poller (the heartbeat) in the namespace', async () => {
		const lines = await invoke('req-metrics-3333');
		const emf = lines.filter((l) => l._aws !== undefined);
		const heartbeat = emf.find((l) => l.RunCompleted === 1);
		expect(heartbeat).toMatchObject({ poller: 'overdueDevices', RunCompleted: 1 });
		const directive = (heartbeat?._aws as { CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][] }> }).CloudWatchMetrics[0];
		expect(directive.Namespace).toBe('TestEquipmentCloud');
		expect(directive.Dimensions[0]).toEqual(expect.arrayContaining(['service', 'poller']));
		expect(emf.some((l) => typeof l.RunDuration === 'number')).toBe(true);
	});
});
