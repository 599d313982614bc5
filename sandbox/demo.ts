import { Random } from './random';
import { CUSTOMER, DEVICE } from './properties';
import type { AccountData, PropRecord, Project, SubUser, TestResult } from './model';
import { addDays, addMonths, dayString, isoTime } from '../client/dates';

export interface DemoSize {
	customers: number;
	devices: number;
	testResults: number;
}

export const DEFAULT_SIZE: DemoSize = { customers: 12, devices: 240, testResults: 600 };
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

/** The demo data set: deterministic from the seed and the account's "today". */
export function generateDemo(seed: number, size: DemoSize, now: number): AccountData {
	const rnd = new Random(seed);
	const today = dayString(now);
	const customers = new Map<number, PropRecord>();
	const devices = new Map<number, PropRecord>();
	const testResults = new Map<number, TestResult>();

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
				[CUSTOMER.contactEmail]: `facilities@customer${i}.example`,
			},
		});
	}

	for (let i = 1; i <= size.devices; i++) {
		const interval = rnd.pick(INTERVALS);
		// Most devices are within their interval; about a fifth are overdue.
		const lastTested = addDays(today, -rnd.int(1, Math.round(interval * 30.4 * 1.25)));
		const created = isoTime(now - rnd.int(800, 2500) * 86_400_000);
		const device: PropRecord = {
			id: i,
			customer_id: size.customers > 0 ? 1 + ((i * 7 + rnd.int(0, 3)) % size.customers) : undefined,
			created_time: created,
			updated_time: created,
			values: {
				[DEVICE.designation]: rnd.pick(DESIGNATION),
				[DEVICE.idBarcode]: `TEC-${String(i).padStart(6, '0')}`,
				[DEVICE.lastTested]: lastTested,
				[DEVICE.department]: rnd.pick(DEPARTMENT),
				[DEVICE.testInterval]: interval,
				[DEVICE.manufacturer]: rnd.pick(MANUFACTURER),
				[DEVICE.serialNumber]: `SN${rnd.int(100000, 999999)}`,
				[DEVICE.location]: rnd.pick(LOCATION),
				[DEVICE.nextTest]: addMonths(lastTested, interval),
			},
		};
		device.values[DEVICE.protectionClass] = PROTECTION_CLASS[String(device.values[DEVICE.designation])];
		devices.set(i, device);
	}

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

	for (let i = 1; i <= size.testResults && size.devices > 0; i++) {
		const deviceId = rnd.int(1, size.devices);
		const device = devices.get(deviceId)!;
		const testDate = addDays(today, -rnd.int(0, 700));
		const lagDays = rnd.chance(0.1) ? rnd.int(2, 9) : 0;
		testResults.set(i, {
			id: i,
			device_id: deviceId,
			customer_id: device.customer_id ?? null,
			project_id: rnd.pick(projects).id,
			test_date: testDate,
			// Uploaded after the test, but never after now (the service stamps the upload with its clock).
			synced_time: isoTime(Math.min(now, Date.parse(`${testDate}T16:00:00Z`) + lagDays * 86_400_000 + rnd.int(0, 3_600_000))),
			status: rnd.chance(0.12) ? 'failed' : 'passed',
			tester: rnd.pick(TESTER),
			test_sequence: rnd.pick(SEQUENCE),
		});
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

	return { customers, devices, testResults, projects, users };
}
