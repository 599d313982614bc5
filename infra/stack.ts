import { Annotations, CfnOutput, Duration, Stack, Tags, type StackProps } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { isPlaceholderHost, placeholderWarnings, type AlertsConfig } from './config';
import { activeUtcPeriods } from './activeHours';
import { Alarms } from './constructs/alarms';
import { AlertsTopic } from './constructs/alertsTopic';
import { EMAIL_SERVICE, EmailAlerts } from './constructs/emailAlerts';
import { ComplianceDashboard } from './constructs/dashboard';
import { EventBus } from './constructs/eventBus';
import { N8nWebhook } from './constructs/n8nWebhook';
import { POLLER_NAMES, POLLER_SERVICE, Pollers, pollerRunMinutes, pollersReadStackToken, type PollerName } from './constructs/pollers';
import { PollerState } from './constructs/state';
import { StateBackup } from './constructs/stateBackup';
import { EventSchemaRegistry } from './constructs/eventSchemas';

export { ARCHIVE_RETENTION } from './constructs/eventBus';
export { DLQ_RETENTION } from './constructs/deadLetterQueue';
export { WEBHOOK_HEADER, WEBHOOK_RETRY } from './constructs/n8nWebhook';
export { LOG_RETENTION } from './constructs/nodeFunction';
export { POLLER_MEMORY_MB, POLLER_SAFETY, POLLER_TIMEOUT } from './constructs/pollers';

export interface TestEquipmentCloudAlertsProps extends StackProps {
	config: AlertsConfig;
}

/**
 * The deployable alerting stack, composed of its parts (infra/constructs/): the event bus, the
 * pollers' state, the pollers on their schedules, the alarms topic, the alert e-mails (SES), the optional
 * n8n webhook, and alarms. Environment-agnostic: no lookups, no account or region.
 */
export class TestEquipmentCloudAlerts extends Stack {
	readonly bus: events.EventBus;
	readonly table: dynamodb.Table;
	/** The single-account token secret; none where no poller reads it (several accounts, none named `default`). */
	readonly tokenSecret?: secretsmanager.Secret;
	readonly topic: sns.Topic;
	readonly pollers: { overdueDevices: lambda.Function; testResults: lambda.Function; dueSoon: lambda.Function; dueDates: lambda.Function };
	readonly schedulerDlq: sqs.Queue;
	readonly email: EmailAlerts;
	readonly alertDeliveryDlq: sqs.Queue;
	readonly webhookDlq?: sqs.Queue;
	readonly alarms: cloudwatch.Alarm[];

