/**
 * The measured values of a detailed test result and the share of its limit each one uses, pure.
 * Read by canonical names like client/testSteps.ts (`steps: [{step, name, status, measurements:
 * [{name, value, unit, low_limit, high_limit}]}]`; the client translates the service's names).
 * Only the limits stored with the measurement count: the standards change them, so none is built in.
 *
 * Rules (docs/compliance.md, "Warnings from measured values"):
 * - share of an upper limit: value ÷ limit; of a lower limit (insulation resistance): limit ÷ value;
 *   with both limits, the larger of the two (the nearer limit binds), its side named; rounded to
 *   12 decimals, so a value at exactly 80 % of its limit is at a threshold of 0.8;
 * - a measurement is skipped and counted, never guessed, when its value is missing (`noValue`) or
 *   not a number (`nonNumericValue`: a finite number or a plain decimal text such as "0.12" is one,
 *   a text beyond a double's range such as "1e999" is not); when it has no limit (`noLimit`); when
 *   a limit is not a positive number, the lower is not below the upper, or the share of the limit
 *   is too large to be a number (1e308 against 1e-300) (`invalidLimit`); when its value is
 *   negative, or zero against a lower limit (`nonPositiveValue`; zero against an upper limit uses
 *   none of it);
 * - one result measuring the same step (and measurement name) twice keeps the larger share, the
 *   other is counted as `repeated`;
 * - a measurement is named by its step's name, else its own; one with neither is `noName`.
 */

export type LimitSide = 'high' | 'low';

export interface StepValue {
	/** The step's name (the measurement's when the step has none). */
	step: string;
	/** The measurement's own name, when it has one. */
	measurement: string | null;
	value: number;
	unit: string | null;
	lowLimit: number | null;
	highLimit: number | null;
	/** Share of the binding limit used: value ÷ high, or low ÷ value. */
	limitUsed: number;
	limitSide: LimitSide;
}

export type SkipReason = 'noValue' | 'nonNumericValue' | 'noLimit' | 'invalidLimit' | 'nonPositiveValue' | 'repeated' | 'noName';
export const SKIP_REASONS: readonly SkipReason[] = ['noValue', 'nonNumericValue', 'noLimit', 'invalidLimit', 'nonPositiveValue', 'repeated', 'noName'];
export type SkipCounts = Record<SkipReason, number>;

export const noMeasurementSkips = (): SkipCounts => Object.fromEntries(SKIP_REASONS.map((r) => [r, 0])) as SkipCounts;

export function addSkips(into: SkipCounts, more: SkipCounts): void {
	for (const r of SKIP_REASONS) into[r] += more[r];
}

type Json = Record<string, unknown>;
const MAX_TEXT = 200;

function text(v: unknown): string | null {
	if (typeof v !== 'string' || v.trim() === '') return null;
	return v.length > MAX_TEXT ? `${v.slice(0, MAX_TEXT)}…` : v;
}

/** A number, a plain decimal text, absent (null/undefined/''), or not a number. */
function numberOf(v: unknown): number | 'absent' | 'invalid' {
	if (v === null || v === undefined || (typeof v === 'string' && v.trim() === '')) return 'absent';
	if (typeof v === 'number') return Number.isFinite(v) ? v : 'invalid';
	if (typeof v !== 'string' || !/^[-+]?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(v.trim())) return 'invalid';
	// A text beyond a double's range ("1e999") is no number: Infinity would reach every sum and store.
	const n = Number(v.trim());
	return Number.isFinite(n) ? n : 'invalid';
}

/** Rounded to 12 decimals; a share too large for that (x · 1e12 overflows) has no decimals to round. */
const round12 = (x: number): number => (Math.abs(x) < 1e15 ? Math.round(x * 1e12) / 1e12 : x);

/** The share of its limit a value uses, or the reason it has none. */
export function limitShare(value: number, lowLimit: number | null, highLimit: number | null): { limitUsed: number; limitSide: LimitSide } | SkipReason {
	if (lowLimit === null && highLimit === null) return 'noLimit';
	if ((lowLimit !== null && !(lowLimit > 0)) || (highLimit !== null && !(highLimit > 0))) return 'invalidLimit';
	if (lowLimit !== null && highLimit !== null && !(lowLimit < highLimit)) return 'invalidLimit';
	if (value < 0 || (value === 0 && lowLimit !== null)) return 'nonPositiveValue';
	// Rounded to 12 decimals: 0.24 Ω of 0.3 Ω is 80 %, not the 79.999… % of binary division.
	const high = highLimit === null ? -Infinity : round12(value / highLimit);
	const low = lowLimit === null ? -Infinity : round12(lowLimit / value);
	// A share too large to be a number (1e308 Ω against 1e-300 Ω) says the limit is no usable one.
	if (high === Infinity || low === Infinity) return 'invalidLimit';
	return high >= low ? { limitUsed: high, limitSide: 'high' } : { limitUsed: low, limitSide: 'low' };
}

function stepValue(stepName: string | null, raw: unknown): StepValue | SkipReason {
	const m = (raw && typeof raw === 'object' ? raw : {}) as Json;
	const measurement = text(m.name);
	const step = stepName ?? measurement;
	if (step === null) return 'noName';
	const value = numberOf(m.value);
	if (value === 'absent') return 'noValue';
	if (value === 'invalid') return 'nonNumericValue';
	const low = numberOf(m.low_limit);
	const high = numberOf(m.high_limit);
	if (low === 'invalid' || high === 'invalid') return 'invalidLimit';
	const lowLimit = low === 'absent' ? null : low;
	const highLimit = high === 'absent' ? null : high;
	const share = limitShare(value, lowLimit, highLimit);
	if (typeof share === 'string') return share;
	return { step, measurement: measurement === step ? null : measurement, value, unit: text(m.unit), lowLimit, highLimit, ...share };
}

/** The key a series of one step's values is kept under. */
export const stepKey = (v: Pick<StepValue, 'step' | 'measurement'>): string => `${v.step}\u0000${v.measurement ?? ''}`;

/** Every usable measured value of a detailed result, one per step (and measurement name), and what was skipped. */
export function measuredValuesOf(detail: unknown): { values: StepValue[]; skipped: SkipCounts } {
	const skipped = noMeasurementSkips();
	const steps = detail && typeof detail === 'object' ? (detail as Json).steps : undefined;
	const byKey = new Map<string, StepValue>();
	if (!Array.isArray(steps)) return { values: [], skipped };
	for (const raw of steps) {
		if (!raw || typeof raw !== 'object') continue;
		const s = raw as Json;
		if (!Array.isArray(s.measurements)) continue;
		for (const m of s.measurements) {
			const v = stepValue(text(s.name), m);
			if (typeof v === 'string') {
				skipped[v]++;
				continue;
			}
			const key = stepKey(v);
			const before = byKey.get(key);
			if (before) skipped.repeated++;
			if (!before || v.limitUsed > before.limitUsed) byKey.set(key, v);
		}
	}
	return { values: [...byKey.values()], skipped };
}
