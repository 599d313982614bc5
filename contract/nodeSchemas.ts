import { z } from 'zod/v4';
import { Customer, DeleteResult, Device, OverdueDevice, Project, RecycleBinEntry, RestoreResult, SubUser, TestResult, TestResultDetail } from './resources';

/**
 * The output of each resource/operation of the action node (one item's `json`, as the node returns
 * it without Simplify), from the same zod shapes as the service contract. `npm run contract` writes
 * them where n8n looks for schema previews: `<node folder>/__schema__/v<node version>/<resource>/<operation>.json`.
 */
export const NODE_SCHEMA_DIR = 'nodes/TestEquipmentCloud/__schema__';
/** The action node's version, as n8n pads it (1 → v1.0.0). */
export const NODE_SCHEMA_VERSION = 'v1.0.0';

/** What File → Download puts in `json` (the file itself is the item's binary data). */
const DownloadedFile = z.object({
	fileId: z.number().int(),
	fileName: z.string(),
	mimeType: z.string(),
	fileSize: z.number().int().meta({ description: 'Bytes' }),
});

const count = z.number().int();

/** What Compliance → Get Summary puts in each item for a month (Period Month or Last 12 Months; client/complianceHistory.ts). */
const ComplianceMonthSummary = z.object({
	group: z.enum(['all', 'customer', 'department']),
	id: z.union([z.number().int(), z.string(), z.null()]).meta({ description: 'The customer ID or the department name; null for all devices, or for devices without one' }),
	name: z.string().nullable().meta({ description: 'The customer or department name' }),
	month: z.string().meta({ description: 'YYYY-MM' }),
	due: count.meta({ description: 'Due dates in the month known on asOf' }),
	testedOnTime: count,
	testedLate: count,
	medianDaysLate: z.number().nullable().meta({ description: 'Of the late tests; null when none was late' }),
	maxDaysLate: count.nullable().meta({ description: 'Of the late tests; null when none was late' }),
	stillOverdue: count.meta({ description: 'Due in the month, not tested by asOf, past due' }),
	closedWithoutTest: count.meta({ description: 'Ended without a test (never, for a rebuilt history)' }),
	notYetDue: count.meta({ description: 'Due later in the month than asOf' }),
	firstSeenOverdue: count.meta({ description: 'Due dates first seen already overdue (never, for a rebuilt history)' }),
	onTimeRate: z.number().min(0).max(1).nullable().meta({ description: 'testedOnTime / (testedOnTime + testedLate + stillOverdue); null when nothing counts' }),
	asOf: z.string().meta({ description: 'The day the figures are for: the first of the next month, or today for the current month' }),
	today: z.string().meta({ description: "Today in the workflow's time zone (YYYY-MM-DD)" }),
	history: z.literal('rebuilt').meta({ description: 'The figures rest on the due-date history rebuilt from the test results' }),
	historySince: z.string().meta({ description: 'The first test date read' }),
	resultsRead: count,
	skipped: z
		.object({
			devicesWithoutInterval: count,
			futureTests: count,
			testsBeforeCreated: count,
			sameDayTests: count,
			resultsOfUnknownDevices: count,
			unreadableResults: count,
		})
		.meta({ description: 'Results and devices the rebuild did not use, by rule' }),
	note: z.string().meta({ description: 'The rebuild rules, in words' }),
});

/** What Compliance → Get Summary puts in each item for Period Now (client/compliance.ts computes it). */
const ComplianceNowSummary = z.object({
	group: z.enum(['all', 'customer', 'department']),
	id: z.union([z.number().int(), z.string(), z.null()]).meta({ description: 'The customer ID or the department name; null for all devices, or for devices without one' }),
	name: z.string().nullable().meta({ description: 'The customer or department name' }),
	devices: z.number().int().meta({ description: 'Devices in the group, with or without a next test date' }),
	overdue: z.number().int().meta({ description: 'Devices whose next test date has passed' }),
	dueWithin30Days: z.number().int().meta({ description: 'Devices due from today to 30 days from today' }),
	withoutDueDate: z.number().int().meta({ description: 'Devices without a next test date (not counted in compliance)' }),
	compliance: z.number().min(0).max(1).nullable().meta({ description: 'Share of the devices with a next test date that are not overdue; null when none has one' }),
	today: z.string().meta({ description: "The day the figures are for: today in the workflow's time zone (YYYY-MM-DD)" }),
});
const ComplianceSummary = z.union([ComplianceNowSummary, ComplianceMonthSummary]).meta({ type: 'object' });

