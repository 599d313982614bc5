import { boundaryOverlap, checkStillOverdue, dayMs, dayString, laterDay, serviceTodayOfPage } from '../../client';
import { makeEvent, type TecEvent } from '../events/event';
import type { StoredItem } from '../ports';
import { DETAIL_TYPES, type OverdueDevice } from '../events/schemas';
import { buildDigest } from './digest';
import { DAY_MS, budgetedPages, countEmitted, keyScope, newReport, pageSizeOf, stampTime, storedPages, withLease, type PollerContext, type RunReport } from './context';
import { RememberedPages, knownPages } from './pageMemory';
import { readableRecords, readingOfOverdueDevice } from './records';
import { NS, type ClockMark, type DeviceState, type KnownPage } from './state';

export type { DeviceState };

/** Resolved devices are kept this long so a return to the list counts as a new episode. */
const RESOLVED_RETENTION_MS = 400 * DAY_MS;

/** Targeted reads per run to confirm that devices left the list; the rest wait for the next run. */
export const MAX_CONFIRMATIONS_PER_RUN = 500;

/**
 * A mass exit (docs/reliability.md): at least MASS_EXIT_MIN devices, and at least MASS_EXIT_SHARE
 * of those tracked as overdue, would leave in one run. Then even a one-page scan's candidates are
 * confirmed one by one (MAX_CONFIRMATIONS_PER_RUN a run, so a list that really empties resolves
 * over several runs).
 */
export const MASS_EXIT_MIN = 10;
export const MASS_EXIT_SHARE = 0.2;

export function isMassExit(candidates: number, tracked: number): boolean {
	return candidates >= MASS_EXIT_MIN && candidates >= MASS_EXIT_SHARE * tracked;
}

/**
 * One run: fetch the overdue list, announce devices that entered it (and reminders), then, on a
 * complete scan, those that left it, then one digest. Every page is published before its state
 * is written, so a run that dies part-way loses nothing: the next one re-announces what was not
 * recorded, with the same dedupe keys.
 *
 * A device missing from a scan of several pages is only a candidate: the offset-paged list shifts
 * when devices before the cursor leave it, so one at a page boundary can go unseen. Each candidate
 * is confirmed with a targeted read of that device (client/overdue.ts) before it is announced as
 * resolved; one still overdue stays in its episode. A scan of one page is a snapshot and needs no
 * confirmation, unless it would resolve a large share of the tracked devices at once (a mass exit,
 * isMassExit): then each is confirmed too. Nothing is resolved unless the scan ended normally.
 */
