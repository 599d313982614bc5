import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { digestDay } from '../email/digest';
import { readEmailEnv, type EmailEnv } from '../email/env';
import { readDigestInvocation } from '../email/events';
import type { NoticesReport } from '../email/notices';
import { noticeAccount, sendNotices } from '../email/noticesAws';
import { EMAILS_SENT_METRIC } from './metricNames';
import { logger, metrics, powertoolsHandler } from './powertools';
import { readEvent } from './readEvent';

/**
 * EventBridge Scheduler target daily at the digest hour (one schedule per account when the
 * deployment watches several): on the 1st the customer re-test notices of the next month, each
 * customer's once however often this runs; on a later day only a month not done yet (noticesPending).
 * The digest of the day waits for its summary (lambdas/email/notices.ts, awaitNoticesSummaries).
 * Input: `{"scheduledTime": "…", "account"?: {…}}`.
 * A function of its own: the service client and the notices would take the digest's bundle past
 * its budget.
 */
let wired: ({ env: EmailEnv } & Awaited<ReturnType<NoticesAws>>) | undefined;
type NoticesAws = typeof import('./noticesAws').noticesAws;

const log = {
	info: (m: string, x?: Record<string, unknown>) => logger.info(m, x ?? {}),
	warn: (m: string, x?: Record<string, unknown>) => logger.warn(m, x ?? {}),
	error: (m: string, x?: Record<string, unknown>) => logger.error(m, x ?? {}),
};

export const handler = powertoolsHandler(async (invocation: unknown, context: Context): Promise<NoticesReport | undefined> => {
	const input = readEvent(() => readDigestInvocation(invocation));
	const target = noticeAccount(process.env, invocation);
	if (target.account) logger.appendKeys({ account: target.account });
	if (!wired) {
		// The AWS SDK is loaded by the first run, not by the module (bench/bundles.ts).
		const env = readEmailEnv(process.env);
		const { noticesAws } = await import('./noticesAws.js');
		wired ??= { env, ...(await noticesAws(env)) };
	}
	const { env, deps, secrets } = wired;
	deps.mailer.registerLambdaContext(context);
	const report = await sendNotices(deps, digestDay(input, Date.now(), env.timeZone), target, secrets, log, { remainingMs: () => context.getRemainingTimeInMillis(), runId: context.awsRequestId });
	metrics.addMetric(EMAILS_SENT_METRIC, MetricUnit.Count, report?.sent.length ?? 0);
	return report;
});
