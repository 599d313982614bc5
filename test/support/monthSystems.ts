import { rebuildDone } from './pollers';
import { dayIn, dayString } from '../../client/dates';
import { FileStateStore } from '../../lambdas/adapters/fileStateStore';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import { DynamoStateStore } from '../../lambdas/adapters/dynamoStateStore';
import { OutboxMailer } from '../../lambdas/adapters/outboxMailer';
import { connectService } from '../../lambdas/adapters/undiciService';
import { awsDeps } from '../../lambdas/email/aws';
import { reportMonthOn } from '../../email/compliance';
import { runComplianceReport } from '../../lambdas/email/complianceRun';
import { localHour, onEvent, runDigest, type DigestDeps } from '../../lambdas/email/digest';
import { readEmailEvent } from '../../lambdas/email/events';
import { createLocalMail, type LocalMail } from '../../lambdas/email/local';
import type { Mailer, SendReceipt, SendRequest } from '../../lambdas/email/ports';
import { parseEmailSettings } from '../../lambdas/email/settings';
import type { TecEvent } from '../../lambdas/events/event';
import { DEFAULT_SETTINGS, type PollerContext, type PollerSettings, type RunReport } from '../../lambdas/pollers/context';
import { pollDueDates } from '../../lambdas/pollers/dueDates';
import { pollDueSoon } from '../../lambdas/pollers/dueSoon';
import { pollOverdueDevices } from '../../lambdas/pollers/overdueDevices';
import { pollTestResults } from '../../lambdas/pollers/testResults';
import { noMetrics, silentLog, type Publisher } from '../../lambdas/ports';
import { createRunner, type Runner } from '../../lambdas/runner';
import type { Sandbox } from '../../sandbox/server';
import { startDynamo } from './localAws';
import { LocalSes, mimeParts } from './localSes';
import type { SteppingClock } from './virtualClock';

/**
 * The two ways the month runs the same code: `local` as `npm start` wires it (the runner's state
 * file, the e-mail state file, the outbox) and `aws` as the stack does (the pollers and the e-mail
 * functions on one DynamoDB state table, SES v2 with Powertools Idempotency; dynalite and a
 * wire-level SES stand-in). The month's faults come in through `MonthHooks`.
 */
export interface MonthHooks {
	/** Before events reach the collector (may throw a Crash: the process dies inside a poll run). */
	publishing(events: TecEvent[]): void;
	/** Before one event is delivered to the collector. */
	delivering(event: TecEvent): void;
	/** Around each send (may throw: a send that fails, or a crash once it went out). */
	beforeSend(request: SendRequest): void;
	afterSend(request: SendRequest): void;
}

export interface SentEmail {
	/** `other`: the monthly compliance report. */
	kind: 'digest' | 'failed' | 'other';
	recipient: string;
	/** A digest's day (YYYY-MM-DD). */
	day?: string;
	text: string;
}

export interface MonthSystem {
	/** One poll cycle; the reports of the runs that finished, and how many failed. */
	cycle(): Promise<{ reports: RunReport[]; failed: number }>;
	/** The daily digest once its hour has come (a failed one is retried at the next cycle). */
	digest(): Promise<void>;
	/** E-mails sent since the last call. */
	sent(): SentEmail[];
	/** The process (or Lambda container) starts again on the state it left. */
	restart(): void;
	close(): Promise<void>;
}

export interface SystemConfig {
	sandbox: Sandbox;
	clock: SteppingClock;
	dir: string;
	settingsPath: string;
	settings: Record<string, unknown>;
	timeZone: string;
	digestHour: number;
	pollerSettings: Partial<PollerSettings>;
	hooks: MonthHooks;
}

/** The collector as the pollers' receiver: every event delivered, one at a time. */
function collector(hooks: MonthHooks, deliver: (e: TecEvent) => Promise<void>): Publisher {
	return {
		async publish(events) {
			hooks.publishing(events);
			for (const e of events) {
				hooks.delivering(e);
				await deliver(e);
			}
		},
	};
}

// ---- npm start ---------------------------------------------------------------------------------------