/** What Compliance → Get Failure Rates puts in each item (client/failureRates.ts computes it). */
const FailureRateGroup = z.object({
	group: z.enum(['designation', 'department', 'customer']),
	id: z.union([z.number().int(), z.string(), z.null()]).meta({ description: 'The designation, the department name or the customer ID; null for devices without one' }),
	name: z.string().nullable().meta({ description: 'The designation, department or customer name' }),
	devices: z.number().int().meta({ description: 'Devices in the group, tested in the period or not' }),
	devicesTested: z.number().int().meta({ description: 'Devices with at least one test of a known status in the period' }),
	tests: z.number().int().meta({ description: 'Tests of a known status in the period (a failed test and its re-test count as two)' }),
	failedTests: z.number().int(),
	unknownStatus: z.number().int().meta({ description: 'Results in the period whose status this version does not know (not in tests)' }),
	scrappedDevices: z.number().int().meta({ description: 'Devices moved to the recycle bin in the period (scrapped, DGUV Information 203-071), each counted as a failed test unless its failed result already is' }),
	failureRate: z.number().min(0).max(1).nullable().meta({ description: 'failedTests / tests; null without a test' }),
	lowerBound95: z.number().min(0).max(1).meta({ description: 'One-sided 95 % lower bound of the rate (Clopper–Pearson, Beta⁻¹(0.05; x, n−x+1)); 0 without a failure' }),
	upperBound95: z.number().min(0).max(1).meta({ description: 'One-sided 95 % upper bound of the rate (Clopper–Pearson, Beta⁻¹(0.95; x+1, n−x)); 1 without a test or when every test failed' }),
	verdict: z.enum(['below', 'above', 'undecided']).meta({ description: 'below: upperBound95 under 2 % (evidence for a longer interval); above: lowerBound95 over 2 % (evidence for a shorter one); undecided otherwise' }),
	testsNeeded: z.number().int().min(0).meta({ description: 'More tests without a failure that would bring upperBound95 under 2 %; 0 for below' }),
	testIntervalsMonths: z.array(z.number().int()).meta({ description: "The devices' current test intervals in months, distinct, ascending" }),
	devicesWithoutInterval: z.number().int(),
	months: z.union([z.literal(12), z.literal(24)]),
	from: z.string().meta({ description: 'The first day of the period (YYYY-MM-DD)' }),
	to: z.string().meta({ description: "The last day of the period: today in the workflow's time zone" }),
	today: z.string().meta({ description: "The day the figures are for: today in the workflow's time zone (YYYY-MM-DD)" }),
	limit: z.literal(0.02).meta({ description: 'The rate the verdicts compare with: 2 % (DGUV V3 Table 1B)' }),
	confidence: z.literal(0.95).meta({ description: 'The one-sided confidence of the bounds' }),
	unknownDevices: z.number().int().meta({ description: 'Results in the period of devices not in the device list (in no group)' }),
	scrappedNotGrouped: z.number().int().meta({ description: 'Devices scrapped in the period that no group holds: the recycle bin names a device type only, so per department or customer they are counted here' }),
	scrappedCounted: z.boolean().meta({ description: 'false when the token may not read the recycle bin: scrapped devices are then not counted' }),
	invalidTestDate: z.number().int().meta({ description: 'Results whose test date is not a day' }),
	skippedRecords: z.number().int().meta({ description: 'Device and result records that could not be read' }),
	note: z.string().meta({ description: "Setting a test interval is the employer's decision; these figures are its evidence" }),
});

const share = z.number().min(0).max(1);
const months = z.number().int().min(1).max(120);

