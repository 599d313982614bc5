import type { Context } from 'aws-lambda';
import { onEvent } from '../email/digest';
import { readEmailEnv } from '../email/env';
import { readEmailEvent, type EmailEvent } from '../email/events';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { EMAILS_SENT_METRIC } from './metricNames';
import { captureAWSv3Client, logger, metrics, powertoolsHandler } from './powertools';
import { readEvent } from './readEvent';

/**
 * EventBridge rule target: files each event for the daily digest (and e-mails a failed test at
 * once), once per event: Powertools Idempotency on the event's dedupeKey, so a redelivered event
 * changes nothing. The event is parsed first (Powertools Parser, lambdas/email/events.ts): one that
 * breaks its schema is refused before anything is written. A failure throws: EventBridge retries,
 * then the event goes to the DLQ.
 */
let handle: Promise<(event: EmailEvent, context: Context) => Promise<unknown>> | undefined;

/**
 * Cold start: configuration checked once, clear errors when it is wrong. The AWS SDK is loaded
 * and Idempotency are loaded by the first event that gets this far, not by the module (bench/bundles.ts).
 */
async function wire() {
	const env = readEmailEnv(process.env);
	const { awsDeps, oncePerEvent, tracedClients } = await import('../email/aws.js');
	const clients = await tracedClients(captureAWSv3Client);
	const deps = awsDeps(env, clients);
	return oncePerEvent(async (event: EmailEvent, context: Context) => {
		deps.mailer.registerLambdaContext(context);
		const result = await onEvent(deps, event);
		if (result.sentNow > 0) metrics.addMetric(EMAILS_SENT_METRIC, MetricUnit.Count, result.sentNow);
		logger.info('Event collected', { detailType: result.detailType, dedupeKey: result.dedupeKey, recipients: result.recipients.length, sentNow: result.sentNow, ignored: result.ignored });
		return { detailType: result.detailType, recipients: result.recipients.length, sentNow: result.sentNow };
	}, deps.persistence);
}

export const handler = powertoolsHandler(async (delivered: unknown, context: Context): Promise<unknown> => {
	const event = readEvent(() => readEmailEvent(delivered));
	if ('ignored' in event) {
		logger.warn('Event ignored', { detailType: event.detailType, ignored: event.ignored });
		return { detailType: event.detailType, ignored: event.ignored };
	}
	// A failed wiring is not kept: the next event tries again.
	handle ??= wire().catch((error: unknown) => {
		handle = undefined;
		throw error;
	});
	return (await handle)(event, context);
});
