import { dayMs, dayString } from '../../client/dates';
import type { ListQuery } from '../../client';
import { makeEvent, type TecEvent } from '../events/event';
import { DETAIL_TYPES } from '../events/schemas';
import { DAY_MS, budgetedPages, countEmitted, keyScope, newReport, pageSizeOf, withLease, type PollerContext, type RunReport } from './context';
import { RunCustomerNames } from './customers';
import { recordLatestResults } from './dueDates';
import { FailedEvidence } from './failedEvidence';
import { MeasuredAlerts } from './measuredAlerts';
import { continueBackfill } from './measurementBackfill';
import { passedOf, readTestResult, readableRecords, readingOfTestResult } from './records';
import { NS, type ResultsCursor, type SeenResult } from './state';

export type { ResultsCursor };

/**
 * Following the uploads. The poller reads results by upload time (`synced_time`), not by test date:
 * a result dated on any day, uploaded at any moment, sorts after everything read before it.
 *
 * ASSUMED (the spec lists `synced_time` and day-granular date filters, nothing more):
 * - the service stamps `synced_time` with its own clock when a result is uploaded, and a result is
 *   listed at most SETTLE_MS after that stamp (uploads may become visible slightly out of order);
 * - `synced_time=newerOrSame"<day>"` selects results uploaded on or after that calendar day, and
 *   `ordering=synced_time` lists them oldest upload first (results are not removed).
 * So a run asks for the uploads since the day of (cursor − SETTLE_MS): it re-reads at most the
 * uploads of that day before the cursor, then what is new. Requests per run ≈ new results / page
 * size + one day's uploads / page size, whatever the lookback.
 */
export const SETTLE_MS = 10 * 60_000;

/**
 * The cursor never moves past this run's clock: one result stamped ahead (a wrong clock where it
 * was uploaded) would hide every upload until then. A stamp more than AHEAD_MS ahead is logged.
 */
const AHEAD_MS = 60 * 60_000;

function capped(ctx: PollerContext, id: number, at: number, now: number): number {
	if (at > now + AHEAD_MS) ctx.log.warn('A test result was uploaded later than now: announced, but the cursor stays at now', { list: 'testResult.list', id, syncedTime: new Date(at).toISOString() });
	return Math.min(at, now);
}

/** Result ids read in a run are remembered this long after their upload (or the run, if later). */
const SEEN_RETENTION_MS = 3 * DAY_MS;

/** Readable synced_time in ms, or undefined. */
function syncedMs(text: string | null): number | undefined {
	if (text === null) return undefined;
	const ms = Date.parse(text);
	return Number.isFinite(ms) ? ms : undefined;
}

/**
 * Per result of a page, its device's results on the page uploaded after it (synced_time, then id,
 * the list's order among equal stamps: ASSUMED in client/profile.ts): a page repeated after a crash
 * finds them kept already, and a result's trend leaves them out.
 */
function uploadsAfter(records: ReadonlyArray<{ id: number; deviceId: number; syncedTime: string | null }>) {
	const byDevice = new Map<number, Array<{ id: number; at: number }>>();
	for (const r of records) {
		const at = syncedMs(r.syncedTime);
		if (at === undefined) continue;
		const uploads = byDevice.get(r.deviceId) ?? [];
		uploads.push({ id: r.id, at });
		byDevice.set(r.deviceId, uploads);
	}
	return (id: number, deviceId: number, at: number) => new Set((byDevice.get(deviceId) ?? []).filter((u) => u.at > at || (u.at === at && u.id > id)).map((u) => u.id));
}

/**
 * One run: announce each result uploaded since the cursor and not announced before, page by page
 * (published before recorded, so a crash re-announces with the same dedupe key), then move the
 * cursor to the newest upload read. The first run records the newest upload without announcing
 * history. A scan that stops for time moves the cursor to what it read; a scan that ended
 * abnormally does not move it (the remembered ids keep the next run from announcing twice).
 */
