import type { IDataObject } from 'n8n-workflow';
import { ServiceError, keptResults, readNextDue, readResultAlerts, type DeviceSeries, type DriftWarning, type MeasurementWarning, type NewResult } from '../../../../client';
import { firstRecord, recordId, type PollOutcome, type PollRun } from '../run';
import { STATE_VERSION, type MeasuredState, type ResultsState } from '../state';
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
 * holds its result back for the next poll, MAX_TRIES polls at most, with its device's kept results
 * at that poll: its retry leaves out the ones kept since (uploaded after it, such as a later result
 * of the device read while it was held back), so it gets the trend an uninterrupted poll gave it.
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
	const dueDates = new Map<number, string | null>();
	const nextDueOf = async (deviceId: number) => {
		if (!dueDates.has(deviceId)) dueDates.set(deviceId, await readNextDue(run.client, deviceId));
		return dueDates.get(deviceId)!;
	};
	const items: IDataObject[] = [];
	const pending: NonNullable<MeasuredState['pending']> = {};
	const earlier = Object.values(previous?.pending ?? {});
	const fresh = found.items.filter((r) => previous?.pending?.[String(r.id)] === undefined).map((record) => ({ record, tries: 0, keptBefore: undefined }));
	for (const { record, tries, keptBefore } of [...earlier, ...fresh]) {
		const result = newResultOf(record);
		if (!result) continue;
		const key = String(result.deviceId);
		const kept = keptResults(series[key] ?? { steps: {} }).map(([id]) => id);
		// A held-back result's device results kept since (uploaded after it) are left out of its fit;
		// none known for one held back by an earlier version.
		const uploadedAfter = keptBefore && new Set(kept.filter((id) => id !== result.id && !keptBefore.includes(id)));
		// Only the result's own failures are caught; the poll's own ones fail the poll.
		const outcome = await readResultAlerts(run.client, series[key] ?? { steps: {} }, result, threshold, nextDueOf, { uploadedAfter }).then(
			(read) => ({ read, failure: undefined }),
			async (error: unknown) => (error instanceof ServiceError && !POLL_WIDE.has(error.kind) ? { read: undefined, failure: error } : await Promise.reject(error)),
		);
		if (outcome.read) {
			series[key] = outcome.read.series;
			if (event === 'testResultNearLimit') items.push(...outcome.read.alerts.nearLimit.map(nearLimitItem));
			else items.push(...outcome.read.alerts.drift.map(driftItem));
		} else if (tries + 1 < MAX_TRIES) {
			onHeldBack?.(String(result.id), tries + 1, outcome.failure.message);
			// First held back: the device's results kept now were uploaded before it.
			pending[String(result.id)] = { tries: tries + 1, record, ...(tries === 0 ? { keptBefore: kept } : keptBefore && { keptBefore }) };
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
