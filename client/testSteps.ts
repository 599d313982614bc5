/**
 * Reading the performed steps of a detailed test result (`GET /tests_performed/detailed/{id}/`):
 * the failed steps with their measured values and limits, the evidence of a failed test.
 * Tolerant like every reader: unknown fields are ignored, missing ones become null, texts are cut.
 *
 * Read by canonical names: `steps` is a list of
 * `{step, name, status, measurements: [{name, value, unit, low_limit, high_limit, passed}]}`; what
 * the service calls them is the service profile's `testSteps` (the client translates).
 */

export interface MeasuredValue {
	name: string | null;
	value: number | null;
	unit: string | null;
	lowLimit: number | null;
	highLimit: number | null;
	passed: boolean | null;
}

export interface FailedTestStep {
	step: number | null;
	name: string | null;
	status: string | null;
	/** The step's measurements, the failed ones first. */
	measurements: MeasuredValue[];
	/** Measurements left out (beyond `maxMeasurements`). */
	truncatedMeasurements: number;
}

/** Longest text kept from a step or measurement. */
export const MAX_STEP_TEXT = 200;
/** Measurements kept per step by default. */
export const MAX_MEASUREMENTS_PER_STEP = 50;

type Json = Record<string, unknown>;

function text(v: unknown): string | null {
	const s = typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : null;
	return s !== null && s.length > MAX_STEP_TEXT ? `${s.slice(0, MAX_STEP_TEXT)}…` : s;
}

function num(v: unknown): number | null {
	if (typeof v === 'number') return Number.isFinite(v) ? v : null;
	if (typeof v === 'string' && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(v.trim())) return Number(v);
	return null;
}

function bool(v: unknown): boolean | null {
	if (typeof v === 'boolean') return v;
	const s = typeof v === 'string' ? v.toLowerCase() : '';
	return s === 'passed' || s === 'true' ? true : s === 'failed' || s === 'false' ? false : null;
}

function measurement(raw: unknown): MeasuredValue | undefined {
	if (!raw || typeof raw !== 'object') return undefined;
	const m = raw as Json;
	return {
		name: text(m.name),
		value: num(m.value),
		unit: text(m.unit),
		lowLimit: num(m.low_limit),
		highLimit: num(m.high_limit),
		passed: bool(m.passed ?? m.status),
	};
}

/** The steps whose status is failed (or that hold a failed measurement), in their order. */
export function failedStepsOf(detail: unknown, maxMeasurements = MAX_MEASUREMENTS_PER_STEP): FailedTestStep[] {
	const steps = detail && typeof detail === 'object' ? (detail as Json).steps : undefined;
	if (!Array.isArray(steps)) return [];
	const out: FailedTestStep[] = [];
	for (const raw of steps) {
		if (!raw || typeof raw !== 'object') continue;
		const s = raw as Json;
		const measurements = (Array.isArray(s.measurements) ? s.measurements : []).map(measurement).filter((m): m is MeasuredValue => m !== undefined);
		const status = text(s.status);
		if (status?.toLowerCase() !== 'failed' && !measurements.some((m) => m.passed === false)) continue;
		const ordered = [...measurements.filter((m) => m.passed === false), ...measurements.filter((m) => m.passed !== false)];
		const step = num(s.step);
		out.push({
			step: step !== null && Number.isSafeInteger(step) ? step : null,
			name: text(s.name),
			status,
			measurements: ordered.slice(0, maxMeasurements),
			truncatedMeasurements: Math.max(0, ordered.length - maxMeasurements),
		});
	}
	return out;
}

/** The device as the detailed result names it (designation, ID Barcode), when it does. */
export function testedDeviceOf(detail: unknown): { designation: string | null; idBarcode: string | null } {
	const d = detail && typeof detail === 'object' ? (detail as Json).device : undefined;
	if (!d || typeof d !== 'object') return { designation: null, idBarcode: null };
	return { designation: text((d as Json).designation), idBarcode: text((d as Json).id_barcode) };
}
