import { parseArgs } from 'node:util';
import { dirname, join } from 'node:path';
import { DEFAULT_TIMEOUT_MS, redactSecret, type ServiceClient, type ServiceProfile } from '../client';
import { readNoticeInput } from '../client/noticesRead';
import { readProfileFile } from '../client/node/profileSchema';
import { connectService } from '../lambdas/adapters/undiciService';
import { localAccounts } from './accounts';
import { configSchema } from '../lambdas/config';
import { RUN_BUDGET_MS, createRunner, type Runner } from '../lambdas/runner';
import { createLocalMail, DEFAULT_OUTBOX, readLocalEmailSettings } from '../lambdas/email/local';
import { startSandbox, type Sandbox } from '../sandbox/server';

/**
 * `npm start`: the alerting pollers on the embedded sandbox (or a real account with
 * TEC_BASE_URL and TEC_TOKEN). Events go to stdout as JSON lines; logs go to stderr.
 */
const USAGE = `Usage: npm start -- [--once] [--interval SECONDS] [--timeout SECONDS] [--budget SECONDS] [--state PATH] [--webhook URL] [--port N]
                    [--due-soon-days 30,7] [--outbox DIR] [--email-config FILE] [--digest-now] [--profile FILE] [--report-now] [--notices-now] [--accounts FILE]
  --accounts FILE: a JSON array of accounts ({"id", "environment", "baseUrl", "tokenEnv"}; docs/alerts.md#many-accounts),
  all polled at once, each at its own token's ceiling; without it, one account (TEC_BASE_URL, TEC_TOKEN).
  --due-soon-days (or DUE_SOON_DAYS): lead stages of Device Due Soon in days before the due date; 0 = off.
  NEAR_LIMIT_THRESHOLD: the share of its limit at or above which a passed result's measured step is announced (default 0.8).
  BACKFILL_SHARE: the share of the token's requests the first run's backfill of measured values may take (default 0.5; 0 = none, else at least 0.05; the embedded sandbox: none unless set).
  Without TEC_BASE_URL and TEC_TOKEN, an embedded sandbox is started (serving the profile's layout).
  --profile FILE (or TEC_PROFILE): the service profile, where the account differs from the defaults.
  --once: one cycle; exit code 1 when a poll run failed, 0 otherwise.
  The alert e-mails are written to the outbox (default .state/outbox), not sent; their settings come
  from cdk.json's context (or --email-config FILE); --digest-now writes the daily digest at once,
  --report-now the monthly compliance report of last month (it goes out on the first of a month),
  --notices-now the customer re-test notices of next month (customerNotices.enabled; once per customer and month).
  EVENT_BUS_NAME (with AWS credentials) also sends events to Amazon EventBridge.`;

/** The accounts' tokens (TEC_TOKEN, or each account's tokenEnv): removed from every line written (an answer may echo one). */
const secrets: string[] = [];

function log(level: string, message: string, extra: Record<string, unknown> = {}): void {
	const line = JSON.stringify({ time: new Date().toISOString(), level, message, ...extra });
	process.stderr.write(`${secrets.reduce((text, secret) => redactSecret(text, secret), line)}\n`);
}

/** --profile FILE (or TEC_PROFILE): the service's layout, refused before anything starts (exit code 2). */
function profileOption(file: string | undefined): ServiceProfile | undefined {
	if (file === undefined || file === '') return undefined;
	try {
		return readProfileFile(file);
	} catch (error) {
		process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
		process.exit(2);
	}
}

