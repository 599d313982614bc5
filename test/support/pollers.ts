import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { parseBaseUrl, sharedPacers, tokenPacingKey, type ServiceProfile } from '../../client';
import { EventBridgePublisher } from '../../lambdas/adapters/eventBridgePublisher';
import { DynamoStateStore } from '../../lambdas/adapters/dynamoStateStore';
import { connectService, systemClock } from '../../lambdas/adapters/undiciService';
import { DEFAULT_SETTINGS, type PollerContext, type PollerSettings } from '../../lambdas/pollers/context';
import { NS, type RebuildState } from '../../lambdas/pollers/state';
import type { StateStore } from '../../lambdas/ports';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import type { DemoSize } from '../../sandbox/demo';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { schemaErrors } from './eventSchemas';
import { LocalAws, createStateTable, startDynamo } from './localAws';
import { paceFaster } from './pacing';

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
	dynamoUrl: string;
	/** The layout the sandbox serves, which every client of the world is told. */
	profile?: ServiceProfile;
	/** The sandbox's rate, which every poller context of the world is paced at (tests of what is read, not of pacing). */
	ratePerSecond?: number;
}

/**
 * One sandbox, DynamoDB (dynalite) and EventBridge endpoint for a test file, started before its
 * tests and stopped after them. The returned world is filled in `beforeAll`.
 */
export function usePollerWorld(size: Partial<DemoSize>, options: { profile?: ServiceProfile; ratePerSecond?: number } = {}): World {
	const world = {} as World;
	let stopDynamo: (() => Promise<void>) | undefined;
	beforeAll(async () => {
		const dynamo = await startDynamo();
		stopDynamo = dynamo.stop;
		Object.assign(world, { sandbox: await startSandbox({ port: 0, size, profile: options.profile, ratePerSecond: options.ratePerSecond }), profile: options.profile, ratePerSecond: options.ratePerSecond, aws: await new LocalAws().start(), dynamo: dynamo.client, dynamoUrl: dynamo.url });
	});
	afterAll(async () => {
		await world.sandbox?.stop();
		await world.aws?.stop();
		await stopDynamo?.();
	});
	return world;
}

/**
 * Each test of the file starts from a fresh scenario: the demo data, its clock and faults as new,
 * the EventBridge endpoint empty and accepting, and a state table of its own (read `table()`).
 * After each test, every event that reached EventBridge must match the published JSON Schema of
 * its type.
 */
export function useFreshScenarios(world: World): { table: () => string } {
	let table = '';
	beforeEach(async () => {
		// The clock first: the demo is generated up to the account's today.
		world.sandbox.account.clockOffsetMs = 0;
		world.sandbox.account.reset();
		world.sandbox.faults.clear();
		world.aws.accepted.length = 0;
		world.aws.calls = 0;
		world.aws.failEntry = () => undefined;
		world.aws.failCall = () => undefined;
		table = await newTable(world.dynamo);
	});
	afterEach(() => {
		for (const e of world.aws.events()) expect(schemaErrors(e), e['detail-type']).toEqual([]);
	});
	return { table: () => table };
}

/** A poller context on real adapters: the sandbox over HTTP, DynamoDB (dynalite), EventBridge (local wire endpoint). */
export function pollerContext(
	world: World,
	table: string,
	options: { settings?: Partial<PollerSettings>; store?: StateStore; remainingMs?: () => number; runId?: string; token?: string } = {},
): PollerContext {
	const token = options.token ?? world.sandbox.sandboxToken;
	// The token's shared pacer, as connectService takes it (the system clock), at the world's rate.
	if (world.ratePerSecond) paceFaster(sharedPacers.forKey(tokenPacingKey(token, 'sandbox', parseBaseUrl(world.sandbox.url)), systemClock), world.ratePerSecond);
	return {
		client: connectService({ baseUrl: world.sandbox.url, token, environment: 'sandbox', profile: world.profile }),
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

/**
 * Marks the due-date history's rebuild as done for the sandbox environment, as an installation
 * whose first run has already rebuilt the past: for tests of what the history records live.
 */
export async function rebuildDone(store: StateStore, day: string): Promise<void> {
	await store.putMany<RebuildState>(NS.rebuild('sandbox'), [{ key: 'rebuild', value: { since: '2000-01-01', startedOn: day, afterId: 0, resultsRead: 0, done: day } }]);
}