export async function pollOverdueDevices(ctx: PollerContext): Promise<RunReport> {
	const report = newReport('overdueDevices');
	const ns = NS.overdue(keyScope(ctx));
	const clockNs = NS.overdueClock(keyScope(ctx));
	const pagesNs = NS.overduePages(keyScope(ctx));
	const key = (id: number) => `device-overdue:${keyScope(ctx)}:${id}`;
	return withLease(ctx, report, async () => {
		const [states, mark, knownItems] = await Promise.all([loadStates(ctx, ns), ctx.store.get<ClockMark>(clockNs, 'overdueDevices'), loadAll<KnownPage>(ctx, pagesNs)]);
		const seen = new Set<number>();
		const clockNow = ctx.now();
		// New episodes are stamped no earlier than the newest stamp of an earlier run.
		let now = stampTime(clockNow, mark?.at);
		let serviceToday: string | undefined;
		let remindersTrusted = true;
		// This run's number, stored before the run's first event or write (a run that dies part-way
		// uses its number up): every device it writes is newer than the pages remembered before.
		// Above every remembered page's too: a clock mark lost or reset does not restart the count.
		// A run that writes nothing until its end (a steady one) stores it only there, with its time
		// stamp.
		const runNumber = Math.max(mark?.run ?? 0, ...knownItems.map((item) => item.value.run)) + 1;
		let numbered: Promise<void> | undefined;
		const numberRun = () => (numbered ??= ctx.store.putMany<ClockMark>(clockNs, [{ key: 'overdueDevices', value: { at: mark?.at ?? now, run: runNumber } }]));

		// Pages answered as a run before read them, whose devices need nothing this run (no change
		// of record can hide in the same text, no reminder is due), are not parsed again.
		const known = knownPages(knownItems, now);
		let recalledToday: string | undefined;
		const memory = new RememberedPages(known, ctx.client.profile, { run: runNumber, now }, {
			usable: (page) => recallable(page, { ctx, states, clockNow, reminders: remindersTrusted }),
			recalled: (keys, page) => {
				recalledToday = page.serviceToday;
				if (keys.length === 0) return;
				for (const id of keys) seen.add(id as number);
				// Counted as the page it stands for (`budgetedPages` counts the items it yields).
				report.pages++;
				report.pagesRecalled = (report.pagesRecalled ?? 0) + 1;
				report.itemsSeen += keys.length;
				ctx.metrics.count('ItemsSeen', keys.length);
			},
		});

		// In the list's own order (ASSUMED stable: by id); the overlap keeps deletes before the cursor
		// from hiding a device at a page boundary.
		const scan = budgetedPages(ctx, report, 'overdueDevice.list', {}, { overlap: ctx.settings.overlap ?? boundaryOverlap(pageSizeOf(ctx)), memory });
		let complete: boolean;
		const read = (raw: unknown) => readingOfOverdueDevice(raw, ctx.client.profile);
		const out = { ...ctx, list: 'overdueDevice.list' };
		// The page and its devices are held in variables cleared before the next await: a suspended
		// async function keeps what its variables hold, and a page kept through the next page's parse
		// is copied into the old generation (whose collections then cost more than the page).
		let next: IteratorResult<unknown[], boolean> | undefined;
		let devices: OverdueDevice[] = [];
		for (;;) {
			next = await scan.next();
			if (next.done) {
				complete = next.value;
				break;
			}
			const pageToday = laterDay(serviceTodayOfPage(next.value), recalledToday);
			recalledToday = undefined;
			serviceToday = laterDay(serviceToday, pageToday);
			if (serviceToday !== undefined) {
				// The list's own today is the reference: a clock behind it does not date episodes in
				// the past, and a clock more than a day off sends no reminders (they would come early).
				now = Math.max(now, dayMs(serviceToday));
				const skewDays = Math.abs(dayMs(dayString(clockNow)) - dayMs(serviceToday)) / DAY_MS;
				if (skewDays > 1 && remindersTrusted) {
					remindersTrusted = false;
					ctx.log.warn('This clock disagrees with the service about the date; no reminders this run', { clock: dayString(clockNow), service: serviceToday });
					ctx.metrics.count('ClockSkew');
				}
			}
			devices = readableRecords(next.value, report.itemsSeen - next.value.length, read, out);
			const everyRecordRead = devices.length === next.value.length;
			next = undefined;
			const { events, writes } = pageChanges(devices, { ctx, states, seen, key, now, clockNow, reminders: remindersTrusted, runNumber });
			devices = [];
			const pages = memory.handled(pageToday, everyRecordRead);
			// Numbered before the events go out: a write between publishing and recording would
			// widen the window in which a crash repeats them.
			if (events.length > 0 || writes.length > 0 || pages.length > 0) await numberRun();
			await ctx.publisher.publish(events);
			countEmitted(report, events, ctx.metrics);
			await ctx.store.putMany(ns, writes);
			for (const w of writes) states.set(Number(w.key), w.value);
			await ctx.store.putMany(pagesNs, pages);
		}
		await ctx.store.putMany<ClockMark>(clockNs, [{ key: 'overdueDevices', value: { at: now, run: runNumber } }]);
		if (report.stoppedForTime) return;

		// An empty list tells no service day: the confirmations then judge by this clock's day.
		if (complete) await resolveLeft(ctx, report, states, seen, serviceToday ?? dayString(clockNow), now, key, ns);

		// One digest for every announced device not yet in a published digest (this run's and any
		// a crashed run left behind).
		const pending = devicesWhere(states, (_, s) => s.overdue && s.digestPending);
		if (pending.length > 0) {
			const digest = buildDigest(ctx, pending.map(([, s]) => ({ device: s.device, episode: s.episode })), ctx.settings.digestMaxDevices, now);
			await ctx.publisher.publish([digest]);
			countEmitted(report, [digest], ctx.metrics);
			await ctx.store.putMany(ns, pending.map(([id, s]) => ({ key: String(id), value: { ...s, digestPending: false } })));
		}
		report.complete = complete && !report.stoppedForTime && (report.resolveChecks?.deferred ?? 0) === 0;
	});
}

/** The state of every device remembered, by id (read once per run, a store read at a time: an await per item cost as much as reading the records). */
async function loadStates(ctx: PollerContext, ns: string): Promise<Map<number, DeviceState>> {
	const states = new Map<number, DeviceState>();
	for await (const page of storedPages<DeviceState>(ctx.store, ns)) for (const item of page) states.set(Number(item.key), item.value);
	return states;
}

