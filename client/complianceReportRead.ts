import type { ServiceClient } from './client';
import type { DueEntry } from './compliance';
import { historyReach, noHistorySkips, rebuildHistory, type HistorySkips } from './complianceHistory';
import { historyDeviceOf } from './complianceHistoryRead';
import { readCustomerNames, wholeList } from './complianceSnapshot';
import { monthBefore } from './compliance';
import { rateTestResultOf, readScrappedDevices } from './failureRatesRead';
import type { RateScrappedDevice, RateTestResult } from './failureRates';
import { longestInterval, previousTestsFrom } from './intervals';
import type { ListQuery } from './query';
import type { RebuildDevice } from './rebuild';
import { roleValues } from './roles';

/**
 * Reading what a monthly compliance report needs without any stored history (the node's Build
 * Monthly Compliance Report): every device once (as the rebuild, the failure rates and the
 * forecast read it), the customers' names, and the test results from the earliest day any part
 * of the report reaches (the trend's rebuild, the 24 months of failure rates, the previous tests
 * of the interval recommendations: client/intervals.ts previousTestsFrom); the due-date
 * history is rebuilt from them (client/rebuild.ts), as Compliance › Get Summary rebuilds it; and
 * the recycle bin's device entries of the 24 months, the scrapped devices the failure rates count
 * as Compliance › Get Failure Rates does (client/failureRatesRead.ts, readScrappedDevices).
 */

export interface ReportInputDevice extends RebuildDevice {
	designation: string | null;
	/** The device's ID Barcode (the measured-value warnings name it, as the Lambdas' do). */
	idBarcode: string | null;
	nextTestDate: string | null;
}

export interface ComplianceReportInput {
	entries: DueEntry[];
	devices: ReportInputDevice[];
	tests: RateTestResult[];
	/** The first test date read. */
	since: string;
	skips: HistorySkips;
	/** The recycle bin's devices deleted since the failure rates' 24 months began; null when the token may not read the bin. */
	scrapped: RateScrappedDevice[] | null;
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : typeof v === 'number' ? String(v) : null);

/** `month`: the report's (YYYY-MM); `today`: the service's, the day the history is rebuilt to. */
export async function readComplianceReportInput(client: ServiceClient, month: string, today: string): Promise<ComplianceReportInput> {
	const names = await readCustomerNames(client);
	const devices = new Map<number, ReportInputDevice>();
	for await (const raw of client.items('device.list', {}, wholeList(client))) {
		const values = roleValues(raw, client.profile);
		const device = historyDeviceOf(raw, names, client.profile, values);
		if (!device) continue;
		const due = values.nextTestDate;
		// The rebuild's device (a new object) takes the report's two fields: one object per device, not a copy beside it.
		const reportDevice = device as ReportInputDevice;
		reportDevice.designation = text(values.designation);
		reportDevice.idBarcode = text(values.idBarcode);
		reportDevice.nextTestDate = typeof due === 'string' && /^\d{4}-\d{2}-\d{2}/.test(due) ? due.slice(0, 10) : null;
		devices.set(device.id, reportDevice);
	}
	// The trend's first month needs the rebuild's reach; the failure rates 24 months before the report's
	// day; the interval recommendations the previous tests of those 24 months' first ones (the rule the pollers keep their test records by).
	const reach = historyReach(monthBefore(month, 12), devices.values());
	const ratesFrom = `${monthBefore(month, 23)}-01`;
	const previousFrom = previousTestsFrom(ratesFrom, longestInterval(devices.values()));
	const since = [reach, ratesFrom, previousFrom].reduce((a, b) => (b < a ? b : a));
	const query: ListQuery = { filters: [{ key: 'test_date', conditions: [{ keyword: 'newerOrSame', value: since }] }], ordering: { key: 'id', direction: 'asc' } };
	const skips = noHistorySkips();
	const tests = new Map<number, RateTestResult>();
	const days = new Map<string, string>();
	for await (const raw of client.items('testResult.list', query, wholeList(client))) {
		const test = rateTestResultOf(raw);
		if (!test) {
			skips.unreadableResults++;
			continue;
		}
		// A few hundred distinct days among 300,000 results: each kept once, not once per result.
		const day = days.get(test.testDate);
		if (day === undefined) days.set(test.testDate, test.testDate);
		else test.testDate = day;
		tests.set(test.id, test);
	}
	// The rebuild reads the same records (each once, not again where pages overlap): no second list of 300,000 results beside them.
	const { entries } = rebuildHistory([...devices.values()], tests.values(), today, skips);
	const scrapped = await readScrappedDevices(client, ratesFrom);
	return { entries, devices: [...devices.values()], tests: [...tests.values()], since, skips, scrapped };
}
