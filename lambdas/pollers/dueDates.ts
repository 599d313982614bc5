import { addMonths, boundaryOverlap, dayMs, figuresAsOf, laterDay, monthBefore, monthDays, monthFigures, readServiceDay, snapshotFigures, todayOf, type DueEntry, type SnapshotFigures } from '../../client';
import { budgetedPages, keyScope, newReport, pageSizeOf, withLease, type PollerContext, type RunReport } from './context';
import { customerNames } from './customers';
import { calendarDay, readableRecords, readingOfHistoryDevice, type HistoryDevice } from './records';
import { continueRebuild, rebuildPending, recordTests, type RebuiltHistories } from './rebuild';
import { recordScrapped } from './scrapped';
import { NS, toDueEntry, type DueHistory, type LatestResult, type StoredDueEntry } from './state';

/**
 * The history of due dates, for the compliance figures (client/compliance.ts). Each run reads the
 * whole device list (and the customers' names) and, only when both lists were read to their
 * normal end, moves each device's history on by what it shows:
 * - a due date (Next test) not seen before opens an entry; the device's customer and department
 *   are kept up to date until the due date passes, so a device moved mid-month counts where it was due;
 * - a due date that changed closes the open entry: tested when the device's Last tested moved on
 *   or the test-results poller reported a newer test date since (days late from that date), else
 *   moved (an interval changed, a date edited);
 * - a device a complete scan no longer lists closes its open entry as deleted (as tested when the
 *   test-results poller reported a test since the device was last seen); listed again (restored
 *   from the recycle bin), that entry is open again and moves on as any open one;
 * - a due date first seen already past is marked firstSeenOverdue: the history starts there, and
 *   the report says so.
 * Entries are kept RETENTION_MONTHS; a deleted device's item expires after them. The recycle bin's
 * device entries (the scrapped devices of the report's failure rates) are read with them
 * (lambdas/pollers/scrapped.ts).
 */

export const RETENTION_MONTHS = 27;

/** A device as this poller reads it: the shared reader's fields, dates checked as calendar days. */
export interface SeenDevice {
	id: number;
	customerId: number | null;
	customerName: string | null;
	department: string | null;
	designation: string | null;
	nextTestDate: string | null;
	lastTestedDate: string | null;
	testIntervalMonths: number | null;
	createdOn: string | null;
}

export function seenDevice(d: HistoryDevice, customerNames: ReadonlyMap<number, string | null>): SeenDevice {
	return {
		id: d.id,
		customerId: d.customerId,
		customerName: d.customerName ?? (d.customerId === null ? null : (customerNames.get(d.customerId) ?? null)),
		department: d.department,
		designation: d.designation,
		nextTestDate: calendarDay(d.nextTestDate),
		lastTestedDate: calendarDay(d.lastTestedDate),
		testIntervalMonths: d.testIntervalMonths,
		createdOn: d.createdOn,
	};
}

const later = (a: string | null | undefined, b: string | null | undefined): boolean => !!a && (!b || a > b);

/**
 * One device's history moved on to `today`: `seen` is the device as a complete scan listed it, or
 * undefined when the scan did not list it; `latestResult` the newest test date the test-results
 * poller reported for it. Returns the same object when nothing changed.
 */
