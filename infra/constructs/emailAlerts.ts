import { Annotations, Duration, Stack, TimeZone, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DETAIL_TYPES, EVENT_SOURCE } from '../../lambdas/events/names';
import { isPlaceholderHost, type AlertsConfig } from '../config';
import type { Alarms } from './alarms';
import { deadLetterQueue } from './deadLetterQueue';
import { schedulerRole } from './schedulerRole';
import { NodeFunction } from './nodeFunction';
import { EMAIL_PARTITIONS, grantStatePartitions } from './stateAccess';
import { accountSecretName, type AccountAccess } from './pollers';

/** The events the e-mails are built from. */
export const EMAIL_DETAIL_TYPES = [DETAIL_TYPES.deviceOverdue, DETAIL_TYPES.deviceOverdueResolved, DETAIL_TYPES.deviceDueSoon, DETAIL_TYPES.testResultFailed];
export const EMAIL_EVENT_RETRY = { attempts: 8, maxEventAge: Duration.hours(6) };
/** The digest's own work, and on a month's first day its wait for the re-test notices (NOTICES_WAIT_MS, 3 min). */
export const DIGEST_TIMEOUT = Duration.minutes(8);
/** The re-test notices: reading the account's customers and devices, and one SES call per customer. */
export const NOTICES_TIMEOUT = Duration.minutes(10);
/**
 * The monthly report: it reads each account's whole due-date history and test records from the table
 * (at 100,000 devices 90.4 MB and 32.2 MB stored, docs/scale.md) and holds them while it composes:
 * more time and memory than the digest's (8 minutes, 256 MB), which sent it before.
 */
export const REPORT_TIMEOUT = Duration.minutes(10);
export const REPORT_MEMORY_MB = 1024;
/** The Powertools service name of the e-mail functions (log lines, metrics dimension, traces). */
export const EMAIL_SERVICE = 'email';

/** The e-mail functions' environment (lambdas/email/env.ts reads it). */
export function emailEnvironment(config: AlertsConfig, tableName: string): Record<string, string> {
	return {
		STATE_TABLE: tableName,
		EMAIL_SETTINGS: JSON.stringify(config.email),
		TIME_ZONE: config.timeZone,
		TEC_ENVIRONMENT: config.environment,
		// Several accounts: each one's environment where it is not TEC_ENVIRONMENT (where its pollers keep its state; only
		// then: Lambda's 4 KB of environment) and routing (its own recipients or, without, the deployment's).
		...(config.accounts.length > 1 ? { ACCOUNTS_ROUTING: JSON.stringify(config.accounts.map((a) => ({ account: a.id, ...(a.environment === config.environment ? {} : { environment: a.environment }), ...(a.recipients ? { recipients: a.recipients } : {}) }))) } : {}),
	};
}

export interface EmailAlertsProps {
	config: AlertsConfig;
	bus: events.IEventBus;
	table: dynamodb.ITable;
	/** Undelivered schedule invocations (the scheduler's DLQ, shared with the pollers' schedules). */
	schedulerDlq: sqs.IQueue;
	/** The stack's alarms (SNS stays the channel of the operational alarms). */
	alarms: Alarms;
	/** How the re-test notices read the accounts (the pollers' access); they run only when customerNotices.enabled. */
	accounts: AccountAccess;
}

/**
 * The alert e-mails: a rule sends the pollers' events to a collector that files them per
 * recipient in the state table (and e-mails a failed test at once), and a daily schedule at the
 * digest hour runs the digest, which sends one e-mail per recipient with Amazon SES; on the first
 * of each month at that hour a schedule runs the compliance report's function. All keep
 * their idempotency records (Powertools) in the same table. Alarms on errors and undelivered events.
 */
export class EmailAlerts extends Construct {
	readonly collector: lambda.Function;
	readonly digest: lambda.Function;
	/** The monthly compliance report, on the first of each month at the digest hour. */
	readonly report: lambda.Function;
	readonly reportSchedule: scheduler.Schedule;
	readonly eventsDlq: sqs.Queue;
	readonly rule: events.Rule;
	readonly schedule: scheduler.Schedule;
	/** The customer re-test notices (customerNotices.enabled), scheduled on the first of each month at the digest hour. */
	readonly notices?: lambda.Function;
	readonly noticesSchedules: scheduler.Schedule[] = [];

