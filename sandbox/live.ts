import { addDays, addMonths, epochDay } from '../client/dates';
import type { Account } from './account';
import { DEVICE } from './properties';
import { Random } from './random';

/**
 * Live mode: the account changes between and while list pages are served, as a real account does
 * while technicians work: devices tested (they leave the overdue list), made overdue, created and
 * deleted; results uploaded with today's and older test dates, their measured values continuing each
 * device's series; Last tested is always the device's latest result. Seeded, so a failing round can be
 * replayed. It keeps the ground truth tests compare with: every change, and how often each device
 * entered and left the overdue list.
 */
export interface LiveSettings {
	seed: number;
	/** Changes applied after each list page served (between the pages of one scan). */
	changesPerPage: number;
	/** Relative weights of the kinds of change. */
	weights: Record<LiveChangeKind, number>;
}

/** `move`: the device changes hands (another customer or department); `interval`: its test interval changes (so does its next test date). */
export type LiveChangeKind = 'test' | 'makeOverdue' | 'create' | 'delete' | 'upload' | 'move' | 'interval';

export interface LiveChange {
	seq: number;
	kind: LiveChangeKind;
	deviceId: number;
	resultId?: number;
	/** For an uploaded result: the device's customer and department when it was uploaded. */
	owner?: { customerId: number | null; department: string | null };
}

export const DEFAULT_LIVE: LiveSettings = {
	seed: 1,
	changesPerPage: 2,
	weights: { test: 3, makeOverdue: 3, create: 1, delete: 1, upload: 3, move: 0, interval: 0 },
};

export interface LiveTruth {
	on: boolean;
	today: string;
	changes: number;
	/** Devices on the overdue list now. */
	overdue: number[];
	/** Every test result id that exists. */
	results: number[];
	/** Device id → times it entered / left the overdue list while live mode watched. */
	arrivals: Record<string, number>;
	departures: Record<string, number>;
}

const KINDS: readonly LiveChangeKind[] = ['test', 'makeOverdue', 'create', 'delete', 'upload', 'move', 'interval'];
const INTERVALS = [3, 6, 12, 24, 36];

export class LiveMode {
	on = false;
	settings: LiveSettings = DEFAULT_LIVE;
	private rnd = new Random(DEFAULT_LIVE.seed);
	private seq = 0;
	readonly changes: LiveChange[] = [];
	readonly arrivals = new Map<number, number>();
	readonly departures = new Map<number, number>();

	constructor(private readonly account: Account) {}

	/** Turns live mode on (a fresh record of changes), changes its settings, or turns it off. */
	configure(input: { on?: unknown; seed?: unknown; changes_per_page?: unknown; weights?: unknown }): LiveSettings {
		const seed = input.seed === undefined ? this.settings.seed : Number(input.seed);
		if (!Number.isSafeInteger(seed)) throw new Error('seed: expected a whole number');
		const perPage = input.changes_per_page === undefined ? this.settings.changesPerPage : Number(input.changes_per_page);
		if (!Number.isSafeInteger(perPage) || perPage < 0 || perPage > 1000) throw new Error('changes_per_page: expected a whole number from 0 to 1000');
		const weights = { ...this.settings.weights };
		if (input.weights !== undefined) {
			if (!input.weights || typeof input.weights !== 'object') throw new Error(`weights: expected an object with ${KINDS.join(', ')}`);
			for (const [k, v] of Object.entries(input.weights)) {
				if (!(KINDS as readonly string[]).includes(k) || typeof v !== 'number' || !(v >= 0)) {
					throw new Error(`weights.${k}: expected one of ${KINDS.join(', ')} with a number of 0 or more`);
				}
				weights[k as LiveChangeKind] = v;
			}
		}
		this.settings = { seed, changesPerPage: perPage, weights };
		const wasOn = this.on;
		this.on = input.on !== false;
		if (this.on && !wasOn) {
			// Turning it on starts a fresh record; changing settings or turning it off keeps it.
			this.rnd = new Random(seed);
			this.changes.length = 0;
			this.arrivals.clear();
			this.departures.clear();
		}
		return this.settings;
	}

	/** Called by the server after it has rendered a list page. */
	pageServed(): void {
		if (this.on) this.step(this.settings.changesPerPage);
	}

	/** Applies `count` random changes now; answers them. */
	step(count: number): LiveChange[] {
		const done: LiveChange[] = [];
		for (let i = 0; i < count; i++) {
			const change = this.change(this.pickKind());
			if (change) done.push(change);
		}
		return done;
	}

	truth(): LiveTruth {
		const today = this.account.today();
		const overdue: number[] = [];
		for (const d of this.account.data.devices.values()) if (this.account.isOverdue(d, today)) overdue.push(d.id);
		return {
			on: this.on,
			today,
			changes: this.changes.length,
			overdue,
			results: [...this.account.data.testResults.keys()],
			arrivals: Object.fromEntries(this.arrivals),
			departures: Object.fromEntries(this.departures),
		};
	}

