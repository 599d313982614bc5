import type { IDataObject } from 'n8n-workflow';
import { ServiceError, byUpload, keptResults, nextDueOfRecord, readNextDue, readOrGone, readResultAlerts, type DeviceSeries, type DriftWarning, type MeasurementWarning, type NewResult, type ResultFit } from '../../../../client';
import { firstRecord, recordId, type PollOutcome, type PollRun } from '../run';
import { STATE_VERSION, type MeasuredPending, type MeasuredState, type ResultsState } from '../state';
import { pollResults } from './testResultNew';

/**
 * Events "testResultNearLimit" and "deviceMeasurementDrift": what a new passed result's measured
 * values say, one item per result and step, decided by the client (client/measurementAlertsRead.ts,
 * client/measurementSeries.ts) as the results poller's `Test Result Near Limit` and `Device
 * Measurement Drift` events are. New results are found as New Test Result finds them (by upload
 * time); each new passed result costs one detail request, a trend reaching a limit one device read
 * more (once per device and poll). The memory adds, per device with a new result, its latest passed
 * results' values per step (a few hundred bytes), for at most MAX_KEPT_DEVICES devices (the ones
 * tested longest ago are forgotten first: their series starts again). A detail that cannot be read
 * holds its result back for the next poll, MAX_TRIES polls at most, with its device's kept values
 * as they stood for it (those of the results uploaded before it): its retry is fitted to those,
 * whatever the results read meanwhile removed from the kept values (a later failure, the 5 kept),
 * and keeps it in the kept values as they are now, so it gets the trend an uninterrupted poll gave
 * it. Held-back results are retried in upload order, and one read on retry is added to the saved
 * values of its device's later held-back results first (an uninterrupted poll fitted them with it).
 * A held-back entry is at most one device's kept values (5 results' values per step: a few hundred
 * bytes, tens of KB for a device with dozens of long-named steps) and leaves after MAX_TRIES polls.
 * A result that would give items asks whether its device still exists (the read shared with the
 * next due date, once per device and poll); a deleted one's result triggers nothing and is not
 * kept (logged), as Get Measurement Warnings skips it (`unknownDevices`).
 */
export const MAX_KEPT_DEVICES = 2000;
export const MAX_TRIES = 3;
export const DEFAULT_THRESHOLD = 0.8;

/** Failures of the whole poll (token, licence, rate limit, maintenance): not the result's own. */
const POLL_WIDE: ReadonlySet<string> = new Set(['auth', 'permission', 'license', 'rateLimit', 'maintenance']);

function newResultOf(record: IDataObject): NewResult | undefined {
	const id = recordId(record);
	const deviceId = recordId({ id: record.device_id });
	const status = typeof record.status === 'string' ? record.status.toLowerCase() : '';
	if (id === undefined || deviceId === undefined || typeof record.test_date !== 'string') return undefined;
	return { id, deviceId, testDate: record.test_date.slice(0, 10), passed: status === 'passed' ? true : status === 'failed' ? false : null };
}

export function nearLimitItem(w: MeasurementWarning): IDataObject {
	return { ...w };
}

export function driftItem(d: DriftWarning): IDataObject {
	const { trend } = d;
	return {
		testResultId: d.testResultId,
		deviceId: d.deviceId,
		step: d.step,
		measurement: d.measurement,
		testDate: d.testDate,
		unit: trend.unit,
		lowLimit: trend.lowLimit,
		highLimit: trend.highLimit,
		predictedLimitDate: d.predictedLimitDate,
		predictedLimitSide: trend.predictedLimitSide,
		nextTestDate: d.nextTestDate,
		slopePerDay: trend.fit?.slopePerDay ?? null,
		boundAtLast: trend.boundAtLast,
		points: trend.points.map((p) => ({ testResultId: p.testResultId, testDate: p.testDate, value: p.value })),
	};
}

const uploadOf = (record: IDataObject) => ({ id: recordId(record) ?? 0, syncedTime: record.synced_time });

/**
 * What a result's trend is fitted to: a held-back result's saved values; for one held back by an
 * earlier version, the kept values now without its device's results kept since (`keptBefore`), or,
 * with neither, the kept values now.
 */
function fitOf(entry: MeasuredPending[string], now: DeviceSeries, id: number): ResultFit {
	if (entry.series) return { arrivedTo: entry.series };
	const { keptBefore } = entry;
	if (!keptBefore) return {};
	return { uploadedAfter: new Set(keptResults(now).map(([kept]) => kept).filter((kept) => kept !== id && !keptBefore.includes(kept))) };
}

/** At most MAX_KEPT_DEVICES devices, those with the latest kept test dates. */
function bounded(series: Record<string, DeviceSeries>): Record<string, DeviceSeries> {
	const entries = Object.entries(series);
	if (entries.length <= MAX_KEPT_DEVICES) return series;
	const latest = (s: DeviceSeries) =>
		Object.values(s.steps).reduce((m, points) => (points.length > 0 && points[points.length - 1][1] > m ? points[points.length - 1][1] : m), s.results?.at(-1)?.[1] ?? s.failedOn ?? '');
	return Object.fromEntries(entries.sort((a, b) => (latest(a[1]) < latest(b[1]) ? 1 : -1)).slice(0, MAX_KEPT_DEVICES));
}

