import { Annotations, Duration, Stack, TimeZone, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DETAIL_TYPES, EVENT_SOURCE } from '../lambdas/events/names';
import type { AlertsConfig } from './config';

/** The events the e-mails are built from. */
export const EMAIL_DETAIL_TYPES = [DETAIL_TYPES.deviceOverdue, DETAIL_TYPES.deviceOverdueResolved, DETAIL_TYPES.deviceDueSoon, DETAIL_TYPES.testResultFailed];
export const EMAIL_EVENT_RETRY = { attempts: 8, maxEventAge: Duration.hours(6) };
export const DIGEST_TIMEOUT = Duration.minutes(5);

type FunctionOptions = { description: string; timeout: Duration; memorySize: number; environment: Record<string, string>; retryAttempts?: number; deadLetterQueue?: sqs.IQueue };

export interface EmailAlertsProps {
	config: AlertsConfig;
	bus: events.IEventBus;
	table: dynamodb.ITable;
	/** Where the alarms go (SNS stays the channel of the operational alarms). */
	alarmTopic: sns.ITopic;
	/** Undelivered schedule invocations. */
	schedulerDlq: sqs.IQueue;
	/** The stack's function and dead-letter queue factories (bundling, logs, roles, encryption as everywhere). */
	nodeFunction: (id: string, entry: string, options: FunctionOptions) => NodejsFunction;
	deadLetterQueue: (id: string, what: string) => sqs.Queue;
}

/**
 * The alert e-mails: a rule sends the pollers' events to a collector that files them per
 * recipient in the state table (and e-mails a failed test at once), and a daily schedule at the
 * digest hour runs the digest, which sends one e-mail per recipient with Amazon SES. Both keep
 * their idempotency records (Powertools) in the same table. Alarms on errors and undelivered events.
 */
export class EmailAlerts extends Construct {
	readonly collector: NodejsFunction;
	readonly digest: NodejsFunction;
	readonly eventsDlq: sqs.Queue;
	readonly rule: events.Rule;
	readonly schedule: scheduler.Schedule;
	readonly alarms: cloudwatch.Alarm[] = [];

