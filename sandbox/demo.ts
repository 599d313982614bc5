import { Random } from './random';
import { CUSTOMER, DEVICE } from './properties';
import type { AccountData, BinEntry, PropRecord, Project, SubUser, TestResult } from './model';
import { addDays, dayString, isoTime } from '../client/dates';
import { addMonthsToDay, epochDayOf, startOfDayMs } from './calendar';
import { ResultLog, newestInUploadOrder, record, walkHistory, type DeviceRole } from './history';
import { MeasurementSeries, driftingDevices, limitChangeDayOf } from './series';

export interface DemoSize {
	customers: number;
	devices: number;
	/**
	 * Absent: every device's whole test history. A number N: the account keeps only the newest N
	 * results by test date (it started using the service later); devices tested only before them
	 * keep their Last tested (imported), and 0 gives an account without results.
	 */
	testResults?: number;
}

/**
 * 12 customers and 240 devices with their whole histories: with the default seed about 1,500 test
 * results (1,500 on the tests' clock, 2026-03-16, those of the 2 scrapped devices included; the
 * count moves a little with the day).
 */
export const DEFAULT_SIZE: DemoSize = { customers: 12, devices: 240 };
export const DEFAULT_SEED = 20250401;

const COMPANY = ['Nordlicht', 'Kessler', 'Alpina', 'Brightwater', 'Meridian', 'Hansa', 'Orion', 'Falkner', 'Lindqvist', 'Castell', 'Riverside', 'Vogt'];
const FORM = ['GmbH', 'Ltd', 'AG', 'Services', 'Industries', 'Clinic', 'Works'];
const CITY = ['Berlin', 'Hamburg', 'Munich', 'Vienna', 'Zurich', 'Leeds', 'Bristol', 'Lyon', 'Graz', 'Basel'];
const DESIGNATION = ['Drill press', 'Angle grinder', 'Extension cable 10 m', 'Kettle', 'Coffee machine', 'Monitor 27"', 'Laptop charger', 'Soldering station', 'Vacuum cleaner', 'Power strip 6-way', 'Floor heater', 'Oscilloscope', 'Lab power supply', 'Band saw', 'Hand lamp'];
/** The protection class each designation is built with (no draw from the seed: the rest of the data set stays as it was). */
const PROTECTION_CLASS: Record<string, string> = {
	'Drill press': 'I',
	'Angle grinder': 'II',
	'Extension cable 10 m': 'I',
	Kettle: 'I',
	'Coffee machine': 'I',
	'Monitor 27"': 'I',
	'Laptop charger': 'II',
	'Soldering station': 'I',
	'Vacuum cleaner': 'II',
	'Power strip 6-way': 'I',
	'Floor heater': 'I',
	Oscilloscope: 'I',
	'Lab power supply': 'I',
	'Band saw': 'I',
	'Hand lamp': 'III',
};
const DEPARTMENT = ['Workshop', 'Office', 'Laboratory', 'Warehouse', 'Kitchen', 'Maintenance', 'IT'];
const MANUFACTURER = ['Bosch', 'Makita', 'Metabo', 'Siemens', 'Fluke', 'Weller', 'Philips', 'Brennenstuhl'];
const LOCATION = ['Building A', 'Building B', 'Hall 1', 'Hall 2', 'Floor 3', 'Basement'];
const TESTER = ['A. Weber', 'J. Smith', 'M. Rossi', 'K. Nowak', 'L. Martin'];
const SEQUENCE = ['VDE 0701-0702', 'IEC 62353', 'DGUV V3', 'PAT class I'];
const INTERVALS = [6, 12, 12, 24];
/**
 * How often a test of each kind of device fails: cables, grinders and kettles wear out, monitors and
 * measuring instruments hardly ever do; the department multiplies it (rough use in workshops,
 * warehouses and kitchens, careful use in offices and IT).
 */
