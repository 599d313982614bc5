/**
 * The trigger's memory between polls, kept in the workflow's static data (n8n stores it with the
 * workflow, so it survives restarts). Every part is bounded by a list the poll reads anyway,
 * never by the history of the account:
 *
 * - deviceOverdue: the ids of the devices on the overdue list at the last poll. A device is
 *   announced when it is on the list and was not at the last poll, so one that leaves the list
 *   (tested) and comes back later is announced again; one missing from a scan of several pages is
 *   forgotten only after a targeted read confirms it left (see events/deviceOverdue.ts). Bounded by the size of
 *   the overdue list.
 *   (A watermark cannot work here: a device enters the list when today passes its next test
 *   date, or when an edit moves that date into the past, so there is no ordered field to follow.)
 * - testResultNew: a window start day by upload time (`synced_time`: the upload day of the newest
 *   result seen) and the ids of the results uploaded inside the window, grouped by upload day so
 *   whole days drop out as the window moves on. A result is new when it is uploaded, whatever its
 *   test date; results uploaded before the window are never listed again, so forgetting them is
 *   safe. Bounded by about one day's uploads.
 * - projectUpdated: the newest `updated_time` seen and the ids of the projects updated at
 *   exactly that time (the boundary), so a project updated again later is announced again and
 *   one updated in the same second as the watermark is not lost. A few bytes.
 * - testResultNearLimit, deviceMeasurementDrift: the memory of testResultNew (without Only Failed
 *   Results), and per device with a new result its latest passed results' values per step
 *   (events/measuredAlerts.ts: at most MAX_KEPT_DEVICES devices, a few hundred bytes each), and per
 *   result held back (its detail could not be read) its device's kept values as they stood for it,
 *   for MAX_TRIES polls at most.
 * - deviceDueSoon: the latest day a poll ran on and, per due date still ahead, the ids emitted
 *   for it (events/deviceDueSoon.ts). Bounded by the devices due within the lead time.
 *
 * Ids are stored as sorted base-36 deltas with runs compressed ("rs,1*2r" = 100 consecutive ids
 * from 1000), about 1 to 4 characters per id.
 */
import type { IDataObject } from 'n8n-workflow';
import { isCalendarDate, type DeviceSeries } from '../../../client';
import type { TriggerEvent } from '../shared/events';

export const STATE_VERSION = 1;

interface StateBase extends IDataObject {
	v: number;
	event: TriggerEvent;
	/** Fingerprint of what the poll watches (event, filters as written, Only Failed Results, Lead Time). */
	key: string;
}

export interface OverdueState extends StateBase {
	event: 'deviceOverdue';
	/** Devices on the list at the last poll. */
	ids: string;
	/** Written empty: earlier versions kept devices missing once here (now confirmed by a targeted read). */
	gone: string;
}

export interface ResultsState extends StateBase {
	event: 'testResultNew';
	/** First upload day (synced_time, YYYY-MM-DD) the next poll asks for. */
	from: string;
	/** Upload day → ids of the results seen uploaded that day (earlier versions: test date). */
	seen: Record<string, string>;
	/** Include Failed Steps: results held back while their detail could not be read (trigger/failedSteps.ts). */
	pending?: StepsPending;
}

/** Result id → the polls that tried its detail, and the record to emit. Bounded: each leaves after a few polls. */
export type StepsPending = Record<string, { tries: number; record: IDataObject }>;

export interface ProjectsState extends StateBase {
	event: 'projectUpdated';
	/** Newest `updated_time` seen (as the service wrote it), null while there was no project. */
	at: string | null;
	/** Projects whose `updated_time` is exactly `at`. */
	ids: string;
}

export interface DueSoonState extends StateBase {
	event: 'deviceDueSoon';
	/** Latest day (YYYY-MM-DD) a poll ran on, in `zone`. */
	day: string;
	/** The time zone `day` is a day of; absent in a memory written before it was kept (a UTC day). */
	zone?: string;
	/** Due date → ids emitted for it. */
	emitted: Record<string, string>;
}

