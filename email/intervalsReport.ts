import { failureRateWindow, type RateDevice, type RateTestResult } from '../client/failureRates';
import {
	intervalDeviceCounts,
	intervalRecommendations,
	longestInterval,
	previousTestsFrom,
	type IntervalGroupBy,
	type IntervalRecommendation,
	type IntervalRecommendations,
	type IntervalSettings,
	type IntervalSettingsInput,
	unmatchedDepartments,
	withIntervalDefaults,
} from '../client/intervals';
import { outlierDevices, type OutlierDevice } from '../client/measurementOutliers';
import { usableInterval } from '../client/rebuild';

/**
 * The monthly report's interval recommendations and devices out of line, pure, from the same test
 * records and devices as its failure rates (email/compliance.ts passes them routed to the
 * recipient). The period is the failure rates' 24-month window; results before it serve only as
 * the previous test of the window's first ones (client/intervals.ts), and only from
 * previousTestsFrom on (`previousFrom`): both faces hold every result from there (n8n reads from
 * there, the pollers keep their test records that long), so both count the same. The settings are
 * the e-mail settings' `intervals` (Lambdas, `npm start`) or the node's Interval Recommendations
 * options, each part not given the method's default (DEFAULT_INTERVAL_SETTINGS: 98 %, 0.5, workshop).
 */

export interface ReportIntervals {
	from: string;
	/** The first test date used as a previous test: earlier results are not used at all. */
	previousFrom: string;
	to: string;
	settings: IntervalSettings;
	/** The settings' department rows that match a department of this report's devices (the others set nothing here). */
	ownLimits: string[];
	/** Per device type, then per device type within department (each with its current interval). */
	groups: Record<IntervalGroupBy, IntervalRecommendation[]>;
	/** As the per-type recommendations count them (the same for both groupings). */
	totals: IntervalRecommendations['totals'];
}

/** A device whose failures stand out from the rest of its group (device type and current interval). */
export interface ReportOutlier extends Omit<OutlierDevice, 'group'> {
	designation: string | null;
	customerName: string | null;
	department: string | null;
	/** The group's interval; null for the devices of a type without a usable one (a group of their own). */
	testIntervalMonths: number | null;
}

export interface ReportOutliers {
	from: string;
	to: string;
	/** Dogs first, then gems; each by device id. */
	devices: ReportOutlier[];
}

/** `today`: the report's last day (the failure rates' too). */
export function reportIntervals(tests: readonly RateTestResult[], devices: readonly RateDevice[], today: string, intervals?: IntervalSettingsInput): ReportIntervals {
	const settings = withIntervalDefaults(intervals);
	const { from, to } = failureRateWindow(today, 24);
	const previousFrom = previousTestsFrom(from, longestInterval(devices));
	const read = tests.filter((t) => typeof t.testDate !== 'string' || t.testDate.slice(0, 10) >= previousFrom);
	// The devices' counts are the same in both groupings: made once.
	const counted = intervalDeviceCounts(read, devices, to, from);
	const per = (by: IntervalGroupBy) => intervalRecommendations(read, devices, to, from, by, settings, counted);
	const byType = per('designation');
	const unmatched = new Set(unmatchedDepartments(settings.departments, devices));
	const ownLimits = Object.keys(settings.departments).filter((name) => !unmatched.has(name));
	return { from, previousFrom, to, settings, ownLimits, groups: { designation: byType.groups, designationDepartment: per('designationDepartment').groups }, totals: byType.totals };
}

/**
 * Every result of the window counts as a test (as the failure rates count them; a result id read
 * twice once), compared with the rest of its device's group: the same device type and interval.
 */
export function reportOutliers(tests: readonly RateTestResult[], devices: readonly RateDevice[], today: string): ReportOutliers {
	const { from, to } = failureRateWindow(today, 24);
	const byId = new Map<number, RateDevice>();
	for (const d of devices) byId.set(d.id, d);
	// One key per device type and interval, shared by their devices (not one string per device).
	const keys = new Map<string | null, Map<number | null, string>>();
	const groupOf = new Map<number, string>();
	for (const [id, d] of byId) {
		const interval = usableInterval(d.testIntervalMonths);
		let byInterval = keys.get(d.designation);
		if (byInterval === undefined) keys.set(d.designation, (byInterval = new Map()));
		let key = byInterval.get(interval);
		if (key === undefined) byInterval.set(interval, (key = JSON.stringify([d.designation, interval])));
		groupOf.set(id, key);
	}
	// A result id read twice counts once; ids in ascending order cannot repeat (no set of 300,000 ids).
	let ascending = true;
	for (let i = 1; i < tests.length && ascending; i++) ascending = tests[i].id > tests[i - 1].id;
	const seen = ascending ? undefined : new Set<number>();
	const inWindow = tests.filter((t) => {
		if (seen?.has(t.id) || typeof t.testDate !== 'string') return false;
		seen?.add(t.id);
		const day = t.testDate.slice(0, 10);
		return day >= from && day <= to;
	});
	const { outliers } = outlierDevices(inWindow, groupOf);
	const rows = outliers.map((o): ReportOutlier => {
		const d = byId.get(o.deviceId)!;
		return {
			deviceId: o.deviceId,
			kind: o.kind,
			designation: d.designation,
			customerName: d.customerName,
			department: d.department,
			testIntervalMonths: usableInterval(d.testIntervalMonths),
			tests: o.tests,
			failedTests: o.failedTests,
			groupTests: o.groupTests,
			groupFailedTests: o.groupFailedTests,
			groupRateBound: o.groupRateBound,
			tailProbability: o.tailProbability,
		};
	});
	rows.sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'dog' ? -1 : 1) || a.deviceId - b.deviceId);
	return { from, to, devices: rows };
}
