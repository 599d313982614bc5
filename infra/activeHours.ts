/**
 * The UTC hours in which a schedule with local active hours `H-H` (inclusive, in `timeZone`)
 * runs throughout, in every season: a UTC hour counts when its first and last minute fall in the
 * active hours with the zone's offset in January and in July, so neither a daylight-saving shift
 * nor a half-hour offset makes the heartbeat expect a run that is not scheduled.
 * `*` (all day) gives undefined: a run is expected in every hour.
 */
export function activeUtcHours(activeHours: string, timeZone: string): number[] | undefined {
	if (activeHours === '*') return undefined;
	const [start, end] = activeHours.split('-').map(Number);
	const year = new Date().getUTCFullYear();
	const offsets = [0, 6].map((month) => offsetMinutes(Date.UTC(year, month, 15, 12), timeZone));
	const active = (utcMinute: number, offset: number) => {
		const hour = Math.floor((((utcMinute + offset) % 1440) + 1440) % 1440 / 60);
		return hour >= start && hour <= end;
	};
	return Array.from({ length: 24 }, (_, h) => h).filter((h) => offsets.every((o) => active(h * 60, o) && active(h * 60 + 59, o)));
}

/** The zone's offset from UTC in minutes at an instant (e.g. 60 for Europe/Berlin in winter). */
function offsetMinutes(at: number, timeZone: string): number {
	const parts = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' }).formatToParts(at);
	const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
	return (Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute')) - at) / 60_000;
}
