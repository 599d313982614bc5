import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addDays, daysBetween } from '../../client/dates';
import { dayIn } from '../../client/dates';
import { localHour } from '../../lambdas/email/digest';
import type { TecEvent } from '../../lambdas/events/event';
import { DEVICE } from '../../sandbox/properties';
import { Random } from '../../sandbox/random';
import { customerName } from '../../sandbox/render';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { AwsSystem, LocalSystem, type MonthHooks, type MonthSystem, type SentEmail } from './monthSystems';
import { SteppingClock } from './virtualClock';
import type { SendRequest } from '../../lambdas/email/ports';

/**
 * A month of operation (issue 25): the `npm start` runner and its e-mails over simulated days
 * against the sandbox's live mode, with faults, every e-mail read back from the outbox and
 * compared with the sandbox's ground truth. Time is simulated (SteppingClock: the sandbox's
 * clock, its rate limit and the client's pacing all run on it), so a month takes seconds.
 */
export interface MonthOptions {
	seed: number;
	days: number;
	/** First day (UTC); the default month crosses the end of summer time in Europe/Berlin (25 Oct 2026). */
	start?: string;
	/** `local`: as `npm start` runs it (files, outbox); `aws`: as the stack runs it (DynamoDB, SES with Powertools Idempotency). */
	mode?: 'local' | 'aws';
}

export const TIME_ZONE = 'Europe/Berlin';
export const DIGEST_HOUR = 7;
export const ESCALATION_DAYS = 60;
/** Poll cycles a day (UTC): around the digest hour, in summer time the first is past it, in winter time not yet. */
const CYCLE_HOURS = [5.5, 11.5, 17.5, 23.5];
const FAULTS = ['sendFails', 'immediateFails', 'restartAfterSend', 'crashInPoll', 'restartAfterImmediate'] as const;
type FaultKind = (typeof FAULTS)[number];

export interface MonthCounts {
	days: number;
	cycles: number;
	liveChanges: number;
	moves: number;
	intervalChanges: number;
	digests: number;
	immediateEmails: number;
	overdueRows: number;
	dueSoonRows: number;
	failedRows: number;
	failedResults: number;
	faults: Record<FaultKind, number>;
	restarts: number;
	crashedRuns: number;
	dstDigestsChecked: number;
	/** E-mails of other kinds (the monthly compliance report), checked by their own test. */
	otherEmails: number;
}

/** Devices as the truth has them at one moment. */
interface Seen {
	at: number;
	today: string;
	devices: Map<number, { overdue: boolean; next: string | null; customerName: string | null; department: string | null }>;
	/** How often each device has left the overdue list so far. */
	departures: Map<number, number>;
}

export class Month {
	readonly counts: MonthCounts;
	/** Every discrepancy between the inbox and the truth; empty when the month was exact. */
	readonly findings: string[] = [];
	private readonly rnd: Random;
	private readonly clock: SteppingClock;
	private sandbox!: Sandbox;
	private system!: MonthSystem;
	private dir = '';
	private settingsPath = '';
	private recipients!: { default: string[]; customers: Record<string, string[]>; departments: Record<string, string[]>; escalation: { afterDays: number; to: string[] } };
	private readonly labels = new Map<string, number>();
	private readonly sends = new Map<string, number>();
	private readonly struck = new Set<string>();
	/** Truth snapshots since the start of the last complete run of each poller. */
	private overdueSpan: Seen[] = [];
	/** Snapshots taken after each change during the current cycle's runs. */
	private readonly during: Seen[] = [];
	private inCycle = false;
	private dueSpan: Seen[] = [];
	/** When each delivery of an event first reached the collector (a redelivery after a failed run reads the device again). */
	private readonly deliveredAt = new WeakMap<object, number>();
	/** When each event was filed (first successful delivery to the collector), by dedupeKey. */
	private readonly filedAt = new Map<string, number>();
	private readonly events: TecEvent[] = [];
	private readonly digestsOf = new Map<string, Array<{ day: string; at: number; failed: string[] }>>();
	/** Recipient|device → departures of the device when the view that told it "newly overdue" began. */
	private readonly newlyTold = new Map<string, number>();
	private readonly dueTold = new Set<string>();
	private readonly immediateTold = new Map<string, number>();
	private readonly failedTold = new Map<string, number>();
	/** The fault of today, armed until it strikes. */
	private fault: FaultKind | undefined;
	/** Set when a simulated crash ended the process: the next step starts it again. */
	crashed = false;
	/** Results uploaded before the first test-results run are history (the first run announces none). */
	private firstResultId = Number.POSITIVE_INFINITY;

