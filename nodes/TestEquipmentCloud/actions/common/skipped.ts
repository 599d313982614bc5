import type { IExecuteFunctions } from 'n8n-workflow';
import { SKIP_REASONS, type MeasurementReadCounts, type SkipReason } from '../../../../client';

/**
 * What a read skipped and counted, in plain words, as an execution hint: the counts are in each
 * item too, but an operation that returns no item would otherwise not show them ("nothing near its
 * limit" could not be told from "every value unreadable"). No item of another shape is added, so
 * the nodes downstream see only the operation's items.
 */

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

const MEASUREMENT_SKIPS: Record<SkipReason, string> = {
	noValue: 'without a value',
	nonNumericValue: 'not a number',
	noLimit: 'without a limit',
	invalidLimit: 'with an unusable limit',
	nonPositiveValue: 'zero or negative',
	repeated: 'measured twice in one result',
	noName: 'without a name',
};

/** A result of a device the device list does not hold. */
export const unknownDeviceResults = (n: number) => count(n, 'result of a device not in the device list skipped', 'results of devices not in the device list skipped');
export const unreadableRecords = (n: number) => count(n, 'unreadable record skipped', 'unreadable records skipped');
export const invalidTestDates = (n: number) => count(n, 'result whose test date is not a day skipped', 'results whose test date is not a day skipped');

/** The measured values and records a measurement read skipped. */
export function measurementSkipParts(counts: MeasurementReadCounts): string[] {
	const parts: string[] = [];
	const reasons = SKIP_REASONS.filter((r) => counts.skippedMeasurements[r] > 0);
	const values = reasons.reduce((n, r) => n + counts.skippedMeasurements[r], 0);
	if (values > 0) parts.push(`${count(values, 'measured value skipped', 'measured values skipped')}: ${reasons.map((r) => `${counts.skippedMeasurements[r]} ${MEASUREMENT_SKIPS[r]}`).join(', ')}`);
	if (counts.unknownDevices > 0) parts.push(unknownDeviceResults(counts.unknownDevices));
	if (counts.goneDetails > 0) parts.push(count(counts.goneDetails, 'result whose detail is gone (404) skipped', 'results whose detail is gone (404) skipped'));
	if (counts.unreadableRecords > 0) parts.push(unreadableRecords(counts.unreadableRecords));
	return parts;
}

/** One hint naming every part (none when nothing was skipped) and the docs' section with the rules. */
export function hintSkipped(ctx: IExecuteFunctions, parts: string[], section: string): void {
	if (parts.length === 0) return;
	ctx.addExecutionHints({ message: `${parts.join('; ')}; see docs/compliance.md (${section})`, location: 'outputPane' });
}

export const MEASUREMENT_RULES = 'Warnings from measured values';