async function loadAll<T>(ctx: PollerContext, ns: string): Promise<Array<StoredItem<T>>> {
	const items: Array<StoredItem<T>> = [];
	for await (const page of storedPages<T>(ctx.store, ns)) items.push(...page);
	return items;
}

type PageRun = {
	ctx: PollerContext;
	states: Map<number, DeviceState>;
	seen: Set<number>;
	key: (id: number) => string;
	now: number;
	clockNow: number;
	reminders: boolean;
	/** This run's number (ClockMark.run), stamped on every device record written. */
	runNumber: number;
};

/** The reminders due in a device's episode by now (none while reminders are off or not trusted). */
function remindersDue(state: DeviceState, run: Pick<PageRun, 'ctx' | 'clockNow' | 'reminders'>): number {
	const { reminderDays } = run.ctx.settings;
	// An episode dated in the future (a clock set back meanwhile) gets no reminder yet.
	return reminderDays > 0 && run.reminders ? Math.floor((run.clockNow - state.since) / (reminderDays * DAY_MS)) : 0;
}

/**
 * Whether a remembered page can stand for its devices this run: each is in an overdue episode,
 * its record was last written no later than the run that read the page (so the page's text still
 * shows the record stored), and no reminder fell due. Anything else is found by parsing the page.
 */
function recallable(page: KnownPage, run: Pick<PageRun, 'ctx' | 'states' | 'clockNow' | 'reminders'>): boolean {
	for (const id of page.keys) {
		if (typeof id !== 'number') return false;
		const state = run.states.get(id);
		if (!state || !state.overdue || (state.run ?? 0) > page.run || remindersDue(state, run) > state.reminders) return false;
	}
	return true;
}

/** A listed device whose state moves: it entered the list, a reminder fell due, or its record changed. */
type Move = { device: OverdueDevice; state: DeviceState | undefined; due: number };

/**
 * What one page announces: devices that entered the list (a new episode) and reminders that fell
 * due, with the state to write once they are published. Its own function (not the run's long
 * body), in two steps: the per-record loop only finds the devices that move (a steady run finds
 * few), and the events are built apart from it. The loop stays small for the compiler, which
 * compiles it again in a run after the first: built in it, the events' schema checks made that
 * compilation cost more than the loop itself.
 */
function pageChanges(devices: OverdueDevice[], run: PageRun): { events: TecEvent[]; writes: Array<{ key: string; value: DeviceState }> } {
	const moves = pageMoves(devices, run);
	return moves.length === 0 ? { events: [], writes: [] } : changesOf(moves, run);
}

function pageMoves(devices: OverdueDevice[], run: PageRun): Move[] {
	const { states, seen } = run;
	const moves: Move[] = [];
	for (const device of devices) {
		// One hash operation per device, not a lookup and an insert: a device already seen leaves the size.
		const seenBefore = seen.size;
		if (seen.add(device.id).size === seenBefore) continue;
		const state = states.get(device.id);
		if (!state || !state.overdue) {
			moves.push({ device, state, due: 0 });
			continue;
		}
		const due = remindersDue(state, run);
		if (due > state.reminders || recordChanged(state.device, device)) moves.push({ device, state, due });
	}
	return moves;
}

/** The events and writes of the devices that move, in their order on the page. */
function changesOf(moves: Move[], run: PageRun): { events: TecEvent[]; writes: Array<{ key: string; value: DeviceState }> } {
	const { ctx, key, now, runNumber } = run;
	const events: TecEvent[] = [];
	const writes: Array<{ key: string; value: DeviceState }> = [];
	for (const { device, state, due } of moves) {
		if (!state || !state.overdue) {
			const episode = (state?.episode ?? 0) + 1;
			events.push(makeEvent(DETAIL_TYPES.deviceOverdue, ctx, `${key(device.id)}:${episode}`, { device, episode, reminder: 0 }, now));
			writes.push({ key: String(device.id), value: { overdue: true, episode, since: now, reminders: 0, digestPending: true, device, run: runNumber } });
		} else if (due > state.reminders) {
			events.push(makeEvent(DETAIL_TYPES.deviceOverdue, ctx, `${key(device.id)}:${state.episode}:reminder:${due}`, { device, episode: state.episode, reminder: due }, now));
			writes.push({ key: String(device.id), value: { ...state, reminders: due, device, run: runNumber } });
		} else {
			// The record the digest shows and routes by (lambdas/email/view.ts): kept as last read.
			writes.push({ key: String(device.id), value: { ...state, device, run: runNumber } });
		}
	}
	return { events, writes };
}

