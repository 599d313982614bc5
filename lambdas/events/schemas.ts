import * as z from 'zod/v4-mini';

/**
 * The event contract (public API: consumers write EventBridge rules against it). The code builds
 * events with these schemas and the JSON Schemas in lambdas/events/schemas/ are generated from
 * them (`npm run contract`), so the two cannot drift.
 */
import { meta } from '../../client/node/zodMini';
import { once } from '../once';
import { DETAIL_TYPES, EVENT_SOURCE, EVENT_VERSION, type DetailType } from './names';

export { DETAIL_TYPES, EVENT_SOURCE, EVENT_VERSION, type DetailType };

/**
 * Written with zod's tree-shakable API (zod/v4-mini): a Lambda bundle then carries only the zod it
 * uses (bench/bundles.ts). `described` is classic zod's `.meta({ description })`: a described copy,
 * what the contract's JSON Schemas show.
 */
const described = <T extends z.ZodMiniType>(schema: T, description: string): T => meta(schema, { description });
const int = () => z.number().check(z.int());
const text = () => z.nullable(z.string());


/**
 * The schemas, built by the first call (an event built or read), not while a function loads: they
 * are most of a cold start's module evaluation (bench/bundles.ts).
 */
export const eventSchemas = once(() => {
	const Metadata = z.object({
		id: described(z.string(), 'Unique per emission'),
		version: z.literal(EVENT_VERSION),
		occurredAt: described(z.string(), 'ISO 8601 time the poller observed the fact'),
		dedupeKey: described(z.string(), 'Stable for the same business fact: deduplicate on it (delivery is at-least-once)'),
		environment: z.enum(['sandbox', 'production']),
		account: described(
			z.optional(z.string().check(z.regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,30}[A-Za-z0-9])?$/))),
			'The Test Equipment Cloud account (its id in the accounts list) when the deployment watches several; absent in a single-account deployment. Every dedupeKey of such an account carries it too.',
		),
	});

	const OverdueDevice = z.object({
		id: int(),
		designation: text(),
		idBarcode: text(),
		department: text(),
		customerId: z.nullable(int()),
		customerName: text(),
		lastTestedDate: described(text(), 'YYYY-MM-DD'),
		nextTestDate: described(text(), 'YYYY-MM-DD: the date the device was due'),
		daysOverdue: z.nullable(int()),
	});

	function detail<T extends z.core.$ZodShape>(data: z.ZodMiniObject<T>) {
		return z.object({ metadata: Metadata, data });
	}

	const DeviceOverdueDetail = detail(
		z.object({
			device: OverdueDevice,
			episode: described(int(), 'Counts the times this device entered the overdue list'),
			reminder: described(int(), '0 when the device entered the list, n for the n-th reminder'),
		}),
	);

	const DeviceOverdueResolvedDetail = detail(
		z.object({
			device: z.object({ id: int(), designation: text(), idBarcode: text() }),
			episode: int(),
			overdueSince: described(z.string(), 'When the poller first saw the device overdue'),
		}),
	);

	const DueDevice = z.extend(z.omit(OverdueDevice, { daysOverdue: true }), {
		nextTestDate: described(z.string(), 'YYYY-MM-DD: the date the device is due'),
		daysLeft: described(int(), 'Calendar days from today to nextTestDate (0 = due today)'),
	});

	const DeviceDueSoonDetail = detail(
		z.object({
			device: DueDevice,
			stage: described(
				int().check(z.positive()),
				'The lead stage this event announces, in days before the due date (for example 30, then 7); once per device, due date and stage',
			),
		}),
	);

	/** A test result as events carry it. A failed result gives two events: `Test Result Recorded` (the
	 * record, as for every result) and `Test Result Failed` (the alert, with its evidence). */
	const TestResultFields = z.object({
		id: int(),
		status: described(z.string(), 'As the service reports it (passed, failed, or values added later)'),
		passed: described(z.nullable(z.boolean()), 'true for passed, false for failed, null for a status this version does not know'),
		testDate: z.string(),
		syncedTime: text(),
		projectId: z.nullable(int()),
		testSequence: text(),
		tester: text(),
	});

	const TestResultRecordedDetail = detail(
		z.object({
			testResult: TestResultFields,
			device: z.object({ id: int(), customerId: z.nullable(int()) }),
		}),
	);

	const FailedMeasurement = z.object({
		name: text(),
		value: z.nullable(z.number()),
		unit: text(),
		lowLimit: z.nullable(z.number()),
		highLimit: z.nullable(z.number()),
		passed: z.nullable(z.boolean()),
	});

	const FailedStep = z.object({
		step: z.nullable(int()),
		name: text(),
		status: text(),
		measurements: described(z.array(FailedMeasurement), 'The measurements of the step, the failed ones first'),
		truncatedMeasurements: described(int(), 'Measurements of this step left out to keep the event small'),
	});

	const TestResultFailedDetail = detail(
		z.object({
			testResult: TestResultFields,
			device: z.object({
				id: int(),
				customerId: z.nullable(int()),
				designation: text(),
				idBarcode: text(),
				customerName: described(text(), "The device's customer when the failed result was read (what alerts route by); null when it has none or no longer exists"),
				department: described(text(), "The device's department when the failed result was read (what alerts route by)"),
			}),
			failedSteps: described(z.array(FailedStep), 'The steps whose status is failed, with their measured values and limits'),
			failedStepCount: described(int(), 'Failed steps in the result (failedSteps may list fewer)'),
			truncatedSteps: described(int(), 'failedStepCount − failedSteps.length: left out to stay under the 256 KB event limit'),
		}),
	);

	/** A measured step of a passed result and the share of its limit it uses (client/measuredValues.ts). */
	const MeasuredStep = z.object({
		step: described(z.string(), "The step's name (the measurement's when the step has none)"),
		measurement: described(text(), "The measurement's own name, when it differs from the step's"),
		value: z.number(),
		unit: text(),
		lowLimit: described(z.nullable(z.number()), 'The lower limit stored with the result (insulation resistance)'),
		highLimit: described(z.nullable(z.number()), 'The upper limit stored with the result'),
		limitUsed: described(z.number(), 'Share of the binding limit used: value ÷ highLimit, or lowLimit ÷ value'),
		limitSide: z.enum(['high', 'low']),
	});

	const MeasuredDevice = z.object({ id: int(), customerId: z.nullable(int()) });

	const TestResultNearLimitDetail = detail(
		z.object({
			testResult: TestResultFields,
			device: MeasuredDevice,
			measurement: MeasuredStep,
			threshold: described(z.number(), 'The share of the limit at or above which a passed result is near its limit (default 0.8)'),
			predictedLimitDate: described(text(), "YYYY-MM-DD: the day the device's trend of this step reaches its limit (95 % prediction bound), when its recent results give one"),
		}),
	);

	const TrendPoint = z.object({ testResultId: int(), testDate: described(z.string(), 'YYYY-MM-DD'), value: z.number() });

	const DeviceMeasurementDriftDetail = detail(
		z.object({
			testResult: described(TestResultFields, 'The result whose values made the trend reach the limit before the next due date'),
			device: z.extend(MeasuredDevice, { nextTestDate: described(z.string(), "YYYY-MM-DD: the device's next due date when the result was read") }),
			measurement: z.object({ step: z.string(), measurement: text(), unit: text(), lowLimit: z.nullable(z.number()), highLimit: z.nullable(z.number()) }),
			trend: z.object({
				points: described(z.array(TrendPoint), "The device's recent passed results of the step the trend is fitted to, oldest first (since its latest failed result)"),
				slopePerDay: described(z.number(), 'Least-squares change of the value per day'),
				boundAtLast: described(z.nullable(z.number()), "The one-sided 95 % prediction bound on the latest result's day"),
				predictedLimitDate: described(z.string(), 'YYYY-MM-DD: the first day the prediction bound reaches the limit, before nextTestDate: test earlier'),
				predictedLimitSide: z.enum(['high', 'low']),
			}),
		}),
	);

	const DigestGroup = z.object({
		customerName: text(),
		department: text(),
		count: int(),
		devices: z.array(OverdueDevice),
	});

	const OverdueDevicesDigestDetail = detail(
		z.object({
			count: described(int(), 'Newly overdue devices found by this run'),
			listed: described(int(), 'Devices listed in groups (the list is capped in size)'),
			truncated: described(int(), 'count − listed'),
			groups: described(z.array(DigestGroup), 'By customer, then department'),
		}),
	);

	/** The schema of each detail type (`npm run contract` writes their JSON Schemas). */
	const DETAIL_SCHEMAS: Record<DetailType, z.ZodMiniType> = {
		[DETAIL_TYPES.deviceOverdue]: DeviceOverdueDetail,
		[DETAIL_TYPES.deviceOverdueResolved]: DeviceOverdueResolvedDetail,
		[DETAIL_TYPES.deviceDueSoon]: DeviceDueSoonDetail,
		[DETAIL_TYPES.testResultRecorded]: TestResultRecordedDetail,
		[DETAIL_TYPES.testResultFailed]: TestResultFailedDetail,
		[DETAIL_TYPES.testResultNearLimit]: TestResultNearLimitDetail,
		[DETAIL_TYPES.deviceMeasurementDrift]: DeviceMeasurementDriftDetail,
		[DETAIL_TYPES.overdueDevicesDigest]: OverdueDevicesDigestDetail,
	};

	return {
		OverdueDevice,
		DueDevice,
		FailedMeasurement,
		FailedStep,
		DigestGroup,
		DeviceOverdueDetail,
		DeviceOverdueResolvedDetail,
		DeviceDueSoonDetail,
		TestResultRecordedDetail,
		TestResultFailedDetail,
		TestResultNearLimitDetail,
		DeviceMeasurementDriftDetail,
		OverdueDevicesDigestDetail,
		DETAIL_SCHEMAS,
	};
});
type EventSchemas = ReturnType<typeof eventSchemas>;

export function detailSchema(type: DetailType): z.ZodMiniType {
	return eventSchemas().DETAIL_SCHEMAS[type];
}

export type OverdueDevice = z.infer<EventSchemas['OverdueDevice']>;
export type DueDevice = z.infer<EventSchemas['DueDevice']>;
export type FailedStep = z.infer<EventSchemas['FailedStep']>;
export type DeviceOverdueData = z.infer<EventSchemas['DeviceOverdueDetail']>['data'];
export type DeviceOverdueResolvedData = z.infer<EventSchemas['DeviceOverdueResolvedDetail']>['data'];
export type DeviceDueSoonData = z.infer<EventSchemas['DeviceDueSoonDetail']>['data'];
export type TestResultFailedData = z.infer<EventSchemas['TestResultFailedDetail']>['data'];
export type TestResultRecordedData = z.infer<EventSchemas['TestResultRecordedDetail']>['data'];
export type TestResultNearLimitData = z.infer<EventSchemas['TestResultNearLimitDetail']>['data'];
export type DeviceMeasurementDriftData = z.infer<EventSchemas['DeviceMeasurementDriftDetail']>['data'];
export type OverdueDevicesDigestData = z.infer<EventSchemas['OverdueDevicesDigestDetail']>['data'];
