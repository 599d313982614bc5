import { binomialCdf, lowerBound, upperBound } from './binomial';

/**
 * Devices whose failures stand out from their group's, pure: the "dogs" (failing more often
 * than the group's rate makes probable) and "gems" (consistently better), as calibration
 * management tools flag them. A device of n tests with x failures is compared with the rest of its
 * group (the group's other devices, so a dog does not raise its own yardstick):
 *
 * - dog: x ≥ 1 and P(X ≥ x | n, p⁺) < OUTLIER_TAIL, where p⁺ is the rest's one-sided 95 % upper
 *   Clopper–Pearson bound: its failures are improbable even at the highest rate the group's
 *   record supports, so a group with few tests flags nobody;
 * - gem: n · p⁻ ≥ 1 and P(X ≤ x | n, p⁻) < OUTLIER_TAIL, where p⁻ is the rest's one-sided 95 %
 *   lower bound: at least one failure was expected even at the lowest rate the record supports,
 *   and so few came that it is improbable;
 * - a result of a status the rates do not know (`failed: null`) is not a test; a result of a
 *   device not in the list is skipped and counted (`unknownDevices`); a group needs tests of
 *   other devices, else nobody in it is judged.
 */

export const OUTLIER_TAIL = 0.05;

export interface OutlierResult {
	deviceId: number;
	failed: boolean | null;
}

export interface OutlierDevice {
	deviceId: number;
	group: string | null;
	kind: 'dog' | 'gem';
	tests: number;
	failedTests: number;
	/** Tests and failures of the rest of the group. */
	groupTests: number;
	groupFailedTests: number;
	/** The rest's bound the device was compared with (upper for a dog, lower for a gem). */
	groupRateBound: number;
	/** P(X ≥ x) for a dog, P(X ≤ x) for a gem. */
	tailProbability: number;
}

export function outlierDevices(
	results: readonly OutlierResult[],
	groupOf: ReadonlyMap<number, string | null>,
): { outliers: OutlierDevice[]; unknownDevices: number } {
	type Count = { tests: number; failed: number };
	// Each device's count holds its group's: one lookup per result, not two (and no key asked twice).
	const perDevice = new Map<number, Count & { group: Count }>();
	const perGroup = new Map<string | null, Count>();
	let unknownDevices = 0;
	for (const r of results) {
		if (r.failed === null) {
			if (!groupOf.has(r.deviceId)) unknownDevices++;
			continue;
		}
		let d = perDevice.get(r.deviceId);
		if (d === undefined) {
			if (!groupOf.has(r.deviceId)) {
				unknownDevices++;
				continue;
			}
			const group = groupOf.get(r.deviceId) ?? null;
			let g = perGroup.get(group);
			if (g === undefined) perGroup.set(group, (g = { tests: 0, failed: 0 }));
			perDevice.set(r.deviceId, (d = { tests: 0, failed: 0, group: g }));
		}
		d.tests++;
		d.group.tests++;
		if (r.failed) {
			d.failed++;
			d.group.failed++;
		}
	}
	// The rest of a group differs from device to device by a few tests only: each pair of counts is
	// solved once (every bound is hundreds of binomial sums), not once per device.
	const uppers = new Map<string, number>();
	const lowers = new Map<string, number>();
	const solved = (known: Map<string, number>, bound: typeof upperBound, failed: number, tests: number) => {
		const key = `${failed}:${tests}`;
		let value = known.get(key);
		if (value === undefined) known.set(key, (value = bound(failed, tests)));
		return value;
	};
	const outliers: OutlierDevice[] = [];
	// By device id (ids ascending, as numbers: no array of 100,000 pairs to sort).
	const ids = Float64Array.from(perDevice.keys()).sort();
	for (const deviceId of ids) {
		const d = perDevice.get(deviceId)!;
		const group = groupOf.get(deviceId) ?? null;
		const g = d.group;
		const groupTests = g.tests - d.tests;
		const groupFailedTests = g.failed - d.failed;
		if (groupTests === 0) continue;
		const base = { deviceId, group, tests: d.tests, failedTests: d.failed, groupTests, groupFailedTests };
		// A device without a failure is no dog: the rest's upper bound is not needed for it.
		if (d.failed >= 1) {
			const upper = solved(uppers, upperBound, groupFailedTests, groupTests);
			const dogTail = 1 - binomialCdf(d.failed - 1, d.tests, upper);
			if (dogTail < OUTLIER_TAIL) {
				outliers.push({ ...base, kind: 'dog', groupRateBound: upper, tailProbability: dogTail });
				continue;
			}
		}
		// The lower bound never exceeds the rest's observed rate: below one expected failure at that rate, none at the bound either.
		if (d.tests * (groupFailedTests / groupTests) < 1) continue;
		const lower = solved(lowers, lowerBound, groupFailedTests, groupTests);
		if (d.tests * lower < 1) continue;
		const gemTail = binomialCdf(d.failed, d.tests, lower);
		if (gemTail < OUTLIER_TAIL) outliers.push({ ...base, kind: 'gem', groupRateBound: lower, tailProbability: gemTail });
	}
	return { outliers, unknownDevices };
}
