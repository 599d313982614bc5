import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgePublisher } from '../../lambdas/adapters/eventBridgePublisher';
import { DynamoStateStore } from '../../lambdas/adapters/dynamoStateStore';
import { connectService } from '../../lambdas/adapters/undiciService';
import { DEFAULT_SETTINGS, type PollerContext, type PollerSettings } from '../../lambdas/pollers/context';
import type { StateStore } from '../../lambdas/ports';
import { afterAll, beforeAll } from 'vitest';
import type { DemoSize } from '../../sandbox/demo';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { LocalAws, createStateTable, startDynamo } from './localAws';

let tables = 0;

/** A fresh state table per scenario, so scenarios never see each other's state. */
export async function newTable(client: DynamoDBClient): Promise<string> {
	const name = `state-${++tables}`;
	await createStateTable(client, name);
	return name;
}

export interface World {
	sandbox: Sandbox;
	aws: LocalAws;
	dynamo: DynamoDBClient;
}

/**
 * One sandbox, DynamoDB (dynalite) and EventBridge endpoint for a test file, started before its
 * tests and stopped after them. The returned world is filled in `beforeAll`.
 */
export function usePollerWorld(size: Partial<DemoSize>): World {
	const world = {} as World;
	let stopDynamo: (() => Promise<void>) | undefined;
	beforeAll(async () => {
		const dynamo = await startDynamo();
		stopDynamo = dynamo.stop;
		Object.assign(world, { sandbox: await startSandbox({ port: 0, size }), aws: await new LocalAws().start(), dynamo: dynamo.client });
	});
	afterAll(async () => {
		await world.sandbox?.stop();
		await world.aws?.stop();
		await stopDynamo?.();
	});
	return world;
}

/** A poller context on real adapters: the sandbox over HTTP, DynamoDB (dynalite), EventBridge (local wire endpoint). */
export function pollerContext(
	world: World,
	table: string,
	options: { settings?: Partial<PollerSettings>; store?: StateStore; remainingMs?: () => number; runId?: string; token?: string } = {},
): PollerContext {
	return {
		client: connectService({ baseUrl: world.sandbox.url, token: options.token ?? world.sandbox.sandboxToken, environment: 'sandbox' }),
		store: options.store ?? new DynamoStateStore(table, world.dynamo, async () => undefined),
		publisher: new EventBridgePublisher({ busName: 'tec-test', client: world.aws.eventBridge(), sleep: async () => undefined }),
		environment: 'sandbox',
		now: () => world.sandbox.account.now(),
		remainingMs: options.remainingMs ?? (() => 600_000),
		log: { info: () => undefined, warn: () => undefined, error: () => undefined },
		metrics: { count: () => undefined },
		settings: { ...DEFAULT_SETTINGS, safetyMs: 1000, ...options.settings },
		runId: options.runId ?? `run-${Math.random().toString(36).slice(2)}`,
	};
}
