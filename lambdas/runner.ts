import { randomUUID } from 'node:crypto';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { ServiceClient } from '../client';
import { EventBridgePublisher } from './adapters/eventBridgePublisher';
import { FileStateStore } from './adapters/fileStateStore';
import { FanOutPublisher, LinePublisher, WebhookPublisher } from './adapters/localPublishers';
import { DEFAULT_SETTINGS, type PollerContext, type PollerSettings, type RunReport } from './pollers/context';
import { pollDueDates } from './pollers/dueDates';
import { pollDueSoon } from './pollers/dueSoon';
import { pollOverdueDevices } from './pollers/overdueDevices';
import { pollTestResults } from './pollers/testResults';
import type { Log, Publisher, StateStore } from './ports';

/**
 * The pollers outside AWS: the same code, a local state file instead of DynamoDB, and events on
 * stdout (plus EventBridge and/or a webhook when asked). Used by `npm start`.
 */
export interface RunnerOptions {
	client: ServiceClient;
	environment: 'sandbox' | 'production';
	statePath: string;
	writeLine: (line: string) => void;
	log: Log;
	webhookUrl?: string;
	eventBusName?: string;
	settings?: Partial<PollerSettings>;
	/** More receivers of every event (the local alert e-mails). */
	publishers?: Publisher[];
	/** Time one poll run may take, as the Lambda's timeout gives it (default RUN_BUDGET_MS). */
	runBudgetMs?: number;
	/** The pollers' clock (default the host's); the embedded sandbox lends its own, so moving it moves due dates. */
	now?: () => number;
}

/** A run's time budget outside AWS: the pollers' Lambda timeout (infra/stack.ts, POLLER_TIMEOUT). */
export const RUN_BUDGET_MS = 5 * 60_000;

export interface Runner {
	cycle(): Promise<RunReport[]>;
	/** Pollers whose run failed in the last cycle (`npm start --once` exits non-zero then). */
	readonly failed: string[];
	/** Releases the state file's lock. */
	close(): void;
	/** The pollers' state, for the digest's view of today's truth. */
	readonly state: StateStore;
}

export function createRunner(options: RunnerOptions): Runner {
	// The lock makes a second runner on this file refuse to start (it would announce twice).
	const store = new FileStateStore(options.statePath, { lock: true });
	if (store.staleLock) {
		options.log.warn('Took over the state file from a runner that stopped without releasing it; its leases were dropped', {
			statePath: options.statePath,
			pid: store.staleLock.pid,
		});
	}
	const failed: string[] = [];
	const publishers: Publisher[] = [new LinePublisher(options.writeLine)];
	if (options.eventBusName) publishers.push(new EventBridgePublisher({ busName: options.eventBusName, client: new EventBridgeClient({}), log: options.log }));
	if (options.webhookUrl) publishers.push(new WebhookPublisher(options.webhookUrl, options.log));
	publishers.push(...(options.publishers ?? []));
	const publisher = new FanOutPublisher(publishers);
	const settings = { ...DEFAULT_SETTINGS, safetyMs: 0, ...options.settings };
	return {
		failed,
		state: store,
		close: () => store.close(),
		async cycle() {
			const reports: RunReport[] = [];
			failed.length = 0;
			for (const poll of [pollOverdueDevices, pollDueSoon, pollTestResults, pollDueDates]) {
				const deadline = Date.now() + (options.runBudgetMs ?? RUN_BUDGET_MS);
				const ctx: PollerContext = {
					client: options.client,
					store,
					publisher,
					environment: options.environment,
					now: options.now ?? Date.now,
					remainingMs: () => deadline - Date.now(),
					log: options.log,
					metrics: { count: () => undefined },
					settings,
					runId: randomUUID(),
				};
				try {
					reports.push(await poll(ctx));
				} catch (error) {
					// One failed run is retried by the next cycle; the runner keeps going.
					failed.push(poll.name);
					options.log.error('A poll run failed; the next cycle retries it', { error: (error as Error).message });
				}
			}
			return reports;
		},
	};
}
