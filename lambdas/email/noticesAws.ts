import type { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { parseBaseUrl, resolveProfile, type BaseUrl, type ServiceProfile } from '../../client';
import { readNoticeInput } from '../../client/noticesRead';
import { scheduledAccount } from '../accounts';
import { readToken } from '../adapters/tokenSecret';
import { connectService } from '../adapters/undiciService';
import type { Log } from '../ports';
import type { DigestDeps } from './digest';
import { noticeMonthOf, NoticesError, recordNoticesSummary, runNotices, type NoticesReport } from './notices';

/** The account whose customers get their notices: the schedule's (several accounts) or the environment's. */
export interface NoticeAccount {
	baseUrl: string | BaseUrl;
	environment: 'sandbox' | 'production';
	tokenSecretArn: string;
	profile?: ServiceProfile;
	/** Set when the deployment watches several accounts. */
	account?: string;
}

/** The account an invocation names (`{"account": {…}}`, as the pollers' schedules do), else the one of TEC_BASE_URL. */
export function noticeAccount(env: NodeJS.ProcessEnv, input: unknown): NoticeAccount {
	const scheduled = scheduledAccount(input);
	if (scheduled) return { baseUrl: scheduled.baseUrl, environment: scheduled.environment, tokenSecretArn: scheduled.tokenSecretArn, profile: scheduled.profile, account: scheduled.id };
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
 * The customer re-test notices of one account in a Lambda (lambdas/handlers/customerNotices.ts):
 * the month after `day`'s, read from the service now, sent once per customer and month (records in
 * the state table under `notices:<YYYY-MM>` and the SES mailer's idempotency). The summary the
 * day's digest reads is recorded even when some sends failed (what did go out); the failure is
 * then thrown, so the retry sends only the rest.
 */
export async function sendNotices(deps: DigestDeps, day: string, target: NoticeAccount, secrets: SecretsProvider, log: Log): Promise<NoticesReport | undefined> {
	if (!deps.settings.customerNotices.enabled) {
		log.warn('The re-test notices are off (customerNotices.enabled is false): nothing sent', {});
		return undefined;
	}
	const token = await readToken(secrets, target.tokenSecretArn);
	const client = connectService({ baseUrl: target.baseUrl, token, environment: target.environment, profile: target.profile });
	const month = noticeMonthOf(day);
	let report: NoticesReport;
	let failure: NoticesError | undefined;
	try {
		report = await runNotices({ store: deps.store, mailer: deps.mailer, settings: deps.settings, environment: target.environment, now: deps.now, account: target.account, read: () => readNoticeInput(client, deps.now) }, month);
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
