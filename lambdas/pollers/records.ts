import { DEFAULT_PROFILE, PROPERTY_ROLES, epochDay, forEachProperty, roleIndex, usableInterval, type PropertyRole, type RoleIndex, type ServiceProfile } from '../../client';
import type { OverdueDevice } from '../events/schemas';
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
	for (let i = 0; i < page.length; i++) {
		const reading = read(page[i]);
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

const ROLE_SLOT = Object.fromEntries(PROPERTY_ROLES.map((role, slot) => [role, slot])) as Record<PropertyRole, number>;

type NameRole = { role: PropertyRole; rank: number } | null;

/**
 * The role a property name holds, looked up once per distinct name: names repeat in every record
 * of a list, so a scan does not lower-case each property of each record. The memory is bounded (a
 * service sending ever new names gets them looked up each time).
 */
const namesSeen = new WeakMap<RoleIndex, Map<string, NameRole>>();
const NAMES_REMEMBERED = 512;
function namesOf(index: RoleIndex): Map<string, NameRole> {
	let names = namesSeen.get(index);
	if (names === undefined) namesSeen.set(index, (names = new Map()));
	return names;
}
function roleOfName(index: RoleIndex, names: Map<string, NameRole>, name: string): NameRole {
	let at = names.get(name);
	if (at === undefined) {
		at = index.byName.get(name.toLowerCase()) ?? null;
		if (names.size < NAMES_REMEMBERED) names.set(name, at);
	}
	return at;
}

/**
 * The role values of the device read last, per role slot. Reading is synchronous, so one scratch
 * serves every call: nothing is allocated per property or per record for them (a scan reads every
 * property of every record).
 */
const found = { values: new Array<unknown>(PROPERTY_ROLES.length), ranks: new Array<number>(PROPERTY_ROLES.length) };

/** Keeps a property's value for its role unless a more preferred name of that role was seen (key ids rank first). */
function keep(slot: number, rank: number, value: unknown): void {
	if (rank > found.ranks[slot]) return;
	found.ranks[slot] = rank;
	found.values[slot] = value;
}

function visitProperty(index: RoleIndex, names: Map<string, NameRole>, key: string, value: unknown, keyId: unknown): void {
	const byKey = index.byKeyId.size > 0 && typeof keyId === 'number' ? index.byKeyId.get(keyId) : undefined;
	if (byKey !== undefined) return keep(ROLE_SLOT[byKey], -1, value);
	const at = roleOfName(index, names, key);
	if (at !== null) keep(ROLE_SLOT[at.role], at.rank, value);
}

/**
 * The device's role properties in one pass over its properties into `found`, names compared in
 * lower case (they differ in case between accounts). A role takes the value of its key id when the
 * profile names one, else of its most preferred name present; of several properties with that
 * name, the last. Properties are read as `forEachProperty` reads them (a list of
 * `{key_id, name, value}`, keyed by name, else by key id; or a `{name: value}` map); the list, the
 * service's form, is walked here without a callback per property.
 */
function findRoleValues(record: Json, index: RoleIndex): void {
	found.values.fill(undefined);
	found.ranks.fill(Number.POSITIVE_INFINITY);
	const names = namesOf(index);
	const props = record.properties;
	if (!Array.isArray(props)) {
		forEachProperty(record, (key, value, keyId) => visitProperty(index, names, key, value, keyId));
		return;
	}
	for (let i = 0; i < props.length; i++) {
		const p: unknown = props[i];
		if (!p || typeof p !== 'object') continue;
		const { name, key_id: keyId, value } = p as { name?: unknown; key_id?: unknown; value?: unknown };
		const key = typeof name === 'string' && name !== '' ? name : keyId === undefined || keyId === null ? '' : String(keyId);
		if (key !== '') visitProperty(index, names, key, value, keyId);
	}
}

export function readingOfOverdueDevice(raw: unknown, profile: ServiceProfile = DEFAULT_PROFILE): Reading<OverdueDevice> {
	const device = overdueDeviceOf(raw, profile);
	return typeof device === 'string' ? { unreadable: device } : { record: device };
}

/**
 * The overdue reader's device, or why it cannot be read; the role values it was read from stay in
 * `found` until the next call (one pass over the properties serves both readers of devices).
 */
function overdueDeviceOf(raw: unknown, profile: ServiceProfile): OverdueDevice | string {
	if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return `not an object: ${describe(raw)}`;
	const r = raw as Json;
	const id = positiveId(r.id);
	if (id === null) return `id is not a positive whole number: ${describe(r.id)}`;
	findRoleValues(r, roleIndex(profile));
	const { values } = found;
	// Every field comes from a typed reader, so the event schema accepts the device (a fast-check
	// property in test/lambdas/records.test.ts holds this): no per-record schema parse in the scan.
	return {
		id,
		designation: text(values[ROLE_SLOT.designation]),
		idBarcode: text(values[ROLE_SLOT.idBarcode]),
		department: text(values[ROLE_SLOT.department]),
		customerId: positiveId(r.customer_id),
		customerName: text(r.customer_name),
		lastTestedDate: text(values[ROLE_SLOT.lastTested]),
		nextTestDate: text(r.next_test_date) ?? text(values[ROLE_SLOT.nextTestDate]),
		daysOverdue: int(r.days_overdue),
	};
}

/** A device as the due-date history reads it: the overdue reader's fields, its test interval (months, when usable) and creation day. */
export type HistoryDevice = OverdueDevice & { testIntervalMonths: number | null; createdOn: string | null };

export function readingOfHistoryDevice(raw: unknown, profile: ServiceProfile = DEFAULT_PROFILE): Reading<HistoryDevice> {
	const device = overdueDeviceOf(raw, profile);
	if (typeof device === 'string') return { unreadable: device };
	return { record: { ...device, testIntervalMonths: usableInterval(found.values[ROLE_SLOT.testInterval]), createdOn: calendarDay((raw as Json).created_time) } };
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