const FAILURE: Record<string, number> = {
	'Drill press': 0.06,
	'Angle grinder': 0.13,
	'Extension cable 10 m': 0.15,
	Kettle: 0.11,
	'Coffee machine': 0.05,
	'Monitor 27"': 0.005,
	'Laptop charger': 0.008,
	'Soldering station': 0.04,
	'Vacuum cleaner': 0.06,
	'Power strip 6-way': 0.08,
	'Floor heater': 0.05,
	Oscilloscope: 0.005,
	'Lab power supply': 0.02,
	'Band saw': 0.07,
	'Hand lamp': 0.06,
};
const DEPARTMENT_WEAR: Record<string, number> = { Workshop: 1.6, Office: 0.5, Laboratory: 0.8, Warehouse: 1.5, Kitchen: 1.4, Maintenance: 1.2, IT: 0.4 };
/** Shares of devices overdue now and never tested since created (exact, so small accounts show both). */
const OVERDUE_SHARE = 0.2;
const NEVER_TESTED_SHARE = 0.03;
/** Ages: most devices are older than four years; the rest were bought since (days). */
const OLD_DEVICES = 0.85;
const OLD_AGE: [number, number] = [1470, 2200];
const YOUNG_AGE: [number, number] = [30, 1400];
/** A separate stream for histories, so customers, devices and projects draw what they always drew. */
const HISTORY_STREAM = 0x5eed;
/** Another for the drifts of the measured values. */
const SERIES_STREAM = 0xd21f7;
/**
 * This share of the device count (rounded) more was scrapped within the last 24 months: each one's
 * last test failed (the failure that took it out of service), and it went to the recycle bin 0–14
 * days later. Drawn from a stream of their own after the list's devices, which stay as they were.
 */
export const SCRAPPED_SHARE = 0.01;
const SCRAP_STREAM = 0x5c4a9;
/** The days before today the scrapping failure fell on: within the last 24 months, its bin entry too. */
const SCRAPPED_DAYS_AGO: [number, number] = [15, 695];

/**
 * The demo data set: deterministic from the seed, the size and the account's "today".
 * `series: false` leaves the measured values without drifts (every device at its level): only the
 * bench's baseline asks for it, to weigh what planning the series adds to a generation.
 */
