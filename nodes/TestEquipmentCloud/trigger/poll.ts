import type { IDataObject } from 'n8n-workflow';
import {
	MAX_LIMIT,
	ValidationError,
	addDays,
	dayString,
	type FilterInput,
	type ListQuery,
	type OperationId,
	type ServiceClient,
} from '../../../client';
import { simplifyRecord } from '../shared/records';
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
}

/**
 * The trigger reads whole lists (the overdue list, the results inside the window, the projects
 * updated since the watermark day): large pages keep that to few requests at 5 per second.
 */
export const SCAN_PAGE_SIZE = MAX_LIMIT;

const TEST_DATE = 'test_date';
const UPDATED_TIME = 'updated_time';

function isObject(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The record's id as a number; undefined when it has none the trigger can remember. */
function recordId(record: IDataObject): number | undefined {
	const id = record.id;
	const n = typeof id === 'number' ? id : typeof id === 'string' && /^\d+$/.test(id) ? Number(id) : NaN;
	return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
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
 * Pages through a list; `onPage` sees each page. Returns false when it stopped before the end
 * because the poll's time budget ran out (only when `stoppable`).
 */
async function scan(
	run: PollRun,
	operation: OperationId,
	query: ListQuery,
	stoppable: boolean,
	onPage: (records: IDataObject[]) => void,
): Promise<{ complete: boolean; pages: number }> {
	let pages = 0;
	for await (const page of run.client.pages(operation, query, { pageSize: SCAN_PAGE_SIZE })) {
		pages++;
		onPage(page.filter(isObject));
		if (stoppable && run.deadline !== undefined && run.now() > run.deadline) return { complete: false, pages };
	}
	return { complete: true, pages };
}

function output(records: IDataObject[], settings: PollSettings): IDataObject[] {
	return settings.simplify ? records.map((r) => simplifyRecord(r) as IDataObject) : records;
}

// ---- deviceOverdue ----------------------------------------------------------------------------

async function pollOverdue(run: PollRun, previous: OverdueState | undefined): Promise<PollOutcome> {
	const before = previous ? new Set(decodeIds(previous.ids)) : undefined;
	const goneBefore = previous ? new Set(decodeIds(previous.gone)) : new Set<number>();
	const listed = new Set<number>();
	const entered: IDataObject[] = [];
	// A first poll always reads the whole list: it is what later polls compare with.
	const { complete, pages } = await scan(run, 'overdueDevice.list', { filters: run.settings.filters }, previous !== undefined, (records) => {
		for (const record of records) {
			const id = recordId(record);
			if (id === undefined || listed.has(id)) continue;
			listed.add(id);
			if (before && !before.has(id)) entered.push(record);
		}
	});
	let ids: Set<number>;
	let gone = new Set<number>();
	if (!before || (complete && pages <= 1)) {
		// One page is a snapshot: whatever is not on it has left the list.
		ids = listed;
	} else {
		// Pages read one after another can shift while devices leave the list, so a device
		// missing from a longer scan is kept for one more scan before it counts as gone (else it
		// could be announced twice). A scan cut short by the time budget forgets nothing.
		ids = new Set(listed);
		for (const id of before) {
			if (listed.has(id)) continue;
			if (!complete || !goneBefore.has(id)) {
				ids.add(id);
				if (complete) gone.add(id);
			}
		}
		if (!complete) gone = new Set([...goneBefore].filter((id) => !listed.has(id)));
	}
	return {
		items: output(entered, run.settings),
		state: { v: STATE_VERSION, event: 'deviceOverdue', key: run.key, ids: encodeIds(ids), gone: encodeIds(gone) },
	};
}

// ---- testResultNew ----------------------------------------------------------------------------

async function pollResults(run: PollRun, previous: ResultsState | undefined): Promise<PollOutcome> {
	const { settings } = run;
	const today = dayString(run.now());
	const from = previous ? previous.from : addDays(today, -settings.lookbackDays);
	const seen = new Map<string, Set<number>>();
	const known = new Set<number>();
	for (const [day, text] of Object.entries(previous?.seen ?? {})) {
		const ids = decodeIds(text);
		seen.set(day, new Set(ids));
		for (const id of ids) known.add(id);
	}
	const filters = [...resultFilters(settings), { key: TEST_DATE, conditions: [{ keyword: 'newerOrSame', value: from }] }];
	const emitted: IDataObject[] = [];
	const { complete } = await scan(
		run,
		'testResult.list',
		// In id order new uploads come last, so pages do not shift while results arrive.
		{ filters, ordering: { key: 'id', direction: 'asc' } },
		previous !== undefined,
		(records) => {
			for (const record of records) {
				const id = recordId(record);
				if (id === undefined || known.has(id)) continue;
				const testDate = typeof record.test_date === 'string' ? record.test_date.slice(0, 10) : '';
				const day = /^\d{4}-\d{2}-\d{2}$/.test(testDate) ? testDate : today;
				if (day < from) continue; // not asked for; never listed again
				known.add(id);
				let ids = seen.get(day);
				if (!ids) seen.set(day, (ids = new Set()));
				ids.add(id);
				if (previous && (!settings.onlyFailed || isFailed(record))) emitted.push(record);
			}
		},
	);
	// Only a complete scan moves the window: the next poll starts lookback days before today.
	let next = from;
	if (complete) {
		const candidate = addDays(today, -settings.lookbackDays);
		if (candidate > next) next = candidate; // a longer lookback never reaches back before what was seen
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
	}
}

/** "Fetch Test Event": the newest matching record, new or not. */
export async function fetchSample(run: PollRun): Promise<IDataObject | undefined> {
	const { settings } = run;
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