async function main(): Promise<void> {
	let args;
	try {
		args = parseArgs({
			options: {
				once: { type: 'boolean' },
				interval: { type: 'string' },
				timeout: { type: 'string' },
				budget: { type: 'string' },
				state: { type: 'string' },
				webhook: { type: 'string' },
				port: { type: 'string' },
				'due-soon-days': { type: 'string' },
				outbox: { type: 'string' },
				'email-config': { type: 'string' },
				'digest-now': { type: 'boolean' },
				accounts: { type: 'string' },
				'report-now': { type: 'boolean' },
				'notices-now': { type: 'boolean' },
				profile: { type: 'string' },
				help: { type: 'boolean' },
			},
		}).values;
	} catch (error) {
		process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
		process.exit(2);
	}
	if (args.help) {
		process.stdout.write(`${USAGE}\n`);
		return;
	}
	const interval = args.interval === undefined ? 60 : Number(args.interval);
	if (!Number.isFinite(interval) || interval < 1) {
		process.stderr.write(`--interval must be a number of seconds of at least 1, got "${args.interval}"\n${USAGE}\n`);
		process.exit(2);
	}
	const timeout = args.timeout === undefined ? DEFAULT_TIMEOUT_MS / 1000 : Number(args.timeout);
	if (!Number.isFinite(timeout) || timeout < 1) {
		process.stderr.write(`--timeout must be a number of seconds of at least 1 (how long one request waits for an answer), got "${args.timeout}"\n${USAGE}\n`);
		process.exit(2);
	}
	// Each poll run stops before a page once its budget is spent, as the Lambda does at its timeout.
	const budget = args.budget === undefined ? RUN_BUDGET_MS / 1000 : Number(args.budget);
	if (!Number.isFinite(budget) || budget < 1) {
		process.stderr.write(`--budget must be a number of seconds of at least 1 (how long one poll run may take), got "${args.budget}"\n${USAGE}\n`);
		process.exit(2);
	}
	if (args.webhook !== undefined) {
		try {
			const u = new URL(args.webhook);
			if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
		} catch {
			process.stderr.write(`--webhook must be an http(s) URL, got "${args.webhook}"\n`);
			process.exit(2);
		}
	}

	const dueSoon = configSchema().shape.DUE_SOON_DAYS.safeParse(args['due-soon-days'] ?? process.env.DUE_SOON_DAYS);
	if (!dueSoon.success) {
		process.stderr.write(`${dueSoon.error.issues.map((i) => i.message.replace('DUE_SOON_DAYS', '--due-soon-days (DUE_SOON_DAYS)')).join('; ')}\n${USAGE}\n`);
		process.exit(2);
	}

	// The measured-value events' threshold and the first run's backfill share: environment only, as on AWS.
	const shares = { NEAR_LIMIT_THRESHOLD: configSchema().shape.NEAR_LIMIT_THRESHOLD.safeParse(process.env.NEAR_LIMIT_THRESHOLD), BACKFILL_SHARE: configSchema().shape.BACKFILL_SHARE.safeParse(process.env.BACKFILL_SHARE) };
	for (const parsed of Object.values(shares)) {
		if (!parsed.success) {
			process.stderr.write(`${parsed.error.issues.map((i) => i.message).join('; ')}\n${USAGE}\n`);
			process.exit(2);
		}
	}

	const profile = profileOption(args.profile ?? process.env.TEC_PROFILE);
	const logger = { info: (m: string, x?: Record<string, unknown>) => log('info', m, x), warn: (m: string, x?: Record<string, unknown>) => log('warn', m, x), error: (m: string, x?: Record<string, unknown>) => log('error', m, x) };
	// Several accounts (--accounts FILE): checked, tokens read, before anything starts.
	const several = args.accounts === undefined ? undefined : localAccounts(args.accounts, process.env, { timeoutMs: Math.round(timeout * 1000), log: logger, defaultRecipients: readLocalEmailSettings(args['email-config']).settings.recipients });
	secrets.push(...(several?.tokens ?? []));
	if (several) log('info', 'Polling several accounts at once, each with its own token', { accounts: several.settings.map((a) => a.id) });
	let sandbox: Sandbox | undefined;
	let baseUrl = process.env.TEC_BASE_URL;
	let token = process.env.TEC_TOKEN;
	const environment = several?.environment ?? (process.env.TEC_ENVIRONMENT === 'production' ? 'production' : 'sandbox');
	if (baseUrl && token) secrets.push(token);
	if (!several && (!baseUrl || !token)) {
		sandbox = await startSandbox({ port: args.port === undefined ? 0 : Number(args.port), profile });
		baseUrl = sandbox.url;
		token = sandbox.sandboxToken;
		// Demo tokens of this local sandbox (not secrets), shown so n8n can use the same sandbox. n8n
		// gets a token of its own: the limit of 5 requests per second is per token.
		log('info', 'Started the embedded sandbox (set TEC_BASE_URL and TEC_TOKEN to poll a real account)', {
			sandboxUrl: sandbox.url,
			sandboxToken: sandbox.sandboxToken,
			n8nToken: sandbox.account.createToken({ label: 'n8n' }).token,
			adminUrl: sandbox.adminUrl,
		});
	}
	const client = () =>
		connectService({
			baseUrl: baseUrl ?? '',
			token: token ?? '',
			environment,
			timeoutMs: Math.round(timeout * 1000),
			profile,
			onEvent: (e) => {
				if (e.type === 'retry') log('warn', 'Retrying a request', { path: e.path, status: e.status, kind: e.kind, waitMs: e.waitMs });
			},
		});
	// The e-mails run on the pollers' clock (the embedded sandbox's, so moving it a day brings the
	// next digest) and read today's truth from the pollers' state.
	const clock = sandbox ? () => sandbox.account.now() : undefined;
	// The runner is made after the e-mails (they receive its events); its state is lent to them once it exists.
	const pollers: { state?: Runner['state'] } = {};
	let noticesClient: ServiceClient | undefined;
	const mail = createLocalMail({
		environment,
		outboxDir: args.outbox ?? DEFAULT_OUTBOX,
		statePath: join(dirname(args.state ?? join(process.cwd(), '.state', 'x')), `email-${environment}.json`),
		configPath: args['email-config'],
		log: logger,
		view: { list: (ns) => pollers.state!.list(ns) },
		now: clock,
		accounts: several?.routing,
		// The re-test notices read the service at notice time through the same request path.
		// Several accounts: each account's customers through its own client (its own token's pace).
		readNotices: several
			? several.runners.map((r, i) => ({ account: several.settings[i].id, read: (timeZone: string) => readNoticeInput(r.client, clock ?? Date.now, timeZone) }))
			: [{ read: (timeZone: string) => readNoticeInput((noticesClient ??= client()), clock ?? Date.now, timeZone) }],
	});
	log('info', 'Alert e-mails go to the outbox folder (nothing is sent)', { outbox: mail.outboxDir });
	const runner = createRunner({
		accounts: several?.runners ?? [{ client: client(), environment }],
		statePath: args.state ?? join(process.cwd(), '.state', `runner-${environment}.json`),
		writeLine: (line) => process.stdout.write(line),
		log: logger,
		webhookUrl: args.webhook,
		eventBusName: process.env.EVENT_BUS_NAME,
		publishers: [mail.publisher],
		// Runs here take seconds and one process holds the file (its lock): a lease left by a crash
		// lapses within about one interval (and is dropped when the next runner takes the lock).
		settings: {
			leaseMs: interval * 1000,
			dueSoonStages: dueSoon.data,
			nearLimitThreshold: shares.NEAR_LIMIT_THRESHOLD.data!,
			// The embedded sandbox is for trying things out: its first cycle does not spend 90 s reading the
			// demo's details unless BACKFILL_SHARE asks for it; a real account backfills at the share.
			backfillShare: sandbox && process.env.BACKFILL_SHARE === undefined ? 0 : shares.BACKFILL_SHARE.data!,
		},
		runBudgetMs: Math.round(budget * 1000),
		now: clock,
	});
	pollers.state = runner.state;

	let stopping = false;
	let wake: (() => void) | undefined;
	const stop = () => {
		stopping = true;
		wake?.();
	};
	process.once('SIGINT', stop);
	process.once('SIGTERM', stop);
	for (;;) {
		const reports = await runner.cycle();
		for (const r of reports) log('info', 'Poll run', { ...r });
		await mail.afterCycle(args['digest-now'] === true, args['report-now'] === true, args['notices-now'] === true).catch((error: Error) => log('error', 'The e-mail digest or report failed; the next cycle retries it', { error: error.message }));
		args['digest-now'] = false;
		args['report-now'] = false;
		args['notices-now'] = false;
		if (args.once && runner.failed.length > 0) {
			// Schedulers and monitors see a failed run in the exit code.
			log('error', 'A poll run failed (--once): exit code 1', { failed: runner.failed });
			process.exitCode = 1;
		}
		if (args.once || stopping) break;
		// The timer keeps the process alive between cycles (against a real account nothing else
		// does); a signal clears it and ends the wait at once.
		await new Promise<void>((resolve) => {
			const timer = setTimeout(resolve, interval * 1000);
			wake = () => {
				clearTimeout(timer);
				resolve();
			};
		});
		if (stopping) break;
	}
	runner.close();
	await sandbox?.stop();
}

main().catch((error) => {
	log('error', 'npm start failed', { error: (error as Error).message });
	process.exit(1);
});