export function generateDemo(seed: number, size: DemoSize, now: number, options: { series?: boolean } = {}): AccountData {
	const rnd = new Random(seed);
	const history = new Random(seed ^ HISTORY_STREAM);
	const today = dayString(now);
	const todayDay = epochDayOf(now);
	const customers = new Map<number, PropRecord>();
	const devices = new Map<number, PropRecord>();
	const testResults = new Map<number, TestResult>();
	const keepsResults = size.testResults === undefined || size.testResults > 0;
	const log = keepsResults ? new ResultLog() : undefined;
	const roles = deviceRoles(history, size.devices);
	const series = new MeasurementSeries(seed, limitChangeDayOf(todayDay));
	const drifts = new Random(seed ^ SERIES_STREAM);
	const plans = options.series !== false;
	const drifting = plans ? driftingDevices(drifts, size.devices) : new Set<number>();

	for (let i = 1; i <= size.customers; i++) {
		const created = isoTime(now - rnd.int(400, 2000) * 86_400_000);
		const name = `${COMPANY[(i - 1) % COMPANY.length]}${i > COMPANY.length ? ` ${Math.ceil(i / COMPANY.length)}` : ''} ${rnd.pick(FORM)}`;
		customers.set(i, {
			id: i,
			created_time: created,
			updated_time: created,
			values: {
				[CUSTOMER.name]: name,
				[CUSTOMER.customerNumber]: `C-${String(i).padStart(5, '0')}`,
				[CUSTOMER.city]: rnd.pick(CITY),
				[CUSTOMER.contractStart]: addDays(today, -rnd.int(100, 1800)),
				// One customer without an address: its re-test notice cannot go out, and says so.
				...(i === 5 ? {} : ({ [CUSTOMER.contactEmail]: `facilities@customer${i}.example` } as Record<number, string>)),
			},
		});
	}

	const days = new DayNames();
	for (let i = 1; i <= size.devices; i++) {
		const interval = rnd.pick(INTERVALS);
		// Two draws the dates once took: kept, so every other field stays as it was for each seed.
		rnd.next();
		rnd.next();
		const customerId = size.customers > 0 ? 1 + ((i * 7 + rnd.int(0, 3)) % size.customers) : undefined;
		const designation = rnd.pick(DESIGNATION);
		const department = rnd.pick(DEPARTMENT);
		const old = history.chance(OLD_DEVICES);
		const minAgeDays = old ? history.int(OLD_AGE[0], OLD_AGE[1]) : history.int(YOUNG_AGE[0], YOUNG_AGE[1]);
		const failure = Math.min(0.5, FAILURE[designation] * DEPARTMENT_WEAR[department]);
		const first = log?.size ?? 0;
		const end = walkHistory(history, { interval, failure, role: roles[i - 1], minAgeDays }, i, todayDay, now, log);
		// The walk logs newest first; the drift is planned on the whole history, whatever the account keeps.
		if (plans) {
			const own = log ? Array.from({ length: log.size - first }, (_, k) => log.size - 1 - k) : [];
			series.plan(drifts, i, own.map((at) => log!.day[at]), own.map((at) => log!.failed[at] === 1), drifting.has(i));
		}
		const lastTested = end.lastTested === null ? null : days.name(end.lastTested);
		const created = days.time(Math.min(now, startOfDayMs(end.created) + 7 * 3_600_000 + history.int(0, 3_600_000)));
		const device: PropRecord = {
			id: i,
			customer_id: customerId,
			created_time: created,
			updated_time: created,
			values: {
				[DEVICE.designation]: designation,
				[DEVICE.idBarcode]: `TEC-${String(i).padStart(6, '0')}`,
				[DEVICE.lastTested]: lastTested,
				[DEVICE.department]: department,
				[DEVICE.testInterval]: interval,
				[DEVICE.manufacturer]: rnd.pick(MANUFACTURER),
				[DEVICE.serialNumber]: `SN${rnd.int(100000, 999999)}`,
				[DEVICE.location]: rnd.pick(LOCATION),
				// Next test as the service derives it (addMonths), computed on day numbers.
				[DEVICE.nextTest]: end.lastTested === null ? null : days.name(addMonthsToDay(end.lastTested, interval)),
			},
		};
		device.values[DEVICE.protectionClass] = PROTECTION_CLASS[designation];
		devices.set(i, device);
	}

	const recycleBin = scrappedDevices(seed, size, todayDay, now, log, plans ? series : undefined, days);
	const binned = new Map(recycleBin.map((e) => [e.item_id, e.record]));

	const projects: Project[] = [];
	for (let i = 1; i <= Math.max(1, Math.min(8, size.customers)); i++) {
		const created = now - rnd.int(60, 400) * 86_400_000;
		projects.push({
			id: i,
			name: `Annual inspection ${2025 + (i % 2)} – site ${i}`,
			customer_id: size.customers > 0 ? 1 + ((i - 1) % size.customers) : null,
			status: i % 3 === 0 ? 'closed' : 'open',
			created_time: isoTime(created),
			updated_time: isoTime(created + rnd.int(1, 50) * 86_400_000),
		});
	}

	if (log) {
		// Ids in upload order, as the service assigns them.
		let id = 0;
		for (const at of newestInUploadOrder(log, size.testResults)) {
			const deviceId = log.device[at];
			const pick = log.pick[at];
			testResults.set(++id, {
				id,
				device_id: deviceId,
				customer_id: (devices.get(deviceId) ?? binned.get(deviceId))!.customer_id ?? null,
				project_id: projects[Math.floor(pick * projects.length)].id,
				test_date: days.name(log.day[at]),
				synced_time: days.time(log.synced[at]),
				status: log.failed[at] === 1 ? 'failed' : 'passed',
				tester: TESTER[Math.floor(pick * 1000) % TESTER.length],
				test_sequence: SEQUENCE[Math.floor(pick * 100_000) % SEQUENCE.length],
			});
		}
	}

	const users: SubUser[] = [
		['a.weber', 'Anna', 'Weber', 'admin'],
		['j.smith', 'John', 'Smith', 'tester'],
		['m.rossi', 'Marco', 'Rossi', 'tester'],
		['k.nowak', 'Kasia', 'Nowak', 'tester'],
		['l.martin', 'Louise', 'Martin', 'viewer'],
		['ops.bot', 'Ops', 'Bot', 'viewer'],
	].map(([username, first, last, role], i) => ({
		id: i + 1,
		username,
		email: `${username}@example.com`,
		first_name: first,
		last_name: last,
		role,
		is_active: username !== 'ops.bot',
		date_joined: isoTime(now - (900 - i * 100) * 86_400_000),
	}));

	return { customers, devices, testResults, projects, users, series, recycleBin };
}

/**
 * The scrapped devices (ids after the list's): a history walked up to the day before a failed
 * test, that failed test its last result, its bin entry dated 0–14 days after it. Half of them
 * drifted into that failure (sandbox/series.ts), the others failed as other failed tests do.
 */
