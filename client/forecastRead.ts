import type { ServiceClient } from './client';
import { readCustomerNames, snapshotDeviceOf, wholeList } from './complianceSnapshot';
import { todayOf } from './dates';
import type { ForecastDevice } from './forecast';
import { DEFAULT_PROFILE, type ServiceProfile } from './profile';
import { usableInterval } from './rebuild';
import { roleValue } from './roles';

/**
 * Reading what the forecast needs from the service's lists, for any face, as of today (the day in
 * the face's time zone, client/dates.ts, todayOf): the customers' names and every device (customer, department,
 * next test date, test interval), each list read whole; a list that does not end normally throws
 * (no forecast from part of a list). A device record without a usable id is skipped and counted.
 */

/** A device record as the forecast reads it (the snapshot's reading plus its interval); undefined when it has no usable id. */
export function forecastDeviceOf(raw: unknown, customerNames: ReadonlyMap<number, string>, profile: ServiceProfile = DEFAULT_PROFILE): ForecastDevice | undefined {
	const device = snapshotDeviceOf(raw, customerNames, profile);
	return device && { ...device, testIntervalMonths: usableInterval(roleValue(raw, 'testInterval', profile)) };
}

export interface ForecastInput {
	/** Today: the day in the face's time zone (client/dates.ts, todayOf). */
	today: string;
	devices: ForecastDevice[];
	/** Device records that could not be read and were skipped. */
	skippedRecords: number;
}

export async function readForecastInput(client: ServiceClient, now: () => number = Date.now, timeZone = 'UTC'): Promise<ForecastInput> {
	const today = todayOf(now(), timeZone);
	const names = await readCustomerNames(client);
	const devices = new Map<number, ForecastDevice>();
	let skippedRecords = 0;
	for await (const raw of client.items('device.list', {}, wholeList(client))) {
		const device = forecastDeviceOf(raw, names, client.profile);
		if (device) devices.set(device.id, device);
		else skippedRecords++;
	}
	return { today, devices: [...devices.values()], skippedRecords };
}
