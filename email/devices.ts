/**
 * The devices and failed tests as the e-mails show them: the shapes of the event contract
 * (lambdas/events/schemas.ts, whose zod types must stay assignable to these: test/email/room.test.ts),
 * written out here so that the e-mails' room needs neither zod nor the Lambdas.
 */
import type { DigestDevice } from '../client/digestRead';
import type { WarningDevice } from '../client/measurementWarningRows';
import type { MeasuredValue } from '../client/testSteps';

/** A device as the service's lists give it (client/digestRead.ts), with the days it is overdue. */
export interface OverdueDevice extends DigestDevice {
	daysOverdue: number | null;
}

export interface DueDevice extends Omit<OverdueDevice, 'daysOverdue' | 'nextTestDate'> {
	/** YYYY-MM-DD: the date the device is due. */
	nextTestDate: string;
	/** Calendar days from today to nextTestDate (0 = due today). */
	daysLeft: number;
}

/** A measured value of a failed step: the client's reading of it (client/testSteps.ts). */
export type FailedMeasurement = MeasuredValue;

export interface FailedStep {
	step: number | null;
	name: string | null;
	status: string | null;
	/** The failed measurements first. */
	measurements: FailedMeasurement[];
	truncatedMeasurements: number;
}

/**
 * The device of a failed test, with the customer and department it had when the result was read:
 * the device of a measured-value warning (client/measurementWarningRows.ts), routed by one rule.
 */
export type FailedDevice = WarningDevice;
