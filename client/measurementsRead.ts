import type { ServiceClient } from './client';
import { wholeList } from './complianceSnapshot';
import { addDays, dayString, epochDay, todayOf } from './dates';
import { ServiceError, ValidationError } from './errors';
import { failedOf } from './failureRatesRead';
import { addSkips, measuredValuesOf, noMeasurementSkips, type SkipCounts, type StepValue } from './measuredValues';
import { passedResultAlerts } from './measurementAlertsRead';
import { addFailedResult, addPassedResult, afterFailure, emptySeries, type DeviceSeries, type ResultAlerts } from './measurementSeries';
import { measurementTrend, type MeasurementTrend } from './measurementTrend';
import { TREND_RESULTS, checkDays, checkThreshold, isTestEarlier, seriesOf, trendResultsOf, warningsOf, type DeviceResult, type MeasurementWarning } from './measurementWarnings';
import { roleValue } from './roles';

/**
 * Reading what the measured-value warnings need, for any face. The values come only from a
 * result's detail, one request each, sent one after another through the ServiceClient (its pacer
 * keeps the token's rate); a detail is read once per run. A detail that is gone (404) is skipped
 * and counted; any other error ends the run (no warning from part of the evidence).
 *
 * The test results list filters by `device_id` equals (ASSUMED in client/profile.ts; the spec shows no filter list).
 */

type Json = Record<string, unknown>;

function positive(v: unknown): number | null {
	const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : Number.NaN;
	return Number.isSafeInteger(n) && n > 0 ? n : null;
}

const dayOf = (v: unknown): string | null => (typeof v === 'string' && epochDay(v) !== undefined ? v.slice(0, 10) : null);

export interface MeasuredDevice {
	id: number;
	designation: string | null;
	/** YYYY-MM-DD, or null when the device has none. */
	nextTestDate: string | null;
}

function measuredDeviceOf(raw: unknown, client: ServiceClient): MeasuredDevice | undefined {
	const id = positive((raw as Json | null)?.id);
	if (id === null) return undefined;
	const designation = roleValue(raw, 'designation', client.profile);
	return { id, designation: typeof designation === 'string' && designation.trim() !== '' ? designation : null, nextTestDate: dayOf(roleValue(raw, 'nextTestDate', client.profile)) };
}

interface ListedResult extends DeviceResult {
	deviceId: number;
	/** When it was uploaded (`synced_time`, epoch ms); null when unreadable. */
	synced: number | null;
}

function listedResultOf(raw: unknown): ListedResult | undefined {
	const r = (raw ?? {}) as Json;
	const id = positive(r.id);
	const deviceId = positive(r.device_id);
	const testDate = dayOf(r.test_date);
	if (id === null || deviceId === null || testDate === null) return undefined;
	const synced = typeof r.synced_time === 'string' ? Date.parse(r.synced_time) : Number.NaN;
	return { id, deviceId, testDate, failed: failedOf(r.status), synced: Number.isNaN(synced) ? null : synced };
}

/** What a run read and skipped, beside its items. */
export interface MeasurementReadCounts {
	resultsRead: number;
	detailsRead: number;
	unreadableRecords: number;
	unknownDevices: number;
	goneDetails: number;
	skippedMeasurements: SkipCounts;
}

class Reader {
	readonly counts: MeasurementReadCounts = { resultsRead: 0, detailsRead: 0, unreadableRecords: 0, unknownDevices: 0, goneDetails: 0, skippedMeasurements: noMeasurementSkips() };
	private readonly details = new Map<number, StepValue[] | null>();
	private readonly histories = new Map<number, ListedResult[]>();

	constructor(private readonly client: ServiceClient) {}

	/** The measured values of one result (null when its detail is gone), read once. */
	async values(id: number): Promise<StepValue[] | null> {
		if (this.details.has(id)) return this.details.get(id)!;
		let values: StepValue[] | null = null;
		try {
			const detail = await this.client.call('testResult.get', { pathParams: { id }, parameter: 'Test Result' });
			this.counts.detailsRead++;
			const read = measuredValuesOf(detail);
			addSkips(this.counts.skippedMeasurements, read.skipped);
			values = read.values;
		} catch (error) {
			if (!(error instanceof ServiceError && error.status === 404)) throw error;
			this.counts.goneDetails++;
		}
		this.details.set(id, values);
		return values;
	}

