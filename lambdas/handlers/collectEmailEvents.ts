import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import { onEvent } from '../email/digest';
import { awsDeps } from '../email/aws';
import { readEmailEnv } from '../email/env';
import type { IncomingEvent } from '../email/facts';

/**
 * EventBridge rule target: files each event for the daily digest (and e-mails a failed test at
 * once), once per event: Powertools Idempotency on the event's dedupeKey, so a redelivered event
 * changes nothing. A failure throws: EventBridge retries, then the event goes to the DLQ.
 */
const logger = new Logger({ serviceName: 'test-equipment-cloud-email' });
let handle: ((event: IncomingEvent, context: Context) => Promise<unknown>) | undefined;

/** Cold start: configuration checked once, clear errors when it is wrong. */
function wire() {
	const deps = awsDeps(readEmailEnv(process.env));
	const config = new IdempotencyConfig({ eventKeyJmesPath: 'detail.metadata.dedupeKey', expiresAfterSeconds: 30 * 86_400, throwOnNoIdempotencyKey: true });
	return makeIdempotent(
		async (event: IncomingEvent, context: Context) => {
			deps.mailer.registerLambdaContext(context);
			const result = await onEvent(deps, event);
			logger.info('Event collected', { detailType: result.detailType, dedupeKey: result.dedupeKey, recipients: result.recipients.length, sentNow: result.sentNow, ignored: result.ignored });
			return { detailType: result.detailType, recipients: result.recipients.length, sentNow: result.sentNow };
		},
		{ persistenceStore: deps.persistence, config },
	);
}

export const handler = async (event: IncomingEvent, context: Context): Promise<unknown> => {
	logger.addContext(context);
	handle ??= wire();
	return handle(event, context);
};
