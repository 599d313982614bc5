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
	const offsets = seasonOffsets(timeZone);
	const active = (utcMinute: number, offset: number) => {
		const hour = Math.floor((((utcMinute + offset) % 1440) + 1440) % 1440 / 60);
		return hour >= start && hour <= end;
	};
	return Array.from({ length: 24 }, (_, h) => h).filter((h) => offsets.every((o) => active(h * 60, o) && active(h * 60 + 59, o)));
}

/**
 * The UTC periods (their first minute of the day, periods of `periodMinutes` from midnight UTC) that
 * hold a scheduled run in every season: a run starts at each of `runMinutes` (local minutes past
 * the hour) of each active hour; a period counts when, with the zone's offset in January and in
 * July alike, a run starts in it. Half-hour zones and daylight saving leave periods that hold a run
 * only part of the year out, and always leave some in (active hours span two hours or more).
 * `*` (all day) gives undefined: a run is expected in every period.
 */
export function activeUtcPeriods(activeHours: string, timeZone: string, periodMinutes: number, runMinutes: readonly number[]): number[] | undefined {
	if (activeHours === '*') return undefined;
	const [start, end] = activeHours.split('-').map(Number);
	const sets = seasonOffsets(timeZone).map((offset) => {
		const out = new Set<number>();
		for (let h = start; h <= end; h++) for (const m of runMinutes) out.add(Math.floor((((h * 60 + m - offset) % 1440) + 1440) % 1440 / periodMinutes) * periodMinutes);
		return out;
	});
	const periods = [...sets[0]].filter((p) => sets.every((s) => s.has(p))).sort((a, b) => a - b);
	if (periods.length === 0) throw new Error(`activeHours ${activeHours} in ${timeZone}: no ${periodMinutes}-minute period holds a run in every season; widen activeHours`);
	return periods;
}

/**
 * A metric math condition that holds in the given UTC periods of `x`: a whole hour as `HOUR(x) == h`,
 * a part of an hour by its minutes.
 */
export function periodsCondition(periods: readonly number[], periodMinutes: number, x: string): string {
	const byHour = new Map<number, number[]>();
	for (const p of periods) byHour.set(Math.floor(p / 60), [...(byHour.get(Math.floor(p / 60)) ?? []), p % 60]);
	const terms: string[] = [];
	for (const [h, minutes] of byHour) {
		if (periodMinutes >= 60 || minutes.length === 60 / periodMinutes) {
			terms.push(`HOUR(${x}) == ${h}`);
			continue;
		}
		// Runs of consecutive periods within the hour.
		let from = minutes[0];
		minutes.forEach((m, i) => {
			const next = minutes[i + 1];
			if (next === m + periodMinutes) return;
			terms.push(`(HOUR(${x}) == ${h} AND MINUTE(${x}) >= ${from} AND MINUTE(${x}) <= ${m})`);
			from = next;
		});
	}
	return terms.join(' OR ');
}

function seasonOffsets(timeZone: string): number[] {
	const year = new Date().getUTCFullYear();
	return [0, 6].map((month) => offsetMinutes(Date.UTC(year, month, 15, 12), timeZone));
}

/** The zone's offset from UTC in minutes at an instant (e.g. 60 for Europe/Berlin in winter). */
function offsetMinutes(at: number, timeZone: string): number {
	const parts = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' }).formatToParts(at);
	const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
	return (Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute')) - at) / 60_000;
}
