import type { MeasurementSeries } from './series';

/** The sandbox's records as it stores them (responses are rendered from these). */
export type PropValue = string | number | null;

export interface PropRecord {
	id: number;
	customer_id?: number;
	created_time: string;
	updated_time: string;
	/** Property key id → value. */
	values: Record<number, PropValue>;
}

export interface TestResult {
	id: number;
	device_id: number;
	customer_id: number | null;
	project_id: number | null;
	test_date: string;
	synced_time: string;
	status: 'passed' | 'failed';
	tester: string;
	test_sequence: string;
	/** Uploads through the admin API may ask for a longer sequence and several failed steps (not rendered in lists). */
	performed?: { steps: number; failedSteps: number };
	/** Measured values given with an admin upload, served as they are (a series with known numbers, or bad input). */
	measured?: UploadedMeasurement[];
}

export interface UploadedMeasurement {
	step: string;
	value: unknown;
	unit: unknown;
	low_limit: unknown;
	high_limit: unknown;
}

export interface Project {
	id: number;
	name: string;
	customer_id: number | null;
	status: 'open' | 'closed';
	created_time: string;
	updated_time: string;
}

export interface SubUser {
	id: number;
	username: string;
	email: string;
	first_name: string;
	last_name: string;
	role: string;
	is_active: boolean;
	date_joined: string;
}

export interface BinEntry {
	id: number;
	resource: 'device' | 'customer';
	item_id: number;
	name: string;
	deleted_time: string;
	record: PropRecord;
}

export interface AccountData {
	/** The demo's recycle bin: the devices scrapped within its years (sandbox/demo.ts, SCRAPPED_SHARE). */
	recycleBin: BinEntry[];
	/** Each device's measured values as a series (levels and drifts), computed per result when served. */
	series: MeasurementSeries;
	customers: Map<number, PropRecord>;
	devices: Map<number, PropRecord>;
	testResults: Map<number, TestResult>;
	projects: Project[];
	users: SubUser[];
}
