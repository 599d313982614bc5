import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PacerRegistry, SERVICE_RATE, ServiceClient, ServiceError, pacingKey, type RequestFn } from '../../client';
import { addDays, daysBetween } from '../../client/dates';
import { systemClock, undiciRequestFn } from '../../lambdas/adapters/undiciService';
import type { TecEvent } from '../../lambdas/events/event';
import { DEFAULT_SETTINGS, type PollerContext } from '../../lambdas/pollers/context';
import { pollDueSoon, stageFor } from '../../lambdas/pollers/dueSoon';
import { pollOverdueDevices } from '../../lambdas/pollers/overdueDevices';
import { pollTestResults } from '../../lambdas/pollers/testResults';
import { PublishError, type Publisher, type StateStore, type StoredItem } from '../../lambdas/ports';
import { Random } from '../../sandbox/random';
import { DEVICE } from '../../sandbox/properties';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { soaked } from '../support/soak';

/**
 * Crash consistency: a failure injected at a random step of a run (a page fetch, a PutEvents
 * call or part of one, a state write, the lease, the time budget), over many randomized runs
 * while devices become overdue and resolved and results arrive late. After each change the
 * system is allowed to settle (runs repeat until one completes). Then: every business fact was
 * emitted at least once, and a key was emitted twice only where a failure fell between its
 * publication and the write of its state.
 */
let requests = 0;
/** Runs per poller: 1,000 in `npm test`, 10,000 in `npm run soak`. */
const RUNS = soaked(1000, 10_000);

class Crash extends Error {}

/** Counts the steps of a run and fails the chosen one. */
class Injector {
	step = 0;
	failAt = -1;
	kind: 'throw' | 'partial' | 'budget' | 'kill' = 'throw';
	fired = false;
	/** Keys published since the last successful state write of this run (at risk of a repeat). */
	unrecorded = new Set<string>();

	arm(rnd: Random, maxStep: number): void {
		this.step = 0;
		this.fired = false;
		this.unrecorded.clear();
		this.failAt = rnd.chance(0.6) ? rnd.int(1, maxStep) : -1;
		this.kind = rnd.pick(['throw', 'throw', 'partial', 'budget', 'kill'] as const);
	}

	hit(): boolean {
		if (this.fired || ++this.step !== this.failAt) return false;
		this.fired = true;
		return true;
	}
}

class MemoryStore implements StateStore {
	data = new Map<string, Map<string, unknown>>();
	lease = new Map<string, { owner: string; until: number }>();
	constructor(private readonly inject: Injector) {}

	async *list<T>(ns: string): AsyncIterable<StoredItem<T>> {
		for (const [key, value] of this.data.get(ns) ?? []) yield { key, value: structuredClone(value) as T };
	}
	async get<T>(ns: string, key: string) {
		return structuredClone(this.data.get(ns)?.get(key)) as T | undefined;
	}
	async putMany<T>(ns: string, items: Array<StoredItem<T>>) {
		if (items.length > 0 && this.inject.hit()) throw new Crash('state write failed');
		const m = this.data.get(ns) ?? new Map<string, unknown>();
		for (const i of items) m.set(i.key, structuredClone(i.value));
		this.data.set(ns, m);
		if (ns.startsWith('failedEvidence:')) {
			// Deferred failed results record no page; a retried one is recorded when marked done.
			for (const i of items) if ((i.value as { done?: boolean }).done) this.inject.unrecorded.delete(`test-result-failed:sandbox:${i.key}`);
		} else if (ns.startsWith('measurementPending:')) {
			// Likewise the results whose measured values were deferred: recorded when marked done.
			for (const i of items) {
				if (!(i.value as { done?: boolean }).done) continue;
				for (const k of this.inject.unrecorded) if (k.startsWith(`test-result-near-limit:sandbox:${i.key}:`) || k.startsWith(`device-measurement-drift:sandbox:${i.key}:`)) this.inject.unrecorded.delete(k);
			}
		} else if (ns.startsWith('measurements:')) {
			// The kept measured values are written between publishing a page and recording it: no record of the page.
		} else if (items.length > 0) this.inject.unrecorded.clear();
	}
	async acquireLease(name: string, owner: string, now: number, ms: number) {
		if (this.inject.hit()) throw new Crash('lease write failed');
		const held = this.lease.get(name);
		if (held && held.until >= now && held.owner !== owner) return false;
		this.lease.set(name, { owner, until: now + ms });
		return true;
	}
	async releaseLease(name: string, owner: string) {
		// A killed process never releases: the lease runs out instead.
		if (this.inject.fired && this.inject.kind === 'kill') return;
		if (this.lease.get(name)?.owner === owner) this.lease.delete(name);
	}
}

