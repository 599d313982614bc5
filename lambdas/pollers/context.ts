import { DEFAULT_PROFILE, STOPPED_READING, type ListQuery, type OperationId, type PageOptions, type PagingOutcome, type ServiceClient } from '../../client';
import type { TecEvent } from '../events/event';
import type { Log, Metrics, Publisher, StateStore, StoredItem } from '../ports';

export interface PollerSettings {
	/** Items per list request (the service's maximum keeps requests few). */
	pageSize: number;
	/** Re-send `Device Overdue` every N days while a device stays overdue; 0 = never. */
	reminderDays: number;
	/** Only when upgrading a cursor of the earlier version (by test date): the days read again. */
	lookbackDays: number;
	/** Devices listed in one digest; the count covers all. */
	digestMaxDevices: number;
	/** Stop before a page when less than this much time is left. */
	safetyMs: number;
	/** How long a run may hold its lease (longer than the Lambda timeout). */
	leaseMs: number;
	/** Items re-read at each page boundary of the overdue scan; unset = boundaryOverlap(pageSize), 0 = none. */
	overlap?: number;
	/** Lead stages of `Device Due Soon`, in days before the due date; empty or [0] = off. */
	dueSoonStages: number[];
	/**
	 * Set on AWS: a run first takes its account's lease, so one account's pollers never run at once
	 * (never compete for its token); a run that finds it held waits this long at most (and never
	 * into its last 2 × `safetyMs`), then skips to the next tick. Unset (`npm start`): the runner
	 * runs an account's pollers one after another itself.
	 */
	accountLeaseWaitMs?: number;
	/** `Test Result Near Limit`: the share of its limit at or above which a passed result's measured step is announced. */
	nearLimitThreshold: number;
	/**
	 * The first run's backfill of the devices' recent measured values: the share of the token's
	 * requests it may take; 0 = no backfill. Both deployments default to BACKFILL_SHARE (lambdas/config.ts,
	 * `npm start`); code that builds its own settings (tests, benches) leaves it off unless it asks.
	 */
	backfillShare: number;
	/** The longest a run spends on the backfill; unset = BACKFILL_SLICE_MS (pollers/measurementBackfill.ts). */
	backfillSliceMs?: number;
}

export const DEFAULT_SETTINGS: PollerSettings = {
	// The default profile's largest page; a smaller largest page of the account's profile wins (`pageSizeOf`).
	pageSize: DEFAULT_PROFILE.paging.maxPageSize,
	reminderDays: 7,
	lookbackDays: 7,
	digestMaxDevices: 100,
	safetyMs: 15_000,
	leaseMs: 15 * 60_000,
	dueSoonStages: [30, 7],
	nearLimitThreshold: 0.8,
	backfillShare: 0,
};

/** The deployments' share of the token's budget for the first run's backfill (AWS and `npm start`): half, so alerts keep flowing. */
export const DEFAULT_BACKFILL_SHARE = 0.5;
/**
 * The smallest backfill share a deployment takes (0 aside, no backfill): one request per 4.1 s
 * (client/sharePacing.ts), so one device's reads (its results list and up to 4 details, 5
 * requests, about 20 s) fit well inside a run's slice (BACKFILL_SLICE_MS, 90 s) and the backfill
 * moves on every run. A smaller share would spend a slice on a device or two, or wait past the run.
 */
export const MIN_BACKFILL_SHARE = 0.05;

export interface PollerContext {
	client: ServiceClient;
	store: StateStore;
	publisher: Publisher;
	environment: 'sandbox' | 'production';
	now: () => number;
	/** Time left in this invocation (Lambda: context.getRemainingTimeInMillis()). */
	remainingMs: () => number;
	log: Log;
	metrics: Metrics;
	settings: PollerSettings;
	/** Identifies this run (lease owner). */
	runId: string;
	/** The account read, when the deployment watches several: in every event's `detail.metadata.account`. */
	account?: string;
	/** Set for an account of several (lambdas/accounts.ts): in its dedupe keys, state namespaces and lease. */
	partition?: string;
	/** Waits between looks at a held account lease; default: a timer. */
	sleep?: (ms: number) => Promise<void>;
}

/**
 * What the account's dedupe keys, state namespaces and lease are scoped by: the environment, and
 * the account's partition when it has one (so two accounts never share a key, an item or a lease;
 * a single-account setup keeps the keys it always had).
 */
