/** Calendar-day helpers; days are strings YYYY-MM-DD in UTC. */
const DAY = 86_400_000;

export function dayString(ms: number): string {
	return new Date(ms).toISOString().slice(0, 10);
}

/** The calendar day (YYYY-MM-DD) of the instant `ms` in the IANA zone `timeZone`. */
export function dayIn(ms: number, timeZone: string): string {
	const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(new Date(ms));
	const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
	return `${part('year')}-${part('month')}-${part('day')}`;
}

/**
 * "Today", one rule for every face: the calendar day at `now` in the face's time zone (in n8n the
 * workflow's, `this.getTimezone()`, as its filters and `$today`; the account's for its e-mails; UTC
 * for the pollers), whatever day the service shows. The service's day only stops a rebuild from
 * refusing a result it dated today as "in the future" (its cut-off is the later of the two days).
 */
export function todayOf(now: number, timeZone: string): string {
	return dayIn(now, timeZone);
}

export function isoTime(ms: number): string {
	return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export function dayMs(day: string): number {
	// Arithmetic for a day written YYYY-MM-DD (a rebuild dates each test record's expiry); Date.parse for the rest.
	const days = day.length === 10 ? epochDay(day) : undefined;
	return days !== undefined ? days * DAY : Date.parse(`${day}T00:00:00Z`);
}

export function addDays(day: string, days: number): string {
	return dayString(dayMs(day) + days * DAY);
}

/** Adds months, clamping to the last day of the month (2026-01-31 + 1 = 2026-02-28). */
export function addMonths(day: string, months: number): string {
	// Arithmetic for days written YYYY-MM-DD in years 100-9999 (a rebuild calls this per test); Date for the rest (it reads years 0-99 as 19xx).
	if (day.length === 10 && Number.isInteger(months) && epochDay(day) !== undefined && digitsAt(day, 0, 4) >= 100) {
		const at = digitsAt(day, 0, 4) * 12 + digitsAt(day, 5, 2) - 1 + months;
		const year = Math.floor(at / 12);
		if (year >= 100 && year <= 9999) return dayText(year, (at % 12) + 1, Math.min(digitsAt(day, 8, 2), daysInMonth(year, (at % 12) + 1)));
	}
	const [y, m, d] = day.split('-').map(Number);
	const first = new Date(Date.UTC(y, m - 1 + months, 1));
	const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
	return dayString(Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), Math.min(d, last)));
}

export function daysBetween(from: string, to: string): number {
	return Math.round((dayMs(to) - dayMs(from)) / DAY);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function digitsAt(text: string, from: number, count: number): number {
	let n = 0;
	for (let i = from; i < from + count; i++) n = n * 10 + text.charCodeAt(i) - 48;
	return n;
}

const isLeap = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
const daysInMonth = (year: number, month: number) => DAYS_IN_MONTH[month - 1] + (month === 2 && isLeap(year) ? 1 : 0);
const pad = (n: number, width: number) => String(n).padStart(width, '0');
const dayText = (year: number, month: number, day: number) => `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;

/**
 * The day `text` starts with (YYYY-MM-DD, anything may follow) as a number of days since
 * 1970-01-01, or undefined when it is not a day that exists. Arithmetic only (no Date, no string
 * built): list scans call it once per record.
 */
export function epochDay(text: string): number | undefined {
	if (!/^\d{4}-\d{2}-\d{2}/.test(text)) return undefined;
	const year = digitsAt(text, 0, 4);
	const month = digitsAt(text, 5, 2);
	const day = digitsAt(text, 8, 2);
	if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
	// Days from the civil calendar, counted in 400-year eras from March (the leap day last).
	const y = month <= 2 ? year - 1 : year;
	const era = Math.floor(y / 400);
	const yearOfEra = y - era * 400;
	const dayOfYear = Math.floor((153 * ((month + 9) % 12) + 2) / 5) + day - 1;
	return era * 146_097 + yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear - 719_468;
}

/** The first and last days written with four-digit years (0000-01-01, 9999-12-31), as epoch days. */
export const EPOCH_DAY_RANGE = { first: -719_528, last: 2_932_896 } as const;

/** YYYY-MM-DD of an epoch day within EPOCH_DAY_RANGE. */
export function dayOfEpochDay(days: number): string {
	return dayString(days * DAY);
}
