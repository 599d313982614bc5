import type { ServiceClient } from './client';
import { dayString } from './dates';
import { ServiceError } from './errors';
import { failedStepsOf, testedDeviceOf, type FailedTestStep } from './testSteps';
import { roleValue } from './roles';

/**
 * Reading failed tests as the e-mails show them, for the node's faces of the digest and the
 * failed-test e-mail: the result, its failed steps (the detailed result), the device's owner
 * (customer, department) and the result's files. The Lambdas read the same from their events
 * (lambdas/pollers/failedEvidence.ts): the device's designation and ID Barcode as the detailed
 * result names them, its customer and department as its own record has them now.
 *
 * ASSUMED (the spec shows no bodies): the detailed result carries the list's fields (`id`,
 * `device_id`, `customer_id`, `status`, `test_date`, `tester`, `test_sequence`, `synced_time`)
 * and its files as `files: [{id, file_name, mime_type}]`; a field the detail lacks is taken from
 * the list record the caller has (the trigger's item), when it has one.
 */

type Json = Record<string, unknown>;

export interface ResultFile {
	id: number;
	fileName: string | null;
	mimeType: string | null;
}

export interface FailedTestRead {
	id: number;
	status: string;
	/** YYYY-MM-DD */
	testDate: string;
	tester: string | null;
	testSequence: string | null;
	syncedTime: string | null;
	deviceId: number | null;
	customerId: number | null;
	designation: string | null;
	idBarcode: string | null;
	failedSteps: FailedTestStep[];
	files: ResultFile[];
}

const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null);
function positive(v: unknown): number | null {
	const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : Number.NaN;
	return Number.isSafeInteger(n) && n > 0 ? n : null;
}

function filesOf(detail: Json): ResultFile[] {
	if (!Array.isArray(detail.files)) return [];
	return detail.files.flatMap((raw): ResultFile[] => {
		const f = (raw ?? {}) as Json;
		const id = positive(f.id);
		return id === null ? [] : [{ id, fileName: text(f.file_name), mimeType: text(f.mime_type) }];
	});
}

/** The service's own test report of a result: its PDF file, when it has one. */
export function reportFileOf(files: readonly ResultFile[]): ResultFile | undefined {
	return files.find((f) => f.mimeType?.toLowerCase() === 'application/pdf') ?? files.find((f) => f.fileName?.toLowerCase().endsWith('.pdf'));
}

/** One result, detailed; `record`: the list record the caller already has (its fields fill what the detail lacks). */
export async function readFailedTest(client: ServiceClient, id: number, parameter: string, record: Json = {}): Promise<FailedTestRead> {
	const detail = ((await client.call('testResult.get', { pathParams: { id }, parameter })) ?? {}) as Json;
	const field = (name: string) => (detail[name] !== undefined && detail[name] !== null ? detail[name] : record[name]);
	const testDate = text(field('test_date'));
	const device = testedDeviceOf(detail);
	return {
		id,
		status: text(field('status')) ?? 'unknown',
		testDate: testDate !== null && /^\d{4}-\d{2}-\d{2}/.test(testDate) ? testDate.slice(0, 10) : '',
		tester: text(field('tester')),
		testSequence: text(field('test_sequence')),
		syncedTime: text(field('synced_time')),
		deviceId: positive(field('device_id')),
		customerId: positive(field('customer_id')),
		designation: device.designation,
		idBarcode: device.idBarcode,
		failedSteps: failedStepsOf(detail),
		files: filesOf(detail),
	};
}

/** The device's owner now: its customer (id and name) and department; nulls when it no longer exists. */
export async function readDeviceOwner(client: ServiceClient, deviceId: number, resultCustomerId: number | null, customerName: (id: number) => Promise<string | null>): Promise<{ customerName: string | null; department: string | null }> {
	let raw: Json | undefined;
	try {
		raw = (await client.call('device.get', { pathParams: { id: deviceId } })) as Json;
	} catch (error) {
		if (error instanceof ServiceError && (error.status === 404 || error.status === 412)) return { customerName: null, department: null };
		throw error;
	}
	const customerId = positive(raw?.customer_id) ?? resultCustomerId;
	const department = text(roleValue(raw, 'department', client.profile));
	const named = text(raw?.customer_name);
	return { customerName: named ?? (customerId === null ? null : await customerName(customerId)), department };
}

/**
 * The failed results uploaded since an instant (by `synced_time`, as the Lambdas follow uploads:
 * a result dated on any day is new when it is uploaded), each detailed. The list is asked for the
 * failed results uploaded on or after that instant's day, then cut at the instant itself.
 */
export async function readFailedTestsSince(client: ServiceClient, since: number): Promise<FailedTestRead[]> {
	const out: FailedTestRead[] = [];
	const query = {
		filters: [
			{ key: 'synced_time', conditions: [{ keyword: 'newerOrSame' as const, value: dayString(since) }] },
			{ key: 'status', conditions: [{ keyword: 'equals' as const, value: 'failed' }] },
		],
		ordering: { key: 'id', direction: 'asc' as const },
	};
	for await (const raw of client.items('testResult.list', query, { pageSize: client.maxPageSize })) {
		const r = (raw ?? {}) as Json;
		const id = positive(r.id);
		const synced = typeof r.synced_time === 'string' ? Date.parse(r.synced_time) : Number.NaN;
		if (id === null || Number.isNaN(synced) || synced < since || String(r.status).toLowerCase() !== 'failed') continue;
		out.push(await readFailedTest(client, id, 'Failed Tests Since', r));
	}
	return out;
}