export interface MeasuredState extends StateBase {
	event: 'testResultNearLimit' | 'deviceMeasurementDrift';
	/** As ResultsState's. */
	from: string;
	seen: Record<string, string>;
	/** Device id → its kept values (client/measurementSeries.ts). */
	series: Record<string, DeviceSeries>;
	/** Results held back while their detail could not be read. */
	pending?: MeasuredPending;
}

/**
 * As StepsPending, with the device's kept values as they stood for the result when it was held back
 * (those of the results uploaded before it): its retry is fitted to them. Earlier versions kept
 * `keptBefore` (the kept result ids then: the retry leaves out those kept since) or neither.
 */
export type MeasuredPending = Record<string, { tries: number; record: IDataObject; series?: DeviceSeries; keptBefore?: number[] }>;

export type TriggerState = OverdueState | ResultsState | ProjectsState | DueSoonState | MeasuredState;

/** Sorted, unique, non-negative safe integers → compact text (see the file comment). */
export function encodeIds(ids: Iterable<number>): string {
	const sorted = [...new Set(ids)].filter((n) => Number.isSafeInteger(n) && n >= 0).sort((a, b) => a - b);
	const tokens: string[] = [];
	let previous = 0;
	let i = 0;
	while (i < sorted.length) {
		const delta = sorted[i] - previous;
		let run = 1;
		while (i + run < sorted.length && sorted[i + run] - sorted[i + run - 1] === delta) run++;
		// The first id is a delta from 0 and never part of a run of later deltas.
		if (tokens.length === 0 && run > 1) run = 1;
		tokens.push(run > 1 ? `${delta.toString(36)}*${run.toString(36)}` : delta.toString(36));
		previous = sorted[i + run - 1];
		i += run;
	}
	return tokens.join(',');
}

const TOKEN = /^([0-9a-z]+)(?:\*([0-9a-z]+))?$/;

/** The inverse of encodeIds; throws on anything it did not write. */
export function decodeIds(text: string): number[] {
	if (text === '') return [];
	const ids: number[] = [];
	let value = 0;
	for (const token of text.split(',')) {
		const m = TOKEN.exec(token);
		if (!m) throw new Error('unreadable id list');
		const delta = parseInt(m[1], 36);
		const run = m[2] === undefined ? 1 : parseInt(m[2], 36);
		if (ids.length > 0 && delta === 0) throw new Error('unreadable id list');
		for (let k = 0; k < run; k++) {
			value += delta;
			ids.push(value);
		}
	}
	if (!ids.every((n) => Number.isSafeInteger(n))) throw new Error('unreadable id list');
	return ids;
}

/** A short, stable fingerprint (FNV-1a, 2 × 32 bits) of what a poll watches. */
export function fingerprint(value: unknown): string {
	const text = JSON.stringify(value);
	let a = 0x811c9dc5;
	let b = 0x9747b28c;
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		a = Math.imul(a ^ c, 0x01000193) >>> 0;
		b = Math.imul(b ^ c ^ (i & 0xff), 0x01000193) >>> 0;
	}
	return `${a.toString(36)}${b.toString(36)}`;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function isString(v: unknown): v is string {
	return typeof v === 'string';
}

function isPending(v: unknown): v is StepsPending {
	if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
	return Object.values(v as IDataObject).every((p) => {
		const e = p as IDataObject | null;
		return !!e && typeof e === 'object' && Number.isSafeInteger(e.tries) && !!e.record && typeof e.record === 'object' && !Array.isArray(e.record);
	});
}

/** A held-back measured result's `series` and `keptBefore`: each absent, or kept values and result ids. */
function isHeldBackFit(p: unknown): boolean {
	const { series, keptBefore: kept } = p as IDataObject;
	return (series === undefined || isSeries(series)) && (kept === undefined || (Array.isArray(kept) && kept.every((id) => Number.isSafeInteger(id) && (id as number) > 0)));
}

function isObjectOf(v: unknown, each: (e: unknown) => boolean): boolean {
	return !!v && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every(each);
}

