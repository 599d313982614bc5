import type { ServiceClient } from './client';
import { epochDay } from './dates';
import { ServiceError } from './errors';
import { SKIP_REASONS, measuredValuesOf, type StepValue } from './measuredValues';
import { addFailedResult, addPassedResult, mayDrift, resultAlerts, trendsOfResult, withoutResults, type DeviceSeries, type ResultAlerts } from './measurementSeries';
import { roleValue } from './roles';

/**
 * One new result's alerts as a face that follows uploads reads them (the results poller, the n8n
 * trigger): a failed result only clears its device's kept values (no request); a passed one costs
 * its detail (one request), and, when a kept trend reaches a limit within the horizon, its
 * device's next due date (`nextDueOf`, which the caller reads at most once per device and run).
 * Errors other than a gone record (404, 412) are thrown: the caller keeps the result and retries.
 */

export interface NewResult {
	id: number;
	deviceId: number;
	/** YYYY-MM-DD */
	testDate: string;
	/** null: a status this version does not know (neither kept nor announced). */
	passed: boolean | null;
}

export interface ReadAlerts {
	series: DeviceSeries;
	alerts: ResultAlerts;
	/** Measurements skipped by the rules of client/measuredValues.ts. */
	skipped: number;
	/** The detail no longer exists. */
	gone: boolean;
	/**
	 * Another kept series with this result added as its status says (its values as read): the saved
	 * series of a held-back result of the device uploaded after it, which lacks it.
	 */
	addTo: (series: DeviceSeries) => DeviceSeries;
}

const unchanged = (series: DeviceSeries) => series;

/**
 * Upload order (synced_time, then id: ASSUMED in client/profile.ts), in which held-back results are
 * retried, so each earlier one is read, and added to the later ones' saved series, before those are
 * fitted. A stamp that cannot be read sorts last.
 */
export function byUpload(a: { id: number; syncedTime: unknown }, b: { id: number; syncedTime: unknown }): number {
	const at = (r: { syncedTime: unknown }) => {
		const ms = typeof r.syncedTime === 'string' ? Date.parse(r.syncedTime) : NaN;
		return Number.isFinite(ms) ? ms : Infinity;
	};
	return at(a) !== at(b) ? (at(a) < at(b) ? -1 : 1) : a.id - b.id;
}

const NONE: ResultAlerts = { nearLimit: [], drift: [] };

/** A record by id, or undefined when it no longer exists. */
export async function readOrGone(client: ServiceClient, operation: 'testResult.get' | 'device.get', id: number): Promise<unknown> {
	try {
		return await client.call(operation, { pathParams: { id } });
	} catch (error) {
		if (error instanceof ServiceError && (error.status === 404 || error.status === 412)) return undefined;
		throw error;
	}
}

/** A device record's next due date (YYYY-MM-DD); null when it has none or is gone (undefined). */
export function nextDueOfRecord(raw: unknown, profile: ServiceClient['profile']): string | null {
	const v = raw === undefined ? undefined : roleValue(raw, 'nextTestDate', profile);
	return typeof v === 'string' && epochDay(v.slice(0, 10)) !== undefined ? v.slice(0, 10) : null;
}

/** A device's next due date (YYYY-MM-DD) read from the service; null when it has none or is gone. */
export async function readNextDue(client: ServiceClient, deviceId: number): Promise<string | null> {
	return nextDueOfRecord(await readOrGone(client, 'device.get', deviceId), client.profile);
}

/**
 * What a result's trend is fitted to when the kept series is no longer the one it arrived to (its
 * trend rests on its device's results uploaded before it, and itself).
 */
export interface ResultFit {
	/** The device's results the caller knows were uploaded after it, kept already (a page repeated after a crash). */
	uploadedAfter?: ReadonlySet<number>;
	/** The device's kept series as it stood when the result arrived (a result deferred by an earlier run). */
	arrivedTo?: DeviceSeries;
}

export async function readResultAlerts(
	client: ServiceClient,
	series: DeviceSeries,
	result: NewResult,
	threshold: number,
	nextDueOf: (deviceId: number) => Promise<string | null>,
	fit: ResultFit = {},
): Promise<ReadAlerts> {
	if (result.passed === false) {
		// Kept without its detail: a failed result is never held back.
		const addTo = (s: DeviceSeries) => addFailedResult(s, result.testDate, result.id);
		return { series: addTo(series), alerts: NONE, skipped: 0, gone: false, addTo };
	}
	if (result.passed !== true) return { series, alerts: NONE, skipped: 0, gone: false, addTo: unchanged };
	const detail = await readOrGone(client, 'testResult.get', result.id);
	if (detail === undefined) return { series, alerts: NONE, skipped: 0, gone: true, addTo: unchanged };
	const { values, skipped } = measuredValuesOf(detail);
	const read = { ...result, values };
	const { series: kept, alerts } = await passedResultAlerts(fit.arrivedTo ?? series, read, threshold, nextDueOf, fit.uploadedAfter);
	// Fitted to the series it arrived to, kept in the series as it is now (which drops it after a later failure).
	const addTo = (s: DeviceSeries) => addPassedResult(s, read);
	return { series: fit.arrivedTo ? addTo(series) : kept, alerts, skipped: SKIP_REASONS.reduce((n, r) => n + skipped[r], 0), gone: false, addTo };
}

/**
 * The one rule of every face for a passed result whose values are read: added to the device's
 * kept values, its trends (only where it is the latest kept value), its near-limit and drift
 * warnings; the next due date is asked for only when a trend reaches a limit. `uploadedAfter`: the
 * device's results the caller knows were uploaded after this one (synced_time, then id); a run
 * repeated after a crash finds them kept already, and the trend is fitted without them.
 */
export async function passedResultAlerts(
	series: DeviceSeries,
	read: { id: number; deviceId: number; testDate: string; values: readonly StepValue[] },
	threshold: number,
	nextDueOf: (deviceId: number) => Promise<string | null> | string | null,
	uploadedAfter: ReadonlySet<number> = new Set(),
): Promise<{ series: DeviceSeries; alerts: ResultAlerts }> {
	const kept = addPassedResult(series, read);
	const trends = trendsOfResult(withoutResults(kept, uploadedAfter), read);
	const nextTestDate = mayDrift(trends) ? await nextDueOf(read.deviceId) : null;
	return { series: kept, alerts: resultAlerts(read, trends, threshold, nextTestDate) };
}
