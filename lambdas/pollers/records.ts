import { DEFAULT_PROFILE, epochDay, forEachProperty, roleIndex, usableInterval, type PropertyRole, type RoleIndex, type ServiceProfile } from '../../client';
import { OverdueDevice } from '../events/schemas';
import type { Log, Metrics } from '../ports';

/**
 * Reading the service's records tolerantly: unknown fields are ignored, missing ones become
 * null, and device properties are found by the roles of the service profile (by key id when the
 * profile names one, else by name: key ids differ per account).
 */

type Json = Record<string, unknown>;

/**
 * Longest text kept from a record. Events carry a handful of text fields, so one record can never
 * push an event over the 256 KB PutEvents limit (which would fail every run: a poison pill).
 */
export const MAX_TEXT_LENGTH = 1000;

function text(v: unknown): string | null {
	const s = typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null;
	return s !== null && s.length > MAX_TEXT_LENGTH ? `${s.slice(0, MAX_TEXT_LENGTH)}…` : s;
}

function int(v: unknown): number | null {
	const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : Number.NaN;
	return Number.isSafeInteger(n) ? n : null;
}

/** An identifier: a positive safe integer (as a number or a string of digits), else null. */
export function positiveId(v: unknown): number | null {
	const n = int(v);
	return n !== null && n > 0 ? n : null;
}

/** A calendar day (YYYY-MM-DD, optionally followed by a time) that exists, else null. Arithmetic (no Date): called per record. */
export function calendarDay(v: unknown): string | null {
	if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}(?:$|[T ])/.test(v)) return null;
	return epochDay(v) === undefined ? null : v.slice(0, 10);
}

/** A record as read: usable, or why not (never announced, logged and counted by the caller). */
export type Reading<T> = { record: T } | { unreadable: string };

const describe = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'string' ? `"${v.slice(0, 40)}"` : typeof v === 'object' ? 'an object' : String(v));

/**
 * The usable records of one page. One bad record never stops a run: each unreadable one is
 * logged with its position in the list, counted (metric `RecordsSkipped`) and skipped.
 */
export function readableRecords<T>(page: unknown[], firstPosition: number, read: (raw: unknown) => Reading<T>, out: { log: Log; metrics: Metrics; list: string }): T[] {
	const records: T[] = [];
	let skipped = 0;
	for (const [i, raw] of page.entries()) {
		const reading = read(raw);
		if ('record' in reading) {
			records.push(reading.record);
			continue;
		}
		skipped++;
		out.log.warn('Skipped a record that cannot be read', { list: out.list, position: firstPosition + i, reason: reading.unreadable });
	}
	if (skipped > 0) out.metrics.count('RecordsSkipped', skipped);
	return records;
}

/**
 * The device's role properties in one pass over its properties, names compared in lower case
 * (they differ in case between accounts). A role takes the value of its key id when the profile
 * names one, else of its most preferred name present; of several properties with that name, the last.
 */
function propertyFields(record: Json, index: RoleIndex): Partial<Record<Exclude<PropertyRole, 'testInterval'>, string | null>> & { testInterval?: unknown } {
	const values: Partial<Record<PropertyRole, unknown>> = {};
	const ranks: Partial<Record<PropertyRole, number>> = {};
	forEachProperty(record, (key, value, keyId) => {
		const byKey = index.byKeyId.size > 0 && typeof keyId === 'number' ? index.byKeyId.get(keyId) : undefined;
		const at = byKey !== undefined ? { role: byKey, rank: -1 } : index.byName.get(key.toLowerCase());
		if (at === undefined || at.rank > (ranks[at.role] ?? Number.POSITIVE_INFINITY)) return;
		ranks[at.role] = at.rank;
		values[at.role] = value;
	});
	return {
		designation: text(values.designation),
		idBarcode: text(values.idBarcode),
		department: text(values.department),
		lastTested: text(values.lastTested),
		nextTestDate: text(values.nextTestDate),
		testInterval: values.testInterval,
	};
}

export function readingOfOverdueDevice(raw: unknown, profile: ServiceProfile = DEFAULT_PROFILE): Reading<OverdueDevice> {
	const reading = deviceReading(raw, profile);
	return 'record' in reading ? { record: reading.record.device } : reading;
}

