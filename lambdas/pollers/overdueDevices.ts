import { makeEvent, type TecEvent } from '../events/event';
import { DETAIL_TYPES, type OverdueDevice } from '../events/schemas';
import { buildDigest } from './digest';
import { DAY_MS, budgetedPages, countEmitted, newReport, withLease, type PollerContext, type RunReport } from './context';
import { readableRecords, readingOfOverdueDevice } from './records';

/** What the poller remembers per device (one item each in the state store). */
export interface DeviceState {
	overdue: boolean;
	/** How many times the device entered the overdue list. */
	episode: number;
	/** When this episode began (ms). */
	since: number;
	/** Reminders sent in this episode. */
	reminders: number;
	/** Announced but not yet in a digest that was published. */
	digestPending: boolean;
	device: OverdueDevice;
}

/** Resolved devices are kept this long so a return to the list counts as a new episode. */
const RESOLVED_RETENTION_MS = 400 * DAY_MS;

/**
 * One run: fetch the overdue list, announce devices that entered it (and reminders), then, on a
 * complete scan, those that left it, then one digest. Every page is published before its state
 * is written, so a run that dies part-way loses nothing: the next one re-announces what was not
 * recorded, with the same dedupe keys.
 */
export async function pollOverdueDevices(ctx: PollerContext): Promise<RunReport> {
	const report = newReport('overdueDevices');
	const ns = `overdue:${ctx.environment}`;
	const key = (id: number) => `device-overdue:${ctx.environment}:${id}`;
	return withLease(ctx, report, async () => {
		const states = new Map<number, DeviceState>();
		for await (const item of ctx.store.list<DeviceState>(ns)) states.set(Number(item.key), item.value);
		const seen = new Set<number>();
		const now = ctx.now();
		const { reminderDays } = ctx.settings;

		for await (const page of budgetedPages(ctx, report, 'overdueDevice.list', {})) {
			const events: TecEvent[] = [];
			const writes: Array<{ key: string; value: DeviceState }> = [];
			for (const device of readableRecords(page, report.itemsSeen - page.length, readingOfOverdueDevice, { ...ctx, list: 'overdueDevice.list' })) {
				if (seen.has(device.id)) continue;
				seen.add(device.id);
				const state = states.get(device.id);
				if (!state || !state.overdue) {
					const episode = (state?.episode ?? 0) + 1;
					events.push(makeEvent(DETAIL_TYPES.deviceOverdue, ctx.environment, `${key(device.id)}:${episode}`, { device, episode, reminder: 0 }, now));
					writes.push({ key: String(device.id), value: { overdue: true, episode, since: now, reminders: 0, digestPending: true, device } });
				} else if (reminderDays > 0) {
					const due = Math.floor((now - state.since) / (reminderDays * DAY_MS));
					if (due > state.reminders) {
						events.push(makeEvent(DETAIL_TYPES.deviceOverdue, ctx.environment, `${key(device.id)}:${state.episode}:reminder:${due}`, { device, episode: state.episode, reminder: due }, now));
						writes.push({ key: String(device.id), value: { ...state, reminders: due, device } });
					}
				}
			}
			await ctx.publisher.publish(events);
			countEmitted(report, events, ctx.metrics);
			await ctx.store.putMany(ns, writes);
			for (const w of writes) states.set(Number(w.key), w.value);
		}
		if (report.stoppedForTime || report.pagingStopped) return;

		// A complete scan: whatever was overdue and is no longer listed has been resolved.
		const resolved = [...states.entries()].filter(([id, s]) => s.overdue && !seen.has(id));
		for (let i = 0; i < resolved.length; i += 100) {
			const chunk = resolved.slice(i, i + 100);
			const events = chunk.map(([id, s]) =>
				makeEvent(
					DETAIL_TYPES.deviceOverdueResolved,
					ctx.environment,
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

		// One digest for every announced device not yet in a published digest (this run's and any
		// a crashed run left behind).
		const pending = [...states.entries()].filter(([, s]) => s.overdue && s.digestPending);
		if (pending.length > 0) {
			const digest = buildDigest(ctx.environment, pending.map(([, s]) => ({ device: s.device, episode: s.episode })), ctx.settings.digestMaxDevices, now);
			await ctx.publisher.publish([digest]);
			countEmitted(report, [digest], ctx.metrics);
			await ctx.store.putMany(ns, pending.map(([id, s]) => ({ key: String(id), value: { ...s, digestPending: false } })));
		}
		report.complete = true;
	});
}