function scrappedDevices(seed: number, size: DemoSize, todayDay: number, now: number, log: ResultLog | undefined, series: MeasurementSeries | undefined, days: DayNames): BinEntry[] {
	const rnd = new Random(seed ^ SCRAP_STREAM);
	const count = Math.round(size.devices * SCRAPPED_SHARE);
	const out: BinEntry[] = [];
	for (let k = 1; k <= count; k++) {
		const id = size.devices + k;
		const designation = weightedPick(rnd, FAILURE);
		const department = rnd.pick(DEPARTMENT);
		const interval = rnd.pick(INTERVALS);
		const customerId = size.customers > 0 ? 1 + rnd.int(0, size.customers - 1) : undefined;
		const failedOn = todayDay - rnd.int(SCRAPPED_DAYS_AGO[0], SCRAPPED_DAYS_AGO[1]);
		const first = log?.size ?? 0;
		// Logged newest first, as the walk logs: the failed test, then the history before it.
		record(rnd, log, id, failedOn, true, now);
		const failure = Math.min(0.5, FAILURE[designation] * DEPARTMENT_WEAR[department]);
		const end = walkHistory(rnd, { interval, failure, role: 'current', minAgeDays: rnd.int(YOUNG_AGE[0], OLD_AGE[1]) }, id, failedOn - 1, now, log);
		const drifts = rnd.chance(0.5);
		if (series) {
			const own = log ? Array.from({ length: log.size - first }, (_, j) => log.size - 1 - j) : [];
			series.plan(rnd, id, own.map((at) => log!.day[at]), own.map((at) => log!.failed[at] === 1), drifts);
		}
		const created = days.time(startOfDayMs(end.created) + 7 * 3_600_000 + rnd.int(0, 3_600_000));
		const deleted = days.time(startOfDayMs(failedOn + rnd.int(0, 14)) + 8 * 3_600_000 + rnd.int(0, 9 * 3_600_000));
		const record_: PropRecord = {
			id,
			customer_id: customerId,
			created_time: created,
			updated_time: deleted,
			values: {
				[DEVICE.designation]: designation,
				[DEVICE.idBarcode]: `TEC-${String(id).padStart(6, '0')}`,
				[DEVICE.lastTested]: days.name(failedOn),
				[DEVICE.department]: department,
				[DEVICE.testInterval]: interval,
				[DEVICE.manufacturer]: rnd.pick(MANUFACTURER),
				[DEVICE.serialNumber]: `SN${rnd.int(100000, 999999)}`,
				[DEVICE.location]: rnd.pick(LOCATION),
				[DEVICE.nextTest]: days.name(addMonthsToDay(failedOn, interval)),
				[DEVICE.protectionClass]: PROTECTION_CLASS[designation],
			},
		};
		out.push({ id: k, resource: 'device', item_id: id, name: designation, deleted_time: deleted, record: record_ });
	}
	return out;
}

/** A key drawn with chances proportional to its weight (devices that fail more often are scrapped more often). */
function weightedPick(rnd: Random, weights: Record<string, number>): string {
	const keys = Object.keys(weights);
	let u = rnd.next() * keys.reduce((a, k) => a + weights[k], 0);
	for (const k of keys) {
		u -= weights[k];
		if (u < 0) return k;
	}
	return keys[keys.length - 1];
}

/** Exactly a fifth overdue and 3 % never tested, on devices chosen by the seed. */
function deviceRoles(rnd: Random, count: number): DeviceRole[] {
	const roles: DeviceRole[] = new Array<DeviceRole>(count).fill('current');
	const overdue = Math.round(count * OVERDUE_SHARE);
	const never = Math.round(count * NEVER_TESTED_SHARE);
	for (let i = 0; i < overdue + never && i < count; i++) roles[i] = i < overdue ? 'overdue' : 'never';
	for (let i = count - 1; i > 0; i--) {
		const j = rnd.int(0, i);
		[roles[i], roles[j]] = [roles[j], roles[i]];
	}
	return roles;
}

/** YYYY-MM-DD of epoch days, each written once; timestamps as isoTime writes them, from those. */
class DayNames {
	private readonly names = new Map<number, string>();

	name(days: number): string {
		let text = this.names.get(days);
		if (text === undefined) {
			text = dayString(startOfDayMs(days));
			this.names.set(days, text);
		}
		return text;
	}

	time(ms: number): string {
		const days = epochDayOf(ms);
		const seconds = Math.floor((ms - startOfDayMs(days)) / 1000);
		return `${this.name(days)}T${two(Math.floor(seconds / 3600))}:${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}Z`;
	}
}

function two(n: number): string {
	return n < 10 ? `0${n}` : String(n);
}
