import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import type { Context } from 'aws-lambda';
import { onEvent } from '../email/digest';
import { awsDeps } from '../email/aws';
import { readEmailEnv } from '../email/env';
import { readEmailEvent, type EmailEvent } from '../email/events';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { EMAILS_SENT_METRIC } from './metricNames';
import { logger, metrics, powertoolsHandler, tracer } from './powertools';
import { readEvent } from './readEvent';

/**
 * EventBridge rule target: files each event for the daily digest (and e-mails a failed test at
 * once), once per event: Powertools Idempotency on the event's dedupeKey, so a redelivered event
 * changes nothing. The event is parsed first (Powertools Parser, lambdas/email/events.ts): one that
 * breaks its schema is refused before anything is written. A failure throws: EventBridge retries,
 * then the event goes to the DLQ.
 */
let handle: ((event: EmailEvent, context: Context) => Promise<unknown>) | undefined;

/** Cold start: configuration checked once, clear errors when it is wrong. */
function wire() {
	const deps = awsDeps(readEmailEnv(process.env), tracedClients());
	const config = new IdempotencyConfig({ eventKeyJmesPath: 'detail.metadata.dedupeKey', expiresAfterSeconds: 30 * 86_400, throwOnNoIdempotencyKey: true });
	return makeIdempotent(
		async (event: EmailEvent, context: Context) => {
			deps.mailer.registerLambdaContext(context);
			const result = await onEvent(deps, event);
			if (result.sentNow > 0) metrics.addMetric(EMAILS_SENT_METRIC, MetricUnit.Count, result.sentNow);
			logger.info('Event collected', { detailType: result.detailType, dedupeKey: result.dedupeKey, recipients: result.recipients.length, sentNow: result.sentNow, ignored: result.ignored });
			return { detailType: result.detailType, recipients: result.recipients.length, sentNow: result.sentNow };
		},
		{ persistenceStore: deps.persistence, config },
	);
}

export const handler = powertoolsHandler(async (delivered: unknown, context: Context): Promise<unknown> => {
	const event = readEvent(() => readEmailEvent(delivered));
	if ('ignored' in event) {
		logger.warn('Event ignored', { detailType: event.detailType, ignored: event.ignored });
		return { detailType: event.detailType, ignored: event.ignored };
	}
	handle ??= wire();
	return handle(event, context);
});

/** The DynamoDB and SES v2 clients, recorded by the Tracer like the pollers' AWS SDK clients. */
function tracedClients() {
	return { dynamo: tracer.captureAWSv3Client(new DynamoDBClient({})), ses: tracer.captureAWSv3Client(new SESv2Client({})) };
}