/** A device's kept values as client/measurementSeries.ts writes them. */
function isSeries(v: unknown): boolean {
	if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
	const s = v as IDataObject;
	const point = (p: unknown) => Array.isArray(p) && p.length === 6 && Number.isSafeInteger(p[0]) && isString(p[1]) && isCalendarDate(p[1]) && typeof p[2] === 'number';
	const result = (r: unknown) => Array.isArray(r) && r.length === 2 && Number.isSafeInteger(r[0]) && (r[0] as number) > 0 && isString(r[1]) && isCalendarDate(r[1]);
	return (s.results === undefined || (Array.isArray(s.results) && s.results.every(result))) && (s.failedOn === undefined || (isString(s.failedOn) && isCalendarDate(s.failedOn))) && (s.failedId === undefined || (Number.isSafeInteger(s.failedId) && (s.failedId as number) > 0)) && isObjectOf(s.steps, (points) => Array.isArray(points) && points.every(point));
}

/**
 * The stored memory under `key` (or, written by earlier versions, under `legacyKey`), and when
 * one was stored but is not taken up, why: the settings that decide what is watched changed
 * (another event or key), or it cannot be read.
 */
export function recall(stored: unknown, event: TriggerEvent, key: string, legacyKey: string): { state?: TriggerState; dropped?: 'settings' | 'unreadable' } {
	if (stored === undefined || stored === null) return {};
	const state = readState(stored, event, key) ?? readState(stored, event, legacyKey);
	if (state) return { state };
	const s = (typeof stored === 'object' ? stored : {}) as IDataObject;
	const ours = s.event === event && (s.key === key || s.key === legacyKey);
	return { dropped: ours ? 'unreadable' : 'settings' };
}

/**
 * The stored state when it belongs to this event and these settings and is readable; otherwise
 * undefined, and the poll starts over from "now" (no flood of history).
 */
export function readState(stored: unknown, event: TriggerEvent, key: string): TriggerState | undefined {
	if (!stored || typeof stored !== 'object' || Array.isArray(stored)) return undefined;
	const s = stored as IDataObject;
	if (s.v !== STATE_VERSION || s.event !== event || s.key !== key) return undefined;
	try {
		if (event === 'deviceOverdue' && isString(s.ids) && isString(s.gone)) {
			decodeIds(s.ids);
			decodeIds(s.gone);
			return s as OverdueState;
		}
		if (event === 'testResultNew' && isString(s.from) && DAY.test(s.from) && s.seen && typeof s.seen === 'object') {
			for (const [day, ids] of Object.entries(s.seen as IDataObject)) {
				if (!DAY.test(day) || !isString(ids)) return undefined;
				decodeIds(ids);
			}
			if (s.pending !== undefined && !isPending(s.pending)) return undefined;
			return s as ResultsState;
		}
		if ((event === 'testResultNearLimit' || event === 'deviceMeasurementDrift') && isString(s.from) && DAY.test(s.from) && isObjectOf(s.seen, isString) && isObjectOf(s.series, isSeries)) {
			for (const ids of Object.values(s.seen as IDataObject)) decodeIds(ids as string);
			if (s.pending !== undefined && !(isPending(s.pending) && Object.values(s.pending).every(isHeldBackFit))) return undefined;
			return s as MeasuredState;
		}
		if (event === 'projectUpdated' && (s.at === null || (isString(s.at) && !Number.isNaN(Date.parse(s.at)))) && isString(s.ids)) {
			decodeIds(s.ids);
			return s as ProjectsState;
		}
		if (event === 'deviceDueSoon' && isString(s.day) && isCalendarDate(s.day) && (s.zone === undefined || isString(s.zone)) && s.emitted && typeof s.emitted === 'object') {
			for (const [due, ids] of Object.entries(s.emitted as IDataObject)) {
				if (!isCalendarDate(due) || !isString(ids)) return undefined;
				decodeIds(ids);
			}
			return s as DueSoonState;
		}
	} catch {
		return undefined;
	}
	return undefined;
}
