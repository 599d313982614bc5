/**
 * The names of the event contract: what EventBridge rules match on. Dependency-free, so the CDK
 * app (infra/) and the Lambda code (lambdas/events/schemas.ts) import the same strings.
 */
export const EVENT_SOURCE = 'test-equipment-cloud';
export const EVENT_VERSION = '1';

export const DETAIL_TYPES = {
	deviceOverdue: 'Device Overdue',
	deviceOverdueResolved: 'Device Overdue Resolved',
	deviceDueSoon: 'Device Due Soon',
	testResultRecorded: 'Test Result Recorded',
	testResultFailed: 'Test Result Failed',
	testResultNearLimit: 'Test Result Near Limit',
	deviceMeasurementDrift: 'Device Measurement Drift',
	overdueDevicesDigest: 'Overdue Devices Digest',
} as const;
export type DetailType = (typeof DETAIL_TYPES)[keyof typeof DETAIL_TYPES];
