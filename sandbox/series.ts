import { Random } from './random';
import { addMonthsToDay } from './calendar';

/**
 * Each device's measured values as a series: its own level and noise per measured step, drawn from
 * (seed, device) and (seed, device, day), so a result's values are computed when its detail is
 * served (nothing is stored per result) and a new result continues the series. A few devices drift
 * toward a limit (insulation resistance decaying, protective-conductor resistance rising): their
 * plan is the only thing kept, a few numbers per drifting device. Limits are the ones in force on
 * the result's day; the protective-conductor limit tightens within the demo's years.
 */

export type MeasuredStep = 'pe' | 'riso' | 'current';
export const MEASURED_STEPS: readonly MeasuredStep[] = ['pe', 'riso', 'current'];
export const STEP_NAME: Record<MeasuredStep, string> = {
	pe: 'Protective conductor resistance',
	riso: 'Insulation resistance',
	current: 'Protective conductor current',
};
export const STEP_UNIT: Record<MeasuredStep, string> = { pe: 'Ω', riso: 'MΩ', current: 'mA' };

/** Protective-conductor resistance: 0.3 Ω, and 0.2 Ω from the limit change day on (the demo's own tighter limit). */
export const PE_LIMIT_BEFORE = 0.3;
export const PE_LIMIT_FROM = 0.2;
const RISO_LOW = 1;
const CURRENT_HIGH = 3.5;

/** This share of the devices (rounded; those with results) drift toward a limit. */
export const DRIFT_SHARE = 0.05;

/** Exactly `round(count × DRIFT_SHARE)` of the devices 1…count, chosen by the seed. */
export function driftingDevices(rnd: Random, count: number): Set<number> {
	const ids = Array.from({ length: count }, (_, i) => i + 1);
	const chosen = Math.round(count * DRIFT_SHARE);
	for (let i = 0; i < chosen; i++) {
		const j = rnd.int(i, count - 1);
		[ids[i], ids[j]] = [ids[j], ids[i]];
	}
	return new Set(ids.slice(0, chosen));
}
/**
 * Per step, this share of the devices sit near its limit for good (a long cable, an old heating
 * element): their passed values use 78–90 % of it, and more of the tightened protective-conductor limit.
 */
const NEAR_SHARE = 0.08;
/** A passed value is kept at most this share of its limit; a failing one at least 2 % past it. */
const PASS_SHARE = 0.97;
const FAIL_MARGIN = 1.02;
/** Failed tests not explained by a drift: this share failed at the visual inspection. */
const VISUAL_SHARE = 0.35;

export interface Drift {
	step: 'pe' | 'riso';
	/** Epoch days: the drift starts on `start` and reaches `target` on `at`. */
	start: number;
	at: number;
	target: number;
	/** The last day it holds (repaired after it), or null: still drifting. */
	end: number | null;
}

export interface Limits {
	low: number | null;
	high: number | null;
}

export interface MeasuredValue {
	step: MeasuredStep;
	value: number;
	low: number | null;
	high: number | null;
	passed: boolean;
}

/** The first day of the month 24 months before `today` (epoch days): the day the protective-conductor limit tightens. */
export function limitChangeDayOf(today: number): number {
	const back = addMonthsToDay(today, -24);
	const d = new Date(back * 86_400_000);
	return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 86_400_000;
}

function mix(...parts: number[]): number {
	let h = 0x811c9dc5;
	for (const p of parts) {
		h = Math.imul(h ^ (p | 0), 0x01000193);
		h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
		h ^= h >>> 12;
	}
	return h >>> 0;
}

