import { addMonths, boundaryOverlap, dayMs, dayString, monthBefore, monthDays, monthFigures, snapshotFigures, type SnapshotFigures } from '../../client';
import { budgetedPages, keyScope, newReport, pageSizeOf, withLease, type PollerContext, type RunReport } from './context';
import { customerNames } from './customers';
import { calendarDay, readableRecords, readingOfHistoryDevice, type HistoryDevice } from './records';
import { continueRebuild, recordTests } from './rebuild';
import { NS, dueEntries, type DueHistory, type LatestResult } from './state';

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
 *   test-results poller reported a test since the device was last seen);
 * - a due date first seen already past is marked firstSeenOverdue: the history starts there, and
 *   the report says so.
 * Entries are kept RETENTION_MONTHS; a deleted device's item expires after them.
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
	const device: DueHistory['device'] = {
		...group,
		designation: seen.designation,
		nextTestDate: seen.nextTestDate,
		lastTestedDate: seen.lastTestedDate,
		lastResultDate: later(latestResult, prev?.device.lastResultDate) ? latestResult : (prev?.device.lastResultDate ?? latestResult ?? null),
		seenOn: today,
		testIntervalMonths: seen.testIntervalMonths,
		createdOn: seen.createdOn,
	};
	const entries = [...(prev?.entries ?? [])];
	const openAt = entries.findIndex((e) => e.outcome === 'open');
	const open = openAt >= 0 ? entries[openAt] : undefined;
	const restored = prev?.device.deletedOn !== undefined;
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
			entries.push({ due: seen.nextTestDate, openedOn: today, firstSeenOverdue: seen.nextTestDate < today, outcome: 'open', ...group });
		}
	}
	const keepFrom = `${monthBefore(today.slice(0, 7), RETENTION_MONTHS)}-01`;
	const kept = entries.filter((e) => e.outcome === 'open' || (e.closedOn ?? e.due) >= keepFrom || e.due >= keepFrom);
	const next = { device, entries: kept };
	if (prev && !restored && sameValue(prev, next)) return prev;
	return next;
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
		// Clock sanity: a clock behind the latest day a run has seen does not date anything earlier.
		const clockDay = dayString(now);
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
		for (const id of histories.keys()) if (!seen.has(id)) advance(id);
		// The snapshot needs the devices as listed; the histories hold the rest of what the run needs.
		const [snapshot] = snapshotFigures([...seen.values()], today, 'all');
		seen.clear();
		const write = () => ctx.store.putMany(ns, [...changed].map((id) => historyItem(id, histories.get(id)!)));

		// The history before the first run, rebuilt once from the account's test results. Written
		// once: merged when the rebuild ends in this run, else as this run's scan moved it on.
		let rebuilt: Set<number> | undefined;
		try {
			rebuilt = await continueRebuild(ctx, report, histories, today, RETENTION_MONTHS);
		} catch (error) {
			await write();
			throw error;
		}
		for (const id of rebuilt ?? []) changed.add(id);
		await write();
		publishFigures(ctx, snapshot, histories, today);
		report.complete = true;
	});
}

/** A history as stored: a deleted device's expires RETENTION_MONTHS after it left. */
function historyItem(id: number, value: DueHistory): { key: string; value: DueHistory; expiresAt?: number } {
	const deleted = value.device.deletedOn;
	return { key: String(id), value, ...(deleted ? { expiresAt: dayMs(addMonths(deleted, RETENTION_MONTHS)) } : {}) };
}

/** The dashboard's figures (CloudWatch, via the Metrics port): the snapshot now and the on-time rates of this and last month. */
function publishFigures(ctx: PollerContext, now: SnapshotFigures, histories: ReadonlyMap<number, DueHistory>, today: string): void {
	ctx.metrics.gauge?.('OverdueDevices', now.overdue, 'Count');
	ctx.metrics.gauge?.('DueWithin30Days', now.dueWithin30Days, 'Count');
	const month = today.slice(0, 7);
	const lastMonth = monthBefore(month);
	// Only the two months' due dates count (monthFigures): the rest are not copied.
	const from = monthDays(lastMonth).first;
	const to = monthDays(month).last;
	const entries = dueEntries(keyed(histories), (e) => e.due >= from && e.due <= to);
	const [thisMonth] = monthFigures(entries, month, today, 'all');
	const [previous] = monthFigures(entries, lastMonth, monthDays(lastMonth).last, 'all');
	if (thisMonth.onTimeRate !== null) ctx.metrics.gauge?.('OnTimeRateThisMonth', Math.round(thisMonth.onTimeRate * 1000) / 10, 'Percent');
	if (previous.onTimeRate !== null) ctx.metrics.gauge?.('OnTimeRateLastMonth', Math.round(previous.onTimeRate * 1000) / 10, 'Percent');
}

function* keyed(histories: ReadonlyMap<number, DueHistory>): Iterable<{ key: string; value: DueHistory }> {
	for (const [id, value] of histories) yield { key: String(id), value };
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
