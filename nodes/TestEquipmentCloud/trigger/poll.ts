import type { IDataObject } from 'n8n-workflow';
import {
	STOPPED_READING,
	ValidationError,
	addDays,
	checkStillOverdue,
	dayString,
	laterDay,
	serviceTodayOf,
	type FilterInput,
	type ListQuery,
	type OperationId,
	type ServiceClient,
} from '../../../client';
import { scanOptions } from './scan';
import { simplifyRecord } from '../shared/records';
import { fetchDueSoonSample, pollDueSoon, type DueSoonState } from './dueSoon';
import { EVENT_LIST, type TriggerEvent } from '../shared/events';
import {
	STATE_VERSION,
	decodeIds,
	encodeIds,
	type OverdueState,
	type ProjectsState,
	type ResultsState,
	type TriggerState,
} from './state';

/** What one poll watches, read from the node's parameters. */
export interface PollSettings {
	event: TriggerEvent;
	filters: FilterInput[];
	onlyFailed: boolean;
	lookbackDays: number;
	simplify: boolean;
	/** deviceDueSoon: days before the due date. */
	leadDays?: number;
}

export interface PollOutcome {
	items: IDataObject[];
	state: TriggerState;
}

export interface PollRun {
	client: ServiceClient;
	settings: PollSettings;
	/** Fingerprint stored with the state. */
	key: string;
	now: () => number;
	/** Stop paging after this time (n8n's poll budget); undefined = no limit. */
	deadline?: number;
	/** Told of each record skipped as unreadable (position in the list, why); it is never emitted. */
	onUnreadable?: (position: number, reason: string) => void;
	/** Told when a scan ends before the list's end (odd answers from the service), and why. */
	onIncomplete?: (reason: string, detail: string) => void;
}


/** Targeted reads per poll to confirm that devices left the overdue list; the rest wait. */
export const MAX_CONFIRMATIONS = 100;

const TEST_DATE = 'test_date';
const UPDATED_TIME = 'updated_time';
const SYNCED_TIME = 'synced_time';

function isObject(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The record's id as a number; undefined when it has none the trigger can remember. */
function recordId(record: IDataObject): number | undefined {
	const id = record.id;
	const n = typeof id === 'number' ? id : typeof id === 'string' && /^\d+$/.test(id) ? Number(id) : NaN;
	return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** A calendar day YYYY-MM-DD (a time may follow) that exists. */
function isCalendarDay(value: unknown): boolean {
	if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}(?:$|[T ])/.test(value)) return false;
	const ms = Date.parse(`${value.slice(0, 10)}T00:00:00Z`);
	return !Number.isNaN(ms) && dayString(ms) === value.slice(0, 10);
}

/** The records of a page the trigger can use; one bad record is skipped (and reported), never emitted. */
function readable(run: PollRun, operation: OperationId, page: unknown[], first: number): IDataObject[] {
	const records: IDataObject[] = [];
	for (const [i, record] of page.entries()) {
		const reason = !isObject(record)
			? 'not an object'
			: recordId(record) === undefined
				? `id is not a positive whole number: ${JSON.stringify(record.id) ?? 'none'}`
				: operation === 'testResult.list' && !isCalendarDay(record.test_date)
					? `test_date is not a date: ${JSON.stringify(record.test_date) ?? 'none'}`
					: undefined;
		if (reason === undefined) records.push(record as IDataObject);
		else run.onUnreadable?.(first + i, reason);
	}
	return records;
}

/** Refuses a filter on the field the trigger itself uses to follow the list. */
function refuseFilterOn(filters: FilterInput[], field: string, why: string): void {
	if (filters.some((f) => String(f.key) === field)) {
		throw new ValidationError('Filters', `${field} cannot be filtered in this trigger: ${why}`);
	}
}

function isFailed(record: IDataObject): boolean {
	return typeof record.status === 'string' && record.status.toLowerCase() === 'failed';
}

