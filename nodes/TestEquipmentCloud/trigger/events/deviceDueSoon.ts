import type { IDataObject } from 'n8n-workflow';
import { STOPPED_READING, ValidationError, addDays, daysBetween, findPropertyKey, isCalendarDate, missingRole, roleValue, todayOf, type ListQuery, type PageOptions, type ServiceClient, type ServiceProfile } from '../../../../client';
import type { PollOutcome, PollRun } from '../run';
import { scanOptions } from '../scan';
import { STATE_VERSION, decodeIds, encodeIds, type DueSoonState } from '../state';

/**
 * Event "deviceDueSoon": a device whose next test date is at most Lead Time days away, emitted
 * once per device and due date. Read from the device list with a date-range filter on the
 * account's next-test-date property, in that date's order. Emitted from the record itself (its
 * own next test date), never from an absence, so a list that shifts while it is paged can delay
 * an item to the next poll but never emit a wrong one. A device tested before its due date has a
 * new date and is emitted again when that one comes near; one whose date passes leaves this
 * event for "Device Overdue".
 *
 * Today is the day in the workflow's time zone, as the filters' (client/dates.ts, todayOf).
 * State: the latest day a poll has seen and its time zone (a clock set back does not bring passed
 * dates back; a day of another zone, or a UTC day of a memory without one, is no floor) and, per
 * due date still ahead, the ids already emitted. Bounded by the devices due within the lead time.
 */
export const DEFAULT_LEAD_DAYS = 30;
/** The key id of the account's next-test-date property. */
async function nextTestKey(client: ServiceClient): Promise<number> {
	const want = { resource: 'device', dataType: 'Date' } as const;
	const key = await findPropertyKey(client, 'nextTestDate', want);
	if (key === undefined) throw new ValidationError('Event', `Device Due Soon needs the next test date: ${missingRole(client.profile, 'nextTestDate', want)}`);
	return key;
}

/** The device's next test date as its record gives it (the property holding the role). */
function nextTestOf(record: IDataObject, profile: ServiceProfile): string | undefined {
	const value = roleValue(record, 'nextTestDate', profile);
	return typeof value === 'string' && isCalendarDate(value.slice(0, 10)) ? value.slice(0, 10) : undefined;
}

function recordId(record: IDataObject): number | undefined {
	const n = typeof record.id === 'number' ? record.id : typeof record.id === 'string' && /^\d+$/.test(record.id) ? Number(record.id) : NaN;
	return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

async function query(run: PollRun, today: string): Promise<ListQuery> {
	const key = await nextTestKey(run.client);
	if (run.settings.filters.some((f) => String(f.key) === String(key))) {
		throw new ValidationError('Filters', 'the next test date cannot be filtered in this trigger: it asks for the devices due within the lead time');
	}
	return {
		filters: [
			...run.settings.filters,
			{ key, join: 'AND', conditions: [{ keyword: 'newerOrSame', value: today }, { keyword: 'olderOrSame', value: addDays(today, run.settings.leadDays ?? DEFAULT_LEAD_DAYS) }] },
		],
		ordering: { key, direction: 'asc' },
	};
}

/** The record with its due date and days left, as the workflow gets it. */
function item(record: IDataObject, due: string, today: string): IDataObject {
	return { ...record, next_test_date: due, days_left: daysBetween(today, due) };
}

export async function pollDueSoon(run: PollRun, previous: DueSoonState | undefined): Promise<PollOutcome> {
	const clockDay = todayOf(run.now(), run.timeZone);
	// The latest day seen is a floor only in the zone it was a day of: a UTC day would be tomorrow in a Los Angeles evening.
	const floor = previous?.zone === run.timeZone ? previous.day : undefined;
	const today = floor !== undefined && floor > clockDay ? floor : clockDay;
	const lead = run.settings.leadDays ?? DEFAULT_LEAD_DAYS;
	const emitted = new Map<string, Set<number>>();
	for (const [due, ids] of Object.entries(previous?.emitted ?? {})) if (due >= today) emitted.set(due, new Set(decodeIds(ids)));
	const items: IDataObject[] = [];
	const seen = new Set<number>();
	const options: PageOptions = scanOptions(run.client);
	const pages = run.client.pages('device.list', await query(run, today), options);
	try {
		for (;;) {
			const next = await pages.next();
			if (next.done) break;
			for (const raw of next.value) {
				if (!raw || typeof raw !== 'object' || Array.isArray(raw)) continue;
				const record = raw as IDataObject;
				const id = recordId(record);
				const due = nextTestOf(record, run.client.profile);
				if (id === undefined || due === undefined || seen.has(id)) continue;
				const left = daysBetween(today, due);
				if (left < 0 || left > lead) continue;
				seen.add(id);
				let ids = emitted.get(due);
				if (!ids) emitted.set(due, (ids = new Set()));
				if (ids.has(id)) continue;
				ids.add(id);
				if (previous) items.push(item(record, due, today));
			}
			// A poll cut short keeps what it emitted; the next poll reads the list again.
			if (previous && run.deadline !== undefined && run.now() > run.deadline) break;
		}
	} finally {
		await pages.return(STOPPED_READING);
	}
	const kept: Record<string, string> = {};
	for (const due of [...emitted.keys()].sort()) if (emitted.get(due)!.size > 0) kept[due] = encodeIds(emitted.get(due)!);
	return { items, state: { v: STATE_VERSION, event: 'deviceDueSoon', key: run.key, day: today, zone: run.timeZone, emitted: kept } };
}

/** "Fetch Test Event": the device due soonest within the lead time. */
export async function dueSoonSample(run: PollRun): Promise<IDataObject | undefined> {
	const today = todayOf(run.now(), run.timeZone);
	for await (const page of run.client.pages('device.list', await query(run, today), { maxItems: 5 })) {
		for (const raw of page) {
			const record = raw as IDataObject;
			const due = record && typeof record === 'object' ? nextTestOf(record, run.client.profile) : undefined;
			if (due) return item(record, due, today);
		}
	}
	return undefined;
}
