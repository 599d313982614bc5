import type { Random } from './random';
import { addMonthsToDay, startOfDayMs } from './calendar';

/**
 * One device's test history, walked backwards from today so that its end state is exactly what
 * the demo asks for (overdue now or not, never tested) and every earlier test follows from the
 * interval: each cycle's regular test falls some days before its due date (mostly) or after it
 * (late by days, or by weeks to months); a failed test is followed within 1–7 days by a re-test
 * (a repair), which usually passes. The walk ends with the commissioning test, on or shortly after
 * the device was created.
 */

export type DeviceRole = 'current' | 'overdue' | 'never';

export interface HistoryInput {
	/** Test interval in months. */
	interval: number;
	/** Probability that a test fails (the regular test of a cycle; a re-test fails less often). */
	failure: number;
	role: DeviceRole;
	/** The history reaches back at least this many days (the device is at least that old). */
	minAgeDays: number;
}

export interface HistoryEnd {
	/** Epoch day the device was created. */
	created: number;
	/** Epoch day of its latest test, or null when it was never tested. */
	lastTested: number | null;
}

/** Every result of every device, in columns (a full history of 100,000 devices is ~700,000 results). */
export class ResultLog {
	readonly device: number[] = [];
	readonly day: number[] = [];
	readonly failed: number[] = [];
	/** ms since epoch the result reached the service. */
	readonly synced: number[] = [];
	/** One draw for tester, project and test sequence (decoded by the caller). */
	readonly pick: number[] = [];

	get size(): number {
		return this.day.length;
	}
}

const RETEST_FAILS = 0.15;
const HOUR_MS = 3_600_000;

/**
 * Walks one device's history; answers its creation and last test day, and (when a log is given)
 * records each result. `today` is an epoch day, `nowMs` the clock (no upload after it).
 */
export function walkHistory(rnd: Random, input: HistoryInput, deviceId: number, today: number, nowMs: number, log?: ResultLog): HistoryEnd {
	const { interval, failure, role } = input;
	if (role === 'never') return { created: today - rnd.int(0, 20), lastTested: null };
	let end: number;
	if (role === 'overdue') {
		// Its last due date passed some days ago (up to a quarter of its interval) without a test.
		const daysOverdue = rnd.int(1, Math.max(1, Math.round(interval * 7.6)));
		end = addMonthsToDay(today - daysOverdue, -interval);
	} else {
		const earliest = addMonthsToDay(today, -interval) + 1;
		end = earliest + rnd.int(0, today - earliest);
		while (addMonthsToDay(end, interval) < today) end++;
	}
	const lastTested = end;
	let first = end;
	for (let latest = true; ; latest = false) {
		let regular = end;
		if (latest && end > today - 7 && rnd.chance(failure)) {
			// Failed this week: the repair and its re-test are still to come.
			record(rnd, log, deviceId, end, true, nowMs);
		} else {
			record(rnd, log, deviceId, end, false, nowMs);
			if (rnd.chance(failure)) {
				regular = end - rnd.int(1, 7);
				record(rnd, log, deviceId, regular, true, nowMs);
				if (rnd.chance(RETEST_FAILS)) {
					regular -= rnd.int(1, 7);
					record(rnd, log, deviceId, regular, true, nowMs);
				}
			}
		}
		first = regular;
		if (regular <= today - input.minAgeDays) break; // the commissioning test
		const due = regular - offsetFromDue(rnd, interval);
		end = addMonthsToDay(due, -interval);
	}
	return { created: first - rnd.int(0, 3), lastTested };
}

/** Days the regular test fell after its due date (negative: before it, on time). */
function offsetFromDue(rnd: Random, interval: number): number {
	const u = rnd.next();
	if (u < 0.7) return -rnd.int(0, 28);
	if (u < 0.87) return rnd.int(1, 14);
	return rnd.int(15, Math.min(120, Math.round(interval * 12)));
}

/** Logs one result (the walk's, or a result the caller adds before walking on to older ones). */
export function record(rnd: Random, log: ResultLog | undefined, deviceId: number, day: number, failed: boolean, nowMs: number): void {
	if (!log) return;
	const start = startOfDayMs(day);
	// Uploaded the same working day mostly, sometimes days later; never after the clock.
	let synced = start + 9 * HOUR_MS + rnd.int(0, 8 * HOUR_MS);
	if (rnd.chance(0.15)) synced += rnd.int(1, 9) * 24 * HOUR_MS;
	if (synced > nowMs) synced = start + Math.floor(rnd.next() * Math.max(0, nowMs - start));
	log.device.push(deviceId);
	log.day.push(day);
	log.failed.push(failed ? 1 : 0);
	log.synced.push(synced);
	log.pick.push(rnd.next());
}

/**
 * Which results an account keeps when it holds only the newest `count` by test date (ties: the
 * later upload wins), in upload order: indexes into the log. Sorts only the kept ones.
 */
export function newestInUploadOrder(log: ResultLog, count: number | undefined): number[] {
	const n = log.size;
	let kept: number[];
	if (count === undefined || count >= n) kept = Array.from({ length: n }, (_, i) => i);
	else if (count <= 0) kept = [];
	else {
		let lo = Infinity;
		let hi = -Infinity;
		for (const d of log.day) {
			if (d < lo) lo = d;
			if (d > hi) hi = d;
		}
		const perDay = new Int32Array(hi - lo + 1);
		for (const d of log.day) perDay[d - lo]++;
		let threshold = hi;
		let newer = 0; // results after the threshold day
		while (newer + perDay[threshold - lo] < count) newer += perDay[threshold-- - lo];
		kept = [];
		const onThreshold: number[] = [];
		for (let i = 0; i < n; i++) {
			if (log.day[i] > threshold) kept.push(i);
			else if (log.day[i] === threshold) onThreshold.push(i);
		}
		onThreshold.sort((a, b) => byUpload(log, b, a));
		kept.push(...onThreshold.slice(0, count - newer));
	}
	return kept.sort((a, b) => byUpload(log, a, b));
}

function byUpload(log: ResultLog, a: number, b: number): number {
	return log.synced[a] - log.synced[b] || log.day[a] - log.day[b] || log.device[a] - log.device[b];
}
