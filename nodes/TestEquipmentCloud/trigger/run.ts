import type { IDataObject } from 'n8n-workflow';
import { STOPPED_READING, ValidationError, dayString, type FilterInput, type ListQuery, type OperationId, type ServiceClient } from '../../../client';
import { simplifyRecord } from '../shared/records';
import type { TriggerEvent } from '../shared/events';
import { scanOptions } from './scan';
import type { TriggerState } from './state';

/**
 * What every event's poll shares: the run it is given, the scan of a whole list with overlapping
 * pages, and the checks on single records. Each event's poll lives in events/<event>.ts.
 */

/** What one poll watches, read from the node's parameters. */
export interface PollSettings {
	event: TriggerEvent;
	filters: FilterInput[];
	onlyFailed: boolean;
	lookbackDays: number;
	simplify: boolean;
	/** deviceDueSoon: days before the due date. */
	leadDays?: number;
	/** testResultNearLimit: the share of its limit at or above which a measured step triggers. */
	threshold?: number;
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
	/** The workflow's time zone (`getTimezone()`): "today" is the day there (client/dates.ts, todayOf). */
	timeZone: string;
	/** Stop paging after this time (n8n's poll budget); undefined = no limit. */
	deadline?: number;
	/** Told of each record skipped as unreadable (position in the list, why); it is never emitted. */
	onUnreadable?: (position: number, reason: string) => void;
	/** Told when a scan ends before the list's end (odd answers from the service), and why. */
	onIncomplete?: (reason: string, detail: string) => void;
	/** Told of what the poll handled but the workflow's owner should know (a result stamped in the future). */
	onWarning?: (message: string) => void;
	/** Told of a result held back for the next poll (its detail could not be read). */
	onHeldBack?: (id: string, tries: number, reason: string) => void;
}

export function isObject(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The record's id as a number; undefined when it has none the trigger can remember. */
export function recordId(record: IDataObject): number | undefined {
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
export function refuseFilterOn(filters: FilterInput[], field: string, why: string): void {
	if (filters.some((f) => String(f.key) === field)) {
		throw new ValidationError('Filters', `${field} cannot be filtered in this trigger: ${why}`);
	}
}

export function isFailed(record: IDataObject): boolean {
	return typeof record.status === 'string' && record.status.toLowerCase() === 'failed';
}

/**
 * Pages through a list (with an overlap at page boundaries); `onPage` sees each page. `complete`
 * is true only when the list was read to its normal end: not when the poll's time budget ran out
 * (only when `stoppable`) and not when paging stopped on an odd answer.
 */
export async function scan(
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

export function output(records: IDataObject[], settings: PollSettings): IDataObject[] {
	return settings.simplify ? records.map((r) => simplifyRecord(r) as IDataObject) : records;
}

/** "Fetch Test Event": the first record of the list that `wanted` accepts, new or not. */
export async function firstRecord(run: PollRun, operation: OperationId, query: ListQuery, wanted: (record: IDataObject) => boolean): Promise<IDataObject | undefined> {
	for await (const page of run.client.pages(operation, query, { maxItems: 5 })) {
		const record = page.filter(isObject).find(wanted);
		if (record) return output([record], run.settings)[0];
	}
	return undefined;
}