/** The query of the test results the settings select (without the window). */
function resultFilters(settings: PollSettings): FilterInput[] {
	refuseFilterOn(settings.filters, TEST_DATE, 'the trigger asks for the results dated inside its lookback window');
	const filters = [...settings.filters];
	// "Only Failed Results" is asked of the service unless a filter on status is already there
	// (then it is applied to what that filter returns).
	if (settings.onlyFailed && !filters.some((f) => String(f.key) === 'status')) {
		filters.push({ key: 'status', conditions: [{ keyword: 'equals', value: 'failed' }] });
	}
	return filters;
}

/**
 * Pages through a list (with an overlap at page boundaries); `onPage` sees each page. `complete`
 * is true only when the list was read to its normal end: not when the poll's time budget ran out
 * (only when `stoppable`) and not when paging stopped on an odd answer.
 */
async function scan(
	run: PollRun,
	operation: OperationId,
	query: ListQuery,
	stoppable: boolean,
	onPage: (records: IDataObject[]) => void,
): Promise<{ complete: boolean; pages: number }> {
	let pages = 0;
	let position = 0;
	const reader = run.client.pages(operation, query, scanOptions(run.client));
	for (;;) {
		const next = await reader.next();
		// Odd answers from the service end the scan incomplete: nothing may count as gone.
		if (next.done) {
			if (!next.value.complete) run.onIncomplete?.(next.value.reason, next.value.detail);
			return { complete: next.value.complete, pages };
		}
		onPage(readable(run, operation, next.value, position));
		position += next.value.length;
		pages++;
		if (stoppable && run.deadline !== undefined && run.now() > run.deadline) {
			await reader.return(STOPPED_READING);
			return { complete: false, pages };
		}
	}
}

function output(records: IDataObject[], settings: PollSettings): IDataObject[] {
	return settings.simplify ? records.map((r) => simplifyRecord(r) as IDataObject) : records;
}

// ---- deviceOverdue ----------------------------------------------------------------------------

async function pollOverdue(run: PollRun, previous: OverdueState | undefined): Promise<PollOutcome> {
	const before = previous ? new Set(decodeIds(previous.ids)) : undefined;
	const listed = new Set<number>();
	const entered: IDataObject[] = [];
	let serviceToday: string | undefined;
	// A first poll always reads the whole list: it is what later polls compare with.
	const { complete, pages } = await scan(run, 'overdueDevice.list', { filters: run.settings.filters }, previous !== undefined, (records) => {
		for (const record of records) {
			serviceToday = laterDay(serviceToday, serviceTodayOf(record));
			const id = recordId(record);
			if (id === undefined || listed.has(id)) continue;
			listed.add(id);
			if (before && !before.has(id)) entered.push(record);
		}
	});
	const ids = new Set(listed);
	if (before) {
		// A device missing from the scan is forgotten (so that its return is emitted) only when it
		// has really left: a scan of one page is a snapshot; in a longer one the list can shift
		// under the cursor, so each is confirmed with a targeted read (client/overdue.ts). One still
		// overdue is kept: with filters, a device that left only the filtered list stays remembered
		// while it is overdue. A scan that did not end normally forgets nothing.
		let reads = 0;
		for (const id of before) {
			if (listed.has(id)) continue;
			if (!complete) {
				ids.add(id);
				continue;
			}
			if (pages <= 1) continue;
			const deadlinePassed = run.deadline !== undefined && run.now() > run.deadline;
			if (reads >= MAX_CONFIRMATIONS || deadlinePassed || (await checkStillOverdue(run.client, id, serviceToday)) !== 'left') ids.add(id);
			reads++;
		}
	}
	return {
		items: output(entered, run.settings),
		state: { v: STATE_VERSION, event: 'deviceOverdue', key: run.key, ids: encodeIds(ids), gone: '' },
	};
}

// ---- testResultNew ----------------------------------------------------------------------------

