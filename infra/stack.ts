import { join } from 'node:path';
import { Annotations, CfnOutput, Duration, RemovalPolicy, SecretValue, Stack, Tags, TimeZone, Validations, type StackProps } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { DETAIL_TYPES, EVENT_SOURCE } from '../lambdas/events/names';
import type { AlertsConfig } from './config';
import { EmailAlerts } from './emailAlerts';

/** The header the API destination sends to n8n; its value lives in Secrets Manager. */
export const WEBHOOK_HEADER = 'X-TEC-Webhook-Key';

/** Lambda timeout of a poller, and the time it keeps in hand: it stops before a page when less is left. */
export const POLLER_TIMEOUT = Duration.minutes(5);
export const POLLER_SAFETY = Duration.seconds(60);
export const POLLER_MEMORY_MB = 512;
export const LOG_RETENTION = logs.RetentionDays.ONE_MONTH;
export const ARCHIVE_RETENTION = Duration.days(90);
export const DLQ_RETENTION = Duration.days(14);
export const WEBHOOK_RETRY = { attempts: 10, maxEventAge: Duration.hours(6) };

const ROOT = join(__dirname, '..');

export interface TestEquipmentCloudAlertsProps extends StackProps {
	config: AlertsConfig;
}

/**
 * The deployable alerting stack: the two pollers on EventBridge Scheduler, their state table,
 * the token secret, a custom event bus with an archive, the alert e-mails (SES), the optional
 * n8n webhook, and alarms. Environment-agnostic: no lookups, no account or region baked in.
 */
export class TestEquipmentCloudAlerts extends Stack {
	readonly bus: events.EventBus;
	readonly table: dynamodb.Table;
	readonly tokenSecret: secretsmanager.Secret;
	readonly topic: sns.Topic;
	readonly pollers: { overdueDevices: NodejsFunction; testResults: NodejsFunction };
	readonly email: EmailAlerts;
	readonly schedulerDlq: sqs.Queue;
	readonly webhookDlq?: sqs.Queue;
	readonly alarms: cloudwatch.Alarm[] = [];

