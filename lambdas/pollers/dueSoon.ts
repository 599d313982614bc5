import { STOPPED_READING, addDays, boundaryOverlap, dayMs, daysBetween, isCalendarDate, propertyKeyOf, type ListQuery, type PageOptions } from '../../client';
import { makeEvent, type TecEvent } from '../events/event';
import { DETAIL_TYPES, type DueDevice } from '../events/schemas';
import { DAY_MS, countEmitted, keyScope, newReport, pageSizeOf, withLease, type PollerContext, type RunReport } from './context';
import { customerNames } from './customers';
import { readOverdueDevice } from './records';
import { NS, type DueSoonClock, type DueSoonState } from './state';

export type { DueSoonState };

/**
 * `Device Due Soon`: devices whose next test date falls within a lead stage (default 30 and 7
 * days before the due date), announced once per device, due date and stage.
 *
 * The design, in one place:
 * - One list request series per run: the devices whose next-test-date property (found by name in
 *   the account's property table) lies from today to today + the largest stage, in the order of
 *   that date, at the largest page size, with overlapping pages.
 * - Positive evidence only: a device is announced from its own record (its next test date, read
 *   from the record and checked against today), never from its absence. A page shift can make a
 *   run miss a device (the next run finds it), never announce a wrong one. There is no
 *   "resolved" event: a re-tested device gets a new due date and simply starts over; one whose
 *   due date passes leaves this list and enters the overdue list (the overdue poller's events).
 * - State per device: the due date and the smallest stage announced for it. A stage is announced
 *   when the device is inside it and no stage as small was announced for that due date; a device
 *   first seen inside several stages gets only the most urgent one. A clock set back only makes
 *   the current stage larger, and the latest day a run has seen is remembered (a run whose clock
 *   is behind uses it), so passed due dates never come back into a stage.
 * - Each page is published before its state is written (a crash re-announces with the same
 *   dedupe keys). State expires a while after its due date; after a complete scan, the state of
 *   devices that left the window before their due date (re-tested, deleted) is dropped.
 */

/** Items re-read before each page boundary, so inserts and deletes before the cursor lose nothing. */
/** State is kept this long after the due date, so a clock set back cannot re-announce. */
const RETENTION_AFTER_DUE_MS = 45 * DAY_MS;

/** Stages from configuration: positive whole days, largest first; `[0]` or `[]` = off. */
export function normalizeStages(stages: readonly number[]): number[] {
	return [...new Set(stages.filter((s) => Number.isSafeInteger(s) && s > 0))].sort((a, b) => b - a);
}

/** The smallest stage (most urgent) the device is inside, or undefined when it is in none. */
export function stageFor(daysLeft: number, stages: readonly number[]): number | undefined {
	let found: number | undefined;
	for (const s of stages) if (daysLeft >= 0 && daysLeft <= s) found = found === undefined ? s : Math.min(found, s);
	return found;
}

/** The key id of the account's next-test-date property (a Date property of devices). */
export function findNextTestKey(ctx: Pick<PollerContext, 'client'>): Promise<number> {
	return propertyKeyOf(ctx.client, 'nextTestDate', { resource: 'device', dataType: 'Date' });
}

/** What routing and the digest's row show changed (the name is read from the customer list, so its id stands for it). */
function ownerChanged(stored: Omit<DueDevice, 'daysLeft'>, read: DueDevice): boolean {
	return stored.customerId !== read.customerId || stored.department !== read.department || stored.designation !== read.designation || stored.idBarcode !== read.idBarcode;
}

/** How the client's paging ended: its return value when it reports one, else a normal end. */
function completed(value: unknown): boolean {
	return !(value && typeof value === 'object' && (value as { complete?: unknown }).complete === false);
}

