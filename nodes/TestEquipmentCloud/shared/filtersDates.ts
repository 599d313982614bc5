import { addDays, dayIn, isCalendarDate, type FilterCondition } from '../../../client';

/**
 * Days for the Filters builder. The service compares whole days written YYYY-MM-DD; n8n's date
 * picker and expressions give timestamps, and relative dates count from "today".
 *
 * "Today" is the calendar day of the workflow's timezone (Workflow Settings › Timezone, else the
 * instance's GENERIC_TIMEZONE: what `this.getTimezone()` returns and what `$today` shows), taken
 * when the node runs, by the one rule of client/dates.ts (`todayOf`).
 */

// The calendar day of an instant in a zone: written once, in client/dates.ts (`todayOf` is the rule for "today").
export { dayIn };

const DAY_PREFIX = /^(\d{4}-\d{2}-\d{2})(?:$|[T ])/;

/**
 * A date value as the service takes it: the day as written (the date picker's
 * `2026-03-20T00:00:00`, an ISO timestamp with its offset, `YYYY-MM-DD`), a JavaScript Date or a
 * Luxon DateTime (from an expression such as `{{ $now }}`) as its day in `timeZone`.
 * Undefined when the value is not a calendar date.
 */
export function dayOfValue(value: unknown, timeZone: string): string | undefined {
	if (typeof value === 'string') {
		const m = DAY_PREFIX.exec(value.trim());
		return m && isCalendarDate(m[1]) ? m[1] : undefined;
	}
	if (value instanceof Date) return Number.isFinite(value.getTime()) ? dayIn(value.getTime(), timeZone) : undefined;
	// A Luxon DateTime: its instant, so that the day is the one in `timeZone` (not the DateTime's own zone).
	if (typeof value === 'object' && value !== null && typeof (value as { toMillis?: unknown }).toMillis === 'function') {
		const ms = (value as { toMillis: () => unknown }).toMillis();
		return typeof ms === 'number' && Number.isFinite(ms) ? dayIn(ms, timeZone) : undefined;
	}
	return undefined;
}

/** How far a relative date may reach (100 years either way). */
export const MAX_RELATIVE_DAYS = 36_500;

export function isDayCount(n: unknown, min: number): n is number {
	return typeof n === 'number' && Number.isSafeInteger(n) && n >= min && n <= MAX_RELATIVE_DAYS;
}

/** `today` moved by `days` (negative: before today). */
export function daysFromToday(today: string, days: number): string {
	return addDays(today, days);
}

/** The ranges a person asks for in words; each is two conditions that must both hold (AND). */
export const DATE_PRESETS = {
	withinNext: 'Within the Next N Days',
	withinLast: 'Within the Last N Days',
} as const;
export type DatePreset = keyof typeof DATE_PRESETS;

export function isDatePreset(word: unknown): word is DatePreset {
	return typeof word === 'string' && Object.prototype.hasOwnProperty.call(DATE_PRESETS, word);
}

/** A preset as the service's conditions, both days included: today … today + N, or today − N … today. */
export function presetConditions(preset: DatePreset, today: string, days: number): FilterCondition[] {
	const [from, to] = preset === 'withinNext' ? [today, addDays(today, days)] : [addDays(today, -days), today];
	return [
		{ keyword: 'newerOrSame', value: from },
		{ keyword: 'olderOrSame', value: to },
	];
}