	constructor(private readonly options: MonthOptions) {
		this.rnd = new Random(options.seed);
		this.clock = new SteppingClock(Date.parse(`${options.start ?? '2026-10-12'}T00:00:00Z`));
		this.counts = {
			days: options.days,
			cycles: 0,
			liveChanges: 0,
			moves: 0,
			intervalChanges: 0,
			digests: 0,
			immediateEmails: 0,
			overdueRows: 0,
			dueSoonRows: 0,
			failedRows: 0,
			failedResults: 0,
			faults: { sendFails: 0, immediateFails: 0, restartAfterSend: 0, crashInPoll: 0, restartAfterImmediate: 0 },
			restarts: 0,
			crashedRuns: 0,
			dstDigestsChecked: 0,
			otherEmails: 0,
		};
	}

	async run(): Promise<void> {
		await this.setUp();
		try {
			for (let day = 0; day < this.options.days; day++) {
				// Each kind of fault strikes in the first week; later ones come at random.
				this.fault = day >= 1 && day <= FAULTS.length ? FAULTS[day - 1] : this.rnd.chance(0.4) ? this.rnd.pick(FAULTS) : undefined;
				for (const hour of CYCLE_HOURS) await this.cycle(Date.parse(`${addDays(this.options.start ?? '2026-10-12', day)}T00:00:00Z`) + hour * 3_600_000);
			}
			// Settle: the account stops changing; the next morning's cycles and digest say what is left.
			this.fault = undefined;
			this.sandbox.live.configure({ on: false });
			const next = Date.parse(`${addDays(this.options.start ?? '2026-10-12', this.options.days)}T00:00:00Z`);
			for (const hour of CYCLE_HOURS.slice(0, 2)) await this.cycle(next + hour * 3_600_000);
			const changes = this.sandbox.live.changes;
			this.counts.liveChanges = changes.length;
			this.counts.moves = changes.filter((c) => c.kind === 'move').length;
			this.counts.intervalChanges = changes.filter((c) => c.kind === 'interval').length;
			this.checkOneDigestADay();
			this.checkEveryFailedTestOnce();
		} finally {
			await this.system.close();
			await this.sandbox.stop();
		}
	}

	private async setUp(): Promise<void> {
		this.sandbox = await startSandbox({ port: 0, seed: this.options.seed, size: { devices: 90, customers: 4, testResults: 30 }, now: this.clock.now, rateLimitNow: this.clock.now });
		const account = this.sandbox.account;
		const names = [...account.data.customers.values()].map((c) => String(c.values[101]));
		this.recipients = {
			default: ['ops@example.com'],
			customers: { [names[0]]: ['custodian-a@example.com'], [names[1]]: ['custodian-b@example.com'] },
			departments: { Laboratory: ['lab@example.com'], Workshop: ['workshop@example.com'] },
			escalation: { afterDays: ESCALATION_DAYS, to: ['manager@example.com'] },
		};
		this.dir = mkdtempSync(join(tmpdir(), 'tec-month-'));
		this.settingsPath = join(this.dir, 'email.json');
		const settings = { mailFrom: 'Calibration alerts <alerts@lab.example.com>', timeZone: TIME_ZONE, digestHour: DIGEST_HOUR, immediateFailedTests: true, recipients: this.recipients };
		writeFileSync(this.settingsPath, JSON.stringify(settings));
		// The truth after every change made while lists are read: a run may have seen any of them.
		const live = this.sandbox.live;
		const step = live.step.bind(live);
		live.step = (count) => {
			const done = step(count);
			if (done.length > 0 && this.inCycle) this.during.push(this.snapshot());
			return done;
		};
		this.sandbox.live.configure({ on: true, seed: this.options.seed, changes_per_page: 1, weights: { test: 3, makeOverdue: 3, create: 1, delete: 1, upload: 4, move: 3, interval: 2 } });
		const config = {
			sandbox: this.sandbox,
			clock: this.clock,
			dir: this.dir,
			settingsPath: this.settingsPath,
			settings,
			timeZone: TIME_ZONE,
			digestHour: DIGEST_HOUR,
			pollerSettings: { pageSize: 25, reminderDays: 7, dueSoonStages: [30, 7], leaseMs: 60_000 },
			hooks: this.hooks(),
		};
		this.system = this.options.mode === 'aws' ? await AwsSystem.create(config) : await LocalSystem.create(config);
	}