/** The overdue reader's device and the role properties it was read from (one pass over them). */
function deviceReading(raw: unknown, profile: ServiceProfile): Reading<{ device: OverdueDevice; props: ReturnType<typeof propertyFields> }> {
	if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { unreadable: `not an object: ${describe(raw)}` };
	const r = raw as Json;
	const id = positiveId(r.id);
	if (id === null) return { unreadable: `id is not a positive whole number: ${describe(r.id)}` };
	const props = propertyFields(r, roleIndex(profile));
	const device = {
		id,
		designation: props.designation ?? null,
		idBarcode: props.idBarcode ?? null,
		department: props.department ?? null,
		customerId: positiveId(r.customer_id),
		customerName: text(r.customer_name),
		lastTestedDate: props.lastTested ?? null,
		nextTestDate: text(r.next_test_date) ?? props.nextTestDate ?? null,
		daysOverdue: int(r.days_overdue),
	};
	// Every field comes from a typed reader above, so the event schema accepts the device (a fast-check
	// property in test/lambdas/records.test.ts holds this): no per-record schema parse in the scan.
	return { record: { device, props } };
}

/** A device as the due-date history reads it: the overdue reader's fields, its test interval (months, when usable) and creation day. */
export type HistoryDevice = OverdueDevice & { testIntervalMonths: number | null; createdOn: string | null };

export function readingOfHistoryDevice(raw: unknown, profile: ServiceProfile = DEFAULT_PROFILE): Reading<HistoryDevice> {
	const reading = deviceReading(raw, profile);
	if (!('record' in reading)) return reading;
	const { device, props } = reading.record;
	return { record: { ...device, testIntervalMonths: usableInterval(props.testInterval), createdOn: calendarDay((raw as Json).created_time) } };
}

export function readOverdueDevice(raw: unknown, profile: ServiceProfile = DEFAULT_PROFILE): OverdueDevice | undefined {
	const reading = readingOfOverdueDevice(raw, profile);
	return 'record' in reading ? reading.record : undefined;
}

export interface TestResultRecord {
	id: number;
	deviceId: number;
	customerId: number | null;
	projectId: number | null;
	testDate: string;
	syncedTime: string | null;
	status: string;
	tester: string | null;
	testSequence: string | null;
}

/** What the rebuild keeps of a test result: the fields every reading of one checks, and its status. */
export type TestDay = Pick<TestResultRecord, 'id' | 'deviceId' | 'testDate' | 'status'>;

/** A test result read for its test day alone (the rebuild reads hundreds of thousands): readable exactly when readingOfTestResult reads it. */
export function readingOfTestDay(raw: unknown): Reading<TestDay> {
	if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { unreadable: `not an object: ${describe(raw)}` };
	const r = raw as Json;
	const id = positiveId(r.id);
	if (id === null) return { unreadable: `id is not a positive whole number: ${describe(r.id)}` };
	const deviceId = positiveId(r.device_id);
	if (deviceId === null) return { unreadable: `test result ${id}: device_id is not a positive whole number: ${describe(r.device_id)}` };
	const testDate = calendarDay(r.test_date);
	if (testDate === null) return { unreadable: `test result ${id}: test_date is not a date: ${describe(r.test_date)}` };
	return { record: { id, deviceId, testDate, status: text(r.status) ?? 'unknown' } };
}

export function readingOfTestResult(raw: unknown): Reading<TestResultRecord> {
	const reading = readingOfTestDay(raw);
	if (!('record' in reading)) return reading;
	const r = raw as Json;
	const { id, deviceId, testDate, status } = reading.record;
	const synced = text(r.synced_time);
	return {
		record: {
			id,
			deviceId,
			customerId: positiveId(r.customer_id),
			projectId: positiveId(r.project_id),
			testDate,
			syncedTime: synced !== null && !Number.isNaN(Date.parse(synced)) ? synced : null,
			status,
			tester: text(r.tester),
			testSequence: text(r.test_sequence),
		},
	};
}

export function readTestResult(raw: unknown): TestResultRecord | undefined {
	const reading = readingOfTestResult(raw);
	return 'record' in reading ? reading.record : undefined;
}

/** passed → true, failed → false, anything this version does not know → null. */
export function passedOf(status: string): boolean | null {
	const s = status.toLowerCase();
	return s === 'passed' ? true : s === 'failed' ? false : null;
}