export function advanceHistory(prev: DueHistory | undefined, seen: SeenDevice | undefined, today: string, latestResult?: string): DueHistory | undefined {
	if (!seen) {
		if (!prev || prev.device.deletedOn !== undefined) return prev;
		// Tested, then deleted before a scan saw the new due date: the test-results poller's date says so.
		const testedOn = later(latestResult, prev.device.lastResultDate) ? latestResult : undefined;
		return {
			device: { ...prev.device, deletedOn: today, ...(testedOn ? { lastResultDate: testedOn } : {}) },
			entries: prev.entries.map((e) => (e.outcome !== 'open' ? e : testedOn ? { ...e, outcome: 'tested', testedOn, closedOn: today } : { ...e, outcome: 'deleted', closedOn: today })),
		};
	}
	const group = { customerId: seen.customerId, customerName: seen.customerName, department: seen.department };
	// Written out, not spread, in the spread's key order: a first run makes one of each per device.
	const device: DueHistory['device'] = {
		customerId: seen.customerId,
		customerName: seen.customerName,
		department: seen.department,
		designation: seen.designation,
		nextTestDate: seen.nextTestDate,
		lastTestedDate: seen.lastTestedDate,
		lastResultDate: later(latestResult, prev?.device.lastResultDate) ? latestResult : (prev?.device.lastResultDate ?? latestResult ?? null),
		seenOn: today,
		testIntervalMonths: seen.testIntervalMonths,
		createdOn: seen.createdOn,
	};
	const entries = prev ? prev.entries.slice() : [];
	const restored = prev?.device.deletedOn !== undefined;
	if (restored) {
		// Back from the recycle bin: the due date its deletion closed was never ended; it is open again (one due date, not two).
		const at = entries.findIndex((e) => e.outcome === 'deleted' && e.closedOn === prev!.device.deletedOn);
		if (at >= 0) {
			const { closedOn: _closed, ...open } = entries[at];
			entries[at] = { ...open, outcome: 'open' };
		}
	}
	const openAt = entries.findIndex((e) => e.outcome === 'open');
	const open = openAt >= 0 ? entries[openAt] : undefined;
	if (open && open.due === seen.nextTestDate) {
		// Counted where it is due: the group follows the device until the due date passes.
		if (today <= open.due && (open.customerId !== group.customerId || open.customerName !== group.customerName || open.department !== group.department)) entries[openAt] = { ...open, ...group };
	} else {
		if (open) {
			const tests = [later(seen.lastTestedDate, prev?.device.lastTestedDate) ? seen.lastTestedDate : null, later(latestResult, prev?.device.lastResultDate) ? latestResult : null];
			const testedOn = tests.filter((t): t is string => !!t).sort().pop();
			entries[openAt] = testedOn ? { ...open, outcome: 'tested', testedOn, closedOn: today } : { ...open, outcome: 'moved', closedOn: today };
		}
		if (seen.nextTestDate !== null) {
			const due = seen.nextTestDate;
			entries.push({ due, openedOn: today, firstSeenOverdue: due < today, outcome: 'open', customerId: seen.customerId, customerName: seen.customerName, department: seen.department });
		}
	}
	const keepFrom = keepFromOf(today);
	const keep = (e: StoredDueEntry) => e.outcome === 'open' || (e.closedOn ?? e.due) >= keepFrom || e.due >= keepFrom;
	const kept = entries.every(keep) ? entries : entries.filter(keep);
	const next = { device, entries: kept };
	if (prev && !restored && sameValue(prev, next)) return prev;
	return next;
}

/** The first day of the oldest month kept, for the day last asked (one day per run: not worked out per device). */
let keptFrom = { today: '', day: '' };
function keepFromOf(today: string): string {
	if (keptFrom.today !== today) keptFrom = { today, day: `${monthBefore(today.slice(0, 7), RETENTION_MONTHS)}-01` };
	return keptFrom.day;
}