	/** The month's faults, where the systems let them in. */
	private hooks(): MonthHooks {
		return {
			publishing: (events) => {
				if (events.some((e) => e['detail-type'] === 'Device Overdue' || e['detail-type'] === 'Test Result Recorded') && this.strikes('crashInPoll')) {
					this.crashed = true;
					throw new Crash('the process died inside a poll run');
				}
				for (const e of events) this.events.push(e);
			},
			// The fact is filed before an immediate e-mail is tried, so a delivery whose e-mail fails has filed it already.
			delivering: (e) => {
				if (!this.filedAt.has(e.detail.metadata.dedupeKey)) this.filedAt.set(e.detail.metadata.dedupeKey, this.clock.now());
				if (!this.deliveredAt.has(e)) this.deliveredAt.set(e, this.clock.now());
			},
			beforeSend: (request: SendRequest) => {
				const digest = request.key.startsWith('digest:');
				const nth = (this.sends.get(request.key) ?? 0) + 1;
				this.sends.set(request.key, nth);
				// Mid-digest: some recipients of the day already have theirs.
				if (digest && nth >= 3 && this.strikes('sendFails')) throw new Error('SES answered 500 (simulated)');
				if (request.key.startsWith('failed:') && this.strikes('immediateFails')) throw new Error('SES answered 500 for an immediate e-mail (simulated)');
			},
			afterSend: (request: SendRequest) => {
				const digest = request.key.startsWith('digest:');
				const kind = digest ? 'restartAfterSend' : 'restartAfterImmediate';
				// The monthly compliance report (issue 27) has its own proof (test/reliability/compliance.test.ts).
				if (!digest && !request.key.startsWith('failed:')) return;
				if (!this.struck.has(request.key) && this.strikes(kind)) {
					this.struck.add(request.key);
					this.crashed = true;
					throw new Crash(`the process died after sending ${digest ? 'a digest' : 'an immediate e-mail'}, before recording it`);
				}
			},
		};
	}

	private restart(): void {
		this.counts.restarts++;
		this.system.restart();
	}

	/** Consumes today's fault when it is `kind`. */
	strikes(kind: FaultKind): boolean {
		if (this.fault !== kind) return false;
		this.fault = undefined;
		this.counts.faults[kind]++;
		return true;
	}

	private async cycle(at: number): Promise<void> {
		this.clock.advanceTo(at);
		this.counts.cycles++;
		this.sandbox.live.step(this.rnd.int(2, 6));
		const before = this.snapshot();
		this.inCycle = true;
		const { reports, failed } = await this.system.cycle().finally(() => {
			this.inCycle = false;
		});
		if (this.counts.cycles === 1) this.firstResultId = Math.max(0, ...this.sandbox.account.data.testResults.keys()) + 1;
		this.counts.crashedRuns += failed;
		if (this.crashed) {
			// A crash inside a run: the process starts again (a failed run alone is retried by the next cycle).
			this.crashed = false;
			this.restart();
		}
		const after = this.snapshot();
		const during = this.during.splice(0);
		this.extend('overdueDevices', reports, [before, ...during, after]);
		this.extend('dueSoon', reports, [before, ...during, after]);
		try {
			await this.system.digest();
		} catch {
			// A failed digest is retried by the next cycle (the log says so in npm start; the Scheduler retries in AWS).
		}
		if (this.crashed) {
			this.crashed = false;
			this.restart();
		}
		for (const email of this.system.sent()) this.check(email, after);
	}