export async function pollMeasured(run: PollRun, previous: MeasuredState | undefined, threshold: number, onHeldBack?: (id: string, tries: number, reason: string) => void): Promise<PollOutcome> {
	const event = run.settings.event as MeasuredState['event'];
	const asResults: ResultsState | undefined = previous && { v: STATE_VERSION, event: 'testResultNew', key: previous.key, from: previous.from, seen: previous.seen };
	const found = await pollResults({ ...run, settings: { ...run.settings, event: 'testResultNew', onlyFailed: false, simplify: false } }, asResults);
	const uploads = found.state as ResultsState;
	const series: Record<string, DeviceSeries> = { ...(previous?.series ?? {}) };
	// A device read once per poll: its next due date, and whether it still exists.
	const devices = new Map<number, unknown>();
	const deviceOf = async (deviceId: number) => {
		if (!devices.has(deviceId)) devices.set(deviceId, await readOrGone(run.client, 'device.get', deviceId));
		return devices.get(deviceId);
	};
	const nextDueOf = async (deviceId: number) => nextDueOfRecord(await deviceOf(deviceId), run.client.profile);
	const items: IDataObject[] = [];
	const pending: MeasuredPending = {};
	// Held back earlier, in upload order (each read one is added to the later ones' saved values), then the new uploads as listed.
	const earlier = Object.values(previous?.pending ?? {})
		.map((entry) => ({ ...entry }))
		.sort((a, b) => byUpload(uploadOf(a.record), uploadOf(b.record)));
	const fresh = found.items.filter((r) => previous?.pending?.[String(r.id)] === undefined).map((record) => ({ record, tries: 0 }));
	const queue: Array<MeasuredPending[string]> = [...earlier, ...fresh];
	for (const [at, entry] of queue.entries()) {
		const { record, tries, keptBefore } = entry;
		const result = newResultOf(record);
		if (!result) continue;
		const key = String(result.deviceId);
		const now = series[key] ?? { steps: {} };
		const read = async () => {
			const got = await readResultAlerts(run.client, now, result, threshold, nextDueOf, fitOf(entry, now, result.id));
			// A result that would give items asks whether its device still exists (a read that fails holds it back).
			const gives = (event === 'testResultNearLimit' ? got.alerts.nearLimit : got.alerts.drift).length > 0;
			return { read: got, gone: gives && (await deviceOf(result.deviceId)) === undefined };
		};
		const outcome = await read().then(
			(done) => ({ ...done, failure: undefined }),
			// Only the result's own failures are caught; the poll's own ones fail the poll.
			async (error: unknown) => (error instanceof ServiceError && !POLL_WIDE.has(error.kind) ? { read: undefined, failure: error } : await Promise.reject(error)),
		);
		if (outcome.read && outcome.gone) {
			// Deleted: Get Measurement Warnings skips its results (unknownDevices); nothing is triggered or kept.
			run.onWarning?.(`Test result ${result.id}: its device ${result.deviceId} no longer exists; its measured values trigger nothing and are not kept`);
		} else if (outcome.read) {
			series[key] = outcome.read.series;
			const { addTo } = outcome.read;
			for (const later of queue.slice(at + 1)) if (later.series && newResultOf(later.record)?.deviceId === result.deviceId) later.series = addTo(later.series);
			if (event === 'testResultNearLimit') items.push(...outcome.read.alerts.nearLimit.map(nearLimitItem));
			else items.push(...outcome.read.alerts.drift.map(driftItem));
		} else if (tries + 1 < MAX_TRIES) {
			onHeldBack?.(String(result.id), tries + 1, outcome.failure.message);
			// First held back: the device's kept values now are those of the results uploaded before it.
			const saved = tries === 0 ? { series: now } : entry.series ? { series: entry.series } : keptBefore && { keptBefore };
			pending[String(result.id)] = { tries: tries + 1, record, ...saved };
		} else run.onWarning?.(`Test result ${result.id}: its measured values could not be read in ${MAX_TRIES} polls (${outcome.failure.message}); given up`);
	}
	const state: MeasuredState = { v: STATE_VERSION, event, key: run.key, from: uploads.from, seen: uploads.seen, series: bounded(series) };
	if (Object.keys(pending).length > 0) state.pending = pending;
	return { items, state };
}

/** "Fetch Test Event": the alerts of the newest passed results (of five), their trends as kept from nothing; undefined when none gives one. */
export async function measuredSample(run: PollRun, threshold: number): Promise<IDataObject | undefined> {
	const records: IDataObject[] = [];
	await firstRecord(run, 'testResult.list', { filters: run.settings.filters, ordering: { key: 'id', direction: 'desc' } }, (r) => {
		records.push(r);
		return false;
	});
	for (const record of records) {
		const result = newResultOf(record);
		if (!result?.passed) continue;
		const read = await readResultAlerts(run.client, { steps: {} }, result, threshold, (id) => readNextDue(run.client, id));
		const item = run.settings.event === 'testResultNearLimit' ? read.alerts.nearLimit.map(nearLimitItem)[0] : read.alerts.drift.map(driftItem)[0];
		if (item) return item;
	}
	return undefined;
}