	/** Every result of one device, from its list, read once per run. */
	async history(deviceId: number): Promise<ListedResult[]> {
		let out = this.histories.get(deviceId);
		if (!out) this.histories.set(deviceId, (out = await this.listHistory(deviceId)));
		return out;
	}

	/**
	 * A device's kept values as the results poller held them when result `r` (values read) arrived:
	 * the results uploaded before it, in upload order; only the details its trend may rest on are read.
	 */
	async keptBefore(r: { id: number; deviceId: number; testDate: string }, values: readonly StepValue[]): Promise<DeviceSeries> {
		const history = await this.history(r.deviceId);
		const uploaded = history.find((h) => h.id === r.id)?.synced ?? Number.POSITIVE_INFINITY;
		const earlier = history
			.filter((h) => h.id !== r.id && h.synced !== null && (h.synced < uploaded || (h.synced === uploaded && h.id < r.id)))
			.sort((a, b) => a.synced! - b.synced! || a.id - b.id);
		const failures = earlier.filter((h) => h.failed === true).reduce((s, h) => addFailedResult(s, h.testDate, h.id), emptySeries());
		const read = new Map<number, StepValue[]>();
		if (values.length > 0 && afterFailure(failures, r.testDate, r.id)) {
			// The trend rests on the latest TREND_RESULTS passed results with `r` among them, whatever
			// steps they measure: the latest TREND_RESULTS − 1 earlier ones; none when r is not among them.
			const candidates = earlier.filter((h) => h.failed === false && afterFailure(failures, h.testDate, h.id)).sort((a, b) => (laterTest(a, b) ? -1 : laterTest(b, a) ? 1 : 0));
			const later = candidates.filter((h) => laterTest(h, r)).length;
			for (const h of later >= TREND_RESULTS ? [] : candidates.slice(0, TREND_RESULTS - 1)) {
				const v = await this.values(h.id);
				if (v) read.set(h.id, v);
			}
		}
		let series = emptySeries();
		for (const h of earlier) {
			if (h.failed === true) series = addFailedResult(series, h.testDate, h.id);
			else if (read.has(h.id)) series = addPassedResult(series, { id: h.id, testDate: h.testDate, values: read.get(h.id)! });
		}
		return series;
	}

	private async listHistory(deviceId: number): Promise<ListedResult[]> {
		const out: ListedResult[] = [];
		const query = { filters: [{ key: 'device_id', conditions: [{ keyword: 'equals' as const, value: String(deviceId) }] }] };
		for await (const raw of this.client.items('testResult.list', query, wholeList(this.client))) {
			const r = listedResultOf(raw);
			if (r && r.deviceId === deviceId) out.push(r);
			else if (!r) this.counts.unreadableRecords++;
		}
		return out;
	}

	/** Each step's trend over the device's latest passed results since its latest failed one. */
	async trends(deviceId: number, results = TREND_RESULTS): Promise<{ trends: Map<string, MeasurementTrend>; used: ListedResult[] }> {
		const used = trendResultsOf(await this.history(deviceId), results);
		const read: Array<{ id: number; testDate: string; values: StepValue[] }> = [];
		for (const r of used) {
			const values = await this.values(r.id);
			if (values) read.push({ id: r.id, testDate: r.testDate, values });
		}
		const trends = new Map([...seriesOf(read)].map(([key, points]) => [key, measurementTrend(points)]));
		return { trends, used };
	}
}

export interface MeasurementWarningsOptions {
	days?: number;
	threshold?: number;
	/** Stop after this many warnings (the newest results first); unset = every one. */
	limit?: number;
	now?: () => number;
	timeZone?: string;
}

/**
 * The warnings of the passed results of the last `days` days (test dates from today − days + 1
 * to today, today in `timeZone`), newest first: every device (for its next due date), the results
 * of the window, each passed one's detail, and for a device with a warning its history and the
 * details its trend needs.
 */
