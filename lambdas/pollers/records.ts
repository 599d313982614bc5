import { propertyValues } from '../../client';
import type { OverdueDevice } from '../events/schemas';

/**
 * Reading the service's records tolerantly: unknown fields are ignored, missing ones become
 * null, and device properties are found by name (their key ids differ per account).
 */

type Json = Record<string, unknown>;

const PROPERTY_NAMES = {
	designation: ['designation'],
	idBarcode: ['id barcode', 'barcode', 'id-barcode'],
	department: ['department'],
	lastTested: ['last tested', 'last tested date', 'last test', 'last test date'],
	nextTest: ['next test', 'next test date'],
} as const;

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
	return typeof v === 'number' && Number.isInteger(v) ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : null;
}

/** Property values by lower-case name (names differ in case between accounts). */
function propertiesByName(record: Json): Map<string, unknown> {
	return new Map(Object.entries(propertyValues(record) ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
}

function pick(props: Map<string, unknown>, names: readonly string[]): string | null {
	for (const n of names) if (props.has(n)) return text(props.get(n));
	return null;
}

export function readOverdueDevice(raw: unknown): OverdueDevice | undefined {
	if (!raw || typeof raw !== 'object') return undefined;
	const r = raw as Json;
	const id = int(r.id);
	if (id === null) return undefined;
	const props = propertiesByName(r);
	return {
		id,
		designation: pick(props, PROPERTY_NAMES.designation),
		idBarcode: pick(props, PROPERTY_NAMES.idBarcode),
		department: pick(props, PROPERTY_NAMES.department),
		customerId: int(r.customer_id),
		customerName: text(r.customer_name),
		lastTestedDate: pick(props, PROPERTY_NAMES.lastTested),
		nextTestDate: text(r.next_test_date) ?? pick(props, PROPERTY_NAMES.nextTest),
		daysOverdue: int(r.days_overdue),
	};
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

export function readTestResult(raw: unknown): TestResultRecord | undefined {
	if (!raw || typeof raw !== 'object') return undefined;
	const r = raw as Json;
	const id = int(r.id);
	const deviceId = int(r.device_id);
	const testDate = text(r.test_date);
	if (id === null || deviceId === null || testDate === null) return undefined;
	return {
		id,
		deviceId,
		customerId: int(r.customer_id),
		projectId: int(r.project_id),
		testDate: testDate.slice(0, 10),
		syncedTime: text(r.synced_time),
		status: text(r.status) ?? 'unknown',
		tester: text(r.tester),
		testSequence: text(r.test_sequence),
	};
}

/** passed → true, failed → false, anything this version does not know → null. */
export function passedOf(status: string): boolean | null {
	const s = status.toLowerCase();
	return s === 'passed' ? true : s === 'failed' ? false : null;
}