class RecordingPublisher implements Publisher {
	readonly emitted: TecEvent[] = [];
	constructor(private readonly inject: Injector) {}

	async publish(events: TecEvent[]): Promise<void> {
		if (events.length === 0) return;
		if (this.inject.hit()) {
			if (this.inject.kind === 'partial' && events.length > 1) {
				// Some entries accepted, the rest refused: the run fails after a partial publish.
				const accepted = events.slice(0, Math.ceil(events.length / 2));
				this.accept(accepted);
				throw new PublishError('partial failure', events.slice(accepted.length).map((e) => e.detail.metadata.dedupeKey));
			}
			throw new Crash('PutEvents failed');
		}
		this.accept(events);
	}

	private accept(events: TecEvent[]): void {
		for (const e of events) {
			this.emitted.push(e);
			this.inject.unrecorded.add(e.detail.metadata.dedupeKey);
		}
	}
}

/**
 * The table is about crashes, not pacing: the sandbox answers 50 requests per second per token and
 * the clients pace to that (a failed result's evidence reads its detail and its device, and at 5
 * per second most runs waited out a rate window).
 */
const RATE = 50;
const pacers = new PacerRegistry({ ...SERVICE_RATE, maxRequests: RATE });
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, size: { devices: 120, customers: 5, testResults: 40 }, ratePerSecond: RATE });
});
afterAll(() => sandbox.stop());

const SEEDS = { overdueDevices: [11, 101], testResults: [12, 202], dueSoon: [13, 303] } as const;
const POLLS = { overdueDevices: pollOverdueDevices, testResults: pollTestResults, dueSoon: pollDueSoon } as const;

