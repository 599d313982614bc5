import type { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { resolveProfile } from '../../client';
import { readNoticeInput } from '../../client/noticesRead';
import { readToken } from '../adapters/tokenSecret';
import { connectService } from '../adapters/undiciService';
import type { Log } from '../ports';
import type { DigestDeps } from './digest';
import { noticeMonthOf, recordNoticesSummary, runNotices, type NoticesReport } from './notices';

/**
 * The customer re-test notices in a Lambda: on the first of a month, when enabled and the function
 * has the account (TEC_BASE_URL, TEC_TOKEN_SECRET_ARN), before the digest (which says what they
 * did). Sent once per customer and month: records in the state table under `notices:<YYYY-MM>` and
 * the SES mailer's idempotency. Not deployed yet: in the digest function the service client would
 * take its bundle from 352 to 650 KiB (over the 600 KiB budget), so it needs a function of its own.
 */
export async function noticesOnTheFirst(deps: DigestDeps, day: string, env: NodeJS.ProcessEnv, secrets: SecretsProvider, log: Log): Promise<NoticesReport | undefined> {
	if (!day.endsWith('-01') || !deps.settings.customerNotices.enabled) return undefined;
	const baseUrl = env.TEC_BASE_URL;
	const secretArn = env.TEC_TOKEN_SECRET_ARN;
	if (!baseUrl || !secretArn) {
		log.warn('customerNotices is enabled but the digest function has no account (one account only): no re-test notices', {});
		return undefined;
	}
	const token = await readToken(secrets, secretArn);
	const client = connectService({ baseUrl, token, environment: deps.environment, profile: env.TEC_SERVICE_PROFILE ? resolveProfile(env.TEC_SERVICE_PROFILE) : undefined });
	const report = await runNotices({ store: deps.store, mailer: deps.mailer, settings: deps.settings, environment: deps.environment, now: deps.now, read: () => readNoticeInput(client, deps.now) }, noticeMonthOf(day));
	await recordNoticesSummary(deps.store, report, day, deps.now());
	log.info('Customer re-test notices', { month: report.month, sent: report.sent.length, alreadySent: report.alreadySent.length, noAddress: report.noAddress.map((c) => `${c.customerName}: ${c.reason}`), optedOut: report.optedOut, skippedRecords: report.skippedRecords });
	return report;
}
