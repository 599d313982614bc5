import { addMonths, dayMs, MAX_INTERVAL_MONTHS, monthBefore, noSkips, previousTestMonths, previousTestsFrom, rebuildDueEntries, rebuildReach, type DueEntry, type ListQuery, type RebuildDevice, type RebuildSkips } from '../../client';
import { DAY_MS, budgetedPages, keyScope, type PollerContext, type RunReport } from './context';
import { passedOf, readableRecords, readingOfTestDay } from './records';
import { NS, type DueHistory, type RebuildState, type StoredDueEntry, type TestRecord } from './state';

/**
 * The due-date history from the first day: on its first run (and each run after until done) the
 * due-date history poller reads the account's test results back to `rebuildReach` (the
 * history's retention plus the account's longest interval) or, where it is earlier,
 * `testRecordsReach` (the previous tests of the monthly report's interval recommendations, for the
 * longest possible interval), oldest id first, paced by the client
 * and within the run's time budget; what it has read is kept (`tests:` namespace) with how far it
 * got (`rebuild` item), so the next run resumes after the last id read. Once every result is read,
 * each device's due dates are rebuilt (client/rebuild.ts) and merged into the history: where the
 * history recorded a due date while watching, its record wins.
 */

/**
 * Test records are kept for the monthly report: its failure rates' 24 months and the month it is
 * sent in (25), and before them the previous tests of the interval recommendations' first tests
 * for the longest interval there is (previousTestMonths(MAX_INTERVAL_MONTHS) = 151): 176 months.
 * An account's own intervals could grow after a record was written; the longest possible one
 * keeps n8n's read (client/intervals.ts previousTestsFrom) and this store alike.
 */
export const TEST_RETENTION_MONTHS = 25 + previousTestMonths(MAX_INTERVAL_MONTHS);

/**
 * The first test date the monthly report sent this month can use: the previous tests of its 24
 * months' first ones, for the longest possible interval (as TEST_RETENTION_MONTHS and n8n's read):
 * an interval lengthened after the rebuild must find its earlier tests read.
 */
export function testRecordsReach(today: string): string {
	return previousTestsFrom(`${monthBefore(today.slice(0, 7), 24)}-01`, MAX_INTERVAL_MONTHS);
}
/** A test record older than that stays until the rebuild that reads it is done (it runs once, in a few runs). */
const REBUILD_HOLD_MS = 30 * DAY_MS;

/** Each result as a test record (failed: null for a status this version does not know), written without a read: the key is the result id. */
export async function recordTests(ctx: Pick<PollerContext, 'store' | 'environment' | 'partition' | 'now'>, results: ReadonlyArray<{ id: number; deviceId: number; testDate: string; status: string }>): Promise<void> {
	if (results.length === 0) return;
	const now = ctx.now();
	await ctx.store.putMany<TestRecord>(
		NS.tests(keyScope(ctx)),
		results.map((r) => {
			const passed = passedOf(r.status);
			return {
				key: String(r.id),
				value: { device: r.deviceId, on: r.testDate, failed: passed === null ? null : !passed },
				expiresAt: Math.max(dayMs(addMonths(r.testDate, TEST_RETENTION_MONTHS)), now + REBUILD_HOLD_MS),
			};
		}),
	);
}

/** A device the rebuild knows: listed now, or deleted while the history watched it. */
export interface KnownDevice extends Omit<RebuildDevice, 'id' | 'deletedOn'> {
	deletedOn?: string;
}

/** The device as its history last saw it (moved on by this run's scan: the device as listed now). */
function knownDevice(h: DueHistory): KnownDevice {
	const d = h.device;
	return {
		customerId: d.customerId,
		customerName: d.customerName,
		department: d.department,
		testIntervalMonths: d.testIntervalMonths ?? null,
		createdOn: d.createdOn ?? null,
		...(d.deletedOn !== undefined ? { deletedOn: d.deletedOn } : {}),
	};
}

/** Results refused or not used, by rule (client/rebuild.ts), and results of devices the account does not list. */
export type RebuildSkipped = RebuildSkips & { resultsOfUnknownDevices: number };

/** A finished reading of the results: each device's history merged as it is written, then the rebuild marked done. */
export interface RebuiltHistories {
	/** The device's history with its rebuilt due dates merged in (`prev` itself when they add nothing). */
	merge(id: number, prev: DueHistory): DueHistory;
	/** Marks the rebuild done, with what it refused; call it once the merged histories are written. */
	finish(): Promise<void>;
}

/** Whether the rebuild is still to run (or to finish) for this account. */
export async function rebuildPending(ctx: Pick<PollerContext, 'store' | 'environment' | 'partition'>): Promise<boolean> {
	return !(await ctx.store.get<RebuildState>(NS.rebuild(keyScope(ctx)), 'rebuild'))?.done;
}

/**
 * Moves the rebuild on within the run's budget. Once every result is read, answers the merge of
 * each device's rebuilt due dates into `histories` (moved on by this run's scan: every device it
 * knows); undefined while there is more to read, or when it was done before.
 */