/** The outbox with the month's faults around each write. */
class HookedOutbox extends OutboxMailer {
	constructor(
		dir: string,
		private readonly hooks: MonthHooks,
	) {
		super(dir);
	}

	override async sendOnce(request: SendRequest): Promise<SendReceipt> {
		this.hooks.beforeSend(request);
		const receipt = await super.sendOnce(request);
		this.hooks.afterSend(request);
		return receipt;
	}
}

export class LocalSystem implements MonthSystem {
	private runner!: Runner;
	private mail!: LocalMail;
	private readonly outboxDir: string;
	private readonly read = new Set<string>();

	constructor(private readonly c: SystemConfig) {
		this.outboxDir = join(c.dir, 'outbox');
		this.start();
	}

	/** A month of e-mails from an installation whose history has rebuilt its past (that rebuild: test/lambdas/rebuild.test.ts). */
	static async create(c: SystemConfig): Promise<LocalSystem> {
		await rebuildDone(new FileStateStore(join(c.dir, 'runner-sandbox.json')), dayString(c.clock.now()));
		return new LocalSystem(c);
	}

	private start(): void {
		const { c } = this;
		const client = connectService({ baseUrl: c.sandbox.url, token: c.sandbox.sandboxToken, environment: 'sandbox', clock: c.clock });
		const pollers: { runner?: Runner } = {};
		this.mail = createLocalMail({
			environment: 'sandbox',
			outboxDir: this.outboxDir,
			statePath: join(c.dir, 'email-sandbox.json'),
			configPath: c.settingsPath,
			log: silentLog,
			view: { list: (ns) => pollers.runner!.state.list(ns) },
			now: c.clock.now,
			mailer: new HookedOutbox(this.outboxDir, c.hooks),
		});
		const mail = this.mail.publisher;
		this.runner = createRunner({
			accounts: [{ client, environment: 'sandbox' }],
			statePath: join(c.dir, 'runner-sandbox.json'),
			writeLine: () => undefined,
			log: silentLog,
			publishers: [collector(c.hooks, (e) => mail.publish([e]))],
			settings: c.pollerSettings,
			now: c.clock.now,
		});
		pollers.runner = this.runner;
	}

	async cycle() {
		const reports = await this.runner.cycle();
		return { reports, failed: this.runner.failed.length };
	}

	async digest() {
		await this.mail.afterCycle();
	}

	sent(): SentEmail[] {
		const out: SentEmail[] = [];
		let folders: string[] = [];
		try {
			folders = readdirSync(this.outboxDir).sort();
		} catch {
			return out;
		}
		for (const folder of folders) {
			for (const file of readdirSync(join(this.outboxDir, folder)).filter((f) => f.endsWith('.eml')).sort()) {
				const path = join(this.outboxDir, folder, file);
				if (this.read.has(path)) continue;
				this.read.add(path);
				const text = mimeParts(readFileSync(path, 'utf8')).text;
				const recipient = file.slice(0, -4);
				if (folder.startsWith('digest_')) out.push({ kind: 'digest', recipient, day: folder.slice('digest_'.length), text });
				else out.push({ kind: folder.startsWith('failed_') ? 'failed' : 'other', recipient, text });
			}
		}
		return out;
	}

	restart() {
		this.runner.close();
		this.start();
	}

	async close() {
		this.runner.close();
	}
}

// ---- AWS ---------------------------------------------------------------------------------------------

export class AwsSystem implements MonthSystem {
	private deps!: DigestDeps;
	private ctx!: (runId: string) => PollerContext;
	private digestedDay: string | undefined;
	private seen = 0;

	private constructor(
		private readonly c: SystemConfig,
		private readonly dynamo: Awaited<ReturnType<typeof startDynamo>>,
		private readonly ses: LocalSes,
	) {
		this.start();
	}

	static async create(c: SystemConfig): Promise<AwsSystem> {
		process.env.AWS_LAMBDA_FUNCTION_NAME ??= 'tec-month';
		const dynamo = await startDynamo('tec-month');
		// A month of e-mails from an installation whose history has rebuilt its past (that rebuild: test/lambdas/rebuild.test.ts).
		await rebuildDone(new DynamoStateStore(dynamo.table, dynamo.client, async () => undefined), dayString(c.clock.now()));
		return new AwsSystem(c, dynamo, await new LocalSes().start());
	}