	constructor(scope: Construct, id: string, props: EmailAlertsProps) {
		super(scope, id);
		const { config, table } = props;
		const stack = Stack.of(this);
		const environment = emailEnvironment(config, table.tableName);
		// Lambda holds 4 KB of environment: routing of many accounts with recipients of their own outgrows it (docs/scale.md).
		// The notices function adds the account's address, token secret and service profile.
		const noticesEnv = config.email.customerNotices.enabled ? props.accounts.environment : {};
		const envBytes = Object.entries({ ...environment, ...noticesEnv }).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(String(v)), 0);
		if (envBytes > 3800) {
			// Named by what takes most of it: the routing, or the interval settings' department rows.
			const intervalBytes = config.email.intervals === undefined ? 0 : Buffer.byteLength(JSON.stringify(config.email.intervals));
			throw new Error(
				intervalBytes * 2 > envBytes
					? `intervals: the e-mail settings take ${envBytes} bytes, ${intervalBytes} of them the interval settings, more than the e-mail functions' environment holds (4 KB); give fewer intervals.departments rows (docs/scale.md)`
					: `recipients: the e-mail settings (recipients, customer notices, intervals: ${intervalBytes} bytes) and the accounts' own recipients take ${envBytes} bytes, more than the e-mail functions' environment holds (4 KB); give fewer accounts recipients of their own, use mailing lists, or fewer intervals.departments rows (docs/scale.md)`,
			);
		}
		this.eventsDlq = deadLetterQueue(this, 'EventsDlq', 'events the e-mail collector could not file within the retries');
		const collector = new NodeFunction(this, 'Collector', {
			entry: 'lambdas/handlers/collectEmailEvents.ts',
			description: "Files the pollers' events per recipient for the daily e-mail digest; e-mails a failed test at once",
			timeout: Duration.seconds(60),
			memorySize: 256,
			serviceName: EMAIL_SERVICE,
			environment,
			retryAttempts: 2,
			deadLetterQueue: this.eventsDlq,
		});
		const digest = new NodeFunction(this, 'Digest', {
			entry: 'lambdas/handlers/digestEmail.ts',
			description: 'Sends the daily digest e-mail to each recipient (Amazon SES), once per recipient and day',
			timeout: DIGEST_TIMEOUT,
			memorySize: 256,
			serviceName: EMAIL_SERVICE,
			environment,
			retryAttempts: 2,
			deadLetterQueue: props.schedulerDlq,
		});
		const report = new NodeFunction(this, 'Report', {
			entry: 'lambdas/handlers/complianceReport.ts',
			description: 'Sends the monthly compliance report of the month before on the 1st (Amazon SES), once per recipient and month',
			timeout: REPORT_TIMEOUT,
			memorySize: REPORT_MEMORY_MB,
			serviceName: EMAIL_SERVICE,
			// Its sends keyed under the digest function's name, as when the digest sent the report (a deployment
			// between the 1st and the 2nd: the 2nd finds what the 1st sent). The digest's keys (digest:<day>) are others.
			environment: { ...environment, SEND_KEY_PREFIX: digest.function.functionName },
			retryAttempts: 2,
			deadLetterQueue: props.schedulerDlq,
		});
		const notices = config.email.customerNotices.enabled
			? new NodeFunction(this, 'Notices', {
					entry: 'lambdas/handlers/customerNotices.ts',
					description: "Sends the customers' re-test notices of the next month (Amazon SES), once per customer and month",
					timeout: NOTICES_TIMEOUT,
					memorySize: 512,
					serviceName: EMAIL_SERVICE,
					environment: { ...environment, ...noticesEnv },
					retryAttempts: 2,
					deadLetterQueue: props.schedulerDlq,
				})
			: undefined;
		this.collector = collector.function;
		this.digest = digest.function;
		this.report = report.function;
		this.notices = notices?.function;
		Validations.of(this.collector).acknowledge({
			id: 'Serverless-LambdaAsyncFailureDestination',
			reason: 'Events the collector fails on after its retries land in its dead-letter queue (EventsDlq, with a depth alarm), the same queue the rule uses for events it cannot deliver: one place to look and replay from.',
		});
		if (notices) {
			Validations.of(notices.function).acknowledge({
				id: 'Serverless-LambdaAsyncFailureDestination',
				reason: 'A notices invocation that fails after its retries lands in the scheduler dead-letter queue (with a depth alarm); a rerun sends only the customers not yet sent (records per customer and month, and idempotency).',
			});
			notices.role.addToPolicy(new iam.PolicyStatement({ sid: 'ReadAccessToken', actions: ['secretsmanager:GetSecretValue'], resources: props.accounts.secretArns }));
			// The account's SES sending rate, which the notices are paced to (GetAccount has no resource-level permissions).
			notices.role.addToPolicy(new iam.PolicyStatement({ sid: 'ReadSendingRate', actions: ['ses:GetAccount'], resources: ['*'] }));
			if (props.accounts.inputs.length > 0) {
				Validations.of(notices.role).acknowledge({
					id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${accountSecretName(stack.stackName, '')}*]`,
					reason: 'The token secrets this stack creates, one per account, all named tec-token/<stack>/<account id>: one statement for any number of accounts, as the pollers have.',
				});
			}
		}
		// The SES account's sending rate, recorded for the collector's sends (GetAccount has no resource-level permissions).
		digest.role.addToPolicy(new iam.PolicyStatement({ sid: 'ReadSendingRate', actions: ['ses:GetAccount'], resources: ['*'] }));
		// The report's sends are paced to it too.
		report.role.addToPolicy(new iam.PolicyStatement({ sid: 'ReadSendingRate', actions: ['ses:GetAccount'], resources: ['*'] }));
		Validations.of(this.report).acknowledge({
			id: 'Serverless-LambdaAsyncFailureDestination',
			reason: 'A report invocation that fails after its retries lands in the scheduler dead-letter queue (with a depth alarm); a rerun sends only the recipients not yet sent (idempotency).',
		});
		Validations.of(this.digest).acknowledge({
			id: 'Serverless-LambdaAsyncFailureDestination',
			reason: 'A digest invocation that fails after its retries lands in the scheduler dead-letter queue (its dead-letter queue, with a depth alarm), where undelivered schedule invocations go too; a rerun sends only the recipients not yet sent (idempotency).',
		});

		// SES: only from the configured sender, through its address or its domain identity.
		const sender = /<([^<>]+)>\s*$/.exec(config.email.mailFrom)?.[1] ?? config.email.mailFrom.trim();
		const domain = sender.split('@')[1];
		if (isPlaceholderHost(domain)) {
			Annotations.of(this).addWarningV2('tec:placeholderMailFrom', `mailFrom ${sender} is a placeholder: deploy with -c mailFrom=<an address of a domain verified in SES>`);
		}
		// Each function's own partitions of the state table; the digest reads the pollers' (today's truth, the history).
		grantStatePartitions(collector.role, table, EMAIL_PARTITIONS.collector);
		grantStatePartitions(digest.role, table, EMAIL_PARTITIONS.digest);
		grantStatePartitions(report.role, table, EMAIL_PARTITIONS.report);
		if (notices) grantStatePartitions(notices.role, table, EMAIL_PARTITIONS.notices);
		for (const fn of [collector, digest, report, ...(notices ? [notices] : [])]) {
			fn.role.addToPolicy(
				new iam.PolicyStatement({
					sid: 'SendAsTheSender',
					actions: ['ses:SendEmail', 'ses:SendRawEmail'],
					// The sender's identities, and in SES's sandbox the recipient's too (SES checks both there):
					// any identity of the account as recipient, still only from the sender's address.
					resources: [sender, domain, '*'].map((identity) => stack.formatArn({ service: 'ses', resource: 'identity', resourceName: identity })),
					conditions: { StringEquals: { 'ses:FromAddress': sender } },
				}),
			);
			Validations.of(fn.role).acknowledge({
				id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*]',
				reason: "In SES's sandbox SendEmail is authorised against the recipient's verified identity as well as the sender's; the recipients (the customers' addresses among them) are known only at send time. The statement allows only the configured sender (ses:FromAddress).",
			});
		}

		this.rule = new events.Rule(this, 'EventsRule', {
			description: 'Overdue, resolved, due-soon and failed-test events -> the e-mail collector',
			eventBus: props.bus,
			eventPattern: { source: [EVENT_SOURCE], detailType: EMAIL_DETAIL_TYPES },
			targets: [new targets.LambdaFunction(this.collector, { deadLetterQueue: this.eventsDlq, retryAttempts: EMAIL_EVENT_RETRY.attempts, maxEventAge: EMAIL_EVENT_RETRY.maxEventAge })],
		});

		const role = schedulerRole(this, 'DigestScheduleRole', 'the daily e-mail digest', [this.digest]);
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

		this.reportSchedule = this.scheduleReport(this.report, config, props);
		if (this.notices) this.scheduleNotices(this.notices, config, props);

		const period = Duration.minutes(5);
		props.alarms.function('EmailCollector', this.collector, period, 'e-mail collector');
		props.alarms.function('EmailDigest', this.digest, period, 'daily e-mail digest');
		props.alarms.function('EmailReport', this.report, period, 'monthly compliance report');
		if (this.notices) props.alarms.function('EmailNotices', this.notices, period, 'customer re-test notices');
		props.alarms.queue('EmailEventsDlqDepth', this.eventsDlq, 'Events the e-mail collector could not file (messages in its DLQ; replay them from the archive)');
	}

	/**
	 * The report on the first of each month at the digest hour, in the stack's time zone, and again on
	 * the second: a daylight-saving gap that leaves the hour out skips the 1st's run (EventBridge
	 * Scheduler skips a local time that does not exist); the 2nd sends only what the 1st did not.
	 */
	private scheduleReport(fn: lambda.Function, config: AlertsConfig, props: EmailAlertsProps): scheduler.Schedule {
		const role = schedulerRole(this, 'ReportScheduleRole', 'the monthly compliance report', [fn]);
		return new scheduler.Schedule(this, 'ReportSchedule', {
			description: `Monthly compliance report on the 1st at ${config.email.digestHour}:00 (${config.timeZone}); the 2nd sends what the 1st did not`,
			schedule: scheduler.ScheduleExpression.cron({ minute: '0', hour: String(config.email.digestHour), day: '1-2', timeZone: TimeZone.of(config.timeZone) }),
			target: new LambdaInvoke(fn, {
				role,
				// The day it is for (the month before it): a retry or a late delivery still means that day.
				input: scheduler.ScheduleTargetInput.fromObject({ scheduledTime: scheduler.ContextAttribute.scheduledTime }),
				deadLetterQueue: props.schedulerDlq,
				retryAttempts: 4,
				maxEventAge: Duration.hours(2),
			}),
		});
	}

	/**
	 * The notices on the first of each month at the digest hour, at the same time as the digest (which
	 * waits for their summary): one schedule, or one per account naming it, as the pollers' schedules do.
	 */
	private scheduleNotices(fn: lambda.Function, config: AlertsConfig, props: EmailAlertsProps): void {
		const role = schedulerRole(this, 'NoticesScheduleRole', 'the customer re-test notices', [fn]);
		const accounts = props.accounts.inputs.length > 0 ? props.accounts.inputs : [undefined];
		for (const a of accounts) {
			const input = { scheduledTime: scheduler.ContextAttribute.scheduledTime, ...(a ? { account: a.account } : {}) };
			this.noticesSchedules.push(
				new scheduler.Schedule(this, a ? `NoticesSchedule-${a.id}` : 'NoticesSchedule', {
					// Daily, not on the 1st alone: Scheduler skips a local time a daylight-saving change leaves out
					// (Australia/Sydney at 2:00 on 1 October 2028); a later day sends a month not done (returns at once otherwise).
					description: `Customer re-test notices${a ? ` of account ${a.id}` : ''} on the 1st at ${config.email.digestHour}:00 (${config.timeZone}), caught up the next day when missed`,
					schedule: scheduler.ScheduleExpression.cron({ minute: '0', hour: String(config.email.digestHour), timeZone: TimeZone.of(config.timeZone) }),
					target: new LambdaInvoke(fn, { role, input: scheduler.ScheduleTargetInput.fromObject(input), deadLetterQueue: props.schedulerDlq, retryAttempts: 4, maxEventAge: Duration.hours(2) }),
				}),
			);
		}
	}
}
