import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import { awsDeps } from '../email/aws';
import { DigestError, digestDay, runDigest, type DigestReport } from '../email/digest';
import { readEmailEnv, type EmailEnv } from '../email/env';

/**
 * EventBridge Scheduler target, daily at the digest hour: one e-mail per recipient (SES), each
 * sent once per day however often this runs (Powertools Idempotency in the SES mailer).
 * Input: `{"scheduledTime": "<aws.scheduler.scheduled-time>"}`.
 */
const logger = new Logger({ serviceName: 'test-equipment-cloud-email' });
let wired: { env: EmailEnv; deps: ReturnType<typeof awsDeps> } | undefined;

export const handler = async (input: { scheduledTime?: string } | undefined, context: Context): Promise<DigestReport> => {
	logger.addContext(context);
	if (!wired) {
		const env = readEmailEnv(process.env);
		wired = { env, deps: awsDeps(env) };
	}
	const { env, deps } = wired;
	deps.mailer.registerLambdaContext(context);
	const day = digestDay(input, Date.now(), env.timeZone);
	try {
		const report = await runDigest(deps, day);
		logger.info('Digest sent', { day, sent: report.sent.length, nothingToSay: report.nothingToSay.length });
		return report;
	} catch (error) {
		if (error instanceof DigestError) logger.error('Digest failed for some recipients; the retry sends only theirs', { day, failed: error.report.failed, sent: error.report.sent.length });
		throw error;
	}
};