export async function pollDueSoon(ctx: PollerContext): Promise<RunReport> {
	const report = newReport('dueSoon');
	const stages = normalizeStages(ctx.settings.dueSoonStages);
	if (stages.length === 0) {
		report.complete = true;
		return report;
	}
	const ns = NS.dueSoon(keyScope(ctx));
	const clockNs = NS.dueSoonClock(keyScope(ctx));
	const dedupe = (id: number, due: string, stage: number) => `device-due-soon:${keyScope(ctx)}:${id}:${due}:${stage}`;
	return withLease(ctx, report, async () => {
		const now = ctx.now();
		// Clock sanity: a clock behind the latest day a run has seen does not move time back (that
		// would bring passed due dates into the stages again).
		const clockDay = new Date(now).toISOString().slice(0, 10);
		const latest = (await ctx.store.get<DueSoonClock>(clockNs, 'today'))?.day;
		const today = latest !== undefined && latest > clockDay ? latest : clockDay;
		if (today !== clockDay) ctx.log.warn('The clock is behind the latest day a run has seen; using that day', { poller: report.poller, clockDay, latest });
		const states = new Map<number, DueSoonState>();
		for await (const item of ctx.store.list<DueSoonState>(ns)) {
			// The store's expiry may lag (DynamoDB TTL): expired and dropped entries are skipped here.
			if (!item.value.dropped && dayMs(item.value.due) + RETENTION_AFTER_DUE_MS > now) states.set(Number(item.key), item.value);
		}

		const nextTestKey = await findNextTestKey(ctx);
		const query: ListQuery = {
			filters: [
				{
					key: nextTestKey,
					join: 'AND',
					conditions: [
						{ keyword: 'newerOrSame', value: today },
						{ keyword: 'olderOrSame', value: addDays(today, stages[0]) },
					],
				},
			],
			ordering: { key: nextTestKey, direction: 'asc' },
		};
		const pageSize = pageSizeOf(ctx);
		const options: PageOptions = { pageSize, overlap: ctx.settings.overlap ?? boundaryOverlap(pageSize) };
		const pages = ctx.client.pages('device.list', query, options);
		const seen = new Set<number>();
		let names: Map<number, string | null> | undefined;
		let complete = false;
		try {
			for (;;) {
				if (ctx.remainingMs() < ctx.settings.safetyMs) {
					report.stoppedForTime = true;
					ctx.log.warn('Stopping before the time budget runs out; the next run resumes', { poller: report.poller, pages: report.pages });
					break;
				}
				const next = await pages.next();
				if (next.done) {
					complete = completed(next.value);
					if (!complete) {
						ctx.log.warn('The device list ended oddly: this scan is not complete, nothing is forgotten', { poller: report.poller, outcome: next.value });
						ctx.metrics.count('IncompleteScans');
					}
					break;
				}
				report.pages++;
				report.itemsSeen += next.value.length;
				ctx.metrics.count('ItemsSeen', next.value.length);

				const found: Array<{ device: DueDevice; stage: number }> = [];
				const refresh: Array<{ device: DueDevice; state: DueSoonState }> = [];
				for (const raw of next.value) {
					const read = readOverdueDevice(raw, ctx.client.profile);
					if (!read || seen.has(read.id)) continue;
					const due = read.nextTestDate?.slice(0, 10);
					if (!due || !isCalendarDate(due)) continue;
					seen.add(read.id);
					const daysLeft = daysBetween(today, due);
					const stage = stageFor(daysLeft, stages);
					if (stage === undefined) continue; // outside every stage by its own record
					const state = states.get(read.id);
					const { id, designation, idBarcode, department, customerId, customerName, lastTestedDate } = read;
					const device = { id, designation, idBarcode, department, customerId, customerName, lastTestedDate, nextTestDate: due, daysLeft };
					if (state && state.due === due && state.stage <= stage) {
						// Announced already; the record the digest routes by is kept as last read (lambdas/email/view.ts).
						if (!state.device || ownerChanged(state.device, device)) refresh.push({ device, state });
						continue;
					}
					found.push({ device, stage });
				}
				if (found.length === 0 && refresh.length === 0) continue;
				names ??= await customerNames(ctx);
				const named = <D extends DueDevice>(device: D): D => ({ ...device, customerName: device.customerName ?? (device.customerId === null ? null : (names!.get(device.customerId) ?? null)) });
				const events: TecEvent[] = [];
				const writes: Array<{ key: string; value: DueSoonState; expiresAt: number }> = [];
				for (const { device, stage } of found) {
					const { daysLeft: _left, ...record } = named(device);
					events.push(makeEvent(DETAIL_TYPES.deviceDueSoon, ctx, dedupe(device.id, device.nextTestDate, stage), { device: named(device), stage }, now));
					writes.push({ key: String(device.id), value: { due: device.nextTestDate, stage, device: record }, expiresAt: dayMs(device.nextTestDate) + RETENTION_AFTER_DUE_MS });
				}
				for (const { device, state } of refresh.splice(0)) {
					const { daysLeft: _left, ...record } = named(device);
					writes.push({ key: String(device.id), value: { ...state, device: record }, expiresAt: dayMs(state.due) + RETENTION_AFTER_DUE_MS });
				}
				await ctx.publisher.publish(events);
				countEmitted(report, events, ctx.metrics);
				await ctx.store.putMany(ns, writes);
				for (const w of writes) states.set(Number(w.key), w.value);
			}
		} finally {
			await pages.return(STOPPED_READING);
		}
		if (!complete) return;

		// Only a complete scan may forget: a device remembered with a due date still inside the
		// window that the scan did not list has left it before its due date (re-tested, deleted).
		const left = [...states.entries()].filter(([id, s]) => !seen.has(id) && s.due >= today);
		for (let i = 0; i < left.length; i += 100) {
			await ctx.store.putMany(
				ns,
				left.slice(i, i + 100).map(([id, s]) => ({ key: String(id), value: { ...s, dropped: true }, expiresAt: now })),
			);
		}
		if (today !== latest) await ctx.store.putMany(clockNs, [{ key: 'today', value: { day: today } }]);
		report.complete = true;
	});
}
