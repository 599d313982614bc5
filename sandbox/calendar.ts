/**
 * Calendar arithmetic on epoch days (days since 1970-01-01, UTC), for the demo generator: it walks
 * hundreds of thousands of test cycles, and strings or Date objects per step would cost most of its
 * time. `addMonthsToDay` answers what `addMonths` in client/dates answers, as a number.
 */
const DAY_MS = 86_400_000;

let civilYear = 0;
let civilMonth = 0;
let civilDay = 0;

/** Splits an epoch day into civil year, month, day (into the module's scratch fields: no allocation). */
function toCivil(days: number): void {
	const z = days + 719_468;
	const era = Math.floor(z / 146_097);
	const dayOfEra = z - era * 146_097;
	const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
	const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
	const mp = Math.floor((5 * dayOfYear + 2) / 153);
	civilDay = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
	civilMonth = mp < 10 ? mp + 3 : mp - 9;
	civilYear = yearOfEra + era * 400 + (civilMonth <= 2 ? 1 : 0);
}

function fromCivil(year: number, month: number, day: number): number {
	const y = month <= 2 ? year - 1 : year;
	const era = Math.floor(y / 400);
	const yearOfEra = y - era * 400;
	const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
	return era * 146_097 + yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear - 719_468;
}

function daysInMonth(year: number, month: number): number {
	if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
	return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** `days` plus `months` calendar months, clamped to the month's last day (as addMonths). */
export function addMonthsToDay(days: number, months: number): number {
	toCivil(days);
	const total = civilYear * 12 + civilMonth - 1 + months;
	const year = Math.floor(total / 12);
	const month = total - year * 12 + 1;
	return fromCivil(year, month, Math.min(civilDay, daysInMonth(year, month)));
}

export function epochDayOf(ms: number): number {
	return Math.floor(ms / DAY_MS);
}

export function startOfDayMs(days: number): number {
	return days * DAY_MS;
}