/** What Compliance → Get Interval Recommendations puts in each item (client/intervals.ts computes it). */
const IntervalRecommendation = z.object({
	group: z.enum(['designation', 'designationDepartment']),
	designation: z.string().nullable().meta({ description: 'The device type; null for devices without one' }),
	department: z.string().nullable().meta({ description: 'The department (Device Type Within Department); null when grouped by device type alone, or for devices without one' }),
	currentIntervalMonths: months.meta({ description: "The group's devices' current interval: each current interval is a group of its own" }),
	recommendedIntervalMonths: months,
	change: z.enum(['lengthen', 'shorten', 'keep']),
	intervalTest: z.enum(['consistent', 'tooLong', 'tooShort']).meta({ description: 'tooShort: the target lies below the limits (the interval can be longer); tooLong: above them; consistent: within' }),
	limitedBy: z.enum(['none', 'model', 'doubling', 'halving', 'minimum', 'maximum']).meta({ description: 'What set the recommended interval' }),
	modelIntervalMonths: z.number().min(0).nullable().meta({ description: "current · NCSLI RP-1 A3's factor (10^((R0 − R*)·Q) to shorten, 10^((R0 − R*)/(1 − Q)) to lengthen) before rounding and bounds; null when the test keeps the interval, or when Q = 1 leaves it unbounded (limitedBy doubling)" }),
	devices: count,
	resultsUsed: count.meta({ description: 'Tests 0.75 to 1.25 intervals after the previous test of the device (several on one day: one test)' }),
	failedUsed: count,
	resultsExcluded: count,
	excluded: z.object({ noPreviousTest: count, outsideWindow: count, unknownStatus: count, sameDay: count }),
	observedReliability: share.nullable().meta({ description: '(resultsUsed − failedUsed) / resultsUsed; null without a result used' }),
	reliabilityLowerLimit: share.meta({ description: 'Two-sided limit at confidence (Clopper–Pearson, one-sided at (1 + confidence) / 2)' }),
	reliabilityUpperLimit: share,
	reliabilityLowerBound95: share.meta({ description: 'One-sided 95 % lower bound of the reliability (Clopper–Pearson)' }),
	reliabilityUpperBound95: share,
	reliabilityTarget: z.number().meta({ description: 'Default 0.98 (DGUV V3: 2 % failures)' }),
	confidence: z.number().meta({ description: 'The change confidence: two-sided confidence of the limits (default 0.5)' }),
	rejectionConfidence: share.meta({ description: "NCSLI RP-1's rejection confidence Q of the current interval: 1 − 2·P(X ≤ x) below the target, 1 − 2·P(X ≥ x) above it (X binomial with the results used and the target, x passed), at least 0; the interval changes when Q is above confidence" }),
	minMonths: months,
	maxMonths: months.meta({ description: "DGUV V3 Table 1B's maximum for the environment (office 24, workshop and construction site 12 months) unless set per department; several departments: the shortest" }),
	environments: z.array(z.enum(['office', 'workshop', 'constructionSite'])),
	reason: z.string().meta({ description: "The recommendation in words, for a risk assessment to quote; says that it is not applied and the employer decides" }),
	months: z.union([z.literal(24), z.literal(36), z.literal(48), z.literal(60)]),
	from: z.string().meta({ description: 'The period’s first day (YYYY-MM-DD); results from ⌈1.25 × the longest interval⌉ + 1 months before it are read only as the previous tests of its first ones' }),
	to: z.string(),
	today: z.string().meta({ description: "The day the figures are for: today in the workflow's time zone (YYYY-MM-DD)" }),
	window: z.object({ from: z.literal(0.75), to: z.literal(1.25) }).meta({ description: 'Tests counted: this many intervals after the previous test' }),
	devicesWithoutInterval: count,
	resultsOfDevicesWithoutInterval: count,
	unknownDevices: count,
	futureTests: count,
	invalidTestDate: count,
	skippedRecords: count.meta({ description: 'Device and result records that could not be read' }),
});