export function keyScope(ctx: Pick<PollerContext, 'environment' | 'partition'>): string {
	return ctx.partition === undefined ? ctx.environment : `${ctx.environment}:${ctx.partition}`;
}

export interface RunReport {
	poller: 'overdueDevices' | 'testResults' | 'dueSoon' | 'dueDates';
	/** false when the lease was held by another run, the time budget ran out or work was left for the next run. */
	complete: boolean;
	/** leaseHeld: another run of this poller holds its lease; accountBusy: another poller of the account held the account's lease for as long as this run could wait. */
	skipped?: 'leaseHeld' | 'accountBusy';
	/** Milliseconds this run waited for its account's lease. */
	accountWaitMs?: number;
	stoppedForTime?: boolean;
	/** Why the scan was not read to its normal end (then nothing that needs the whole list ran). */
	incomplete?: { reason: string; detail: string };
	/** Overdue poller: devices missing from a complete scan, and what their targeted reads said. */
	resolveChecks?: { candidates: number; left: number; stillOverdue: number; deferred: number; massExit?: boolean };
	/** Due-date history: how far the rebuild from the account's test results has got (pollers/rebuild.ts). */
	rebuild?: { since: string; resultsRead: number; done: boolean; skipped?: Record<string, number> };
	/** Test results: how far the first run's backfill of measured values has got (pollers/measurementBackfill.ts). */
	backfill?: { devicesDone: number; devicesTotal: number | null; detailsRead: number; requests: number; done: boolean };
	pages: number;
	/** Overdue poller: pages answered as a run before read them, not parsed again (pageMemory.ts). */
	pagesRecalled?: number;
	itemsSeen: number;
	emitted: Record<string, number>;
	durationMs: number;
}

export const DAY_MS = 86_400_000;

/**
 * Clock sanity: the time to stamp on new state. Never earlier than the newest time already stored
 * (a clock set back would otherwise date a new episode or watermark in the past, and the next run
 * with the right clock would think days had passed).
 */
export function stampTime(clockNow: number, newestStored: number | undefined): number {
	return newestStored !== undefined && Number.isFinite(newestStored) && newestStored > clockNow ? newestStored : clockNow;
}

export function newReport(poller: RunReport['poller']): RunReport {
	return { poller, complete: false, pages: 0, itemsSeen: 0, emitted: {}, durationMs: 0 };
}

export function countEmitted(report: RunReport, events: TecEvent[], metrics: Metrics): void {
	for (const e of events) report.emitted[e['detail-type']] = (report.emitted[e['detail-type']] ?? 0) + 1;
	if (events.length > 0) metrics.count('EventsEmitted', events.length);
}

/**
 * On AWS, the longest a run waits for its account's lease: two minutes (a steady-state run takes
 * seconds; a first run or the hourly history of a large account up to about a minute).
 */
export const DEFAULT_ACCOUNT_LEASE_WAIT_MS = 120_000;

/** Between two looks at a held account lease: 2 s, jittered so that waiting runs do not look together. */
export const ACCOUNT_LEASE_POLL_MS = 2000;

/** The account's lease: one name for all its pollers (`keyScope`: environment and partition). */
export const accountLeaseName = (ctx: Pick<PollerContext, 'environment' | 'partition'>) => `account:${keyScope(ctx)}`;

/**
 * Runs `work` holding the poller's lease (and, with `accountLeaseWaitMs`, the account's first); a
 * run that finds the poller's lease held does nothing, one that finds the account's held waits
 * for it within its bound, then does nothing.
 */
export async function withLease(ctx: PollerContext, report: RunReport, work: () => Promise<void>): Promise<RunReport> {
	const started = ctx.now();
	const account = ctx.settings.accountLeaseWaitMs === undefined ? undefined : accountLeaseName(ctx);
	if (account !== undefined && !(await waitForAccountLease(ctx, account, report))) return report;
	const lease = `${report.poller}:${keyScope(ctx)}`;
	try {
		if (!(await ctx.store.acquireLease(lease, ctx.runId, ctx.now(), ctx.settings.leaseMs))) {
			ctx.log.warn('Another run holds the lease; skipping this run', { poller: report.poller });
			report.skipped = 'leaseHeld';
			return report;
		}
		try {
			await work();
		} finally {
			report.durationMs = ctx.now() - started;
			await ctx.store.releaseLease(lease, ctx.runId);
		}
		return report;
	} finally {
		if (account !== undefined) await ctx.store.releaseLease(account, ctx.runId);
	}
}