/** Deep equality of stored values whatever their key order (DynamoDB does not keep it). */
function sameValue(a: unknown, b: unknown): boolean {
	if (a === b) return true;
	if (!a || !b || typeof a !== 'object' || typeof b !== 'object' || Array.isArray(a) !== Array.isArray(b)) return false;
	const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
	const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
	return ka.length === kb.length && ka.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

export async function pollDueDates(ctx: PollerContext): Promise<RunReport> {
	const report = newReport('dueDates');
	const ns = NS.dueDates(keyScope(ctx));
	return withLease(ctx, report, async () => {
		const now = ctx.now();
		const pageSize = pageSizeOf(ctx);
		const options = { pageSize, overlap: ctx.settings.overlap ?? boundaryOverlap(pageSize) };
		const names = await customerNames(ctx);
		let complete: boolean;
		const seen = new Map<number, SeenDevice>();
		const devices = budgetedPages(ctx, report, 'device.list', {}, options);
		for (;;) {
			const next = await devices.next();
			if (next.done) {
				complete = next.value;
				break;
			}
			for (const d of readableRecords(next.value, report.itemsSeen - next.value.length, (raw) => readingOfHistoryDevice(raw, ctx.client.profile), { ...ctx, list: 'device.list' })) seen.set(d.id, seenDevice(d, names));
		}
		// No figure from a scan that did not end normally: nothing is written.
		if (!complete) return;

		const histories = new Map<number, DueHistory>();
		let latestSeen = '';
		for await (const item of ctx.store.list<DueHistory>(ns)) {
			histories.set(Number(item.key), item.value);
			if (item.value.device.seenOn > latestSeen) latestSeen = item.value.device.seenOn;
		}
		// Today is the UTC day (client/dates.ts, todayOf). Clock sanity: a clock behind the latest
		// day a run has seen does not date anything earlier.
		const clockDay = todayOf(now, 'UTC');
		const today = latestSeen > clockDay ? latestSeen : clockDay;
		if (today !== clockDay) ctx.log.warn('The clock is behind the latest day a run has seen; using that day', { poller: report.poller, clockDay, latestSeen });
		const latest = new Map<number, string>();
		for await (const item of ctx.store.list<LatestResult>(NS.latestResult(keyScope(ctx)))) latest.set(Number(item.key), item.value.testDate);

		const changed = new Set<number>();
		const advance = (id: number) => {
			const prev = histories.get(id);
			const next = advanceHistory(prev, seen.get(id), today, latest.get(id));
			if (!next || next === prev) return;
			histories.set(id, next);
			changed.add(id);
		};
		for (const id of seen.keys()) advance(id);
		let deviceLeft = false;
		for (const id of histories.keys()) {
			if (seen.has(id)) continue;
			if (histories.get(id)!.device.deletedOn === undefined) deviceLeft = true;
			advance(id);
		}
		// The snapshot needs the devices as listed; the histories hold the rest of what the run needs.
		const [snapshot] = snapshotFigures([...seen.values()], today, 'all');
		seen.clear();

		// The history before the first run, rebuilt once from the account's test results. Each
		// history is written once: merged when the rebuild's reading ends in this run, else as this
		// run's scan moved it on (also when the rebuild fails).
		let rebuilt: RebuiltHistories | undefined;
		try {
			// The rebuild runs once and refuses results dated after its cut-off: the later of today and
			// the service's today, so a result the service dated today is never "future" where its day runs ahead.
			const cutOff = (await rebuildPending(ctx)) ? laterDay(today, await readServiceDay(ctx.client))! : today;
			rebuilt = await continueRebuild(ctx, report, histories, cutOff, RETENTION_MONTHS);
		} catch (error) {
			await ctx.store.putMany(ns, [...changed].map((id) => historyItem(id, histories.get(id)!)));
			throw error;
		}
		const figures = await writeHistories(ctx, ns, histories, changed, rebuilt, today);
		await rebuilt?.finish();
		// The bin after the histories, and never at their cost: a bin that cannot be read or kept is
		// logged and counted, the report reads the last bin kept whole (or none: not counted, and said),
		// and the next run reads it again.
		try {
			await recordScrapped(ctx, today, deviceLeft);
		} catch (error) {
			ctx.log.error('Could not read or keep the recycle bin’s scrapped devices; the next run tries again', { error: (error as Error).message });
			ctx.metrics.count('ScrappedBinFailed');
		}
		publishFigures(ctx, snapshot, figures, today);
		report.complete = true;
	});
}

/** Histories written at most this many at a time: a merged one is let go once written. */
const WRITE_CHUNK = 1000;

/**
 * Writes the histories this run changed or the rebuild merged, device by device, dropping each
 * from `histories` once written when merging (a large account's first run holds every history
 * once). Answers the due entries the dashboard's figures count: this month's and last month's.
 */
async function writeHistories(ctx: PollerContext, ns: string, histories: Map<number, DueHistory>, changed: ReadonlySet<number>, rebuilt: RebuiltHistories | undefined, today: string): Promise<DueEntry[]> {
	const month = today.slice(0, 7);
	const from = monthDays(monthBefore(month)).first;
	const to = monthDays(month).last;
	const inMonths = (e: StoredDueEntry) => e.due >= from && e.due <= to;
	const figures: DueEntry[] = [];
	let chunk: Array<{ key: string; value: DueHistory; expiresAt?: number }> = [];
	for (const [id, prev] of histories) {
		const next = rebuilt ? rebuilt.merge(id, prev) : prev;
		if (rebuilt) histories.delete(id);
		for (const e of next.entries) if (inMonths(e)) figures.push(toDueEntry(id, e));
		if (next === prev && !changed.has(id)) continue;
		chunk.push(historyItem(id, next));
		if (chunk.length < WRITE_CHUNK) continue;
		await ctx.store.putMany(ns, chunk);
		chunk = [];
	}
	await ctx.store.putMany(ns, chunk);
	return figures;
}

/** A history as stored: a deleted device's expires RETENTION_MONTHS after it left. */
function historyItem(id: number, value: DueHistory): { key: string; value: DueHistory; expiresAt?: number } {
	const deleted = value.device.deletedOn;
	return { key: String(id), value, ...(deleted ? { expiresAt: dayMs(addMonths(deleted, RETENTION_MONTHS)) } : {}) };
}

/** The dashboard's figures (CloudWatch, via the Metrics port): the snapshot now and the on-time rates of this and last month. */
function publishFigures(ctx: PollerContext, now: SnapshotFigures, entries: DueEntry[], today: string): void {
	ctx.metrics.gauge?.('OverdueDevices', now.overdue, 'Count');
	ctx.metrics.gauge?.('DueWithin30Days', now.dueWithin30Days, 'Count');
	const month = today.slice(0, 7);
	const [thisMonth] = monthFigures(entries, month, figuresAsOf(month, today), 'all');
	const lastMonth = monthBefore(month);
	const [previous] = monthFigures(entries, lastMonth, figuresAsOf(lastMonth, today), 'all');
	if (thisMonth.onTimeRate !== null) ctx.metrics.gauge?.('OnTimeRateThisMonth', Math.round(thisMonth.onTimeRate * 1000) / 10, 'Percent');
	if (previous.onTimeRate !== null) ctx.metrics.gauge?.('OnTimeRateLastMonth', Math.round(previous.onTimeRate * 1000) / 10, 'Percent');
}

/**
 * The test-results poller's part: the newest test date of each device among the results it just
 * read, kept when newer than the one stored (a late upload of an older test changes nothing); and
 * each result as a test record for the failure rates (pollers/rebuild.ts).
 */
export async function recordLatestResults(
	ctx: Pick<PollerContext, 'store' | 'environment' | 'partition' | 'now'>,
	results: ReadonlyArray<{ id: number; deviceId: number; testDate: string; status: string }>,
): Promise<void> {
	await recordTests(ctx, results);
	const newest = new Map<number, string>();
	for (const r of results) if (later(r.testDate, newest.get(r.deviceId))) newest.set(r.deviceId, r.testDate);
	const ns = NS.latestResult(keyScope(ctx));
	// One read per device of the page, side by side (one after another, a page cost a store round trip per device).
	const stored = await Promise.all([...newest].map(async ([id, testDate]) => ({ id, testDate, stored: await ctx.store.get<LatestResult>(ns, String(id)) })));
	const writes = stored.filter((s) => later(s.testDate, s.stored?.testDate)).map((s) => ({ key: String(s.id), value: { testDate: s.testDate } }));
	if (writes.length > 0) await ctx.store.putMany<LatestResult>(ns, writes);
}
