import { randomUUID } from 'node:crypto';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import type { BaseUrl, ServiceProfile } from '../../client';
import { scheduledAccount } from '../accounts';
import { invalidConfiguration, readConfig, settingsFrom, type Config } from '../config';
import { readToken } from '../adapters/tokenSecret';
import { connectService } from '../adapters/undiciService';
import type { PollerContext, PollerSettings, RunReport } from '../pollers/context';
import { RUN_COMPLETED_METRIC } from './metricNames';
import type { PollerAws } from './pollerAws';
import { logger, metrics } from './powertools';

/** Cold start: configuration checked once, clear errors when it is wrong. */
let config: Config | undefined;

/** The AWS side, wired when the first run begins (pollerAws.ts says why); a failed wiring is tried again. */
let aws: Promise<PollerAws> | undefined;
function awsWiring(): Promise<PollerAws> {
	aws ??= import('./pollerAws.js')
		.then(({ pollerAws }) => pollerAws())
		.catch((error: unknown) => {
			aws = undefined;
			throw error;
		});
	return aws;
}


interface AccountToRead {
	baseUrl: string | BaseUrl;
	environment: 'sandbox' | 'production';
	tokenSecretArn: string;
	account?: string;
	partition?: string;
	settings: Partial<PollerSettings>;
	profile?: ServiceProfile;
}

/** The account the schedule's input names (several accounts), else the one of the environment. */
function accountToRead(config: Config, input: unknown): AccountToRead {
	const scheduled = scheduledAccount(input);
	if (scheduled) {
		const settings: Partial<PollerSettings> = {};
		if (scheduled.dueSoonStages) settings.dueSoonStages = scheduled.dueSoonStages;
		if (scheduled.reminderDays !== undefined) settings.reminderDays = scheduled.reminderDays;
		return { ...scheduled, settings };
	}
	if (!config.TEC_BASE_URL || !config.TEC_TOKEN_SECRET_ARN) throw invalidConfiguration([{ message: 'TEC_ACCOUNTS=schedule: the schedule\'s input must name the account ({"account": {…}}); this invocation had none' }]);
	return { baseUrl: config.TEC_BASE_URL, environment: config.TEC_ENVIRONMENT, tokenSecretArn: config.TEC_TOKEN_SECRET_ARN, profile: config.TEC_SERVICE_PROFILE, settings: {} };
}

/**
 * Runs one poller inside a Lambda invocation (wrapped by powertoolsHandler, which adds the request
 * context to the logs and flushes the metrics): wiring, a report as the result.
 */
export async function runPoller(poll: (ctx: PollerContext) => Promise<RunReport>, context: Context, input?: unknown): Promise<RunReport> {
	config ??= readConfig(process.env);
	const target = accountToRead(config, input);
	if (target.account) logger.appendKeys({ account: target.account });
	const clients = await awsWiring();
	const token = await readToken(clients.secrets, target.tokenSecretArn);
	const client = connectService({
		baseUrl: target.baseUrl,
		token,
		environment: target.environment,
		profile: target.profile,
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
	// Gauges (the compliance figures) are an account's own: with several accounts they carry its
	// dimension, else one account's figures would stand for the deployment's. Emitted after the run.
	const gauges: Array<[string, number, (typeof MetricUnit)[keyof typeof MetricUnit]]> = [];
	const counters = {
		count: (name: string, value = 1) => metrics.addMetric(name, MetricUnit.Count, value),
		gauge: (name: string, value: number, unit: 'Count' | 'Percent') => void gauges.push([name, value, unit === 'Percent' ? MetricUnit.Percent : MetricUnit.Count]),
	};
	const report = await poll({
		client,
		store: clients.store(config.STATE_TABLE),
		publisher: clients.publisher({ busName: config.EVENT_BUS_NAME, log, metrics: counters }),
		environment: target.environment,
		account: target.account,
		partition: target.partition,
		now: Date.now,
		remainingMs: () => context.getRemainingTimeInMillis(),
		log,
		metrics: counters,
		// The invocation cannot outlive its timeout, so neither needs the lease.
		settings: { ...settingsFrom(config, context.getRemainingTimeInMillis() + 30_000), ...target.settings },
		runId: `${context.awsRequestId ?? randomUUID()}`,
	});
	// This invocation's metrics carry the poller as a dimension (cleared when they are flushed).
	metrics.addDimension('poller', report.poller);
	metrics.addMetric('RunDuration', MetricUnit.Milliseconds, report.durationMs);
	if (report.complete) metrics.addMetric(RUN_COMPLETED_METRIC, MetricUnit.Count, 1);
	for (const [name, value, unit] of gauges) {
		if (target.account === undefined) {
			metrics.addMetric(name, unit, value);
			continue;
		}
		// A single metric is flushed with its dimensions at once: one per gauge.
		const own = metrics.singleMetric();
		own.addDimensions({ poller: report.poller, account: target.account });
		own.addMetric(name, unit, value);
	}
	if (report.complete && target.account) {
		// The account's heartbeat: with the compliance figures, the only metrics with an Account dimension (docs/architecture.md, "Many accounts").
		const beat = metrics.singleMetric();
		beat.addDimensions({ poller: report.poller, account: target.account });
		beat.addMetric(RUN_COMPLETED_METRIC, MetricUnit.Count, 1);
	}
	logger.info('Poll run finished', { ...report });
	return report;
}