export async function readMeasurementWarnings(
	client: ServiceClient,
	options: MeasurementWarningsOptions = {},
): Promise<{ today: string; from: string; warnings: MeasurementWarning[]; counts: MeasurementReadCounts }> {
	const days = checkDays(options.days ?? 30);
	const threshold = checkThreshold(options.threshold ?? 0.8);
	const limit = options.limit;
	if (limit !== undefined && !(Number.isSafeInteger(limit) && limit >= 1)) throw new ValidationError('limit', `must be a whole number of at least 1, got ${JSON.stringify(limit)}`);
	const today = todayOf((options.now ?? Date.now)(), options.timeZone ?? 'UTC');
	const from = addDays(today, -(days - 1));
	const reader = new Reader(client);
	const devices = new Map<number, MeasuredDevice>();
	for await (const raw of client.items('device.list', {}, wholeList(client))) {
		const d = measuredDeviceOf(raw, client);
		if (d) devices.set(d.id, d);
		else reader.counts.unreadableRecords++;
	}
	const window = new Map<number, ListedResult>();
	const query = { filters: [{ key: 'test_date', conditions: [{ keyword: 'newerOrSame' as const, value: from }] }] };
	for await (const raw of client.items('testResult.list', query, wholeList(client))) {
		const r = listedResultOf(raw);
		if (!r) reader.counts.unreadableRecords++;
		else if (r.failed === false && r.testDate >= from && r.testDate <= today) window.set(r.id, r);
	}
	const newestFirst = [...window.values()].sort((a, b) => (a.testDate < b.testDate ? 1 : a.testDate > b.testDate ? -1 : b.id - a.id));
	const trendsByDevice = new Map<number, Map<string, MeasurementTrend>>();
	const warnings: MeasurementWarning[] = [];
	for (const r of newestFirst) {
		if (limit !== undefined && warnings.length >= limit) break;
		const device = devices.get(r.deviceId);
		if (!device) {
			reader.counts.unknownDevices++;
			continue;
		}
		reader.counts.resultsRead++;
		const values = await reader.values(r.id);
		if (!values || !values.some((v) => v.limitUsed >= threshold)) continue;
		let trends = trendsByDevice.get(r.deviceId);
		if (!trends) {
			trends = (await reader.trends(r.deviceId)).trends;
			trendsByDevice.set(r.deviceId, trends);
		}
		const found = trends;
		warnings.push(...warningsOf({ ...r, values }, threshold, (key) => found.get(key), device.nextTestDate));
	}
	return { today, from, warnings: limit === undefined ? warnings : warnings.slice(0, limit), counts: reader.counts };
}

/** One result's alerts as the e-mails show them: the rows `warningRows(device, nearLimit, drift)` makes. */
export interface ResultWarnings extends ResultAlerts {
	deviceId: number;
}

const laterTest = (a: Pick<DeviceResult, 'id' | 'testDate'>, b: Pick<DeviceResult, 'id' | 'testDate'>) => a.testDate > b.testDate || (a.testDate === b.testDate && a.id > b.id);

/**
 * The measured-value alerts of given passed results (each with its device), oldest test first, by
 * the results poller's one rule (client/measurementAlertsRead.ts, `passedResultAlerts`) over the
 * device's kept values as the poller held them when the result arrived: the device's results
 * uploaded before it (by `synced_time`, then id, the list's order among equal stamps: ASSUMED in
 * client/profile.ts; one without an upload time is not counted),
 * failed ones through `addFailedResult`, passed ones through `addPassedResult`, in upload order.
 * So a step below the threshold whose trend says "test earlier" is a drift warning, and a late
 * upload (a test older than a value already kept) has no trend, as on the Lambdas.
 *
 * Cost: one detail per result; for a result with measured values, its device's result list (once
 * per device and run) and the details of the earlier uploads its trend may rest on: the latest
 * TREND_RESULTS − 1 (4) earlier passed results since the latest failure, whatever steps they
 * measure (none when 5 of them are later tests). No detail is read twice in a run.
 * `nextTestDateOf` gives a device's next due date from the caller's device list (undefined: a
 * device it does not know, skipped and counted).
 */
