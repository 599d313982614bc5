import { isTestEarlier, type MeasurementWarning } from './measurementWarnings';
import type { DriftWarning } from './measurementSeries';
import { limitShare } from './measuredValues';

/** The device of a warning or a failed test (email/devices.ts' FailedDevice), with what the e-mails route by. */
export interface WarningDevice {
	id: number;
	customerId: number | null;
	designation: string | null;
	idBarcode: string | null;
	customerName: string | null;
	department: string | null;
}

/**
 * A measured-value warning as the e-mails show it (the digest's section "Measured values near
 * their limit", the monthly report's section and its CSV): one row per result and measured step,
 * near its limit (at or above the threshold), or drifting toward it (the trend's prediction bound
 * reaches the limit before the next due date: test earlier), or both. Both faces make the rows
 * with `warningRows` from the client's warnings (measurementWarnings.ts, measurementSeries.ts):
 * the results poller records them (lambdas/pollers/measuredAlerts.ts), the node makes them from
 * what it reads, so the same warnings give the same rows. Pure.
 */
export interface MeasurementWarningItem {
	testResultId: number;
	/** YYYY-MM-DD */
	testDate: string;
	device: WarningDevice;
	step: string;
	measurement: string | null;
	value: number;
	unit: string | null;
	lowLimit: number | null;
	highLimit: number | null;
	/** Share of the binding limit used (value ÷ high, or low ÷ value). */
	limitUsed: number;
	/** At or above the near-limit threshold. */
	nearLimit: boolean;
	/** YYYY-MM-DD: the day the trend's prediction bound reaches the limit, where there is one. */
	predictedLimitDate: string | null;
	/** The next due date the predicted limit day is compared with (null without a predicted day). */
	nextTestDate: string | null;
	/** The predicted limit day comes before the next due date. */
	testEarlier: boolean;
}

/** The row's key within one account: the result and the step (and measurement name). */
export const warningKey = (w: Pick<MeasurementWarningItem, 'testResultId' | 'step' | 'measurement'>): string => `${w.testResultId}:${w.measurement === null ? w.step : `${w.step}:${w.measurement}`}`;

/** Oldest test first, then result, step and measurement: the order of every list and CSV. */
export function byWarning(a: MeasurementWarningItem, b: MeasurementWarningItem): number {
	return (
		(a.testDate < b.testDate ? -1 : a.testDate > b.testDate ? 1 : 0) ||
		a.testResultId - b.testResultId ||
		(a.step < b.step ? -1 : a.step > b.step ? 1 : 0) ||
		((a.measurement ?? '') < (b.measurement ?? '') ? -1 : (a.measurement ?? '') > (b.measurement ?? '') ? 1 : 0)
	);
}

/**
 * The rows of one result's warnings: each near-limit warning, and each drift warning, merged per
 * step (a step near its limit whose trend also says "test earlier" is one row). A drift row's value
 * is the trend's latest point (the result's own value).
 */
export function warningRows(device: WarningDevice, nearLimit: readonly MeasurementWarning[], drift: readonly DriftWarning[] = []): MeasurementWarningItem[] {
	const rows = new Map<string, MeasurementWarningItem>();
	for (const w of nearLimit) {
		const row: MeasurementWarningItem = {
			testResultId: w.testResultId,
			testDate: w.testDate,
			device,
			step: w.step,
			measurement: w.measurement,
			value: w.value,
			unit: w.unit,
			lowLimit: w.lowLimit,
			highLimit: w.highLimit,
			limitUsed: w.limitUsed,
			nearLimit: true,
			predictedLimitDate: w.predictedLimitDate,
			// Only where a limit day is compared with it: a face that had no reason to read it says the same.
			nextTestDate: w.predictedLimitDate === null ? null : w.nextTestDate,
			testEarlier: w.testEarlier,
		};
		rows.set(warningKey(row), row);
	}
	for (const d of drift) {
		const key = warningKey(d);
		const near = rows.get(key);
		if (near) {
			rows.set(key, { ...near, predictedLimitDate: d.predictedLimitDate, nextTestDate: d.nextTestDate, testEarlier: true });
			continue;
		}
		const last = d.trend.points[d.trend.points.length - 1];
		if (!last) continue;
		const share = limitShare(last.value, last.lowLimit, last.highLimit);
		if (typeof share === 'string') continue;
		rows.set(key, {
			testResultId: d.testResultId,
			testDate: d.testDate,
			device,
			step: d.step,
			measurement: d.measurement,
			value: last.value,
			unit: last.unit,
			lowLimit: last.lowLimit,
			highLimit: last.highLimit,
			limitUsed: share.limitUsed,
			nearLimit: false,
			predictedLimitDate: d.predictedLimitDate,
			nextTestDate: d.nextTestDate,
			testEarlier: isTestEarlier(d.predictedLimitDate, d.nextTestDate),
		});
	}
	return [...rows.values()].sort(byWarning);
}