	constructor(scope: Construct, id: string, props: TestEquipmentCloudAlertsProps) {
		super(scope, id, { description: 'Test Equipment Cloud alerts: pollers, events, alert e-mails, n8n webhook', ...props });
		const config = props.config;
		Tags.of(this).add('project', 'test-equipment-cloud');
		Tags.of(this).add('tec-environment', config.environment);
		for (const a of config.accounts) {
			if (isPlaceholderHost(new URL(a.baseUrl).hostname)) {
				const which = config.accounts.length > 1 ? `accounts "${a.id}": ` : '';
				Annotations.of(this).addWarningV2('tec:placeholderBaseUrl', `${which}baseUrl ${a.baseUrl} is a placeholder: deploy with -c baseUrl=<your Test Equipment Cloud address>`);
			}
		}

		for (const warning of placeholderWarnings(config)) Annotations.of(this).addWarningV2('tec:placeholderAddress', warning);

		const events = new EventBus(this, 'Events');
		new EventSchemaRegistry(this, 'EventSchemas', { environment: config.environment });
		const state = new PollerState(this, 'State', { environment: config.environment, tableName: config.stateTableName, tokenSecret: pollersReadStackToken(config) });
		new StateBackup(this, 'StateBackup', { table: state.table });
		const pollers = new Pollers(this, 'Pollers', { config, table: state.table, tokenSecret: state.tokenSecret, bus: events.bus });
		const alerts = new AlertsTopic(this, 'Alerts', { environment: config.environment, emails: config.alertEmails });
		const alarms = new Alarms(this, 'Alarms', { topic: alerts.topic });
		const email = new EmailAlerts(this, 'Email', { config, bus: events.bus, table: state.table, schedulerDlq: pollers.schedulerDlq, alarms, accounts: pollers.accountAccess });
		const webhook = config.n8nWebhookUrl ? new N8nWebhook(this, 'N8nWebhook', { bus: events.bus, url: config.n8nWebhookUrl }) : undefined;

		const rate = config.scheduleRateMinutes;
		const period = Duration.minutes(Math.max(5, rate));
		// The UTC periods a run is expected in (activeHours in timeZone, every season): per poller, as it runs.
		const expected = (pollers: PollerName[], minutes: number) => {
			const sets = pollers.map((p) => activeUtcPeriods(config.activeHours, config.timeZone, minutes, pollerRunMinutes(p, rate)));
			return sets[0] && sets[0].filter((x) => sets.every((s) => s!.includes(x)));
		};
		// One failed run is retried by the next tick; two failed runs out of three is a problem.
		alarms.function('OverdueDevicesPoller', pollers.functions.overdueDevices, period, 'OverdueDevices poller', [3, 2]);
		alarms.function('TestResultsPoller', pollers.functions.testResults, period, 'TestResults poller', [3, 2]);
		alarms.function('DueSoonPoller', pollers.functions.dueSoon, period, 'DueSoon poller', [3, 2]);
		if (config.accounts.length === 1) {
			for (const p of POLLER_NAMES) alarms.heartbeat(p, POLLER_SERVICE, rate, expected([p], rate));
		} else for (const a of config.accounts) alarms.accountHeartbeat(a.id, POLLER_SERVICE, rate, expected([...POLLER_NAMES], rate));
		// Hourly: failures over three runs, silence over three hours (each account's, with several).
		alarms.function('DueDatesPoller', pollers.functions.dueDates, Duration.hours(1), 'DueDates poller', [3, 2]);
		if (config.accounts.length === 1) alarms.heartbeat('dueDates', POLLER_SERVICE, 60, expected(['dueDates'], 60));
		else alarms.accountsDueDatesHeartbeat(config.accounts.map((a) => a.id), POLLER_SERVICE, expected(['dueDates'], 60));
		alarms.digestHeartbeat(EMAIL_SERVICE, `daily at ${config.email.digestHour}:00 ${config.timeZone}`);
		new ComplianceDashboard(this, 'Dashboard', { environment: config.environment, accounts: config.accounts.map((a) => a.id), pollers: pollers.functions, emailFunctions: [email.collector, email.digest, email.report, ...(email.notices ? [email.notices] : [])] });
		alarms.queue('SchedulerDlqDepth', pollers.schedulerDlq, 'EventBridge Scheduler could not invoke a poller or an e-mail function (digest, report, notices), or one of those failed after its retries (messages in the scheduler DLQ)');
		alarms.queue('AlertDeliveryDlqDepth', alerts.deliveryDlq, 'SNS could not deliver an alert e-mail to a subscriber (messages in the delivery DLQ)');
		if (webhook) alarms.queue('WebhookDlqDepth', webhook.dlq, 'n8n did not accept events within the retries (messages in the webhook DLQ; replay them from the archive)');

		this.bus = events.bus;
		this.table = state.table;
		this.tokenSecret = state.tokenSecret;
		this.topic = alerts.topic;
		this.pollers = pollers.functions;
		this.schedulerDlq = pollers.schedulerDlq;
		this.email = email;
		this.alertDeliveryDlq = alerts.deliveryDlq;
		this.webhookDlq = webhook?.dlq;
		this.alarms = alarms.alarms;

		new CfnOutput(this, 'EventBusName', { value: events.bus.eventBusName });
		new CfnOutput(this, 'EventBusArn', { value: events.bus.eventBusArn });
		new CfnOutput(this, 'ArchiveArn', { value: events.archive.archiveArn, description: 'Replay events from here (aws events start-replay)' });
		new CfnOutput(this, 'OverdueDevicesPollerName', { value: pollers.functions.overdueDevices.functionName });
		new CfnOutput(this, 'TestResultsPollerName', { value: pollers.functions.testResults.functionName });
		new CfnOutput(this, 'DueSoonPollerName', { value: pollers.functions.dueSoon.functionName });
		new CfnOutput(this, 'DueDatesPollerName', { value: pollers.functions.dueDates.functionName });
		if (state.tokenSecret) {
			const whose = config.accounts.length > 1 ? "account default's access token" : 'the access token';
			new CfnOutput(this, 'TokenSecretArn', { value: state.tokenSecret.secretArn, description: `Put ${whose} here (docs/aws-deployment.md, "Put the access token in")` });
		}
		new CfnOutput(this, 'AlertsTopicArn', { value: alerts.topic.topicArn });
		new CfnOutput(this, 'StateTableName', { value: state.table.tableName });
	}
}
