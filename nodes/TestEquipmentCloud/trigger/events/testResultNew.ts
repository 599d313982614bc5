import type { IDataObject } from 'n8n-workflow';
import { addDays, dayString, type FilterInput } from '../../../../client';
import { firstRecord, isFailed, output, recordId, refuseFilterOn, scan, type PollOutcome, type PollRun, type PollSettings } from '../run';
import { STATE_VERSION, decodeIds, encodeIds, type ResultsState } from '../state';

/** Event "testResultNew": a test result uploaded since the last poll (only failed ones on request). */

const SYNCED_TIME = 'synced_time';

/** The query of the test results the settings select (without the window). */
function resultFilters(settings: PollSettings): FilterInput[] {
	const filters = [...settings.filters];
	// "Only Failed Results" is asked of the service unless a filter on status is already there
	// (then it is applied to what that filter returns).
	if (settings.onlyFailed && !filters.some((f) => String(f.key) === 'status')) {
		filters.push({ key: 'status', conditions: [{ keyword: 'equals', value: 'failed' }] });
	}
	return filters;
}


/**
 * Results are followed by upload time (`synced_time`, day-granular filter; ASSUMED: the service
 * stamps it with its own clock at upload, and ids are given at upload so id order lists new
 * uploads last). A result dated on any day is new when it is uploaded. The window starts at the
 * upload day of the newest result seen, less SETTLE_MS for uploads that become visible late.
 */
const SETTLE_MS = 10 * 60_000;
/**
 * How far the service's upload stamps may run ahead of this host's clock. A result stamped later
 * (a wrong clock at upload) is emitted, but the window never follows it: it would hide every
 * upload until that day.
 */
const AHEAD_MS = 60 * 60_000;

export async function pollResults(run: PollRun, previous: ResultsState | undefined): Promise<PollOutcome> {
	const { settings } = run;
	refuseFilterOn(settings.filters, SYNCED_TIME, 'the trigger follows it to find new uploads');
	const today = dayString(run.now());
	// Only the first poll reads the clock: it remembers the recent uploads without emitting them.
	const from = previous ? previous.from : addDays(today, -settings.lookbackDays);
	const seen = new Map<string, Set<number>>();
	const known = new Set<number>();
	for (const [day, text] of Object.entries(previous?.seen ?? {})) {
		const ids = decodeIds(text);
		seen.set(day, new Set(ids));
		for (const id of ids) known.add(id);
	}
	const remember = (day: string, id: number) => {
		let ids = seen.get(day);
		if (!ids) seen.set(day, (ids = new Set()));
		ids.add(id);
	};
	const filters = [...resultFilters(settings), { key: SYNCED_TIME, conditions: [{ keyword: 'newerOrSame', value: from }] }];
	const emitted: IDataObject[] = [];
	const inThisPoll = new Set<number>();
	let newest: number | undefined;
	const now = run.now();
	const latest = now + AHEAD_MS;
	const { complete } = await scan(
		run,
		'testResult.list',
		{ filters, ordering: { key: 'id', direction: 'asc' } },
		previous !== undefined,
		(records) => {
			for (const record of records) {
				const id = recordId(record);
				const synced = typeof record[SYNCED_TIME] === 'string' ? Date.parse(record[SYNCED_TIME] as string) : NaN;
				if (id === undefined || Number.isNaN(synced) || inThisPoll.has(id)) continue;
				inThisPoll.add(id);
				const day = dayString(synced);
				if (day < from) continue; // not asked for; never listed again
				if (synced > latest && !known.has(id)) {
					run.onWarning?.(`Test result ${id} was uploaded at ${String(record[SYNCED_TIME])}, later than now: emitted, but the trigger's window stays at today (check the clock of the equipment or service that uploaded it)`);
				}
				// The window never starts after today, even for a stamp within AHEAD_MS: at 23:30 the
				// hour ahead is tomorrow, and the rest of today's uploads would never be listed.
				const stamp = Math.min(synced, now);
				if (newest === undefined || stamp > newest) newest = stamp;
				// Every listed id is kept under its upload day, so it stays known while it is listed.
				remember(day, id);
				if (known.has(id)) continue;
				known.add(id);
				if (previous && (!settings.onlyFailed || isFailed(record))) emitted.push(record);
			}
		},
	);
	// Only a complete scan moves the window, to the upload day of the newest result (from the
	// service's stamps, not this host's clock).
	let next = from;
	if (complete && newest !== undefined) {
		const candidate = dayString(newest - SETTLE_MS);
		if (candidate > next) next = candidate;
	}
	const kept: Record<string, string> = {};
	for (const day of [...seen.keys()].sort()) {
		if (day >= next && seen.get(day)!.size > 0) kept[day] = encodeIds(seen.get(day)!);
	}
	return {
		items: output(emitted, settings),
		state: { v: STATE_VERSION, event: 'testResultNew', key: run.key, from: next, seen: kept },
	};
}

/** "Fetch Test Event": the newest result the settings select. */
export async function resultsSample(run: PollRun): Promise<IDataObject | undefined> {
	const { settings } = run;
	return await firstRecord(run, 'testResult.list', { filters: resultFilters(settings), ordering: { key: 'id', direction: 'desc' } }, (r) => !settings.onlyFailed || isFailed(r));
}
