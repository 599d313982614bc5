import { z } from 'zod/v4';

/**
 * The event contract (public API: consumers write EventBridge rules against it). The code builds
 * events with these schemas and the JSON Schemas in lambdas/events/schemas/ are generated from
 * them (`npm run contract`), so the two cannot drift.
 */
export const EVENT_SOURCE = 'test-equipment-cloud';
export const EVENT_VERSION = '1';

export const DETAIL_TYPES = {
	deviceOverdue: 'Device Overdue',
	deviceOverdueResolved: 'Device Overdue Resolved',
	testResultRecorded: 'Test Result Recorded',
	overdueDevicesDigest: 'Overdue Devices Digest',
} as const;
export type DetailType = (typeof DETAIL_TYPES)[keyof typeof DETAIL_TYPES];


const Metadata = z.object({
	id: z.string().meta({ description: 'Unique per emission' }),
	version: z.literal(EVENT_VERSION),
	occurredAt: z.string().meta({ description: 'ISO 8601 time the poller observed the fact' }),
	dedupeKey: z.string().meta({ description: 'Stable for the same business fact: deduplicate on it (delivery is at-least-once)' }),
	environment: z.enum(['sandbox', 'production']),
});

export const OverdueDevice = z.object({
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
export type OverdueDevice = z.infer<typeof OverdueDevice>;

function detail<T extends z.ZodRawShape>(data: z.ZodObject<T>) {
	return z.object({ metadata: Metadata, data });
}

export const DeviceOverdueDetail = detail(
	z.object({
		device: OverdueDevice,
		episode: z.number().int().meta({ description: 'Counts the times this device entered the overdue list' }),
		reminder: z.number().int().meta({ description: '0 when the device entered the list, n for the n-th reminder' }),
	}),
);

export const DeviceOverdueResolvedDetail = detail(
	z.object({
		device: z.object({ id: z.number().int(), designation: z.string().nullable(), idBarcode: z.string().nullable() }),
		episode: z.number().int(),
		overdueSince: z.string().meta({ description: 'When the poller first saw the device overdue' }),
	}),
);

export const TestResultRecordedDetail = detail(
	z.object({
		testResult: z.object({
			id: z.number().int(),
			status: z.string().meta({ description: 'As the service reports it (passed, failed, or values added later)' }),
			passed: z.boolean().nullable().meta({ description: 'true for passed, false for failed, null for a status this version does not know' }),
			testDate: z.string(),
			syncedTime: z.string().nullable(),
			projectId: z.number().int().nullable(),
			testSequence: z.string().nullable(),
			tester: z.string().nullable(),
		}),
		device: z.object({ id: z.number().int(), customerId: z.number().int().nullable() }),
	}),
);

export const DigestGroup = z.object({
	customerName: z.string().nullable(),
	department: z.string().nullable(),
	count: z.number().int(),
	devices: z.array(OverdueDevice),
});

export const OverdueDevicesDigestDetail = detail(
	z.object({
		count: z.number().int().meta({ description: 'Newly overdue devices found by this run' }),
		listed: z.number().int().meta({ description: 'Devices listed in groups (the list is capped in size)' }),
		truncated: z.number().int().meta({ description: 'count − listed' }),
		groups: z.array(DigestGroup).meta({ description: 'By customer, then department' }),
	}),
);

const SCHEMAS: Record<DetailType, z.ZodType> = {
	'Device Overdue': DeviceOverdueDetail,
	'Device Overdue Resolved': DeviceOverdueResolvedDetail,
	'Test Result Recorded': TestResultRecordedDetail,
	'Overdue Devices Digest': OverdueDevicesDigestDetail,
};

export function detailSchema(type: DetailType): z.ZodType {
	return SCHEMAS[type];
}

/** JSON Schema (2020-12) of each detail type, as committed in lambdas/events/schemas/. */
export function detailJsonSchemas(): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const [type, schema] of Object.entries(SCHEMAS)) {
		const file = `${type.toLowerCase().replaceAll(' ', '-')}.v${EVENT_VERSION}.json`;
		out[file] = {
			...(z.toJSONSchema(schema, { target: 'draft-2020-12' }) as object),
			$id: `https://test-equipment-cloud.invalid/events/${file}`,
			title: `${EVENT_SOURCE} / ${type} (detail, version ${EVENT_VERSION})`,
		};
	}
	return out;
}

export type DeviceOverdueData = z.infer<typeof DeviceOverdueDetail>['data'];
export type DeviceOverdueResolvedData = z.infer<typeof DeviceOverdueResolvedDetail>['data'];
export type TestResultRecordedData = z.infer<typeof TestResultRecordedDetail>['data'];
export type OverdueDevicesDigestData = z.infer<typeof OverdueDevicesDigestDetail>['data'];