export async function readResultWarnings(
	client: ServiceClient,
	results: ReadonlyArray<{ id: number; deviceId: number; testDate: string }>,
	threshold: number,
	nextTestDateOf: (deviceId: number) => string | null | undefined,
	reader = new Reader(client),
): Promise<{ alerts: ResultWarnings[]; counts: MeasurementReadCounts }> {
	const ordered = [...results].sort((a, b) => (a.testDate < b.testDate ? -1 : a.testDate > b.testDate ? 1 : a.id - b.id));
	const alerts: ResultWarnings[] = [];
	for (const r of ordered) {
		const nextTestDate = nextTestDateOf(r.deviceId);
		if (nextTestDate === undefined) {
			reader.counts.unknownDevices++;
			continue;
		}
		reader.counts.resultsRead++;
		const values = await reader.values(r.id);
		if (!values || values.length === 0) continue;
		const series = await reader.keptBefore(r, values);
		const { alerts: found } = await passedResultAlerts(series, { ...r, values }, threshold, () => nextTestDate);
		if (found.nearLimit.length + found.drift.length > 0) alerts.push({ deviceId: r.deviceId, ...found });
	}
	return { alerts, counts: reader.counts };
}

/**
 * The measured-value alerts of the passed results uploaded since an instant (by `synced_time`, as the
 * digest's failed tests, client/failedTestRead.ts): `readResultWarnings` over them.
 */
export async function readMeasurementWarningsSince(
	client: ServiceClient,
	since: number,
	threshold: number,
	nextTestDateOf: (deviceId: number) => string | null | undefined,
): Promise<{ alerts: ResultWarnings[]; counts: MeasurementReadCounts }> {
	checkThreshold(threshold, 'Options › Near-Limit Threshold');
	const reader = new Reader(client);
	const passed: ListedResult[] = [];
	const query = { filters: [{ key: 'synced_time', conditions: [{ keyword: 'newerOrSame' as const, value: dayString(since) }] }] };
	for await (const raw of client.items('testResult.list', query, wholeList(client))) {
		const r = listedResultOf(raw);
		const synced = Date.parse(String((raw as Json | null)?.synced_time ?? ''));
		if (!r) reader.counts.unreadableRecords++;
		else if (r.failed === false && !Number.isNaN(synced) && synced >= since) passed.push(r);
	}
	return readResultWarnings(client, passed, threshold, nextTestDateOf, reader);
}

export interface StepTrend {
	deviceId: number;
	step: string;
	measurement: string | null;
	trend: MeasurementTrend;
	nextTestDate: string | null;
	testEarlier: boolean;
}

/**
 * One device's measured steps, each with its series, fit and prediction: its latest `results`
 * passed results since its latest failed one. A device that does not exist is a 404 naming Device.
 */
export async function readMeasurementTrend(
	client: ServiceClient,
	deviceIdText: number | string,
	results = TREND_RESULTS,
): Promise<{ device: MeasuredDevice; steps: StepTrend[]; resultsUsed: number; counts: MeasurementReadCounts }> {
	if (!(Number.isSafeInteger(results) && results >= 3 && results <= 50)) throw new ValidationError('results', `must be a whole number from 3 to 50 (a trend needs 3), got ${JSON.stringify(results)}`);
	// The path check names Device for an ID that is not one; the record's own ID wins.
	const raw = await client.call('device.get', { pathParams: { id: deviceIdText }, parameter: 'Device' });
	const given = positive(deviceIdText);
	const device = measuredDeviceOf(raw, client) ?? (given === null ? undefined : { id: given, designation: null, nextTestDate: null });
	if (!device) throw new ValidationError('Device', `must be a device ID (a whole number above 0), got ${JSON.stringify(deviceIdText)}`);
	const deviceId = device.id;
	const reader = new Reader(client);
	const { trends, used } = await reader.trends(deviceId, results);
	reader.counts.resultsRead = used.length;
	const steps = [...trends].map(([key, trend]) => {
		const [step, measurement] = key.split('\u0000');
		return { deviceId, step, measurement: measurement === '' ? null : measurement, trend, nextTestDate: device.nextTestDate, testEarlier: isTestEarlier(trend.predictedLimitDate, device.nextTestDate) };
	});
	return { device, steps, resultsUsed: used.length, counts: reader.counts };
}