	constructor(scope: Construct, id: string, props: TestEquipmentCloudAlertsProps) {
		super(scope, id, { description: 'Test Equipment Cloud alerts: pollers, events, alert e-mails, n8n webhook', ...props });
		const config = props.config;
		Tags.of(this).add('project', 'test-equipment-cloud');
		Tags.of(this).add('tec-environment', config.environment);
		if (/(^|\.)example\.(com|org|net)$|\.invalid$/.test(new URL(config.baseUrl).hostname)) {
			Annotations.of(this).addWarningV2('tec:placeholderBaseUrl', `baseUrl ${config.baseUrl} is a placeholder: deploy with -c baseUrl=<your Test Equipment Cloud address>`);
		}

		// ---- events: a custom bus, and an archive of everything the pollers emit (replay) ----
		this.bus = new events.EventBus(this, 'Bus', { description: 'Test Equipment Cloud events (source test-equipment-cloud)' });
		const archive = this.bus.archive('Archive', {
			description: 'Every test-equipment-cloud event, for replay',
			eventPattern: { source: [EVENT_SOURCE] },
			retention: ARCHIVE_RETENTION,
		});

		// ---- state: what the pollers remember between runs ----
		this.table = new dynamodb.Table(this, 'State', {
			partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
			sortKey: { name: 'sk', type: dynamodb.AttributeType.STRING },
			billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
			timeToLiveAttribute: 'expiresAt',
			pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
			encryption: dynamodb.TableEncryption.AWS_MANAGED,
			deletionProtection: config.environment === 'production',
			// Losing the state would announce every overdue device again: keep it.
			removalPolicy: RemovalPolicy.RETAIN,
		});

		// ---- the access token: created without a value; the README says how to put it in ----
		this.tokenSecret = new secretsmanager.Secret(this, 'AccessToken', {
			description: `Test Equipment Cloud access token (${config.environment}) for the pollers: put {"token":"..."} or the plain token in it`,
			// CloudFormation needs a value source; this one generates an unused random field and
			// leaves "token" empty, so the pollers fail with "put the token in it" until you do.
			generateSecretString: { secretStringTemplate: JSON.stringify({ token: '' }), generateStringKey: 'unused', passwordLength: 16, excludePunctuation: true },
			removalPolicy: RemovalPolicy.DESTROY,
		});
		Validations.of(this.tokenSecret).acknowledge({
			id: 'AwsSolutions-SMG4',
			reason: 'The access token is issued in the Test Equipment Cloud web app; there is no API to mint one, so a rotation Lambda cannot rotate it. Rotate it by hand (put-secret-value); the pollers re-read it within 5 minutes.',
		});

		// ---- alarms: one encrypted topic (the alert e-mails go out through SES) ----
		const topicKey = new kms.Key(this, 'AlertsKey', {
			description: 'Encrypts the Test Equipment Cloud alerts topic',
			enableKeyRotation: true,
			removalPolicy: RemovalPolicy.DESTROY,
			pendingWindow: Duration.days(7),
		});
		// CloudWatch alarms publish to the encrypted topic: they need the key (AWS documented policy).
		topicKey.addToResourcePolicy(
			new iam.PolicyStatement({
				sid: 'AllowCloudWatchAlarmsToUseTheKey',
				principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
				actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
				resources: ['*'],
			}),
		);
		this.topic = new sns.Topic(this, 'Alerts', {
			displayName: `Test Equipment Cloud (${config.environment})`,
			masterKey: topicKey,
			enforceSSL: true,
		});
		this.topic.addToResourcePolicy(
			new iam.PolicyStatement({
				sid: 'AllowCloudWatchAlarmsOfThisAccount',
				principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
				actions: ['sns:Publish'],
				resources: [this.topic.topicArn],
				conditions: { StringEquals: { 'aws:SourceAccount': this.account } },
			}),
		);
		for (const email of config.alertEmails) this.topic.addSubscription(new subscriptions.EmailSubscription(email));

		// ---- dead-letter queues ----
		this.schedulerDlq = this.deadLetterQueue('SchedulerDlq', 'poller invocations EventBridge Scheduler could not deliver');

		// ---- the pollers ----
		const common = {
			TEC_BASE_URL: config.baseUrl,
			TEC_ENVIRONMENT: config.environment,
			TEC_TOKEN_SECRET_ARN: this.tokenSecret.secretArn,
			STATE_TABLE: this.table.tableName,
			EVENT_BUS_NAME: this.bus.eventBusName,
			REMINDER_DAYS: String(config.reminderDays),
			LOOKBACK_DAYS: String(config.lookbackDays),
			SAFETY_MS: String(POLLER_SAFETY.toMilliseconds()),
		};
		const poller = (id: string, entry: string, description: string) => {
			const fn = this.nodeFunction(id, entry, {
				description,
				timeout: POLLER_TIMEOUT,
				memorySize: POLLER_MEMORY_MB,
				environment: common,
			});
			fn.addToRolePolicy(
				new iam.PolicyStatement({
					sid: 'StateTableItems',
					actions: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:BatchWriteItem', 'dynamodb:DeleteItem'],
					resources: [this.table.tableArn],
				}),
			);
			fn.addToRolePolicy(new iam.PolicyStatement({ sid: 'PublishEvents', actions: ['events:PutEvents'], resources: [this.bus.eventBusArn] }));
			fn.addToRolePolicy(new iam.PolicyStatement({ sid: 'ReadAccessToken', actions: ['secretsmanager:GetSecretValue'], resources: [this.tokenSecret.secretArn] }));
			return fn;
		};
		this.pollers = {
			overdueDevices: poller('OverdueDevicesPoller', 'lambdas/handlers/overdueDevices.ts', 'Polls the overdue devices list; emits Device Overdue / Resolved / Digest'),
			testResults: poller('TestResultsPoller', 'lambdas/handlers/testResults.ts', 'Polls test results; emits Test Result Recorded'),
		};

		// ---- the schedules: EventBridge Scheduler in the configured time zone ----
		const rate = config.scheduleRateMinutes;
		const hour = config.activeHours;
		const minutes = (offset: number) => (rate === 60 ? String(offset) : `${offset}/${rate}`);
		const schedule = (id: string, fn: NodejsFunction, offset: number, description: string) => {
			// One role per schedule: it may invoke this one function and write to the scheduler DLQ.
			const role = new iam.Role(this, `${id}Role`, {
				assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', { conditions: { StringEquals: { 'aws:SourceAccount': this.account } } }),
				description: `EventBridge Scheduler: ${id}`,
			});
			const fnLogicalId = this.resolve((fn.node.defaultChild as lambda.CfnFunction).logicalId) as string;
			Validations.of(role).acknowledge({
				id: `AwsSolutions-IAM5[Resource::<${fnLogicalId}.Arn>:*]`,
				reason: "CDK's grantInvoke also covers the function's versions and aliases (its ARN followed by :*); the role can invoke only this one function.",
			});
			return new scheduler.Schedule(this, id, {
				description,
				schedule: scheduler.ScheduleExpression.cron({ minute: minutes(offset), hour, timeZone: TimeZone.of(config.timeZone) }),
				target: new LambdaInvoke(fn, {
					role,
					deadLetterQueue: this.schedulerDlq,
					// Retried only while it is still this tick's run; after that the next tick is the retry.
					retryAttempts: 2,
					maxEventAge: Duration.minutes(Math.max(1, rate)),
				}),
			});
		};
		schedule('OverdueDevicesSchedule', this.pollers.overdueDevices, 0, `Overdue devices poll every ${rate} min (${config.timeZone}, hours ${hour})`);
		// Half a period later, so the two pollers do not share the token's request budget at once.
		schedule('TestResultsSchedule', this.pollers.testResults, Math.floor(rate / 2), `Test results poll every ${rate} min (${config.timeZone}, hours ${hour})`);

		// ---- the alert e-mails (SES): infra/emailAlerts.ts ----
		this.email = new EmailAlerts(this, 'Email', {
			config,
			bus: this.bus,
			table: this.table,
			alarmTopic: this.topic,
			schedulerDlq: this.schedulerDlq,
			nodeFunction: (fid, entry, options) => this.nodeFunction(fid, entry, options),
			deadLetterQueue: (qid, what) => this.deadLetterQueue(qid, what),
		});

		// ---- the n8n webhook (optional): rule → API destination ----
		if (config.n8nWebhookUrl) {
			this.webhookDlq = this.deadLetterQueue('WebhookDlq', 'events the n8n webhook did not accept within the retries');
			const headerSecret = new secretsmanager.Secret(this, 'WebhookKey', {
				description: `Value of the ${WEBHOOK_HEADER} header sent to the n8n Webhook node (set the same value in n8n's Header Auth credential)`,
				generateSecretString: { secretStringTemplate: JSON.stringify({ headerName: WEBHOOK_HEADER }), generateStringKey: 'apiKeyValue', passwordLength: 48, excludePunctuation: true },
				removalPolicy: RemovalPolicy.DESTROY,
			});
			Validations.of(headerSecret).acknowledge({
				id: 'AwsSolutions-SMG4',
				reason: 'A key shared with the n8n Header Auth credential: it must change on both sides at once, so it is rotated by hand (README, "Deploy on AWS"), not by a rotation Lambda.',
			});
			const connection = new events.Connection(this, 'N8nConnection', {
				description: 'n8n Webhook node (API key header; EventBridge keeps the value in its own Secrets Manager secret)',
				authorization: events.Authorization.apiKey(WEBHOOK_HEADER, SecretValue.secretsManager(headerSecret.secretArn, { jsonField: 'apiKeyValue' })),
			});
			const destination = new events.ApiDestination(this, 'N8nDestination', {
				description: 'The n8n Webhook node',
				connection,
				endpoint: config.n8nWebhookUrl,
				httpMethod: events.HttpMethod.POST,
				rateLimitPerSecond: 10,
			});
			new events.Rule(this, 'WebhookRule', {
				description: 'Device Overdue and Test Result Recorded -> n8n',
				eventBus: this.bus,
				eventPattern: { source: [EVENT_SOURCE], detailType: [DETAIL_TYPES.deviceOverdue, DETAIL_TYPES.testResultRecorded] },
				targets: [
					new targets.ApiDestination(destination, {
						deadLetterQueue: this.webhookDlq,
						retryAttempts: WEBHOOK_RETRY.attempts,
						maxEventAge: WEBHOOK_RETRY.maxEventAge,
					}),
				],
			});
			const webhookRule = this.node.findChild('WebhookRule') as events.Rule;
			new CfnOutput(this, 'WebhookKeySecretArn', { value: headerSecret.secretArn, description: `Secret holding the ${WEBHOOK_HEADER} header value for n8n` });
			new CfnOutput(this, 'N8nConnectionName', { value: connection.connectionName, description: 'EventBridge connection (update-connection changes the header value)' });
			new CfnOutput(this, 'WebhookRuleArn', { value: webhookRule.ruleArn, description: 'Replay archived events to n8n only: --destination FilterArns=<this>' });
		}

		// ---- alarms → the same topic ----
		const period = Duration.minutes(Math.max(5, rate));
		const alarm = (id: string, metric: cloudwatch.IMetric, description: string, evaluationPeriods = 1, datapointsToAlarm = 1) => {
			const a = new cloudwatch.Alarm(this, id, {
				alarmDescription: description,
				metric,
				threshold: 1,
				comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
				evaluationPeriods,
				datapointsToAlarm,
				treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
			});
			a.addAlarmAction(new SnsAction(this.topic));
			a.addOkAction(new SnsAction(this.topic));
			this.alarms.push(a);
			return a;
		};
		for (const [name, fn] of [
			['OverdueDevices', this.pollers.overdueDevices],
			['TestResults', this.pollers.testResults],
		] as const) {
			// One failed run is retried by the next tick; two failed runs out of three is a problem.
			alarm(`${name}PollerErrors`, fn.metricErrors({ period, statistic: 'Sum' }), `The ${name} poller failed in 2 of the last 3 periods (see its log group)`, 3, 2);
			alarm(`${name}PollerThrottles`, fn.metricThrottles({ period, statistic: 'Sum' }), `The ${name} poller was throttled (account concurrency)`);
		}
		const depth = (q: sqs.Queue) => q.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' });
		alarm('SchedulerDlqDepth', depth(this.schedulerDlq), 'EventBridge Scheduler could not invoke a poller (messages in the scheduler DLQ)');
		if (this.webhookDlq) alarm('WebhookDlqDepth', depth(this.webhookDlq), 'n8n did not accept events within the retries (messages in the webhook DLQ; replay them from the archive)');

		new CfnOutput(this, 'EventBusName', { value: this.bus.eventBusName });
		new CfnOutput(this, 'EventBusArn', { value: this.bus.eventBusArn });
		new CfnOutput(this, 'ArchiveArn', { value: archive.archiveArn, description: 'Replay events from here (aws events start-replay)' });
		new CfnOutput(this, 'OverdueDevicesPollerName', { value: this.pollers.overdueDevices.functionName });
		new CfnOutput(this, 'TestResultsPollerName', { value: this.pollers.testResults.functionName });
		new CfnOutput(this, 'TokenSecretArn', { value: this.tokenSecret.secretArn, description: 'Put the access token here (README, "Deploy on AWS")' });
		new CfnOutput(this, 'AlertsTopicArn', { value: this.topic.topicArn });
		new CfnOutput(this, 'StateTableName', { value: this.table.tableName });
	}

