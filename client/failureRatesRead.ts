import type { ServiceClient } from './client';
import { readCustomerNames, wholeList } from './complianceSnapshot';
import { epochDay, todayOf } from './dates';
import { FAILURE_RATE_MONTHS, failureRateWindow, type FailureRateMonths, type RateDevice, type RateScrappedDevice, type RateTestResult } from './failureRates';
import { ServiceError, ValidationError } from './errors';
import { DEFAULT_PROFILE, type ServiceProfile } from './profile';
import { usableInterval } from './rebuild';
import { roleValue } from './roles';

/**
 * Reading what the failure rates need from the service's lists, for any face, as of today (the day
 * in the face's time zone, client/dates.ts, todayOf): the customers' names, every device (designation,
 * department, customer, test interval) and the test results of the window (`test_date`
 * newerOrSame its first day, every page). Each list is read whole at the largest page size with
 * overlapping pages; a list that does not end normally throws (no rate from part of a list).
 * A record that cannot be read (no id, no device, no test date) is skipped and counted.
 */

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);

function positive(v: unknown): number | null {
	const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : Number.NaN;
	return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/** A device record as the rates read it; undefined when it has no usable id. */
export function rateDeviceOf(raw: unknown, customerNames: ReadonlyMap<number, string>, profile: ServiceProfile = DEFAULT_PROFILE): RateDevice | undefined {
	if (!raw || typeof raw !== 'object') return undefined;
	const r = raw as { id?: unknown; customer_id?: unknown };
	const id = positive(r.id);
	if (id === null) return undefined;
	const customerId = positive(r.customer_id);
	return {
		id,
		designation: text(roleValue(raw, 'designation', profile)),
		department: text(roleValue(raw, 'department', profile)),
		customerId,
		customerName: customerId === null ? null : (customerNames.get(customerId) ?? null),
		testIntervalMonths: usableInterval(roleValue(raw, 'testInterval', profile)),
	};
}

/**
 * Whether a result's status is a failure: "failed" yes, "passed" no (any case), any other status
 * null (one this version does not know; not counted in a rate).
 */
export function failedOf(status: unknown): boolean | null {
	const s = typeof status === 'string' ? status.trim().toLowerCase() : '';
	return s === 'failed' ? true : s === 'passed' ? false : null;
}

/** A test result record (canonical field names) as the rates read it; undefined when unreadable. */
export function rateTestResultOf(raw: unknown): RateTestResult | undefined {
	if (!raw || typeof raw !== 'object') return undefined;
	const r = raw as { id?: unknown; device_id?: unknown; test_date?: unknown; status?: unknown };
	const id = positive(r.id);
	const deviceId = positive(r.device_id);
	const day = typeof r.test_date === 'string' && epochDay(r.test_date) !== undefined ? r.test_date.slice(0, 10) : undefined;
	if (id === null || deviceId === null || day === undefined) return undefined;
	return { id, deviceId, testDate: day, failed: failedOf(r.status) };
}

export interface FailureRateInput {
	/** Today: the day in the face's time zone (client/dates.ts, todayOf). */
	today: string;
	devices: RateDevice[];
	/** The results of the window, whatever their device. */
	results: RateTestResult[];
	/** Records that could not be read and were skipped (devices and results). */
	skippedRecords: number;
	/** The recycle bin's devices deleted since the window's first day; null when the token may not read the bin. */
	scrapped?: RateScrappedDevice[] | null;
}

/** A recycle bin entry of a device as the rates read it (client/profile.ts: a device in the bin was scrapped, ASSUMED); undefined otherwise. */
export function rateScrappedDeviceOf(raw: unknown): RateScrappedDevice | undefined {
	if (!raw || typeof raw !== 'object') return undefined;
	const e = raw as { resource?: unknown; item_id?: unknown; name?: unknown; deleted_time?: unknown };
	const deviceId = positive(e.item_id);
	if (e.resource !== 'device' || deviceId === null || typeof e.deleted_time !== 'string' || epochDay(e.deleted_time) === undefined) return undefined;
	return { deviceId, designation: text(e.name), deletedOn: e.deleted_time.slice(0, 10) };
}

/**
 * The devices moved to the recycle bin since `from` (`deleted_time` newerOrSame, `resource` device).
 * null when the token may not read the bin (413): the rates are then given without them, and say so.
 */
export async function readScrappedDevices(client: ServiceClient, from: string): Promise<RateScrappedDevice[] | null> {
	const filters = [
		{ key: 'resource', conditions: [{ keyword: 'equals', value: 'device' }] },
		{ key: 'deleted_time', conditions: [{ keyword: 'newerOrSame', value: from }] },
	];
	const out = new Map<number, RateScrappedDevice>();
	try {
		for await (const raw of client.items('recycleBin.list', { filters }, wholeList(client))) {
			const s = rateScrappedDeviceOf(raw);
			const had = s && out.get(s.deviceId);
			if (s && (!had || had.deletedOn < s.deletedOn)) out.set(s.deviceId, s);
		}
	} catch (error) {
		if (error instanceof ServiceError && error.status === 413) return null;
		throw error;
	}
	return [...out.values()];
}

/** Reads the account for the window of `months` (12 or 24) ending today (the day in `timeZone`). */
export async function readFailureRateInput(client: ServiceClient, months: FailureRateMonths, now: () => number = Date.now, timeZone = 'UTC'): Promise<FailureRateInput> {
	if (!FAILURE_RATE_MONTHS.includes(months)) throw new ValidationError('months', `must be ${FAILURE_RATE_MONTHS.join(' or ')}, got ${JSON.stringify(months)}`);
	const input = await readRateInputSince(client, (today) => failureRateWindow(today, months).from, now, timeZone);
	return { ...input, scrapped: await readScrappedDevices(client, failureRateWindow(input.today, months).from) };
}

/**
 * Reads the account's devices and the results with a test date on or after `fromOf(today, devices)`,
 * today the day in `timeZone` (the interval recommendations read further back than the rates, as
 * far as their devices' intervals reach).
 */
export async function readRateInputSince(
	client: ServiceClient,
	fromOf: (today: string, devices: readonly RateDevice[]) => string,
	now: () => number = Date.now,
	timeZone = 'UTC',
): Promise<FailureRateInput> {
	const WHOLE = wholeList(client);
	const today = todayOf(now(), timeZone);
	const names = await readCustomerNames(client);
	let skippedRecords = 0;
	const devices = new Map<number, RateDevice>();
	for await (const raw of client.items('device.list', {}, WHOLE)) {
		const device = rateDeviceOf(raw, names, client.profile);
		if (device) devices.set(device.id, device);
		else skippedRecords++;
	}
	const from = fromOf(today, [...devices.values()]);
	const results = new Map<number, RateTestResult>();
	const query = { filters: [{ key: 'test_date', conditions: [{ keyword: 'newerOrSame', value: from }] }] };
	for await (const raw of client.items('testResult.list', query, WHOLE)) {
		const result = rateTestResultOf(raw);
		if (result) results.set(result.id, result);
		else skippedRecords++;
	}
	return { today, devices: [...devices.values()], results: [...results.values()], skippedRecords };
}
