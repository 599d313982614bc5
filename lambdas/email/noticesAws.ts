import { randomUUID } from 'node:crypto';
import type { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { parseBaseUrl, resolveProfile, type BaseUrl, type ServiceProfile } from '../../client';
import { readNoticeInput } from '../../client/noticesRead';
import { scheduledAccount } from '../accounts';
import { readToken } from '../adapters/tokenSecret';
import { connectService } from '../adapters/undiciService';
import { ACCOUNT_LEASE_POLL_MS, accountLeaseName, DEFAULT_ACCOUNT_LEASE_WAIT_MS } from '../pollers/context';
import type { Log, StateStore } from '../ports';
import type { DigestDeps } from './digest';
import { noticeMonthOf, NoticesError, noticesPending, recordNoticesSummary, runNotices, type NoticesReport } from './notices';

/** The account whose customers get their notices: the schedule's (several accounts) or the environment's. */
export interface NoticeAccount {
	baseUrl: string | BaseUrl;
	environment: 'sandbox' | 'production';
	tokenSecretArn: string;
	profile?: ServiceProfile;
	/** Set when the deployment watches several accounts. */
	account?: string;
	/** The account's partition (several accounts; not `default`): in its lease's name, as for its pollers. */
	partition?: string;
}

/** The account an invocation names (`{"account": {…}}`, as the pollers' schedules do), else the one of TEC_BASE_URL. */
export function noticeAccount(env: NodeJS.ProcessEnv, input: unknown): NoticeAccount {
	const scheduled = scheduledAccount(input);
	if (scheduled) return { baseUrl: scheduled.baseUrl, environment: scheduled.environment, tokenSecretArn: scheduled.tokenSecretArn, profile: scheduled.profile, account: scheduled.id, partition: scheduled.partition };
	if (!env.TEC_BASE_URL || !env.TEC_TOKEN_SECRET_ARN) {
		throw new Error('Invalid configuration: the re-test notices need the account: TEC_BASE_URL and TEC_TOKEN_SECRET_ARN (one account), or an invocation naming it ({"account": {…}})');
	}
	return {
		baseUrl: parseBaseUrl(env.TEC_BASE_URL, 'TEC_BASE_URL'),
		environment: env.TEC_ENVIRONMENT === 'production' ? 'production' : 'sandbox',
		tokenSecretArn: env.TEC_TOKEN_SECRET_ARN,
		profile: env.TEC_SERVICE_PROFILE ? resolveProfile(env.TEC_SERVICE_PROFILE) : undefined,
	};
}

/**
 * The customer re-test notices of one account in a Lambda (lambdas/handlers/customerNotices.ts),
 * invoked daily: on the 1st, and on a later day when the month's are not done (then late), for
 * the month after `day`'s, read from the service now, sent once per customer and month (records in
 * the state table under `notices:<YYYY-MM>` and the SES mailer's idempotency). The summary the
 * day's digest reads is recorded even when some sends failed (what did go out); the failure is
 * then thrown, so the retry sends only the rest.
 */
export async function sendNotices(deps: DigestDeps & { leases: Leases }, day: string, target: NoticeAccount, secrets: SecretsProvider, log: Log, options: LeaseOptions = {}): Promise<NoticesReport | undefined> {
	if (!deps.settings.customerNotices.enabled) {
		log.warn('The re-test notices are off (customerNotices.enabled is false): nothing sent', {});
		return undefined;
	}
	// Daily at the digest hour: a later day than the 1st sends only a month whose notices are not done.
	const month = noticeMonthOf(day);
	if (!day.endsWith('-01') && (await noticesPending(deps.store, day, [target.account])).length === 0) {
		log.info("The re-test notices of the month are done: nothing to catch up", { month });
		return undefined;
	}
	const lease = accountLeaseName({ environment: target.environment, partition: target.partition });
	const owner = options.runId ?? `notices-${randomUUID()}`;
	const holdMs = (options.remainingMs?.() ?? 15 * 60_000) + 30_000;
	// One notices run per account at a time: a second one (the scheduler's at-least-once delivery, a
	// manual run) finds the first sending and leaves it the month, without failing or alarming.
	const run = `notices-run:${lease}`;
	if (!(await deps.leases.acquireLease(run, owner, deps.now(), holdMs))) {
		log.info('Another run is sending the re-test notices of this account: it sends them, this one ends', { month, lease: run });
		return undefined;
	}
	try {
		// One token, one reader: the account's lease, as its pollers take it, held while the notices read and send.
		await takeAccountLease(deps.leases, lease, owner, deps.now, options, log);
		try {
			return await sendHolding(deps, day, target, secrets, log);
		} finally {
			await deps.leases.releaseLease(lease, owner);
		}
	} finally {
		await deps.leases.releaseLease(run, owner);
	}
}

type Leases = Pick<StateStore, 'acquireLease' | 'releaseLease'>;

export interface LeaseOptions {
	/** How long to wait for the account's lease (default: the pollers' 2 minutes). */
	leaseWaitMs?: number;
	/** Time left in the invocation: the lease is held that long plus 30 s, so a crashed run frees it. */
	remainingMs?: () => number;
	runId?: string;
	sleep?: (ms: number) => Promise<void>;
}

/**
 * Takes the account's lease, looking again every ~2 s while a poller of the account holds it; past
 * the bound the run fails (Lambda retries it, a daily run catches up): notices are not skipped in silence.
 */
async function takeAccountLease(leases: Leases, lease: string, owner: string, now: () => number, options: LeaseOptions, log: Log): Promise<void> {
	const started = now();
	const bound = options.leaseWaitMs ?? DEFAULT_ACCOUNT_LEASE_WAIT_MS;
	const holdMs = (options.remainingMs?.() ?? 15 * 60_000) + 30_000;
	const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
	for (let look = 1; ; look++) {
		if (await leases.acquireLease(lease, owner, now(), holdMs)) {
			if (look > 1) log.info("Waited for the account's poller to finish", { waitedMs: now() - started });
			return;
		}
		const pause = ACCOUNT_LEASE_POLL_MS * (0.75 + Math.random() / 2);
		if (now() - started + pause > bound) throw new Error(`Another run held the account's lease (${lease}) for ${Math.round((now() - started) / 1000)} s: the re-test notices read nothing and sent nothing; the retry sends them`);
		await sleep(pause);
	}
}

async function sendHolding(deps: DigestDeps, day: string, target: NoticeAccount, secrets: SecretsProvider, log: Log): Promise<NoticesReport> {
	const token = await readToken(secrets, target.tokenSecretArn);
	const client = connectService({ baseUrl: target.baseUrl, token, environment: target.environment, profile: target.profile });
	const month = noticeMonthOf(day);
	let report: NoticesReport;
	let failure: NoticesError | undefined;
	try {
		report = await runNotices({ store: deps.store, mailer: deps.mailer, settings: deps.settings, environment: target.environment, now: deps.now, account: target.account, read: () => readNoticeInput(client, deps.now, deps.timeZone) }, month);
	} catch (error) {
		if (!(error instanceof NoticesError)) throw error;
		failure = error;
		report = error.report;
	}
	await recordNoticesSummary(deps.store, report, day, deps.now());
	log.info('Customer re-test notices', { month, sent: report.sent.length, alreadySent: report.alreadySent.length, inProgress: report.inProgress, failed: report.failed.length, noAddress: report.noAddress.map((c) => `${c.customerName}: ${c.reason}`), optedOut: report.optedOut, skippedRecords: report.skippedRecords });
	if (failure) throw failure;
	return report;
}