export async function pollTestResults(ctx: PollerContext): Promise<RunReport> {
	const report = newReport('testResults');
	const seenNs = NS.seenResults(keyScope(ctx));
	const cursorNs = NS.resultsCursor(keyScope(ctx));
	return withLease(ctx, report, async () => {
		const now = ctx.now();
		const cursor = await ctx.store.get<ResultsCursor>(cursorNs, 'testResults');
		if (!cursor) {
			await startCursor(ctx, report, cursorNs, seenNs);
			// The first run also begins the backfill of the devices' recent measured values.
			if (ctx.settings.backfillShare > 0) await continueBackfill(ctx, report);
			return;
		}
		// The cursor comes from the service's own stamps (never past this run's clock, see AHEAD_MS).
		const from: number | null =
			cursor.syncedAt !== undefined ? cursor.syncedAt : cursor.watermark ? dayMs(cursor.watermark) - ctx.settings.lookbackDays * DAY_MS : null;
		const readUpTo = from === null ? Number.NEGATIVE_INFINITY : from - SETTLE_MS;
		const seen = new Set<number>((cursor.boundary ?? []).map(([id]) => id));
		for await (const item of ctx.store.list<unknown>(seenNs)) seen.add(Number(item.key));
		// One customer list per run at most, for the failed steps' owners and the warning rows alike.
		const customers = new RunCustomerNames(ctx);
		const evidence = new FailedEvidence(ctx, report, customers);
		await evidence.retryPending();
		const measured = new MeasuredAlerts(ctx, report, customers);
		await measured.retryPending();

		const query: ListQuery = {
			filters: from === null ? [] : [{ key: 'synced_time', conditions: [{ keyword: 'newerOrSame', value: dayString(readUpTo) }] }],
			ordering: { key: 'synced_time', direction: 'asc' },
		};
		let newest = from ?? undefined;
		const recent = new Map<number, number>((cursor.boundary ?? []).map(([id, at]) => [id, at]));
		const pages = budgetedPages(ctx, report, 'testResult.list', query);
		let complete: boolean;
		for (;;) {
			const next = await pages.next();
			if (next.done) {
				complete = next.value;
				break;
			}
			const events: TecEvent[] = [];
			const writes: Array<{ key: string; value: SeenResult; expiresAt: number }> = [];
			const announced: Array<{ id: number; deviceId: number; testDate: string; status: string }> = [];
			const records = readableRecords(next.value, report.itemsSeen - next.value.length, readingOfTestResult, { ...ctx, list: 'testResult.list' });
			const laterOnPage = uploadsAfter(records);
			for (const r of records) {
				const at = syncedMs(r.syncedTime);
				if (at === undefined) {
					// Followed by its upload time, a result without one cannot be placed: skipped, said.
					ctx.log.warn('Skipping a test result without a readable synced_time', { list: 'testResult.list', id: r.id });
					ctx.metrics.count('RecordsSkipped');
					continue;
				}
				const stamp = seen.has(r.id) ? Math.min(at, now) : capped(ctx, r.id, at, now);
				if (newest === undefined || stamp > newest) newest = stamp;
				recent.set(r.id, at);
				if (at < readUpTo || seen.has(r.id)) continue;
				seen.add(r.id);
				announced.push(r);
				const recorded = makeEvent(
					DETAIL_TYPES.testResultRecorded,
					ctx,
					`test-result-recorded:${keyScope(ctx)}:${r.id}`,
					{
						testResult: {
							id: r.id,
							status: r.status,
							passed: passedOf(r.status),
							testDate: r.testDate,
							syncedTime: r.syncedTime,
							projectId: r.projectId,
							testSequence: r.testSequence,
							tester: r.tester,
						},
						device: { id: r.deviceId, customerId: r.customerId },
					},
					now,
				);
				events.push(recorded, ...(await evidence.eventsFor(recorded)), ...(await measured.eventsFor(recorded, laterOnPage(r.id, r.deviceId, at))));
				// Clock sanity: kept relative to the upload when this clock is behind the service.
				writes.push({ key: String(r.id), value: { synced: at }, expiresAt: Math.max(now, at) + SEEN_RETENTION_MS });
			}
			// The due-date history's test dates (lambdas/pollers/dueDates.ts), before publishing: the
			// write only keeps a newer date, so a crash repeats it harmlessly, and it stays out of the
			// window between publishing a page and recording it as seen.
			await recordLatestResults(ctx, announced);
			// Likewise the measured-value warning rows the e-mails show (keyed by result and step).
			await measured.recordWarnings();
			await ctx.publisher.publish(events);
			countEmitted(report, events, ctx.metrics);
			await evidence.record();
			await measured.record();
			await ctx.store.putMany(seenNs, writes);
			// Only the settle window before the newest upload is kept for the boundary.
			for (const [id, at] of recent) if (newest !== undefined && at < newest - SETTLE_MS) recent.delete(id);
		}
		if (!complete && !report.stoppedForTime) return;
		const syncedAt = newest ?? null;
		const boundary: Array<[number, number]> =
			syncedAt === null ? [] : [...recent.entries()].filter(([, at]) => at >= syncedAt - SETTLE_MS && at <= syncedAt);
		await ctx.store.putMany<ResultsCursor>(cursorNs, [{ key: 'testResults', value: { syncedAt, boundary } }]);
		report.complete = complete;
		// New results first, then the backfill within what is left of the run (saved as it goes).
		if (complete && ctx.settings.backfillShare > 0) await continueBackfill(ctx, report);
	});
}

/**
 * The first run: the newest upload becomes the cursor, and every upload of its settle window is
 * remembered as seen (however many there are), so none of them is announced later; nothing is
 * announced. Reads newest first and stops at the first upload older than the window.
 */
async function startCursor(ctx: PollerContext, report: RunReport, cursorNs: string, seenNs: string): Promise<void> {
	const now = ctx.now();
	const query: ListQuery = { ordering: { key: 'synced_time', direction: 'desc' } };
	let syncedAt: number | null = null;
	const seen: Array<{ key: string; value: SeenResult; expiresAt: number }> = [];
	reading: for await (const page of ctx.client.pages('testResult.list', query, { pageSize: pageSizeOf(ctx) })) {
		report.pages++;
		for (const raw of page) {
			const r = readTestResult(raw);
			const at = r ? syncedMs(r.syncedTime) : undefined;
			if (!r || at === undefined) continue;
			const stamp = capped(ctx, r.id, at, now);
			if (syncedAt === null || stamp > syncedAt) syncedAt = stamp;
			if (at < syncedAt - SETTLE_MS) break reading;
			seen.push({ key: String(r.id), value: { synced: at }, expiresAt: Math.max(now, at) + SEEN_RETENTION_MS });
		}
	}
	await ctx.store.putMany(seenNs, seen);
	await ctx.store.putMany<ResultsCursor>(cursorNs, [{ key: 'testResults', value: { syncedAt, boundary: [] } }]);
	report.complete = true;
}