	private pickKind(): LiveChangeKind {
		const total = KINDS.reduce((s, k) => s + this.settings.weights[k], 0);
		let x = this.rnd.next() * total;
		for (const k of KINDS) {
			x -= this.settings.weights[k];
			if (x < 0) return k;
		}
		return 'upload';
	}

	private devices(overdue: boolean): number[] {
		const today = this.account.today();
		const ids: number[] = [];
		for (const d of this.account.data.devices.values()) if (this.account.isOverdue(d, today) === overdue) ids.push(d.id);
		return ids;
	}

	/** A device tested long enough ago that a shorter interval (of INTERVALS) makes it overdue. */
	private canBeOverdue(id: number, today: string): boolean {
		const last = this.account.data.devices.get(id)!.values[DEVICE.lastTested];
		return typeof last === 'string' && addMonths(last, INTERVALS[0]) < today;
	}

	/**
	 * A result uploaded for the device on `day`: it fails where the device's measured series is past
	 * its limit that day (the repair ends the drift), else one in five fails.
	 */
	private upload(deviceId: number, day: string): number {
		const series = this.account.data.series;
		const epoch = epochDay(day)!;
		const crossed = series.crosses(deviceId, epoch) !== undefined;
		const failed = this.rnd.chance(0.2) || crossed;
		const id = this.account.syncTestResult({ device_id: deviceId, status: failed ? 'failed' : 'passed', test_date: day }).id;
		if (crossed) series.repaired(deviceId, epoch);
		return id;
	}

	/** Runs one change, counting the device's moves on and off the overdue list. */
	private change(kind: LiveChangeKind): LiveChange | undefined {
		const a = this.account;
		const today = a.today();
		const pool = kind === 'test' ? this.devices(true) : kind === 'makeOverdue' ? this.devices(false).filter((id) => this.canBeOverdue(id, today)) : [...a.data.devices.keys()];
		if (kind !== 'create' && pool.length === 0) return undefined;
		const target = kind === 'create' ? undefined : this.rnd.pick(pool);
		const before = target !== undefined && a.isOverdue(a.data.devices.get(target)!, today);
		let deviceId = target ?? 0;
		let resultId: number | undefined;
		switch (kind) {
			case 'test':
				// Tested today: the equipment uploads the result, which moves Last tested.
				resultId = this.upload(deviceId, today);
				break;
			case 'makeOverdue': {
				// Its test interval shortened so that Next test has passed: Last tested stays its latest result.
				const last = a.data.devices.get(deviceId)!.values[DEVICE.lastTested] as string;
				const interval = [...INTERVALS].reverse().find((months) => addMonths(last, months) < today)!;
				a.edit('device', { id: deviceId, properties: { [DEVICE.testInterval]: interval } }, 'live');
				break;
			}
			case 'create': {
				// A device taken over with its latest (passed) result: Last tested is that result's day.
				const overdue = this.rnd.chance(0.5);
				const lastTested = addDays(today, overdue ? -this.rnd.int(800, 1500) : -this.rnd.int(0, 200));
				const record = a.create('device', { properties: { [DEVICE.designation]: `Live device ${this.seq + 1}`, [DEVICE.testInterval]: 12 } }, 'live');
				deviceId = record.id;
				a.syncTestResult({ device_id: deviceId, status: 'passed', test_date: lastTested });
				break;
			}
			case 'delete':
				a.delete('device', deviceId, this.rnd.chance(0.5));
				break;
			case 'upload':
				// An upload dated today or up to 10 days back (late sync); older dates keep Last tested.
				resultId = this.upload(deviceId, addDays(today, -this.rnd.int(0, 10)));
				break;
			case 'move': {
				// To another customer, or to a department another device has.
				const d = a.data.devices.get(deviceId)!;
				if (this.rnd.chance(0.5) && a.data.customers.size > 0) a.edit('device', { id: deviceId, customer_id: this.rnd.pick([...a.data.customers.keys()]), properties: {} }, 'live');
				else {
					const departments = [...new Set([...a.data.devices.values()].map((x) => x.values[DEVICE.department]).filter((v): v is string => typeof v === 'string' && v !== d.values[DEVICE.department]))];
					if (departments.length > 0) a.edit('device', { id: deviceId, properties: { [DEVICE.department]: this.rnd.pick(departments) } }, 'live');
				}
				break;
			}
			case 'interval':
				a.edit('device', { id: deviceId, properties: { [DEVICE.testInterval]: this.rnd.pick(INTERVALS) } }, 'live');
				break;
		}
		const device = a.data.devices.get(deviceId);
		const after = device !== undefined && a.isOverdue(device, today);
		if (!before && after) this.arrivals.set(deviceId, (this.arrivals.get(deviceId) ?? 0) + 1);
		if (before && !after) this.departures.set(deviceId, (this.departures.get(deviceId) ?? 0) + 1);
		const owner = resultId !== undefined && device ? { customerId: device.customer_id ?? null, department: typeof device.values[DEVICE.department] === 'string' ? (device.values[DEVICE.department] as string) : null } : undefined;
		const change: LiveChange = { seq: ++this.seq, kind, deviceId, ...(resultId !== undefined ? { resultId } : {}), ...(owner ? { owner } : {}) };
		this.changes.push(change);
		return change;
	}
}