describe.each(['overdueDevices', 'testResults', 'dueSoon'] as const)('crash consistency of the %s poller', (poller) => {
	it(`${RUNS} randomized runs with failures at every step: no fact lost, duplicates only between publish and record`, async () => {
		// Clock first: the service never stamps uploads later than its own now.
		sandbox.account.clockOffsetMs = 0;
		sandbox.account.reset({ seed: SEEDS[poller][0] });
		const account = sandbox.account;
		const rnd = new Random(SEEDS[poller][1]);
		const inject = new Injector();
		const store = new MemoryStore(inject);
		const publisher = new RecordingPublisher(inject);
		const atRisk = new Set<string>();
		const counts = { runs: 0, failed: 0, stoppedForTime: 0, skippedLease: 0, epochs: 0 };
		const poll = POLLS[poller];

		const context = (): PollerContext => {
			const token = account.createToken().token; // a fresh token per run: no rate limit in the way
			const base: RequestFn = undiciRequestFn(token);
			const request: RequestFn = async (req) => {
				requests++;
				if (inject.hit()) throw new Crash('connection dropped while fetching a page');
				return base(req);
			};
			return {
				client: new ServiceClient({ baseUrl: sandbox.url, request, clock: systemClock, pacer: pacers.forKey(pacingKey(token), systemClock), retry: { maxAttempts: 1 } }),
				store,
				publisher,
				environment: 'sandbox',
				now: () => account.now(),
				remainingMs: () => (inject.kind === 'budget' && inject.hit() ? 0 : 600_000),
				log: { info: () => undefined, warn: () => undefined, error: () => undefined },
				metrics: { count: () => undefined },
				settings: { ...DEFAULT_SETTINGS, pageSize: poller === 'testResults' ? 60 : 15, reminderDays: 0, safetyMs: 1000, leaseMs: 60_000 },
				runId: `run-${counts.runs}`,
			};
		};

		const runOnce = async (): Promise<boolean> => {
			counts.runs++;
			inject.arm(rnd, poller === 'dueSoon' ? 7 : 12);
			try {
				const report = await poll(context());
				if (report.skipped) {
					counts.skippedLease++;
					account.clockOffsetMs += 61_000; // a killed run's lease runs out
				}
				if (report.stoppedForTime) counts.stoppedForTime++;
				return report.complete;
			} catch (error) {
				if (!(error instanceof Crash) && !(error instanceof PublishError) && !(error instanceof ServiceError)) throw error;
				counts.failed++;
				for (const k of inject.unrecorded) atRisk.add(k);
				return false;
			}
		};

		// Baseline: the state of the world before the first change.
		while (!(await runOnce()));
		const devices = [...account.data.devices.values()];
		const expectedOverdue = new Map<number, number>(); // device → episodes expected
		const overdueNow = () => new Set(devices.filter((d) => account.isOverdue(d)).map((d) => d.id));
		for (const id of overdueNow()) expectedOverdue.set(id, 1);
		const expectedResults = new Set<number>();
		const expectedFailed = new Set<number>();
		let previous = overdueNow();
		// Device Due Soon: every (device, due date, stage) a device was inside when the system had settled.
		const expectedDueSoon = new Set<string>();
		const dueSoonNow = () => {
			for (const d of devices) {
				const next = d.values[DEVICE.nextTest];
				const stage = typeof next === 'string' ? stageFor(daysBetween(account.today(), next), DEFAULT_SETTINGS.dueSoonStages) : undefined;
				if (stage !== undefined) expectedDueSoon.add(`device-due-soon:sandbox:${d.id}:${next}:${stage}`);
			}
		};
		dueSoonNow();

		while (counts.runs < RUNS) {
			counts.epochs++;
			// Change the world: devices become overdue or get tested, results arrive (some late).
			for (let i = rnd.int(0, 3); i > 0; i--) {
				const d = rnd.pick(devices);
				const day = rnd.chance(0.5) ? addDays(account.today(), -rnd.int(800, 1500)) : account.today();
				account.edit('device', { id: d.id, properties: { [DEVICE.lastTested]: day } }, 'test');
			}
			for (let i = rnd.int(0, 3); i > 0; i--) {
				const r = account.syncTestResult({ device_id: rnd.pick(devices).id, status: rnd.chance(0.3) ? 'failed' : 'passed', test_date: addDays(account.today(), -rnd.int(0, 5)) });
				expectedResults.add(r.id);
				if (r.status === 'failed') expectedFailed.add(r.id);
			}
			if (rnd.chance(0.2)) account.clockOffsetMs += rnd.int(1, 20) * 3_600_000;
			const now = overdueNow();
			for (const id of now) if (!previous.has(id)) expectedOverdue.set(id, (expectedOverdue.get(id) ?? 0) + 1);
			previous = now;
			// Let the system settle: runs repeat until one completes.
			while (!(await runOnce()));
			dueSoonNow();
		}

		// A failed result's alert may follow a later run (when its detail read failed): one more settled run.
		if (poller === 'testResults') while (!(await runOnce()));
		const keys = publisher.emitted.map((e) => e.detail.metadata.dedupeKey);
		const seen = new Set(keys);
		const duplicates = keys.filter((k, i) => keys.indexOf(k) !== i);
		const missing: string[] = [];
		if (poller === 'overdueDevices') {
			for (const [id, episodes] of expectedOverdue) {
				for (let e = 1; e <= episodes; e++) if (!seen.has(`device-overdue:sandbox:${id}:${e}`)) missing.push(`${id}:${e}`);
				const last = `device-overdue:sandbox:${id}:${episodes}`;
				if (!previous.has(id) && !seen.has(`${last}:resolved`)) missing.push(`${id}:${episodes}:resolved`);
			}
			const state = store.data.get('overdue:sandbox')!;
			expect([...state.values()].filter((s) => (s as { digestPending: boolean }).digestPending)).toHaveLength(0);
		} else if (poller === 'testResults') {
			for (const id of expectedResults) if (!seen.has(`test-result-recorded:sandbox:${id}`)) missing.push(String(id));
			for (const id of expectedFailed) if (!seen.has(`test-result-failed:sandbox:${id}`)) missing.push(`failed:${id}`);
			expect(expectedFailed.size).toBeGreaterThan(10);
		} else {
			for (const key of expectedDueSoon) if (!seen.has(key)) missing.push(key);
			// Nothing announced that was not a fact at some settled point or between them.
			for (const key of seen) expect(key.startsWith('device-due-soon:sandbox:'), key).toBe(true);
			expect(expectedDueSoon.size).toBeGreaterThan(5);
		}
		const report = { ...counts, requests, events: keys.length, distinctKeys: seen.size, duplicates: duplicates.length, atRisk: atRisk.size, missing: missing.length };
		console.info(`crash consistency (${poller}): ${JSON.stringify(report)}`);
		expect(missing).toEqual([]);
		expect(duplicates.filter((k) => !atRisk.has(k))).toEqual([]);
		expect(counts.failed).toBeGreaterThan(RUNS / 5);
		expect(counts.stoppedForTime).toBeGreaterThan(0);
		expect(counts.skippedLease).toBeGreaterThan(0);
	}, soaked(240_000, 2_400_000));
});