/** Bounded noise in [-1.5, 1.5] (sum of three uniforms, centred). */
function noise(rnd: Random): number {
	return rnd.next() + rnd.next() + rnd.next() - 1.5;
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

export class MeasurementSeries {
	/** Device id → its drift (devices without one are not stored). */
	readonly drifts = new Map<number, Drift>();

	constructor(
		readonly seed: number,
		/** Epoch day from which the protective-conductor limit is PE_LIMIT_FROM. */
		readonly limitChangeDay: number,
	) {}

	limits(step: MeasuredStep, day: number): Limits {
		if (step === 'pe') return { low: null, high: day >= this.limitChangeDay ? PE_LIMIT_FROM : PE_LIMIT_BEFORE };
		if (step === 'riso') return { low: RISO_LOW, high: null };
		return { low: null, high: CURRENT_HIGH };
	}

	/** The device's level of each step (its own, from the seed). */
	level(deviceId: number, step: MeasuredStep): number {
		const r = new Random(mix(this.seed, deviceId, 0x1e7e1, MEASURED_STEPS.indexOf(step)));
		const near = r.chance(NEAR_SHARE);
		const u = r.next();
		if (step === 'pe') return near ? 0.155 + u * 0.02 : 0.03 + u * 0.09;
		if (step === 'riso') return near ? 1.15 + u * 0.15 : Math.exp(Math.log(20) + u * (Math.log(550) - Math.log(20)));
		return near ? 2.8 + u * 0.3 : 0.05 + u * 1.2;
	}

	/** The series' value on a day, before the result's status is applied (noise included). */
	value(deviceId: number, step: MeasuredStep, day: number): number {
		const level = this.level(deviceId, step);
		const drift = this.drifts.get(deviceId);
		const drifting = drift !== undefined && drift.step === step && day >= drift.start && (drift.end === null || day <= drift.end);
		const base = drifting ? driftValue(drift, level, day) : level;
		const n = noise(new Random(mix(this.seed, deviceId, day, MEASURED_STEPS.indexOf(step)))) * (drifting ? 0.5 : 1);
		if (step === 'pe') return Math.max(0.005, base + n * 0.006);
		return base * (1 + n * (step === 'riso' ? 0.06 : 0.07));
	}

	/** The drifting step when the device's series is past its limit on that day. */
	crosses(deviceId: number, day: number): MeasuredStep | undefined {
		const drift = this.drifts.get(deviceId);
		if (!drift || day < drift.start || (drift.end !== null && day > drift.end)) return undefined;
		return past(this.value(deviceId, drift.step, day), this.limits(drift.step, day)) ? drift.step : undefined;
	}

	/** A repair: the drift ends on this day (the series is back at its level after it). */
	repaired(deviceId: number, day: number): void {
		const drift = this.drifts.get(deviceId);
		if (drift && drift.end === null && day >= drift.start) drift.end = day;
	}

	/**
	 * One result's visual inspection and measured values, consistent with its status: a passed
	 * result's values are within their limits; a failed one fails where the drift crossed its limit,
	 * else at the visual inspection (every value within its limits) or at one measured step.
	 */
	result(deviceId: number, day: number, failed: boolean): { visualPassed: boolean; values: MeasuredValue[] } {
		let failing: MeasuredStep | 'visual' | undefined;
		if (failed) {
			failing = this.crosses(deviceId, day);
			if (!failing) {
				const u = new Random(mix(this.seed, deviceId, day, 0xfa11)).next();
				failing = u < VISUAL_SHARE ? 'visual' : MEASURED_STEPS[Math.min(2, Math.floor(((u - VISUAL_SHARE) / (1 - VISUAL_SHARE)) * 3))];
			}
		}
		const values = MEASURED_STEPS.map((step): MeasuredValue => {
			const limits = this.limits(step, day);
			const raw = step === failing ? this.failingValue(deviceId, step, day, limits) : within(this.value(deviceId, step, day), limits);
			const value = round3(raw);
			return { step, value, ...limits, passed: !past(value, limits) };
		});
		return { visualPassed: failing !== 'visual', values };
	}

	private failingValue(deviceId: number, step: MeasuredStep, day: number, limits: Limits): number {
		const v = this.value(deviceId, step, day);
		if (past(v, limits)) return limits.high !== null ? Math.max(v, limits.high * FAIL_MARGIN) : Math.min(v, limits.low! / FAIL_MARGIN);
		// A sudden fault (a broken conductor, moisture in the insulation): well past the limit.
		const u = new Random(mix(this.seed, deviceId, day, 0x5b1e)).next();
		if (step === 'pe') return limits.high! * (1.2 + u * 3);
		if (step === 'riso') return limits.low! * (0.05 + u * 0.85);
		return limits.high! * (1.1 + u * 1.4);
	}

	/**
	 * Plans a drift for a device chosen to drift (`drifts`) from its results (epoch days, oldest first, and which failed),
	 * none: `rnd` draws the same number of times for every device. A device with three passed results
	 * since its latest failure drifts now (when it also has a failed result: one in two): its latest
	 * result uses 86–95 % of its limit, and the line goes on past it. Else a device with a failed
	 * result drifted into its latest one: that result is past its
	 * limit, and the repair after it ends the drift.
	 */
	plan(rnd: Random, deviceId: number, days: readonly number[], failed: readonly boolean[], drifts: boolean): void {
		const step: Drift['step'] = rnd.chance(0.5) ? 'pe' : 'riso';
		const share = 0.86 + rnd.next() * 0.09;
		const over = 1.15 + rnd.next() * 0.45;
		const crossedFirst = rnd.chance(0.5);
		if (!drifts || days.length === 0) return;
		const n = days.length;
		const lastFailed = failed.lastIndexOf(true);
		const startBefore = (i: number, after: number) => {
			// Between the result before `i` and `i` (the drift shows from result i on), never before the previous failure.
			const from = i - 1 > after ? Math.floor((days[i - 1] + days[i]) / 2) : days[i] - 30;
			return Math.max(from, after >= 0 ? days[after] + 1 : -Infinity);
		};
		const target = (at: number, ratio: number) => {
			const limits = this.limits(step, at);
			return step === 'pe' ? limits.high! * ratio : limits.low! / ratio;
		};
		if (n - 1 - lastFailed >= 3 && !(crossedFirst && lastFailed >= 0)) {
			const at = days[n - 1];
			this.drifts.set(deviceId, { step, start: startBefore(n - 3, lastFailed), at, target: target(at, share), end: null });
		} else if (lastFailed >= 0) {
			const at = days[lastFailed];
			const previous = failed.lastIndexOf(true, lastFailed - 1);
			const drift: Drift = { step, start: Math.min(at - 1, startBefore(Math.max(previous + 1, lastFailed - 2), previous)), at, target: target(at, over), end: at };
			this.drifts.set(deviceId, drift);
			// A passed result before the failure is within its limit: where the line would already be
			// past it on that day, the drift starts later (from that day, so it still rises toward it).
			for (let moved = true; moved; ) {
				moved = false;
				for (let j = previous + 1; j < lastFailed; j++) {
					if (failed[j] || days[j] < drift.start || !this.crosses(deviceId, days[j])) continue;
					drift.start = days[j];
					moved = true;
				}
			}
		}
	}
}

/** Rising from the level toward the target (protective-conductor resistance, accelerating), or decaying toward it (insulation resistance, exponentially). */
function driftValue(d: Drift, level: number, day: number): number {
	const t = (day - d.start) / Math.max(1, d.at - d.start);
	if (d.step === 'pe') return level + (d.target - level) * t ** 1.5;
	return level * (d.target / level) ** t;
}

function past(v: number, limits: Limits): boolean {
	return (limits.high !== null && v > limits.high) || (limits.low !== null && v < limits.low);
}

function within(v: number, limits: Limits): number {
	if (limits.high !== null) return Math.min(v, limits.high * PASS_SHARE);
	return Math.max(v, limits.low! / PASS_SHARE);
}
