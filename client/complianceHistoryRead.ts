import type { ServiceClient } from './client';
import type { DueEntry } from './compliance';
import { historyReach, noHistorySkips, rebuildHistory, type HistoryResult, type HistorySkips } from './complianceHistory';
import { readCustomerNames, wholeList } from './complianceSnapshot';
import { epochDay } from './dates';
import { DEFAULT_PROFILE, type ServiceProfile } from './profile';
import type { ListQuery } from './query';
import { usableInterval, type RebuildDevice } from './rebuild';
import { roleValues } from './roles';

/**
 * Reading what the rebuilt due-date history needs, for any face: every device (customer,
 * department, test interval, creation day), the customers' names and the test results dated on or
 * after the reach. Each list is read whole at the largest page size; a list that does not end
 * normally throws (no history is rebuilt from part of a list).
 */

/** YYYY-MM-DD that `value` starts with when it is a day that exists, else null. */
function dayOf(value: unknown): string | null {
	return typeof value === 'string' && epochDay(value) !== undefined ? value.slice(0, 10) : null;
}

function positiveId(value: unknown): number | null {
	const n = Number(value);
	return value !== null && value !== '' && Number.isSafeInteger(n) && n > 0 ? n : null;
}

/** A device record as the rebuild reads it (properties found by the profile's roles); undefined without a usable id. */
export function historyDeviceOf(raw: unknown, customerNames: ReadonlyMap<number, string>, profile: ServiceProfile = DEFAULT_PROFILE, values = roleValues(raw, profile)): RebuildDevice | undefined {
	if (!raw || typeof raw !== 'object') return undefined;
	const r = raw as { id?: unknown; customer_id?: unknown; created_time?: unknown };
	const id = positiveId(r.id);
	if (id === null) return undefined;
	const dept = values.department;
	const customerId = positiveId(r.customer_id);
	return {
		id,
		customerId,
		customerName: customerId === null ? null : (customerNames.get(customerId) ?? null),
		department: typeof dept === 'string' && dept.trim() !== '' ? dept : null,
		testIntervalMonths: usableInterval(values.testInterval),
		createdOn: dayOf(r.created_time),
	};
}

/** A test result record as the rebuild reads it; undefined without a device id or a test date. */
export function historyResultOf(raw: unknown): HistoryResult | undefined {
	if (!raw || typeof raw !== 'object') return undefined;
	const r = raw as { device_id?: unknown; test_date?: unknown };
	const deviceId = positiveId(r.device_id);
	const testDate = dayOf(r.test_date);
	return deviceId === null || testDate === null ? undefined : { deviceId, testDate };
}

export interface ComplianceHistory {
	/** The first test date read. */
	since: string;
	resultsRead: number;
	entries: DueEntry[];
	skips: HistorySkips;
}

/** The due-date history rebuilt as of `today` (the service's), knowing every due date from `firstMonth` on. */
export async function readComplianceHistory(client: ServiceClient, firstMonth: string, today: string): Promise<ComplianceHistory> {
	const names = await readCustomerNames(client);
	const devices = new Map<number, RebuildDevice>();
	for await (const raw of client.items('device.list', {}, wholeList(client))) {
		const device = historyDeviceOf(raw, names, client.profile);
		if (device) devices.set(device.id, device);
	}
	const since = historyReach(firstMonth, devices.values());
	// ASSUMED (as the history poller's rebuild): results ordered by `id` ascending, a stable order for overlapping pages.
	const query: ListQuery = { filters: [{ key: 'test_date', conditions: [{ keyword: 'newerOrSame', value: since }] }], ordering: { key: 'id', direction: 'asc' } };
	const skips = noHistorySkips();
	const results: HistoryResult[] = [];
	let resultsRead = 0;
	for await (const raw of client.items('testResult.list', query, wholeList(client))) {
		resultsRead++;
		const result = historyResultOf(raw);
		if (result) results.push(result);
		else skips.unreadableResults++;
	}
	const { entries } = rebuildHistory([...devices.values()], results, today, skips);
	return { since, resultsRead, entries, skips };
}
