import { randomUUID } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit, Metrics } from '@aws-lambda-powertools/metrics';
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import type { Context } from 'aws-lambda';
import { readConfig, settingsFrom, type Config } from '../config';
import { DynamoStateStore } from '../adapters/dynamoStateStore';
import { EventBridgePublisher } from '../adapters/eventBridgePublisher';
import { connectService } from '../adapters/undiciService';
import type { PollerContext, RunReport } from '../pollers/context';

/** Cold start: configuration checked once, clear errors when it is wrong. */
let config: Config | undefined;
export const logger = new Logger({ serviceName: 'test-equipment-cloud-pollers' });
export const metrics = new Metrics({ namespace: 'TestEquipmentCloud', serviceName: 'pollers' });

/** The token is cached by Powertools for 5 minutes, then read again (rotation takes effect). */
const TOKEN_MAX_AGE_S = 300;

async function readToken(arn: string): Promise<string> {
	const secret = await getSecret(arn, { maxAge: TOKEN_MAX_AGE_S });
	const text = typeof secret === 'string' ? secret.trim() : secret ? new TextDecoder().decode(secret).trim() : '';
	if (text.startsWith('{')) {
		const token = (JSON.parse(text) as { token?: unknown }).token;
		if (typeof token === 'string' && token !== '') return token;
	} else if (text !== '') return text;
	throw new Error('The access token secret is empty: put the token in it (see README, "Deploy on AWS")');
}

/** Runs one poller inside a Lambda invocation: wiring, metrics, a report as the result. */
export async function runPoller(poll: (ctx: PollerContext) => Promise<RunReport>, context: Context): Promise<RunReport> {
	config ??= readConfig(process.env);
	const token = await readToken(config.TEC_TOKEN_SECRET_ARN);
	const client = connectService({
		baseUrl: config.TEC_BASE_URL,
		token,
		environment: config.TEC_ENVIRONMENT,
		onEvent: (e) => {
			if (e.type === 'retry' && e.kind === 'rateLimit') metrics.addMetric('RateLimited', MetricUnit.Count, 1);
			if (e.type === 'retry') logger.warn('Retrying a request', { path: e.path, status: e.status, kind: e.kind, waitMs: e.waitMs });
		},
	});
	const log = {
		info: (m: string, x?: Record<string, unknown>) => logger.info(m, x ?? {}),
		warn: (m: string, x?: Record<string, unknown>) => logger.warn(m, x ?? {}),
		error: (m: string, x?: Record<string, unknown>) => logger.error(m, x ?? {}),
	};
	const counters = { count: (name: string, value = 1) => metrics.addMetric(name, MetricUnit.Count, value) };
	try {
		const report = await poll({
			client,
			store: new DynamoStateStore(config.STATE_TABLE),
			publisher: new EventBridgePublisher({ busName: config.EVENT_BUS_NAME, log, metrics: counters }),
			environment: config.TEC_ENVIRONMENT,
			now: Date.now,
			remainingMs: () => context.getRemainingTimeInMillis(),
			log,
			metrics: counters,
			// The invocation cannot outlive its timeout, so neither needs the lease.
			settings: settingsFrom(config, context.getRemainingTimeInMillis() + 30_000),
			runId: `${context.awsRequestId ?? randomUUID()}`,
		});
		metrics.addMetric('RunDuration', MetricUnit.Milliseconds, report.durationMs);
		logger.info('Poll run finished', { ...report });
		return report;
	} finally {
		metrics.publishStoredMetrics();
	}
}
