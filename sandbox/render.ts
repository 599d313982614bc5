import type { Account } from './account';
import type { BinEntry, PropRecord, TestResult } from './model';
import { CUSTOMER, DEVICE } from './properties';
import { daysBetween, epochDay } from '../client/dates';
import { STEP_NAME, STEP_UNIT } from './series';

/** Response shapes. Property lists are self-describing: key id, name, data type, value. */

function properties(account: Account, resource: 'device' | 'customer', record: PropRecord, enabled?: number[]) {
	const keys = account.propertyKeys().filter((k) => k.resource === resource && (!enabled || enabled.includes(k.id)));
	return keys.map((k) => ({
		key_id: k.id,
		name: k.name,
		data_type: k.data_type,
		value: k.id === 50 ? (record.id % 2 === 0) : (record.values[k.id] ?? null),
		...(account.extraFields ? { visible: true } : {}),
	}));
}

function versioned(account: Account, body: Record<string, unknown>, id: number): Record<string, unknown> {
	return account.extraFields ? { ...body, revision: 1 + (id % 7), sync_channel: id % 3 === 0 ? 'bluetooth-le' : 'usb' } : body;
}

export function renderDevice(account: Account, d: PropRecord, enabled?: number[]) {
	return versioned(
		account,
		{
			id: d.id,
			customer_id: d.customer_id ?? null,
			created_time: d.created_time,
			updated_time: d.updated_time,
			properties: properties(account, 'device', d, enabled),
		},
		d.id,
	);
}

export function renderCustomer(account: Account, c: PropRecord, enabled?: number[]) {
	return versioned(
		account,
		{ id: c.id, created_time: c.created_time, updated_time: c.updated_time, properties: properties(account, 'customer', c, enabled) },
		c.id,
	);
}

export function customerName(account: Account, id: number | undefined): string | null {
	const c = id === undefined ? undefined : account.data.customers.get(id);
	return c ? String(c.values[CUSTOMER.name] ?? '') : null;
}

export function renderOverdue(account: Account, d: PropRecord, today: string, enabled?: number[]) {
	const next = d.values[DEVICE.nextTest] as string;
	return {
		...renderDevice(account, d, enabled),
		customer_name: customerName(account, d.customer_id),
		next_test_date: next,
		days_overdue: daysBetween(next, today),
	};
}

export function renderTestResult(account: Account, r: TestResult) {
	const { performed: _performed, measured: _measured, ...fields } = r;
	const status = account.extraFields && r.status === 'passed' && r.id % 5 === 0 ? 'passed_with_remarks' : r.status;
	return versioned(account, { ...fields, status }, r.id);
}

interface Measurement {
	name: string;
	value: number;
	unit: string;
	low_limit: number | null;
	high_limit: number | null;
	passed: boolean;
}

/** The steps of an admin upload's longer sequence (its values are drawn, not a series). */
const STEPS: Array<{ name: string; measure?: { unit: string; low: number | null; high: number | null; good: [number, number]; bad: [number, number] } }> = [
	{ name: 'Visual inspection' },
	{ name: 'Protective conductor resistance', measure: { unit: 'Ω', low: null, high: 0.3, good: [0.02, 0.25], bad: [0.35, 1.2] } },
	{ name: 'Insulation resistance', measure: { unit: 'MΩ', low: 1, high: null, good: [2, 550], bad: [0.05, 0.9] } },
	{ name: 'Protective conductor current', measure: { unit: 'mA', low: null, high: 3.5, good: [0.05, 2.5], bad: [3.8, 9] } },
	{ name: 'Function test' },
];

function seriesSteps(account: Account, r: TestResult) {
	const day = epochDay(r.test_date) ?? 0;
	const { visualPassed, values } = account.data.series.result(r.device_id, day, r.status === 'failed');
	const measured = values.map((m, i) => ({
		step: i + 2,
		name: STEP_NAME[m.step],
		status: m.passed ? 'passed' : 'failed',
		measurements: [{ name: STEP_NAME[m.step], value: m.value, unit: STEP_UNIT[m.step], low_limit: m.low, high_limit: m.high, passed: m.passed }],
	}));
	return [
		{ step: 1, name: 'Visual inspection', status: visualPassed ? 'passed' : 'failed', measurements: [] },
		...measured,
		{ step: measured.length + 2, name: 'Function test', status: 'passed', measurements: [] },
	];
}

