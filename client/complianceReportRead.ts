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
import { enabledLists, type EnabledLists, type ListRoles } from './enabledLists';
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

/**
 * The roles the report reads, per list: the customers' names (readCustomerNames), and of each
 * device what historyDeviceOf (department, test interval) and the report's device (designation,
 * ID barcode, next test date) read; each list asks only for them (client/enabledLists.ts).
 */
export const REPORT_ROLES = {
	customer: ['customerName'],
	device: ['department', 'testInterval', 'designation', 'idBarcode', 'nextTestDate'],
} as const satisfies ListRoles;

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : typeof v === 'number' ? String(v) : null);

/**
 * `month`: the report's (YYYY-MM); `today`: the service's, the day the history is rebuilt to;
 * `keep`: the due entries the reader needs (email/compliance.ts, reportEntries), else all;
 * `enabled`: each list's properties asked for, else those of REPORT_ROLES (every property: `{}`).
 */
export async function readComplianceReportInput(client: ServiceClient, month: string, today: string, keep?: (entry: DueEntry) => boolean, enabled?: EnabledLists): Promise<ComplianceReportInput> {
	enabled ??= await enabledLists(client, REPORT_ROLES);
	const names = await readCustomerNames(client, enabled.customer);
	const devices = new Map<number, ReportInputDevice>();
	// 100,000 devices share a few hundred types, departments and days: each such text kept once.
	const kept = new Map<string, string>();
	const once = (s: string | null): string | null => {
		if (s === null) return null;
		const had = kept.get(s);
		if (had !== undefined) return had;
		kept.set(s, s);
		return s;
	};
	// Page by page (client/client.ts, pages): not one step of an async generator, a promise, per record.
	for await (const page of client.pages('device.list', { enabled: enabled.device }, wholeList(client))) {
		for (const raw of page) {
			const values = roleValues(raw, client.profile);
			const d = historyDeviceOf(raw, names, client.profile, values);
			if (!d) continue;
			const due = values.nextTestDate;
			// One object of one shape per device (every field written at once, none added later).
			devices.set(d.id, {
				id: d.id,
				customerId: d.customerId,
				customerName: d.customerName,
				department: once(d.department),
				testIntervalMonths: d.testIntervalMonths,
				createdOn: once(d.createdOn),
				designation: once(text(values.designation)),
				idBarcode: text(values.idBarcode),
				nextTestDate: once(typeof due === 'string' && /^\d{4}-\d{2}-\d{2}/.test(due) ? due.slice(0, 10) : null),
			});
		}
	}
	// The trend's first month needs the rebuild's reach; the failure rates 24 months before the report's
	// day; the interval recommendations the previous tests of those 24 months' first ones (the rule the pollers keep their test records by).
	const reach = historyReach(monthBefore(month, 12), devices.values());
	const ratesFrom = `${monthBefore(month, 23)}-01`;
	const previousFrom = previousTestsFrom(ratesFrom, longestInterval(devices.values()));
	const since = [reach, ratesFrom, previousFrom].reduce((a, b) => (b < a ? b : a));
	const query: ListQuery = { filters: [{ key: 'test_date', conditions: [{ keyword: 'newerOrSame', value: since }] }], ordering: { key: 'id', direction: 'asc' } };
	const skips = noHistorySkips();
	const tests = new TestsById();
	for await (const page of client.pages('testResult.list', query, wholeList(client))) {
		for (const raw of page) {
			const test = rateTestResultOf(raw);
			if (test) tests.set(test);
			else skips.unreadableResults++;
		}
	}
	const list = [...devices.values()];
	devices.clear();
	const results = tests.list();
	// The rebuild reads the same records (each once, not again where pages overlap): no second list of 300,000 results beside them.
	const { entries } = rebuildHistory(list, results, today, skips, keep);
	const scrapped = await readScrappedDevices(client, ratesFrom);
	return { entries, devices: list, tests: results, since, skips, scrapped };
}

/**
 * The results by id, as a Map of id to result would keep them (the first read's place, the last
 * read's record), held as columns (typed arrays, each day once) while the pages arrive: 300,000
 * results are four arrays, not 300,000 objects the collector walks on every major collection of
 * the read. The list is read in ascending ids, so a result read again (pages overlap) is found by
 * bisection. Should ids ever come out of order, a Map of the results takes over.
 */
class TestsById {
	private ids = new Float64Array(1024);
	private deviceIds = new Float64Array(1024);
	/** Index into `days`. */
	private dayOf = new Int32Array(1024);
	/** 1 failed, 0 passed, -1 neither (failed: null). */
	private failed = new Int8Array(1024);
	private length = 0;
	private readonly days: string[] = [];
	private readonly dayIndex = new Map<string, number>();
	private byId: Map<number, RateTestResult> | undefined;

	set(test: RateTestResult): void {
		if (this.byId) {
			this.byId.set(test.id, test);
			return;
		}
		const n = this.length;
		if (n === 0 || this.ids[n - 1] < test.id) {
			if (n === this.ids.length) this.grow();
			this.write(n, test);
			this.length = n + 1;
			return;
		}
		let lo = 0;
		let hi = n - 1;
		while (lo < hi) {
			const mid = (lo + hi) >>> 1;
			if (this.ids[mid] < test.id) lo = mid + 1;
			else hi = mid;
		}
		if (this.ids[lo] === test.id) this.write(lo, test);
		else {
			this.byId = new Map(this.list().map((t) => [t.id, t]));
			this.byId.set(test.id, test);
			this.length = 0;
		}
	}

	/** Each result as an object (RateTestResult), in the order read: for the report's figures, once the last page is in. */
	list(): RateTestResult[] {
		if (this.byId) return [...this.byId.values()];
		const out: RateTestResult[] = new Array(this.length);
		for (let i = 0; i < this.length; i++) {
			const f = this.failed[i];
			out[i] = { id: this.ids[i], deviceId: this.deviceIds[i], testDate: this.days[this.dayOf[i]], failed: f === -1 ? null : f === 1 };
		}
		return out;
	}

	private write(i: number, test: RateTestResult): void {
		this.ids[i] = test.id;
		this.deviceIds[i] = test.deviceId;
		let day = this.dayIndex.get(test.testDate);
		if (day === undefined) {
			day = this.days.length;
			this.days.push(test.testDate);
			this.dayIndex.set(test.testDate, day);
		}
		this.dayOf[i] = day;
		this.failed[i] = test.failed === null ? -1 : test.failed ? 1 : 0;
	}

	private grow(): void {
		const size = this.ids.length * 2;
		const more = <T extends Float64Array | Int32Array | Int8Array>(a: T, make: new (n: number) => T): T => {
			const b = new make(size);
			b.set(a);
			return b;
		};
		this.ids = more(this.ids, Float64Array);
		this.deviceIds = more(this.deviceIds, Float64Array);
		this.dayOf = more(this.dayOf, Int32Array);
		this.failed = more(this.failed, Int8Array);
	}
}
