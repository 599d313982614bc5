import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { awsDeps, sesSendingRate, tracedClients } from '../email/aws';
import type { EmailEnv } from '../email/env';
import { captureAWSv3Client, logger } from './powertools';

/**
 * The notices function's AWS side (the e-mail functions' state table and SES, and the account's
 * token secret), traced by X-Ray; imported when the first run begins, not while the function loads.
 */
export async function noticesAws(env: EmailEnv): Promise<{ deps: ReturnType<typeof awsDeps>; secrets: SecretsProvider }> {
	const [clients, secrets] = await Promise.all([tracedClients(captureAWSv3Client), captureAWSv3Client(new SecretsManagerClient({}))]);
	// A notice per customer: paced to the account's SES sending rate, read once per container and
	// recorded in the deployment's sending budget for the digest, which sends in the same minute.
	const maxSendRate = await sesSendingRate(clients.ses, { warn: (m, x) => logger.warn(m, x) });
	const deps = awsDeps(env, { ...clients, maxSendRate });
	await deps.budget.record();
	return { deps, secrets: new SecretsProvider({ awsSdkV3Client: secrets }) };
}