	constructor(scope: Construct, id: string, props: EmailAlertsProps) {
		super(scope, id);
		const { config, table } = props;
		const stack = Stack.of(this);
		const environment = {
			STATE_TABLE: table.tableName,
			EMAIL_SETTINGS: JSON.stringify(config.email),
			TIME_ZONE: config.timeZone,
			TEC_ENVIRONMENT: config.environment,
			POWERTOOLS_SERVICE_NAME: 'test-equipment-cloud-email',
		};
		this.eventsDlq = props.deadLetterQueue('EmailEventsDlq', 'events the e-mail collector could not file within the retries');
		this.collector = props.nodeFunction('EmailCollector', 'lambdas/handlers/collectEmailEvents.ts', {
			description: 'Files the pollers\' events per recipient for the daily e-mail digest; e-mails a failed test at once',
			timeout: Duration.seconds(60),
			memorySize: 256,
			environment,
			retryAttempts: 2,
			deadLetterQueue: this.eventsDlq,
		});
		this.digest = props.nodeFunction('EmailDigest', 'lambdas/handlers/digestEmail.ts', {
			description: 'Sends the daily digest e-mail to each recipient (Amazon SES), once per recipient and day',
			timeout: DIGEST_TIMEOUT,
			memorySize: 256,
			environment,
			retryAttempts: 2,
			deadLetterQueue: props.schedulerDlq,
		});

		// SES: only from the configured sender, through its address or its domain identity.
		const sender = /<([^<>]+)>\s*$/.exec(config.email.mailFrom)?.[1] ?? config.email.mailFrom.trim();
		const domain = sender.split('@')[1];
		if (/(^|\.)example\.(com|org|net)$|\.invalid$/.test(domain)) {
			Annotations.of(this).addWarningV2('tec:placeholderMailFrom', `mailFrom ${sender} is a placeholder: deploy with -c mailFrom=<an address of a domain verified in SES>`);
		}
		for (const fn of [this.collector, this.digest]) {
			fn.addToRolePolicy(
				new iam.PolicyStatement({
					sid: 'EmailFacts',
					actions: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'],
					resources: [table.tableArn],
				}),
			);
			fn.addToRolePolicy(
				new iam.PolicyStatement({
					sid: 'SendAsTheSender',
					actions: ['ses:SendEmail', 'ses:SendRawEmail'],
					resources: [sender, domain].map((identity) => stack.formatArn({ service: 'ses', resource: 'identity', resourceName: identity })),
					conditions: { StringEquals: { 'ses:FromAddress': sender } },
				}),
			);
		}

		this.rule = new events.Rule(this, 'EventsRule', {
			description: 'Overdue, resolved, due-soon and failed-test events -> the e-mail collector',
			eventBus: props.bus,
			eventPattern: { source: [EVENT_SOURCE], detailType: EMAIL_DETAIL_TYPES },
			targets: [new targets.LambdaFunction(this.collector, { deadLetterQueue: this.eventsDlq, retryAttempts: EMAIL_EVENT_RETRY.attempts, maxEventAge: EMAIL_EVENT_RETRY.maxEventAge })],
		});

		const role = new iam.Role(this, 'DigestScheduleRole', {
			assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', { conditions: { StringEquals: { 'aws:SourceAccount': stack.account } } }),
			description: 'EventBridge Scheduler: the daily e-mail digest',
		});
		const fnLogicalId = stack.resolve((this.digest.node.defaultChild as lambda.CfnFunction).logicalId) as string;
		Validations.of(role).acknowledge({
			id: `AwsSolutions-IAM5[Resource::<${fnLogicalId}.Arn>:*]`,
			reason: "CDK's grantInvoke also covers the function's versions and aliases (its ARN followed by :*); the role can invoke only this one function.",
		});
		this.schedule = new scheduler.Schedule(this, 'DigestSchedule', {
			description: `Daily e-mail digest at ${config.email.digestHour}:00 (${config.timeZone})`,
			schedule: scheduler.ScheduleExpression.cron({ minute: '0', hour: String(config.email.digestHour), timeZone: TimeZone.of(config.timeZone) }),
			target: new LambdaInvoke(this.digest, {
				role,
				// The day the digest is for: a retry or a late delivery still means that day.
				input: scheduler.ScheduleTargetInput.fromObject({ scheduledTime: scheduler.ContextAttribute.scheduledTime }),
				deadLetterQueue: props.schedulerDlq,
				retryAttempts: 4,
				maxEventAge: Duration.hours(2),
			}),
		});

		const alarm = (id: string, metric: cloudwatch.IMetric, description: string) => {
			const a = new cloudwatch.Alarm(this, id, {
				alarmDescription: description,
				metric,
				threshold: 1,
				comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
				evaluationPeriods: 1,
				treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
			});
			a.addAlarmAction(new SnsAction(props.alarmTopic));
			a.addOkAction(new SnsAction(props.alarmTopic));
			this.alarms.push(a);
		};
		const period = Duration.minutes(5);
		alarm('CollectorErrors', this.collector.metricErrors({ period, statistic: 'Sum' }), 'The e-mail collector failed (retried by EventBridge; see its log group)');
		alarm('DigestErrors', this.digest.metricErrors({ period, statistic: 'Sum' }), 'The daily digest failed for some recipients (retried; the log names them)');
		alarm('EmailThrottles', new cloudwatch.MathExpression({ expression: 'c + d', usingMetrics: { c: this.collector.metricThrottles({ period }), d: this.digest.metricThrottles({ period }) }, period }), 'An e-mail function was throttled');
		alarm('EmailEventsDlqDepth', this.eventsDlq.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }), 'Events the e-mail collector could not file (messages in its DLQ; replay them from the archive)');
	}
}
