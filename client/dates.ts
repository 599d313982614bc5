/** Calendar-day helpers; days are strings YYYY-MM-DD in UTC. */
const DAY = 86_400_000;

export function dayString(ms: number): string {
	return new Date(ms).toISOString().slice(0, 10);
}

export function isoTime(ms: number): string {
	return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export function dayMs(day: string): number {
	return Date.parse(`${day}T00:00:00Z`);
}

export function addDays(day: string, days: number): string {
	return dayString(dayMs(day) + days * DAY);
}

/** Adds months, clamping to the last day of the month (2026-01-31 + 1 = 2026-02-28). */
export function addMonths(day: string, months: number): string {
	const [y, m, d] = day.split('-').map(Number);
	const first = new Date(Date.UTC(y, m - 1 + months, 1));
	const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
	return dayString(Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), Math.min(d, last)));
}

export function daysBetween(from: string, to: string): number {
	return Math.round((dayMs(to) - dayMs(from)) / DAY);
}