/** What Compliance → Get Forecast puts in each item: one group's one month (client/forecast.ts computes it). */
const ForecastMonth = z.object({
	group: z.enum(['all', 'customer', 'department']),
	id: z.union([z.number().int(), z.string(), z.null()]).meta({ description: 'The customer ID or the department name; null for all devices, or for devices without one' }),
	name: z.string().nullable().meta({ description: 'The customer or department name' }),
	month: z.string().meta({ description: 'YYYY-MM, one of the 12 months from the current one' }),
	due: count.meta({ description: "Due dates in the month (the current month from today on), each device assumed tested on its due date and due again one interval later" }),
	overdueNow: count.meta({ description: "The group's devices whose next test date has passed (the same in each of the group's months)" }),
	devices: count.meta({ description: 'Devices in the group, with or without a next test date' }),
	withoutDueDate: count.meta({ description: 'Devices without a next test date: in no month' }),
	withoutInterval: count.meta({ description: 'Devices with a next test date but no usable interval: due once at most' }),
	dueInHorizon: count.meta({ description: "The group's due dates in all 12 months" }),
	today: z.string().meta({ description: "The day the figures are for: today in the workflow's time zone (YYYY-MM-DD)" }),
	from: z.string().meta({ description: 'The first day counted: today' }),
	to: z.string().meta({ description: 'The last day counted: the last of the 12th month' }),
	skippedRecords: count.meta({ description: 'Device records that could not be read' }),
	note: z.string().meta({ description: 'The rule of the figures, in words' }),
});

/** What each E-mail operation puts in an item's `json` (nodes/.../actions/email/common.ts, emailItem); attachments are binary fields. */
const emailItem = (kind: string, content: string) =>
	z.object({
		to: z.string().meta({ description: 'The recipient' }),
		replyTo: z.string().optional().meta({ description: 'Where replies go, where there is one' }),
		subject: z.string(),
		html: z.string().meta({ description: 'The HTML body (under 100 KB)' }),
		text: z.string().meta({ description: 'The plain-text body' }),
		language: z.enum(['en', 'de']),
		kind: z.literal(kind),
		dedupeKey: z.string().meta({ description: 'The same e-mail gets the same key on every run (for Remove Duplicates)' }),
		attachmentFields: z.string().meta({ description: 'The binary fields to attach, comma-separated (attachment_0, attachment_1, …); empty when none' }),
		content: z.record(z.string(), z.unknown()).meta({ description: content }),
	});

const day = z.string().meta({ description: 'YYYY-MM-DD' });
const limitValue = z.number().nullable();
const skippedMeasurements = z
	.object({ noValue: count, nonNumericValue: count, noLimit: count, invalidLimit: count, nonPositiveValue: count, repeated: count, noName: count })
	.meta({ description: 'Measurements skipped by reason (docs/compliance.md, Warnings from measured values)' });

/** What Compliance → Get Measurement Warnings puts in each item: one result's one measured step at or above the threshold (client/measurementWarnings.ts). */
const MeasurementWarning = z.object({
	testResultId: z.number().int(),
	deviceId: z.number().int(),
	step: z.string().meta({ description: "The step's name" }),
	measurement: z.string().nullable().meta({ description: "The measurement's own name, when it differs from the step's" }),
	value: z.number(),
	unit: z.string().nullable(),
	lowLimit: limitValue.meta({ description: 'The lower limit stored with the result' }),
	highLimit: limitValue.meta({ description: 'The upper limit stored with the result' }),
	limitUsed: z.number().min(0).meta({ description: 'value ÷ highLimit, or lowLimit ÷ value (the larger with both)' }),
	limitSide: z.enum(['high', 'low']),
	testDate: day,
	predictedLimitDate: day.nullable().meta({ description: "The first day the device's trend's one-sided 95 % prediction bound reaches the limit; null without a trend or drift toward it" }),
	nextTestDate: day.nullable().meta({ description: "The device's next due date" }),
	testEarlier: z.boolean().meta({ description: 'predictedLimitDate comes before nextTestDate' }),
	run: z.object({
		from: day,
		today: day,
		threshold: z.number(),
		resultsRead: count,
		detailsRead: count,
		unreadableRecords: count,
		unknownDevices: count.meta({ description: 'Results of devices not in the device list, skipped' }),
		goneDetails: count.meta({ description: 'Results whose detail answered 404, skipped' }),
		skippedMeasurements,
	}),
});

