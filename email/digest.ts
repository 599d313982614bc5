import { daysBetween } from '../client/dates';
import type { DueDevice, FailedDevice, FailedStep, OverdueDevice } from './devices';
import type { DigestContent, FailedTestItem } from './render';
import { route, type Recipients } from './routing';
import { byWarning, type MeasurementWarningItem } from '../client/measurementWarningRows';

/**
 * The daily digest's content for one recipient, composed alike by both faces: the Lambdas from
 * the facts the events filed and the pollers' view (lambdas/email/digest.ts), the node from the
 * service itself (`digestRows` below). Both hand their rows to `digestContent`, which keeps the
 * recipient's devices and orders every list the same way; `renderDigest` makes the e-mail.
 */

export interface DigestRows {
	newlyOverdue: OverdueDevice[];
	stillOverdue: OverdueDevice[];
	dueSoon: DueDevice[];
	failedTests: FailedTestItem[];
	/** New measured-value warnings (email/warnings.ts), routed by their device as failed tests are. */
	measurementWarnings?: MeasurementWarningItem[];
}

export interface DigestHead {
	day: string;
	recipient: string;
	environment: 'sandbox' | 'production';
	timeZone: string;
	escalationDays?: number;
}

/** Longest overdue first, then by id. */
export const byOverdue = (a: OverdueDevice, b: OverdueDevice) => (b.daysOverdue ?? 0) - (a.daysOverdue ?? 0) || a.id - b.id;

/** The digest of one recipient from rows already chosen for them: every list in its order; undefined when it would say nothing. */
export function digestContent(head: DigestHead, rows: DigestRows): DigestContent | undefined {
	const warnings = rows.measurementWarnings ?? [];
	if (rows.newlyOverdue.length + rows.stillOverdue.length + rows.dueSoon.length + rows.failedTests.length + warnings.length === 0) return undefined;
	return {
		...head,
		newlyOverdue: [...rows.newlyOverdue].sort(byOverdue),
		stillOverdue: [...rows.stillOverdue].sort(byOverdue),
		dueSoon: [...rows.dueSoon].sort((a, b) => a.daysLeft - b.daysLeft || a.id - b.id),
		failedTests: [...rows.failedTests].sort((a, b) => a.testDate.localeCompare(b.testDate) || a.testResultId - b.testResultId),
		// Absent when there are none, so a digest without warnings is the object it always was.
		...(warnings.length > 0 ? { measurementWarnings: [...warnings].sort(byWarning) } : {}),
	};
}

/** The rows a recipient's rules route to them (escalation counted by the days overdue). */
export function rowsFor(recipients: Recipients, recipient: string, rows: DigestRows): DigestRows {
	const mine = (d: Parameters<typeof route>[1]) => route(recipients, d).includes(recipient);
	return {
		newlyOverdue: rows.newlyOverdue.filter(mine),
		stillOverdue: rows.stillOverdue.filter(mine),
		dueSoon: rows.dueSoon.filter(mine),
		failedTests: rows.failedTests.filter((f) => mine(f.device)),
		...(rows.measurementWarnings ? { measurementWarnings: rows.measurementWarnings.filter((w) => mine(w.device)) } : {}),
	};
}

/** A device as the node reads it from the service's device list, its customer's name filled in. */
export interface ServiceDevice extends Omit<OverdueDevice, 'daysOverdue'> {
	nextTestDate: string | null;
}

/**
 * The digest's rows from the service's lists, without state (the node's face): what the Lambdas'
 * digest says of the time since the last digest is said here of the time since `sinceDay` (the
 * day of Failed Tests Since).
 * - overdue: the devices whose next test date is before the service's today; newly overdue when
 *   that date is on or after `sinceDay` (they became overdue since), still overdue otherwise;
 * - coming due: the devices not overdue that entered a lead stage (days before their due date,
 *   the pollers' `dueSoonStages`) since `sinceDay`, counted from the digest's day;
 * - days overdue and days left count from the digest's day, as on AWS.
 */
export function digestRows(o: { devices: readonly ServiceDevice[]; failedTests: readonly FailedTestItem[]; today: string; day: string; sinceDay: string; stages: readonly number[] }): DigestRows {
	const rows: DigestRows = { newlyOverdue: [], stillOverdue: [], dueSoon: [], failedTests: [...o.failedTests] };
	const stages = [...new Set(o.stages)].filter((s) => Number.isSafeInteger(s) && s > 0);
	const sinceLeft = (due: string) => daysBetween(o.sinceDay, due);
	for (const d of o.devices) {
		if (d.nextTestDate === null) continue;
		if (d.nextTestDate < o.today) {
			const device: OverdueDevice = { ...d, daysOverdue: daysBetween(d.nextTestDate, o.day) };
			(d.nextTestDate >= o.sinceDay ? rows.newlyOverdue : rows.stillOverdue).push(device);
			continue;
		}
		const daysLeft = daysBetween(o.day, d.nextTestDate);
		if (daysLeft < 0) continue;
		// Inside a stage now, and was not inside it on the day of `sinceDay`.
		if (stages.some((s) => daysLeft <= s && sinceLeft(d.nextTestDate!) > s)) rows.dueSoon.push({ ...d, nextTestDate: d.nextTestDate, daysLeft });
	}
	return rows;
}

/** A failed result as the e-mails show it (the same shape the Lambdas' Test Result Failed event gives). */
export function failedTestItem(o: { testResultId: number; testDate: string; tester: string | null; testSequence: string | null; device: FailedDevice; failedSteps: FailedStep[]; failedStepCount?: number }): FailedTestItem {
	const failedStepCount = o.failedStepCount ?? o.failedSteps.length;
	return { testResultId: o.testResultId, testDate: o.testDate, tester: o.tester, testSequence: o.testSequence, device: o.device, failedSteps: o.failedSteps, failedStepCount, truncatedSteps: failedStepCount - o.failedSteps.length };
}
