import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handler as overdueHandler } from '../../lambdas/handlers/overdueDevices';
import { captureOutput, jsonLines, useHandlerWorld } from '../support/handlers';

/** The wrapped handler: request context on every log line, metrics (with the heartbeat) flushed. */
useHandlerWorld({ devices: 20, customers: 2, testResults: 5 });

async function invoke(requestId: string): Promise<Array<Record<string, unknown>>> {
	const context = { awsRequestId: requestId, functionName: 'OverdueDevicesPoller', functionVersion: '$LATEST', memoryLimitInMB: '512', invokedFunctionArn: 'arn:aws:lambda:eu-central-1:123456789012:function:OverdueDevicesPoller', getRemainingTimeInMillis: () => 120_000 } as unknown as Context;
	return jsonLines((await captureOutput(() => overdueHandler({}, context))).lines);
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