export async function continueRebuild(ctx: PollerContext, report: RunReport, histories: ReadonlyMap<number, DueHistory>, today: string, retentionMonths: number): Promise<RebuiltHistories | undefined> {
	const ns = NS.rebuild(keyScope(ctx));
	const stored = await ctx.store.get<RebuildState>(ns, 'rebuild');
	if (stored?.done) return undefined;
	let longest = 0;
	for (const h of histories.values()) {
		const interval = h.device.testIntervalMonths ?? null;
		if (interval !== null && interval > longest) longest = interval;
	}
	const history = rebuildReach(today, retentionMonths, longest);
	const tests = testRecordsReach(today);
	const state: RebuildState = stored ?? { since: tests < history ? tests : history, startedOn: today, afterId: 0, resultsRead: 0 };
	const rebuild: NonNullable<RunReport['rebuild']> = { since: state.since, resultsRead: state.resultsRead, done: false };
	report.rebuild = rebuild;

	// ASSUMED (with the test-results poller's): results are listed by `id` ascending with `id=greaterThan"n"`, ids only grow.
	const query: ListQuery = {
		filters: [
			{ key: 'test_date', conditions: [{ keyword: 'newerOrSame', value: state.since }] },
			...(state.afterId > 0 ? [{ key: 'id', conditions: [{ keyword: 'greaterThan' as const, value: String(state.afterId) }] }] : []),
		],
		ordering: { key: 'id', direction: 'asc' },
	};
	const before = report.itemsSeen;
	const pages = budgetedPages(ctx, report, 'testResult.list', query);
	let complete: boolean;
	for (;;) {
		const next = await pages.next();
		if (next.done) {
			complete = next.value;
			break;
		}
		const results = readableRecords(next.value, report.itemsSeen - before - next.value.length, readingOfTestDay, { ...ctx, list: 'testResult.list' });
		await recordTests(ctx, results);
		for (const r of results) if (r.id > state.afterId) state.afterId = r.id;
		state.resultsRead += results.length;
		// Saved after each page: a run that ends (budget, crash) resumes after the last id read.
		await ctx.store.putMany<RebuildState>(ns, [{ key: 'rebuild', value: state }]);
	}
	rebuild.resultsRead = state.resultsRead;
	if (!complete) return undefined;

	const testDays = await testDaysOf(ctx, state.since);
	const skips: RebuildSkipped = { ...noSkips(), resultsOfUnknownDevices: 0 };
	for (const [id, days] of testDays) {
		if (histories.has(id)) continue;
		skips.resultsOfUnknownDevices += days.length;
		testDays.delete(id);
	}
	const since = liveSince(histories.values(), today);
	let merged = 0;
	return {
		merge(id, prev) {
			const days = testDays.get(id);
			if (!days) return prev;
			// Each device's days are let go once used: the map shrinks as the histories are written.
			testDays.delete(id);
			const next = mergeRebuilt(prev, rebuildDueEntries({ id, ...knownDevice(prev) }, days, today, skips), since, today, retentionMonths);
			if (next !== prev) merged++;
			return next;
		},
		async finish() {
			state.done = today;
			state.skipped = { ...skips };
			rebuild.done = true;
			rebuild.skipped = { ...skips };
			await ctx.store.putMany<RebuildState>(ns, [{ key: 'rebuild', value: state }]);
			const refused = Object.values(skips).reduce((s, n) => s + n, 0);
			if (refused > 0) ctx.log.warn('The rebuild of the due-date history refused some results or devices (counted by rule)', { poller: report.poller, ...skips });
			ctx.log.info('The due-date history was rebuilt from the test results', { poller: report.poller, since: state.since, resultsRead: state.resultsRead, devices: merged });
		},
	};
}

/** Each device's test days from `since` on, as stored. A day is one string however many tests share it (a few thousand days, hundreds of thousands of tests). */
async function testDaysOf(ctx: PollerContext, since: string): Promise<Map<number, string[]>> {
	const testDays = new Map<number, string[]>();
	const day = new Map<string, string>();
	for await (const item of ctx.store.list<TestRecord>(NS.tests(keyScope(ctx)))) {
		const { device, on } = item.value;
		if (on < since) continue;
		let shared = day.get(on);
		if (shared === undefined) day.set(on, (shared = on));
		const days = testDays.get(device);
		if (days) days.push(shared);
		else testDays.set(device, [shared]);
	}
	return testDays;
}

/** The first day the history watched: its earliest entry recorded while watching (today when none). */
export function liveSince(histories: Iterable<DueHistory>, today: string): string {
	let since = today;
	for (const h of histories) for (const e of h.entries) if (!e.rebuilt && e.openedOn < since) since = e.openedOn;
	return since;
}

/**
 * Rebuilt entries merged into a device's history. Where the history has the due date, its record
 * wins; the rebuild only says since when it was known (the test before it). A rebuilt due date the
 * history lacks is added when it was known before the history watched, except an open one while the
 * history holds an open due date of its own (the device's current due date is the one it saw).
 */
export function mergeRebuilt(prev: DueHistory, rebuilt: readonly DueEntry[], watchedSince: string, today: string, retentionMonths: number): DueHistory {
	const entries = [...prev.entries];
	let changed = false;
	const liveOpen = entries.some((e) => e.outcome === 'open' && !e.rebuilt);
	for (const r of rebuilt) {
		const at = entries.findIndex((e) => e.due === r.due);
		if (at >= 0) {
			const live = entries[at];
			if (!live.rebuilt && r.openedOn < live.openedOn) {
				entries[at] = { ...live, openedOn: r.openedOn, firstSeenOverdue: false, rebuilt: true };
				changed = true;
			}
			continue;
		}
		if (r.openedOn >= watchedSince || (r.outcome === 'open' && liveOpen)) continue;
		const { deviceId: _id, ...stored } = r;
		entries.push(stored as StoredDueEntry);
		changed = true;
	}
	if (!changed) return prev;
	const keepFrom = `${monthBefore(today.slice(0, 7), retentionMonths)}-01`;
	const kept = entries.filter((e) => e.outcome === 'open' || (e.closedOn ?? e.due) >= keepFrom || e.due >= keepFrom).sort((a, b) => a.due.localeCompare(b.due));
	return { device: prev.device, entries: kept };
}