	private deadLetterQueue(id: string, what: string): sqs.Queue {
		const queue = new sqs.Queue(this, id, { encryption: sqs.QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: DLQ_RETENTION });
		Validations.of(queue).acknowledge({
			id: 'AwsSolutions-SQS3',
			reason: `This queue is itself a dead-letter queue (${what}); cdk-nag only recognises DLQs referenced by another queue's redrive policy.`,
		});
		return queue;
	}

	/** A Node.js function bundled with the local esbuild, its own log group and a least-privilege role. */
	private nodeFunction(
		id: string,
		entry: string,
		options: {
			description: string;
			timeout: Duration;
			memorySize: number;
			environment: Record<string, string>;
			retryAttempts?: number;
			deadLetterQueue?: sqs.IQueue;
		},
	): NodejsFunction {
		const logGroup = new logs.LogGroup(this, `${id}Logs`, { retention: LOG_RETENTION, removalPolicy: RemovalPolicy.DESTROY });
		const role = new iam.Role(this, `${id}Role`, { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'), description: `${id} function` });
		role.addToPolicy(new iam.PolicyStatement({ sid: 'WriteOwnLogs', actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [logGroup.logGroupArn] }));
		return new NodejsFunction(this, id, {
			entry: join(ROOT, entry),
			handler: 'handler',
			projectRoot: ROOT,
			depsLockFilePath: join(ROOT, 'package-lock.json'),
			runtime: lambda.Runtime.NODEJS_24_X,
			architecture: lambda.Architecture.ARM_64,
			description: options.description,
			timeout: options.timeout,
			memorySize: options.memorySize,
			// Stack traces through the source maps (which carry no sources).
			environment: { NODE_OPTIONS: '--enable-source-maps', ...options.environment },
			role,
			logGroup,
			retryAttempts: options.retryAttempts ?? 0,
			deadLetterQueue: options.deadLetterQueue,
			bundling: {
				forceDockerBundling: false,
				minify: true,
				sourceMap: true,
				sourcesContent: false,
				target: 'node24',
				format: OutputFormat.CJS,
				// Everything in the bundle (AWS SDK included): the code runs with the versions it was tested with.
				externalModules: [],
			},
		});
	}
}