	/** The truth snapshots a poller's view may reflect: from the start of its last complete run on. */
	private extend(poller: 'overdueDevices' | 'dueSoon', reports: Array<{ poller: string; complete: boolean }>, cycle: Seen[]): void {
		const span = poller === 'overdueDevices' ? 'overdueSpan' : 'dueSpan';
		if (reports.some((r) => r.poller === poller && r.complete)) this[span] = cycle;
		else this[span].push(...cycle);
	}

	private snapshot(): Seen {
		const account = this.sandbox.account;
		const today = account.today();
		const devices: Seen['devices'] = new Map();
		for (const d of account.data.devices.values()) {
			const next = typeof d.values[DEVICE.nextTest] === 'string' ? (d.values[DEVICE.nextTest] as string) : null;
			devices.set(d.id, { overdue: account.isOverdue(d, today), next, customerName: customerName(account, d.customer_id), department: typeof d.values[DEVICE.department] === 'string' ? (d.values[DEVICE.department] as string) : null });
			const barcode = d.values[DEVICE.idBarcode];
			this.labels.set(typeof barcode === 'string' ? `ID ${barcode}` : String(d.values[DEVICE.designation]), d.id);
		}
		return { at: this.clock.now(), today, devices, departures: new Map(this.sandbox.live.departures) };
	}

	/** Whom the truth routes a device to (written here again, independently of lambdas/email/settings.ts). */
	private routes(owner: { customerName: string | null; department: string | null }, daysOverdue = 0): string[] {
		const r = this.recipients;
		const out = new Set<string>([...(owner.customerName ? (r.customers[owner.customerName] ?? []) : []), ...(owner.department ? (r.departments[owner.department] ?? []) : [])]);
		if (out.size === 0) for (const a of r.default) out.add(a);
		if (daysOverdue > r.escalation.afterDays) for (const a of r.escalation.to) out.add(a);
		return [...out];
	}

	private allRecipients(): string[] {
		const r = this.recipients;
		return [...new Set([...r.default, ...Object.values(r.customers).flat(), ...Object.values(r.departments).flat(), ...r.escalation.to])];
	}

	private find(message: string): void {
		this.findings.push(`${new Date(this.clock.now()).toISOString()} ${message}`);
	}

	/** Checks one e-mail read back against the truth. */
	private check(email: SentEmail, now: Seen): void {
		if (email.kind === 'digest') this.checkDigest(email.recipient, email.day!, email.text, now);
		else if (email.kind === 'failed') this.checkImmediate(email.recipient, email.text);
		else this.counts.otherEmails++;
	}

