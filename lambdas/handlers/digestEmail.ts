import type { Context } from 'aws-lambda';
import { DigestError, digestDay, runDigest, type DigestReport } from '../email/digest';
import { readDigestInvocation } from '../email/events';
import { awaitNoticesSummaries, NOTICES_WAIT_MS, noticesPending } from '../email/notices';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { EMAILS_SENT_METRIC, RUN_COMPLETED_METRIC } from './metricNames';
import { wireEmail, type EmailWiring } from './emailWiring';
import { logger, metrics, powertoolsHandler } from './powertools';
import { readEvent } from './readEvent';

/**
 * EventBridge Scheduler target, daily at the digest hour: one e-mail per recipient (SES), each
 * sent once per day however often this runs (Powertools Idempotency in the SES mailer). The monthly
 * compliance report goes out from a function of its own (complianceReport.ts).
 * Input: `{"scheduledTime": "<aws.scheduler.scheduled-time>"}`, read with Powertools Parser (a
 * scheduledTime that is no ISO 8601 time is refused: a digest for a guessed day would be wrong).
 */
let wired: EmailWiring | undefined;

export const handler = powertoolsHandler(async (invocation: unknown, context: Context): Promise<DigestReport> => {
	const input = readEvent(() => readDigestInvocation(invocation));
	if (!wired) {
		const first = await wireEmail();
		// Daily in every deployment (the notices may be off): records the SES account's rate in the sending budget, for the collector.
		await first.deps.budget.record();
		wired ??= first;
	}
	const { env, deps } = wired;
	deps.mailer.registerLambdaContext(context);
	const day = digestDay(input, Date.now(), env.timeZone);
	if (env.settings.customerNotices.enabled) {
		// The re-test notices start at this hour in their own function: the digest says what they did
		// (on the 1st; on a later day when a month's are not done and they catch up).
		const accounts = env.accounts?.map((a) => a.account) ?? [undefined];
		const waitFor = day.endsWith('-01') ? accounts : await noticesPending(deps.store, day, accounts);
		const missing = waitFor.length === 0 ? [] : await awaitNoticesSummaries(deps.store, day, waitFor, NOTICES_WAIT_MS);
		if (missing.length > 0) logger.warn('The re-test notices had not finished when the digest went out: it does not say what they did', { day, accounts: missing.map((a) => a ?? 'default') });
	}
	let digest: DigestReport;
	try {
		digest = await runDigest(deps, day);
	} catch (error) {
		if (error instanceof DigestError) logger.error('Digest failed for some recipients; the retry sends only theirs', { day, failed: error.report.failed, sent: error.report.sent.length });
		throw error;
	}
	logger.info('Digest sent', { day, sent: digest.sent.length, nothingToSay: digest.nothingToSay.length });
	metrics.addMetric(EMAILS_SENT_METRIC, MetricUnit.Count, digest.sent.length);
	// The digest's heartbeat (its alarm fires after 26 hours without one).
	metrics.addMetric(RUN_COMPLETED_METRIC, MetricUnit.Count, 1);
	return digest;
});
