import * as z from 'zod/v4';

/**
 * The event contract (public API: consumers write EventBridge rules against it). The code builds
 * events with these schemas and the JSON Schemas in lambdas/events/schemas/ are generated from
 * them (`npm run contract`), so the two cannot drift.
 */
import { once } from '../once';
import { DETAIL_TYPES, EVENT_SOURCE, EVENT_VERSION, type DetailType } from './names';

export { DETAIL_TYPES, EVENT_SOURCE, EVENT_VERSION, type DetailType };


/**
 * The schemas, built by the first call (an event built or read), not while a function loads: they
 * are most of a cold start's module evaluation (bench/bundles.ts).
 */
export const eventSchemas = once(() => {
	const Metadata = z.object({
		id: z.string().meta({ description: 'Unique per emission' }),
		version: z.literal(EVENT_VERSION),
		occurredAt: z.string().meta({ description: 'ISO 8601 time the poller observed the fact' }),
		dedupeKey: z.string().meta({ description: 'Stable for the same business fact: deduplicate on it (delivery is at-least-once)' }),
		environment: z.enum(['sandbox', 'production']),
		account: z
			.string()
			.regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,30}[A-Za-z0-9])?$/)
			.optional()
			.meta({ description: 'The Test Equipment Cloud account (its id in the accounts list) when the deployment watches several; absent in a single-account deployment. Every dedupeKey of such an account carries it too.' }),
	});

	const OverdueDevice = z.object({
		id: z.number().int(),
		designation: z.string().nullable(),
		idBarcode: z.string().nullable(),
		department: z.string().nullable(),
		customerId: z.number().int().nullable(),
		customerName: z.string().nullable(),
		lastTestedDate: z.string().nullable().meta({ description: 'YYYY-MM-DD' }),
		nextTestDate: z.string().nullable().meta({ description: 'YYYY-MM-DD: the date the device was due' }),
		daysOverdue: z.number().int().nullable(),
	});

	function detail<T extends z.ZodRawShape>(data: z.ZodObject<T>) {
		return z.object({ metadata: Metadata, data });
	}

	const DeviceOverdueDetail = detail(
		z.object({
			device: OverdueDevice,
			episode: z.number().int().meta({ description: 'Counts the times this device entered the overdue list' }),
			reminder: z.number().int().meta({ description: '0 when the device entered the list, n for the n-th reminder' }),
		}),
	);

	const DeviceOverdueResolvedDetail = detail(
		z.object({
			device: z.object({ id: z.number().int(), designation: z.string().nullable(), idBarcode: z.string().nullable() }),
			episode: z.number().int(),
			overdueSince: z.string().meta({ description: 'When the poller first saw the device overdue' }),
		}),
	);

	const DueDevice = OverdueDevice.omit({ daysOverdue: true }).extend({
		nextTestDate: z.string().meta({ description: 'YYYY-MM-DD: the date the device is due' }),
		daysLeft: z.number().int().meta({ description: 'Calendar days from today to nextTestDate (0 = due today)' }),
	});

	const DeviceDueSoonDetail = detail(
		z.object({
			device: DueDevice,
			stage: z.number().int().positive().meta({
				description: 'The lead stage this event announces, in days before the due date (for example 30, then 7); once per device, due date and stage',
			}),
		}),
	);

	/** A test result as events carry it. A failed result gives two events: `Test Result Recorded` (the
	 * record, as for every result) and `Test Result Failed` (the alert, with its evidence). */
	const TestResultFields = z.object({
		id: z.number().int(),
		status: z.string().meta({ description: 'As the service reports it (passed, failed, or values added later)' }),
		passed: z.boolean().nullable().meta({ description: 'true for passed, false for failed, null for a status this version does not know' }),
		testDate: z.string(),
		syncedTime: z.string().nullable(),
		projectId: z.number().int().nullable(),
		testSequence: z.string().nullable(),
		tester: z.string().nullable(),
		});

	const TestResultRecordedDetail = detail(
		z.object({
			testResult: TestResultFields,
			device: z.object({ id: z.number().int(), customerId: z.number().int().nullable() }),
		}),
	);

	const FailedMeasurement = z.object({
		name: z.string().nullable(),
		value: z.number().nullable(),
		unit: z.string().nullable(),
		lowLimit: z.number().nullable(),
		highLimit: z.number().nullable(),
		passed: z.boolean().nullable(),
	});

	const FailedStep = z.object({
		step: z.number().int().nullable(),
		name: z.string().nullable(),
		status: z.string().nullable(),
		measurements: z.array(FailedMeasurement).meta({ description: 'The measurements of the step, the failed ones first' }),
		truncatedMeasurements: z.number().int().meta({ description: 'Measurements of this step left out to keep the event small' }),
	});

	const TestResultFailedDetail = detail(
		z.object({
			testResult: TestResultFields,
			device: z.object({
				id: z.number().int(),
				customerId: z.number().int().nullable(),
				designation: z.string().nullable(),
				idBarcode: z.string().nullable(),
				customerName: z.string().nullable().meta({ description: "The device's customer when the failed result was read (what alerts route by); null when it has none or no longer exists" }),
				department: z.string().nullable().meta({ description: "The device's department when the failed result was read (what alerts route by)" }),
			}),
			failedSteps: z.array(FailedStep).meta({ description: 'The steps whose status is failed, with their measured values and limits' }),
			failedStepCount: z.number().int().meta({ description: 'Failed steps in the result (failedSteps may list fewer)' }),
			truncatedSteps: z.number().int().meta({ description: 'failedStepCount − failedSteps.length: left out to stay under the 256 KB event limit' }),
		}),
	);

	const DigestGroup = z.object({
		customerName: z.string().nullable(),
		department: z.string().nullable(),
		count: z.number().int(),
		devices: z.array(OverdueDevice),
	});

	const OverdueDevicesDigestDetail = detail(
		z.object({
			count: z.number().int().meta({ description: 'Newly overdue devices found by this run' }),
			listed: z.number().int().meta({ description: 'Devices listed in groups (the list is capped in size)' }),
			truncated: z.number().int().meta({ description: 'count − listed' }),
			groups: z.array(DigestGroup).meta({ description: 'By customer, then department' }),
		}),
	);

	/** The schema of each detail type (`npm run contract` writes their JSON Schemas). */
	const DETAIL_SCHEMAS: Record<DetailType, z.ZodType> = {
		[DETAIL_TYPES.deviceOverdue]: DeviceOverdueDetail,
		[DETAIL_TYPES.deviceOverdueResolved]: DeviceOverdueResolvedDetail,
		[DETAIL_TYPES.deviceDueSoon]: DeviceDueSoonDetail,
		[DETAIL_TYPES.testResultRecorded]: TestResultRecordedDetail,
		[DETAIL_TYPES.testResultFailed]: TestResultFailedDetail,
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
		OverdueDevicesDigestDetail,
		DETAIL_SCHEMAS,
	};
});
type EventSchemas = ReturnType<typeof eventSchemas>;

export function detailSchema(type: DetailType): z.ZodType {
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
export type OverdueDevicesDigestData = z.infer<EventSchemas['OverdueDevicesDigestDetail']>['data'];