	private deviceOf(row: string): number | undefined {
		const id = /\((ID [^)]+)\)/.exec(row)?.[1] ?? /^- (Live device \d+)/.exec(row)?.[1];
		return id === undefined ? undefined : this.labels.get(id);
	}

	private checkDigest(recipient: string, day: string, text: string, now: Seen): void {
		this.counts.digests++;
		const at = this.clock.now();
		if (dayIn(at, TIME_ZONE) !== day || localHour(at, TIME_ZONE) < DIGEST_HOUR) this.find(`digest of ${day} for ${recipient} written at local ${dayIn(at, TIME_ZONE)} ${localHour(at, TIME_ZONE)}h`);
		if (Date.parse(`${day}T00:00:00Z`) >= Date.parse('2026-10-25T00:00:00Z') && Date.parse(`${day}T00:00:00Z`) <= Date.parse('2026-10-27T00:00:00Z')) this.counts.dstDigestsChecked++;
		const sections = parseSections(text);
		const failedIds: string[] = [];
		this.checkOverdueRows(recipient, day, sections, now);
		this.checkDueRows(recipient, day, sections.get('COMING DUE'));
		for (const row of sections.get('FAILED TESTS SINCE THE LAST DIGEST')?.rows ?? []) {
			this.counts.failedRows++;
			failedIds.push(this.failedKey(row));
		}
		for (const k of failedIds) this.failedTold.set(`${recipient}|${k}`, (this.failedTold.get(`${recipient}|${k}`) ?? 0) + 1);
		const list = this.digestsOf.get(recipient) ?? [];
		list.push({ day, at, failed: failedIds });
		this.digestsOf.set(recipient, list);
	}

	private checkOverdueRows(recipient: string, day: string, sections: Map<string, Section>, now: Seen): void {
		const newly = sections.get('NEWLY OVERDUE SINCE THE LAST DIGEST');
		const still = sections.get('STILL OVERDUE, LONGEST FIRST');
		const listed = new Map<number, string>();
		for (const s of [newly, still]) {
			for (const row of s?.rows ?? []) {
				const id = this.deviceOf(row);
				if (id === undefined) this.find(`${recipient} ${day}: an overdue row names no known device: ${row}`);
				else if (listed.has(id)) this.find(`${recipient} ${day}: device ${id} listed twice`);
				else listed.set(id, row);
			}
		}
		const span = this.overdueSpan.length > 0 ? this.overdueSpan : [now];
		const ids = new Set<number>(span.flatMap((s) => [...s.devices.keys()]));
		let required = 0;
		for (const id of ids) {
			const states = span.map((s) => s.devices.get(id));
			const routed = states.map((d) => (d && d.overdue && d.next ? this.routes(d, daysBetween(d.next, day)).includes(recipient) : false));
			const must = routed.every(Boolean);
			const may = routed.some(Boolean);
			if (must) required++;
			const row = listed.get(id);
			const truncated = (newly?.more ?? 0) + (still?.more ?? 0) > 0;
			if (must && !row && !truncated) this.find(`${recipient} ${day}: device ${id} is overdue and routed here but missing`);
			if (row && !may) this.find(`${recipient} ${day}: device ${id} listed as overdue but not overdue or not routed here (${row})`);
			if (row) {
				this.counts.overdueRows++;
				const due = /was due (\d{4}-\d{2}-\d{2})\)|due today \((\d{4}-\d{2}-\d{2})\)/.exec(row);
				const date = due?.[1] ?? due?.[2];
				if (!date || !states.some((d) => d?.next === date)) this.find(`${recipient} ${day}: device ${id} shows due date ${date}, the truth has ${states.map((d) => d?.next).join('/')}`);
				const days = /(\d+) days? overdue/.exec(row)?.[1];
				if (date && days !== undefined && Number(days) !== daysBetween(date, day)) this.find(`${recipient} ${day}: device ${id} shows ${days} days overdue, ${daysBetween(date, day)} is right`);
				if (date && row.includes('[escalated]') !== daysBetween(date, day) > ESCALATION_DAYS) this.find(`${recipient} ${day}: device ${id} escalation mark wrong (${row})`);
			}
		}
		// Newly overdue once an episode: told again, the device must have left the list since the view that told it first.
		// Departures are all live changes (time only brings devices onto the list).
		const viewStart = span[0].departures;
		for (const row of newly?.rows ?? []) {
			const id = this.deviceOf(row);
			if (id === undefined) continue;
			const key = `${recipient}|${id}`;
			const before = this.newlyTold.get(key);
			if (before !== undefined && (this.sandbox.live.departures.get(id) ?? 0) === before) this.find(`${recipient} ${day}: device ${id} told newly overdue twice in one episode`);
			this.newlyTold.set(key, viewStart.get(id) ?? 0);
		}
		const total = (newly?.count ?? 0) + (still?.count ?? 0);
		if (total < required) this.find(`${recipient} ${day}: ${total} overdue devices said, at least ${required} are routed here`);
	}

	private checkDueRows(recipient: string, day: string, section: Section | undefined): void {
		const span = this.dueSpan;
		// Nothing missing: a coming-due announcement filed since this recipient's last digest that still
		// holds in every view since (same due date, not overdue, routed here) is listed.
		const listed = new Set((section?.rows ?? []).map((row) => `${this.deviceOf(row)}|${/: due (\d{4}-\d{2}-\d{2})/.exec(row)?.[1]}`));
		for (const e of this.events) {
			if (e['detail-type'] !== 'Device Due Soon') continue;
			const { id, nextTestDate } = (e.detail.data as { device: { id: number; nextTestDate: string } }).device;
			const told = `${recipient}|${id}|${nextTestDate}`;
			const filed = this.filedAt.get(e.detail.metadata.dedupeKey);
			if (filed === undefined || this.dueTold.has(told) || daysBetween(day, nextTestDate) < 0) continue;
			const holds = span.every((s) => {
				const d = s.devices.get(id);
				return d !== undefined && !d.overdue && d.next === nextTestDate && this.routes(d).includes(recipient);
			});
			if (holds && !listed.has(`${id}|${nextTestDate}`) && !((section?.more ?? 0) > 0)) this.find(`${recipient} ${day}: device ${id} coming due ${nextTestDate} (announced ${new Date(filed).toISOString()}) is missing`);
		}
		for (const key of listed) this.dueTold.add(`${recipient}|${key}`);
		for (const row of section?.rows ?? []) {
			this.counts.dueSoonRows++;
			const id = this.deviceOf(row);
			const date = /: due (\d{4}-\d{2}-\d{2})/.exec(row)?.[1];
			if (id === undefined || !date) {
				this.find(`${recipient} ${day}: a coming-due row names no known device or date: ${row}`);
				continue;
			}
			const ok = span.some((s) => {
				const d = s.devices.get(id);
				return d !== undefined && !d.overdue && d.next === date && this.routes(d).includes(recipient);
			});
			const left = daysBetween(day, date);
			if (!ok || left < 0 || left > 30) this.find(`${recipient} ${day}: device ${id} listed as coming due ${date}, the truth says otherwise (${span.map((s) => JSON.stringify(s.devices.get(id) ?? null)).join(' ')})`);
		}
	}

	/** A failed test as the e-mails name it: the device and the day of the test. */
	private failedKey(row: string): string {
		const device = row.startsWith('- (no designation)') ? '?' : (this.deviceOf(row) ?? row);
		return `${device}|${/failed test (\d{4}-\d{2}-\d{2})/.exec(row)?.[1]}`;
	}

	private checkImmediate(recipient: string, text: string): void {
		this.counts.immediateEmails++;
		const row = text.split('\n').find((l) => l.startsWith('- '));
		if (!row) return this.find(`${recipient}: an immediate e-mail without its test`);
		const key = this.failedKey(row);
		this.immediateTold.set(`${recipient}|${key}`, (this.immediateTold.get(`${recipient}|${key}`) ?? 0) + 1);
	}

	/** Each failed result uploaded during the month: to everyone it routes to, at once and in the first digest after it was filed; never twice. */
	private checkEveryFailedTestOnce(): void {
		const expected = new Map<string, number>();
		const filedTimes = new Map<string, number[]>();
		/** Recipients an earlier delivery of a failed test routed to (its device moved before the redelivery): at most once there. */
		const mayHave = new Set<string>();
		const account = this.sandbox.account;
		for (const c of this.sandbox.live.changes) {
			if (c.resultId === undefined || !c.owner) continue;
			const result = account.data.testResults.get(c.resultId);
			if (!result || result.status !== 'failed') continue;
			const owner = { customerName: c.owner.customerId === null ? null : customerName(account, c.owner.customerId), department: c.owner.department };
			// Delivered again after a failed run, the event reads the device again: the collector keeps the last.
			const emitted = this.events.filter((e) => e['detail-type'] === 'Test Result Failed' && (e.detail.data as { testResult: { id: number } }).testResult.id === c.resultId);
			const event = emitted.at(-1);
			// Uploaded while the first run set its starting point: history, unless that run saw it after all.
			if (!event && c.resultId < this.firstResultId) continue;
			this.counts.failedResults++;
			if (!event) {
				this.find(`failed result ${c.resultId} was never announced`);
				continue;
			}
			const carried = (event.detail.data as { device: { customerName: string | null; department: string | null } }).device;
			// Moved or deleted between the upload and the read: the device's owner when it was read.
			const sameOwner = carried.customerName === owner.customerName && carried.department === owner.department;
			const moved = this.sandbox.live.changes.some((m) => (m.kind === 'move' || m.kind === 'delete') && m.deviceId === c.deviceId && m.seq > c.seq);
			if (!sameOwner && !moved) this.find(`failed result ${c.resultId} carries ${JSON.stringify(carried)}, its device had ${JSON.stringify(owner)}`);
			const filed = this.filedAt.get(event.detail.metadata.dedupeKey) ?? Number.POSITIVE_INFINITY;
			const named = (event.detail.data as { device: { designation: string | null; idBarcode: string | null } }).device;
			const key = `${named.designation === null && named.idBarcode === null ? '?' : c.deviceId}|${result.test_date.slice(0, 10)}`;
			for (const earlier of emitted.slice(0, -1)) for (const r of this.routes((earlier.detail.data as { device: typeof carried }).device)) mayHave.add(`${r}|${c.deviceId}|${result.test_date.slice(0, 10)}`);
			for (const r of this.routes(carried)) {
				expected.set(`${r}|${key}`, (expected.get(`${r}|${key}`) ?? 0) + 1);
				// Filed for r by the first delivery whose device routed to r: moved between a failed run's
				// delivery and the redelivery, the device reaches its new owner's digest after the redelivery.
				const firstTo = emitted.find((e) => this.routes((e.detail.data as { device: typeof carried }).device).includes(r));
				const filedFor = Math.max(filed, (firstTo && this.deliveredAt.get(firstTo)) ?? filed);
				filedTimes.set(`${r}|${key}`, [...(filedTimes.get(`${r}|${key}`) ?? []), filedFor]);
			}
		}
		// Not late: the i-th failed test of a device and day is in the first digest written after it was filed.
		for (const [k, times] of filedTimes) {
			const [r, ...key] = k.split('|');
			const digests = this.digestsOf.get(r) ?? [];
			const told = digests.flatMap((d) => d.failed.filter((f) => f === key.join('|')).map(() => d.at)).sort((a, b) => a - b);
			times.sort((a, b) => a - b).forEach((filed, i) => {
				const first = digests.find((d) => d.at >= filed);
				if (first && told[i] !== first.at) this.find(`${r}: failed test ${key.join(' on ')} (filed ${new Date(filed).toISOString()}) not in the first digest after it (${first.day})`);
			});
		}
		// The last days' digests may still be to come: only what was due to be said is counted.
		const lastDigest = Math.max(...[...this.digestsOf.values()].flat().map((d) => d.at));
		for (const [k, n] of expected) {
			const [r, device, date] = k.split('|');
			const filedLate = [...this.filedAt.entries()].some(([dk, at]) => dk.startsWith('test-result-failed:') && at > lastDigest && this.events.some((e) => e.detail.metadata.dedupeKey === dk && (e.detail.data as { device: { id: number } }).device.id === Number(device)));
			const immediate = this.immediateTold.get(k) ?? 0;
			const inDigests = this.failedTold.get(k) ?? 0;
			if (immediate !== n) this.find(`${r}: ${immediate} immediate e-mail(s) for the failed test(s) of device ${device} on ${date}, expected ${n}`);
			if (inDigests !== n && !(filedLate && inDigests < n)) this.find(`${r}: the failed test(s) of device ${device} on ${date} are in ${inDigests} digest(s), expected ${n}`);
		}
		for (const [k, n] of [...this.immediateTold, ...this.failedTold]) if (!expected.has(k) && !(mayHave.has(k) && n === 1)) this.find(`${k.split('|')[0]}: ${n} e-mail(s) about a failed test not routed there: ${k}`);
	}

	/** One digest a day per recipient at most (the outbox would show a second one as a second folder). */
	private checkOneDigestADay(): void {
		for (const [r, list] of this.digestsOf) {
			const days = list.map((d) => d.day);
			if (new Set(days).size !== days.length) this.find(`${r}: more than one digest on a day`);
		}
		for (const r of this.allRecipients()) if (!this.digestsOf.has(r)) this.find(`${r} never got a digest`);
	}
}

class Crash extends Error {}

interface Section {
	count: number;
	rows: string[];
	more: number;
}

/** The plain-text digest's sections: title → its count, its rows (lines starting "- "), and "…and N more". */
export function parseSections(text: string): Map<string, Section> {
	const out = new Map<string, Section>();
	let current: Section | undefined;
	for (const line of text.split('\n')) {
		const head = /^([A-Z][A-Z ,]+) \((\d+)\)$/.exec(line);
		if (head) {
			current = { count: Number(head[2]), rows: [], more: 0 };
			out.set(head[1], current);
		} else if (current && line.startsWith('- ')) current.rows.push(line);
		else if (current && /^ {2}…and (\d+) more$/.test(line)) current.more = Number(/(\d+)/.exec(line)![1]);
		else if (line === '' || line === '--') current = undefined;
	}
	return out;
}
