import type { awsDeps } from '../email/aws';
import { readEmailEnv, type EmailEnv } from '../email/env';
import { captureAWSv3Client, logger } from './powertools';

export interface EmailWiring {
	env: EmailEnv;
	deps: ReturnType<typeof awsDeps>;
}

/**
 * What the digest and the monthly report wire at their first run: the settings, the traced AWS
 * clients, and their deps with sends paced to the SES account's rate. The AWS SDK is loaded here,
 * by the first run, not by the module (bench/bundles.ts). `sentRecordSeconds`: how long a send is
 * remembered (the mailer's default, a digest day's three days, unless given).
 */
export async function wireEmail(options: { sentRecordSeconds?: number } = {}): Promise<EmailWiring> {
	const env = readEmailEnv(process.env);
	const { awsDeps, sesSendingRate, tracedClients } = await import('../email/aws.js');
	const clients = await tracedClients(captureAWSv3Client);
	const maxSendRate = await sesSendingRate(clients.ses, { warn: (m, x) => logger.warn(m, x) });
	return { env, deps: awsDeps(env, { ...clients, maxSendRate, ...options }) };
}