/** What Device → Get Measurement Trend puts in each item: one measured step of the device (client/measurementTrend.ts). */
const MeasurementTrendStep = z.object({
	deviceId: z.number().int(),
	designation: z.string().nullable(),
	step: z.string(),
	measurement: z.string().nullable(),
	unit: z.string().nullable().meta({ description: "The latest result's unit (each point has its own)" }),
	lowLimit: limitValue.meta({ description: "The latest result's lower limit" }),
	highLimit: limitValue.meta({ description: "The latest result's upper limit" }),
	points: z
		.array(z.object({ testResultId: z.number().int(), testDate: day, value: z.number(), unit: z.string().nullable().meta({ description: 'The unit of this value, as stored with its result' }), lowLimit: limitValue, highLimit: limitValue }))
		.meta({ description: 'One per test day, oldest first' }),
	sameDay: count.meta({ description: 'Results left out because a later one was on the same day' }),
	noTrend: z
		.enum(['tooFewResults', 'unitChanged', 'notComputable'])
		.nullable()
		.meta({ description: 'Why there is no trend: fewer than 3 test days (tooFewResults), a unit that changes (unitChanged), values so large that the fit or its bound is not a finite number (notComputable); null with a trend' }),
	fit: z
		.object({ points: count, slopePerDay: z.number(), fittedAtLast: z.number(), residualSd: z.number(), tQuantile: z.number(), confidence: z.number() })
		.nullable()
		.meta({ description: 'Ordinary least squares of the value over the test day; null without a trend' }),
	boundAtLast: z.number().nullable().meta({ description: "The one-sided prediction bound on the latest result's day" }),
	predictedLimitDate: day.nullable(),
	predictedLimitSide: z.enum(['high', 'low']).nullable(),
	nextTestDate: day.nullable(),
	testEarlier: z.boolean(),
	resultsUsed: count,
	skippedMeasurements,
});

export const NODE_OUTPUTS: Record<string, Record<string, z.ZodType>> = {
	compliance: { getSummary: ComplianceSummary, getFailureRates: FailureRateGroup, getForecast: ForecastMonth, getIntervalRecommendations: IntervalRecommendation, getMeasurementWarnings: MeasurementWarning },
	email: {
		digest: emailItem('digest', 'What the digest says: its rows per section'),
		failedTest: emailItem('failedTest', 'The failed result, its device and its failed steps with their limits'),
		complianceReport: emailItem('complianceReport', 'The report as the Lambdas’ .json (all, trend, late, failure rates, forecast, …)'),
		customerNotices: emailItem('customerNotice', 'The customer and every device listed'),
	},
	customer: { create: Customer, update: Customer, delete: DeleteResult, getAll: Customer },
	device: { create: Device, update: Device, updateMany: Device, get: Device, getAll: Device, delete: DeleteResult, getMeasurementTrend: MeasurementTrendStep },
	file: { download: DownloadedFile },
	overdueDevice: { getAll: OverdueDevice },
	project: { getAll: Project },
	recycleBin: { getAll: RecycleBinEntry, restore: RestoreResult },
	subUser: { getAll: SubUser },
	testResult: { get: TestResultDetail, getAll: TestResult },
};

/** Path (relative to the repository) → JSON Schema, for every resource/operation. */
export function nodeOutputSchemas(): Record<string, unknown> {
	const files: Record<string, unknown> = {};
	for (const [resource, operations] of Object.entries(NODE_OUTPUTS)) {
		for (const [operation, schema] of Object.entries(operations)) {
			files[`${NODE_SCHEMA_DIR}/${NODE_SCHEMA_VERSION}/${resource}/${operation}.json`] = z.toJSONSchema(schema, { target: 'draft-7', io: 'output', unrepresentable: 'any' });
		}
	}
	return files;
}