/** Takes the account's lease, looking again every ~2 s while another poller holds it; false after the bound. */
async function waitForAccountLease(ctx: PollerContext, lease: string, report: RunReport): Promise<boolean> {
	const started = ctx.now();
	const bound = Math.min(ctx.settings.accountLeaseWaitMs ?? 0, ctx.remainingMs() - 2 * ctx.settings.safetyMs);
	const sleep = ctx.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
	for (let look = 1; ; look++) {
		if (await ctx.store.acquireLease(lease, ctx.runId, ctx.now(), ctx.settings.leaseMs)) {
			const waited = ctx.now() - started;
			if (look > 1) {
				report.accountWaitMs = waited;
				ctx.metrics.count('AccountLeaseWaits');
				ctx.log.info("Waited for the account's other poller to finish", { poller: report.poller, waitedMs: waited });
			}
			return true;
		}
		const pause = ACCOUNT_LEASE_POLL_MS * (0.75 + Math.random() / 2);
		if (ctx.now() - started + pause > bound) {
			ctx.log.warn("Another poller of this account held the account's lease for as long as this run could wait; skipping to the next tick", { poller: report.poller, waitedMs: ctx.now() - started });
			ctx.metrics.count('AccountBusySkips');
			report.skipped = 'accountBusy';
			report.accountWaitMs = ctx.now() - started;
			return false;
		}
		await sleep(pause);
	}
}

/**
 * Pages of a list, checking the time budget before each request. Returns true only when the list
 * was read to its normal end; otherwise the report, the log and the `ScanIncomplete` metric say why.
 */
export async function* budgetedPages(
	ctx: PollerContext,
	report: RunReport,
	operation: OperationId,
	query: ListQuery,
	options: PageOptions = {},
): AsyncGenerator<unknown[], boolean> {
	const pages = ctx.client.pages(operation, query, { pageSize: pageSizeOf(ctx), ...options });
	let outcome: PagingOutcome | undefined;
	// Held in variables cleared before the next request: a suspended generator keeps what its
	// variables hold, and a page kept through the next page's parse is copied into the old generation.
	let next: IteratorResult<unknown[], PagingOutcome> | undefined;
	let page: unknown[] | undefined;
	try {
		for (;;) {
			if (ctx.remainingMs() < ctx.settings.safetyMs) {
				report.stoppedForTime = true;
				ctx.log.warn('Stopping before the time budget runs out; the next run resumes', { poller: report.poller, pages: report.pages });
				return false;
			}
			next = await pages.next();
			if (next.done) {
				outcome = next.value ?? { complete: true };
				break;
			}
			page = next.value;
			next = undefined;
			// Pages with items (a scan with a page memory yields every page, an empty one too).
			if (page.length > 0) report.pages++;
			report.itemsSeen += page.length;
			ctx.metrics.count('ItemsSeen', page.length);
			yield page;
			page = undefined;
		}
	} finally {
		if (!outcome) await pages.return(STOPPED_READING);
	}
	if (outcome.complete) return true;
	report.incomplete = { reason: outcome.reason, detail: outcome.detail };
	ctx.log.warn('The list was not read to its end; nothing that needs the whole list is announced this run', {
		poller: report.poller,
		reason: outcome.reason,
		detail: outcome.detail,
	});
	ctx.metrics.count('ScanIncomplete');
	return false;
}

/** The page size a poller asks for: its setting, at most the largest page the service answers. */
export function pageSizeOf(ctx: PollerContext): number {
	return Math.min(ctx.settings.pageSize, ctx.client.maxPageSize);
}

/** Every item of a namespace, a store read at a time where the store offers it (`listPages`), else one by one. */
export async function* storedPages<T>(store: StateStore, namespace: string): AsyncIterable<ReadonlyArray<StoredItem<T>>> {
	if (store.listPages) {
		yield* store.listPages<T>(namespace);
		return;
	}
	for await (const item of store.list<T>(namespace)) yield [item];
}