	private start(): void {
		const { c } = this;
		const settings = parseEmailSettings(c.settings, 'month');
		// The rate as the digest and the notices read it from SES (GetAccount) when they start; the
		// budget's slots in the month's time, like the pollers' pacing.
		const aws = awsDeps({ table: this.dynamo.table, settings, timeZone: c.timeZone, environment: 'sandbox' }, { dynamo: this.dynamo.client, ses: this.ses.client(), maxSendRate: this.ses.maxSendRate, clock: c.clock });
		// As in Lambda: an unfinished send counts as in progress for the invocation's remaining time.
		aws.mailer.registerLambdaContext({ getRemainingTimeInMillis: () => 60_000 } as Context);
		const hooks = c.hooks;
		const mailer: Mailer = {
			async sendOnce(request) {
				hooks.beforeSend(request);
				const receipt = await aws.mailer.sendOnce(request);
				hooks.afterSend(request);
				return receipt;
			},
		};
		const deps: DigestDeps = { ...aws, mailer, now: c.clock.now };
		this.deps = deps;
		const client = connectService({ baseUrl: c.sandbox.url, token: c.sandbox.sandboxToken, environment: 'sandbox', clock: c.clock });
		const store = new DynamoStateStore(this.dynamo.table, this.dynamo.client, async () => undefined);
		// EventBridge delivers each event to the collector function (its handler runs onEvent).
		const publisher = collector(hooks, async (e) => {
			const read = readEmailEvent({ source: e.source, 'detail-type': e['detail-type'], detail: e.detail });
			if (!('ignored' in read)) await onEvent(deps, read);
		});
		this.ctx = (runId) => ({
			client,
			store,
			publisher,
			environment: 'sandbox',
			now: c.clock.now,
			remainingMs: () => 600_000,
			log: silentLog,
			metrics: noMetrics,
			settings: { ...DEFAULT_SETTINGS, safetyMs: 0, ...c.pollerSettings },
			runId,
		});
	}

	async cycle() {
		const reports: RunReport[] = [];
		let failed = 0;
		// Each poller is its own scheduled function; one that fails waits for its next tick.
		for (const poll of [pollOverdueDevices, pollDueSoon, pollTestResults, pollDueDates]) {
			try {
				reports.push(await poll(this.ctx(`${poll.name}-${this.c.clock.now()}`)));
			} catch {
				failed++;
			}
		}
		return { reports, failed };
	}

	async digest() {
		// The Scheduler fires at the digest hour, local time; a failed invocation is retried (here: at the next cycle).
		const now = this.c.clock.now();
		const day = dayIn(now, this.c.timeZone);
		if (localHour(now, this.c.timeZone) < this.c.digestHour || this.digestedDay === day) return;
		// As the digest function does: the digest, then on a month's first day the compliance report.
		let failure: unknown;
		await runDigest(this.deps, day).catch((error: unknown) => (failure = error));
		const month = reportMonthOn(day);
		if (month !== undefined) await runComplianceReport(this.deps, month);
		if (failure !== undefined) throw failure;
		this.digestedDay = day;
	}

	sent(): SentEmail[] {
		const fresh = this.ses.sent.slice(this.seen);
		this.seen = this.ses.sent.length;
		return fresh.map((m) => {
			const parts = mimeParts(m.raw);
			const long = /^Calibration digest \w+, (\d+ \w+ \d{4})/.exec(parts.headers.subject ?? '')?.[1];
			if (long) return { kind: 'digest', recipient: m.to[0], day: new Date(Date.parse(`${long} 12:00 UTC`)).toISOString().slice(0, 10), text: parts.text };
			return { kind: (parts.headers.subject ?? '').startsWith('Test failed') ? 'failed' : 'other', recipient: m.to[0], text: parts.text };
		});
	}

	restart() {
		this.start();
	}

	async close() {
		await this.ses.stop();
		await this.dynamo.stop();
	}
}
