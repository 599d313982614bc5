import { randomUUID } from 'node:crypto';
import { dirname, basename, join } from 'node:path';
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
	/** The accounts polled, each at its own ceiling (its own token), all at the same time. */
	accounts: RunnerAccount[];
	/** The state file; an account with a partition keeps its state in a file of its own beside it (stateFileOf). */
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

/** One account as the runner polls it (lambdas/accounts.ts says which get `account` and `partition`). */
export interface RunnerAccount {
	client: ServiceClient;
	environment: 'sandbox' | 'production';
	account?: string;
	partition?: string;
	/** Its own settings (due-soon stages, reminder days) over the runner's. */
	settings?: Partial<PollerSettings>;
}

/** A run's report, with the account it read when there are several. */
export type AccountRunReport = RunReport & { account?: string };

/**
 * An account's state file: the runner's own for the unpartitioned account (a single-account
 * setup's file stays where it was), `<name>.<partition>.json` beside it for the others. Each file
 * is written only by its account's runs, so writing one account's state never rewrites another's.
 */
export function stateFileOf(statePath: string, partition: string | undefined): string {
	if (partition === undefined) return statePath;
	return join(dirname(statePath), `${basename(statePath).replace(/\.json$/, '')}.${partition}.json`);
}

/** How often the due-date history runs outside AWS: hourly, as its schedule (infra/constructs/pollers.ts). */
export const HISTORY_EVERY_MS = 60 * 60_000;

/** A run's time budget outside AWS: the pollers' Lambda timeout (infra/stack.ts, POLLER_TIMEOUT). */
export const RUN_BUDGET_MS = 5 * 60_000;

export interface Runner {
	/** One run of every poller for every account: the accounts at once, each account's pollers one after the other. */
	cycle(): Promise<AccountRunReport[]>;
	/** Pollers whose run failed in the last cycle, as `account/poller` when there are several (`npm start --once` exits non-zero then). */
	readonly failed: string[];
	/** Releases the state files' locks. */
	close(): void;
	/** The pollers' state (every account's), for the digest's view of today's truth. */
	readonly state: Pick<StateStore, 'list' | 'get'>;
}

export function createRunner(options: RunnerOptions): Runner {
	const stores: FileStateStore[] = [];
	try {
		for (const a of options.accounts) {
			// The lock makes a second runner on this file refuse to start (it would announce twice).
			const statePath = stateFileOf(options.statePath, a.partition);
			// Items expire on the runner's clock, the one the pollers date them by.
			const store = new FileStateStore(statePath, { lock: true, now: options.now });
			stores.push(store);
			if (store.staleLock) {
				options.log.warn('Took over the state file from a runner that stopped without releasing it; its leases were dropped', { statePath, pid: store.staleLock.pid });
			}
		}
	} catch (error) {
		for (const store of stores) store.close();
		throw error;
	}
	const failed: string[] = [];
	const publishers: Publisher[] = [new LinePublisher(options.writeLine)];
	if (options.eventBusName) publishers.push(new EventBridgePublisher({ busName: options.eventBusName, client: new EventBridgeClient({}), log: options.log }));
	if (options.webhookUrl) publishers.push(new WebhookPublisher(options.webhookUrl, options.log));
	publishers.push(...(options.publishers ?? []));
	const publisher = new FanOutPublisher(publishers);
	const base = { ...DEFAULT_SETTINGS, safetyMs: 0, ...options.settings };

	const now = options.now ?? Date.now;
	// When each account's due-date history last read its lists to the end (pollers' clock).
	const historyDone = new Map<RunnerAccount, number>();

	async function runAccount(a: RunnerAccount, store: FileStateStore): Promise<AccountRunReport[]> {
		const reports: AccountRunReport[] = [];
		const log = a.account === undefined ? options.log : withAccount(options.log, a.account);
		// The history reads every device: hourly, as its schedule on AWS, not every poll period.
		const last = historyDone.get(a);
		const historyDue = last === undefined || now() - last >= HISTORY_EVERY_MS || now() < last;
		for (const poll of historyDue ? [pollOverdueDevices, pollDueSoon, pollTestResults, pollDueDates] : [pollOverdueDevices, pollDueSoon, pollTestResults]) {
			const deadline = Date.now() + (options.runBudgetMs ?? RUN_BUDGET_MS);
			const ctx: PollerContext = {
				client: a.client,
				store,
				publisher,
				environment: a.environment,
				account: a.account,
				partition: a.partition,
				now,
				remainingMs: () => deadline - Date.now(),
				log,
				metrics: { count: () => undefined },
				settings: { ...base, ...a.settings },
				runId: randomUUID(),
			};
			try {
				const report = await poll(ctx);
				reports.push(a.account === undefined ? report : { ...report, account: a.account });
				if (poll === pollDueDates && report.complete) historyDone.set(a, ctx.now());
			} catch (error) {
				// One failed run is retried by the next cycle; the runner (and every other account) keeps going.
				failed.push(a.account === undefined ? poll.name : `${a.account}/${poll.name}`);
				log.error('A poll run failed; the next cycle retries it', { error: (error as Error).message });
			}
		}
		return reports;
	}

	return {
		failed,
		// Every account's state: their namespaces differ (keyScope), so a namespace is in one file only.
		state: allStates(stores),
		close: () => {
			for (const store of stores) store.close();
		},
		async cycle() {
			failed.length = 0;
			// Each account has its own token, so its own 5 requests per second: none waits for another.
			const perAccount = await Promise.all(options.accounts.map((a, i) => runAccount(a, stores[i])));
			return perAccount.flat();
		},
	};
}

/** The accounts' state files read as one store (reads only: each account's runs write their own). */
function allStates(stores: FileStateStore[]): Pick<StateStore, 'list' | 'get'> {
	return {
		async *list<T>(namespace: string) {
			for (const store of stores) yield* store.list<T>(namespace);
		},
		async get<T>(namespace: string, key: string) {
			for (const store of stores) {
				const value = await store.get<T>(namespace, key);
				if (value !== undefined) return value;
			}
			return undefined;
		},
	};
}

function withAccount(log: Log, account: string): Log {
	return {
		info: (m, x) => log.info(m, { account, ...x }),
		warn: (m, x) => log.warn(m, { account, ...x }),
		error: (m, x) => log.error(m, { account, ...x }),
	};
}
