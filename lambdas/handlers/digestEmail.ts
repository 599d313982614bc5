import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import type { Context } from 'aws-lambda';
import { z } from 'zod/v4';
import { formatDigestEmail } from '../email/formatDigest';
import { invalidConfiguration } from '../config';
import { DETAIL_TYPES, EVENT_SOURCE, OverdueDevicesDigestDetail } from '../events/schemas';
import { logger, powertoolsHandler, tracer } from './powertools';

/**
 * EventBridge rule target for `Overdue Devices Digest`: turns the digest into one readable
 * e-mail and publishes it to the alerts SNS topic (whose e-mail subscriptions deliver it).
 */
const EnvSchema = z.object({
	ALERT_TOPIC_ARN: z.string({ error: 'ALERT_TOPIC_ARN is required: the SNS topic the e-mail goes to' }).min(1),
	TIME_ZONE: z.string().default('UTC'),
	ALERT_SENDER: z.string().optional(),
});
export type DigestEmailEnv = z.infer<typeof EnvSchema>;

export function readDigestEmailEnv(env: Record<string, string | undefined>): DigestEmailEnv {
	const parsed = EnvSchema.safeParse(env);
	if (!parsed.success) throw invalidConfiguration(parsed.error.issues);
	return parsed.data;
}

export interface DigestEventInput {
	source?: string;
	'detail-type'?: string;
	detail?: unknown;
}

export interface SendResult {
	subject: string;
	dedupeKey: string;
	messageId?: string;
}

/** Validates the event against the contract, formats it and publishes one message. */
export async function sendDigestEmail(
	event: DigestEventInput,
	env: DigestEmailEnv,
	publish: (input: { TopicArn: string; Subject: string; Message: string }) => Promise<{ MessageId?: string }>,
): Promise<SendResult> {
	if (event.source !== EVENT_SOURCE || event['detail-type'] !== DETAIL_TYPES.overdueDevicesDigest) {
		throw new Error(`Expected a ${EVENT_SOURCE} "${DETAIL_TYPES.overdueDevicesDigest}" event, got source "${event.source}" and detail-type "${event['detail-type']}"`);
	}
	const parsed = OverdueDevicesDigestDetail.safeParse(event.detail);
	if (!parsed.success) {
		throw new Error(`The digest does not match its schema: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
	}
	const email = formatDigestEmail(parsed.data, { timeZone: env.TIME_ZONE, sender: env.ALERT_SENDER });
	const out = await publish({ TopicArn: env.ALERT_TOPIC_ARN, Subject: email.subject, Message: email.body });
	return { subject: email.subject, dedupeKey: parsed.data.metadata.dedupeKey, messageId: out.MessageId };
}

let sns: SNSClient | undefined;
let env: DigestEmailEnv | undefined;

export const handler = powertoolsHandler(async (event: DigestEventInput, _context: Context): Promise<SendResult> => {
	env ??= readDigestEmailEnv(process.env);
	sns ??= tracer.captureAWSv3Client(new SNSClient({}));
	const client = sns;
	const result = await sendDigestEmail(event, env, (input) => client.send(new PublishCommand(input)));
	logger.info('Digest e-mail published', { ...result });
	return result;
});