/**
 * Results are followed by upload time (`synced_time`, day-granular filter; ASSUMED: the service
 * stamps it with its own clock at upload, and ids are given at upload so id order lists new
 * uploads last). A result dated on any day is new when it is uploaded. The window starts at the
 * upload day of the newest result seen, less SETTLE_MS for uploads that become visible late.
 */
const SETTLE_MS = 10 * 60_000;

async function pollResults(run: PollRun, previous: ResultsState | undefined): Promise<PollOutcome> {
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
				if (newest === undefined || synced > newest) newest = synced;
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

// ---- projectUpdated ---------------------------------------------------------------------------

async function pollProjects(run: PollRun, previous: ProjectsState | undefined): Promise<PollOutcome> {
	const { settings } = run;
	refuseFilterOn(settings.filters, UPDATED_TIME, 'the trigger follows it to find updated projects');
	const mark = previous?.at ? Date.parse(previous.at) : undefined;
	const atMark = new Set(previous ? decodeIds(previous.ids) : []);
	const filters = [...settings.filters];
	if (previous?.at) filters.push({ key: UPDATED_TIME, conditions: [{ keyword: 'newerOrSame', value: previous.at.slice(0, 10) }] });

	let newest = mark;
	let newestText = previous?.at ?? null;
	let atNewest = new Set(atMark);
	const emitted: IDataObject[] = [];
	const inThisPoll = new Set<number>();
	// Read to the end every time (the projects updated since the watermark day, in id order,
	// which updates do not reorder): the watermark may only move after a complete read.
	await scan(run, 'project.list', { filters, ordering: { key: 'id', direction: 'asc' } }, false, (records) => {
		for (const record of records) {
			const id = recordId(record);
			const text = typeof record[UPDATED_TIME] === 'string' ? (record[UPDATED_TIME] as string) : '';
			const time = Date.parse(text);
			if (id === undefined || Number.isNaN(time) || inThisPoll.has(id)) continue;
			inThisPoll.add(id);
			const isNew = mark === undefined ? previous !== undefined : time > mark || (time === mark && !atMark.has(id));
			if (isNew) emitted.push(record);
			if (newest === undefined || time > newest) {
				newest = time;
				newestText = text;
				atNewest = new Set([id]);
			} else if (time === newest) {
				atNewest.add(id);
			}
		}
	});
	return {
		items: emitted,
		state: { v: STATE_VERSION, event: 'projectUpdated', key: run.key, at: newestText, ids: encodeIds(atNewest) },
	};
}

/** One poll of an active workflow: the new items and the state to keep (not stored yet). */
export async function pollEvent(run: PollRun, previous: TriggerState | undefined): Promise<PollOutcome> {
	switch (run.settings.event) {
		case 'deviceOverdue':
			return await pollOverdue(run, previous as OverdueState | undefined);
		case 'testResultNew':
			return await pollResults(run, previous as ResultsState | undefined);
		case 'projectUpdated':
			return await pollProjects(run, previous as ProjectsState | undefined);
		case 'deviceDueSoon':
			return await pollDueSoon(run, previous as DueSoonState | undefined);
	}
}

/** "Fetch Test Event": the newest matching record, new or not. */
export async function fetchSample(run: PollRun): Promise<IDataObject | undefined> {
	const { settings } = run;
	if (settings.event === 'deviceDueSoon') return await fetchDueSoonSample(run);
	const query: ListQuery =
		settings.event === 'testResultNew'
			? { filters: resultFilters(settings), ordering: { key: 'id', direction: 'desc' } }
			: settings.event === 'projectUpdated'
				? { filters: settings.filters, ordering: { key: UPDATED_TIME, direction: 'desc' } }
				: { filters: settings.filters };
	for await (const page of run.client.pages(EVENT_LIST[settings.event], query, { maxItems: 5 })) {
		const record = page.filter(isObject).find((r) => settings.event !== 'testResultNew' || !settings.onlyFailed || isFailed(r));
		if (record) return output([record], settings)[0];
	}
	return undefined;
}