/** An admin upload's longer sequence: the measured steps repeated, its first `failedSteps` measured steps failed (values drawn per result). */
function performedSteps(account: Account, r: TestResult, performed: NonNullable<TestResult['performed']>) {
	const rnd = account.random(r.id);
	const plan = Array.from({ length: performed.steps }, (_, i) => STEPS[1 + (i % 3)]);
	return plan.map((s, i) => {
		const passed = r.status !== 'failed' || i >= performed.failedSteps;
		const measurements: Measurement[] = [];
		if (s.measure) {
			const [lo, hi] = passed ? s.measure.good : s.measure.bad;
			measurements.push({
				name: s.name,
				value: Math.round((lo + rnd.next() * (hi - lo)) * 1000) / 1000,
				unit: s.measure.unit,
				low_limit: s.measure.low,
				high_limit: s.measure.high,
				passed,
			});
		}
		return { step: i + 1, name: s.name, status: passed ? 'passed' : 'failed', measurements };
	});
}

/** The measured steps of an admin upload, one step each between the visual inspection and the function test, as given. */
function uploadedSteps(r: TestResult) {
	const passed = r.status !== 'failed';
	const status = passed ? 'passed' : 'failed';
	const measured = (r.measured ?? []).map((m, i) => ({
		step: i + 2,
		name: m.step,
		status,
		measurements: [{ name: m.step, value: m.value, unit: m.unit, low_limit: m.low_limit, high_limit: m.high_limit, passed }],
	}));
	return [{ step: 1, name: 'Visual inspection', status, measurements: [] }, ...measured, { step: measured.length + 2, name: 'Function test', status, measurements: [] }];
}

/**
 * Performed steps with measured values and limits, consistent with the result's status: the
 * device's series on the result's day (sandbox/series.ts), computed now, nothing stored per result.
 */
export function renderTestResultDetail(account: Account, r: TestResult) {
	const steps = r.performed ? performedSteps(account, r, r.performed) : seriesSteps(account, r);
	const served = r.measured ? uploadedSteps(r) : steps;
	const device = account.data.devices.get(r.device_id);
	return {
		...renderTestResult(account, r),
		device: device
			? { id: device.id, designation: device.values[DEVICE.designation] ?? null, id_barcode: device.values[DEVICE.idBarcode] ?? null }
			: null,
		steps: served,
		files: [
			{ id: r.id * 10 + 1, file_name: `test-report-${r.id}.pdf`, mime_type: 'application/pdf' },
			{ id: r.id * 10 + 2, file_name: `measurements-${r.id}.csv`, mime_type: 'text/csv' },
		],
	};
}

export function renderBinEntry(e: BinEntry) {
	return { id: e.id, resource: e.resource, item_id: e.item_id, name: e.name, deleted_time: e.deleted_time };
}

/** A small but real file for each report. */
export function fileContent(account: Account, fileId: number): Buffer {
	const f = account.file(fileId);
	const detail = renderTestResultDetail(account, account.testResult(f.resultId));
	if (f.mimeType === 'text/csv') {
		const rows = detail.steps.flatMap((s) => s.measurements.map((m) => [s.step, m.name, m.value, m.unit, m.low_limit ?? '', m.high_limit ?? '', m.passed ? 'passed' : 'failed'].join(',')));
		return Buffer.from(['step,name,value,unit,low_limit,high_limit,result', ...rows].join('\n') + '\n');
	}
	const r = account.testResult(f.resultId);
	const text = `Test report ${r.id} - device ${r.device_id} - ${r.test_date} - ${r.status}`;
	return Buffer.from(`%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Count 0>>endobj\n% ${text}\ntrailer<</Root 1 0 R>>\n%%EOF\n`);
}