/** A listed device whose customer, department, due date or names changed since it was stored (days overdue change daily and are not stored news). */
function recordChanged(stored: OverdueDevice, read: OverdueDevice): boolean {
	return (
		stored.customerId !== read.customerId ||
		stored.customerName !== read.customerName ||
		stored.department !== read.department ||
		stored.nextTestDate !== read.nextTestDate ||
		stored.lastTestedDate !== read.lastTestedDate ||
		stored.designation !== read.designation ||
		stored.idBarcode !== read.idBarcode
	);
}

/** The remembered devices `keep` selects, as [id, state] pairs (a run usually selects few of many). */
function devicesWhere(states: Map<number, DeviceState>, keep: (id: number, state: DeviceState) => boolean): Array<[number, DeviceState]> {
	const selected: Array<[number, DeviceState]> = [];
	states.forEach((state, id) => {
		if (keep(id, state)) selected.push([id, state]);
	});
	return selected;
}

/** Announces the devices that have really left the list: missing from the scan and confirmed. */
async function resolveLeft(
	ctx: PollerContext,
	report: RunReport,
	states: Map<number, DeviceState>,
	seen: Set<number>,
	serviceToday: string | undefined,
	now: number,
	key: (id: number) => string,
	ns: string,
): Promise<void> {
	// The devices tracked as overdue and those of them the scan missed, in one pass over the states.
	const candidates: Array<[number, DeviceState]> = [];
	let tracked = 0;
	states.forEach((s, id) => {
		if (!s.overdue) return;
		tracked++;
		if (!seen.has(id)) candidates.push([id, s]);
	});
	const massExit = isMassExit(candidates.length, tracked);
	const checks = { candidates: candidates.length, left: 0, stillOverdue: 0, deferred: 0, ...(massExit ? { massExit } : {}) };
	report.resolveChecks = checks;
	// A one-page scan is a snapshot, unless it would empty a large share of the list at once: a
	// service answering one consistent empty (or short) page looks just like that.
	const snapshot = report.pages <= 1 && !massExit;
	if (massExit) {
		ctx.log.warn('This run would resolve a large share of the overdue devices at once; each is confirmed with a targeted read first', { candidates: candidates.length, tracked });
		ctx.metrics.count('MassExitConfirmed', candidates.length);
	}
	let reads = 0;
	for (let i = 0; i < candidates.length; i += 100) {
		const chunk: Array<[number, DeviceState]> = [];
		for (const [id, s] of candidates.slice(i, i + 100)) {
			if (!snapshot) {
				const outOfTime = reads < MAX_CONFIRMATIONS_PER_RUN && ctx.remainingMs() < ctx.settings.safetyMs;
				if (reads >= MAX_CONFIRMATIONS_PER_RUN || outOfTime) {
					// Left for the next run, so this one is not complete (nor, out of time, on time).
					if (outOfTime) report.stoppedForTime = true;
					checks.deferred++;
					continue;
				}
				reads++;
				const check = await checkStillOverdue(ctx.client, id, serviceToday);
				if (check !== 'left') {
					checks.stillOverdue++;
					continue;
				}
			}
			chunk.push([id, s]);
		}
		checks.left += chunk.length;
		const events = chunk.map(([id, s]) =>
			makeEvent(
				DETAIL_TYPES.deviceOverdueResolved,
				ctx,
				`${key(id)}:${s.episode}:resolved`,
				{ device: { id, designation: s.device.designation, idBarcode: s.device.idBarcode }, episode: s.episode, overdueSince: new Date(s.since).toISOString() },
				now,
			),
		);
		await ctx.publisher.publish(events);
		countEmitted(report, events, ctx.metrics);
		const writes = chunk.map(([id, s]) => ({ key: String(id), value: { ...s, overdue: false, digestPending: false }, expiresAt: now + RESOLVED_RETENTION_MS }));
		await ctx.store.putMany(ns, writes);
		for (const w of writes) states.set(Number(w.key), w.value);
	}
	if (checks.stillOverdue > 0) {
		// Missed by the scan although still listed: the list shifted under the cursor.
		ctx.log.info('Devices missing from the scan are still overdue (the list shifted while it was read)', { count: checks.stillOverdue });
		ctx.metrics.count('ScanShiftMissed', checks.stillOverdue);
	}
	if (checks.deferred > 0) ctx.log.info('Confirmation of some resolved devices waits for the next run', { count: checks.deferred });
}
