import { Duration, Stack, TimeZone, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { profileDifferences } from '../../client';
import type { AlertsConfig } from '../config';
import { deadLetterQueue } from './deadLetterQueue';
import { NodeFunction } from './nodeFunction';

/** Lambda timeout of a poller, and the time it keeps in hand: it stops before a page when less is left. */
export const POLLER_TIMEOUT = Duration.minutes(5);
export const POLLER_SAFETY = Duration.seconds(60);
export const POLLER_MEMORY_MB = 512;
/** The Powertools service name of the pollers: the `service` dimension of their metrics. */
export const POLLER_SERVICE = 'pollers';

/** The minute of each hour the due-date history poller runs: three quarters into a poll period, apart from the others. */
export const DUE_DATES_MINUTE = (rate: number): number => Math.floor((rate * 3) / 4);

export type PollerName = 'overdueDevices' | 'testResults' | 'dueSoon' | 'dueDates';

export interface PollersProps {
	config: AlertsConfig;
	table: dynamodb.ITable;
	tokenSecret: secretsmanager.ISecret;
	bus: events.IEventBus;
}

/** The pollers, each on an EventBridge Scheduler schedule in the configured time zone. */
export class Pollers extends Construct {
	readonly functions: Record<PollerName, lambda.Function>;
	readonly schedulerDlq: sqs.Queue;

	constructor(scope: Construct, id: string, props: PollersProps) {
		super(scope, id);
		const { config } = props;
		const environment = {
			TEC_BASE_URL: config.baseUrl,
			TEC_ENVIRONMENT: config.environment,
			TEC_TOKEN_SECRET_ARN: props.tokenSecret.secretArn,
			STATE_TABLE: props.table.tableName,
			EVENT_BUS_NAME: props.bus.eventBusName,
			REMINDER_DAYS: String(config.reminderDays),
			LOOKBACK_DAYS: String(config.lookbackDays),
			SAFETY_MS: String(POLLER_SAFETY.toMilliseconds()),
			...(config.dueSoonDays === undefined ? {} : { DUE_SOON_DAYS: config.dueSoonDays }),
			// Only the keys that differ from the defaults: a Lambda's environment holds 4 KB in all.
			...(config.serviceProfile === undefined ? {} : { TEC_SERVICE_PROFILE: JSON.stringify(profileDifferences(config.serviceProfile)) }),
		};
		const poller = (fnId: string, entry: string, description: string) => {
			const fn = new NodeFunction(this, fnId, { entry, description, timeout: POLLER_TIMEOUT, memorySize: POLLER_MEMORY_MB, serviceName: POLLER_SERVICE, environment });
			fn.role.addToPolicy(
				new iam.PolicyStatement({
					sid: 'StateTableItems',
					actions: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:BatchWriteItem', 'dynamodb:DeleteItem'],
					resources: [props.table.tableArn],
				}),
			);
			fn.role.addToPolicy(new iam.PolicyStatement({ sid: 'PublishEvents', actions: ['events:PutEvents'], resources: [props.bus.eventBusArn] }));
			fn.role.addToPolicy(new iam.PolicyStatement({ sid: 'ReadAccessToken', actions: ['secretsmanager:GetSecretValue'], resources: [props.tokenSecret.secretArn] }));
			const skipped = 'A failed poller run is not replayed: the next scheduled tick is the retry (what was read and emitted is in the state table), and failures raise the Errors alarm (2 of 3 runs) and the heartbeat alarm. A DLQ or on-failure destination would collect invocation records nobody replays.';
			Validations.of(fn.function).acknowledge({ id: 'Serverless-LambdaDLQ', reason: skipped }, { id: 'Serverless-LambdaAsyncFailureDestination', reason: skipped });
			return fn.function;
		};
		this.functions = {
			overdueDevices: poller('OverdueDevicesPoller', 'lambdas/handlers/overdueDevices.ts', 'Polls the overdue devices list; emits Device Overdue / Resolved / Digest'),
			testResults: poller('TestResultsPoller', 'lambdas/handlers/testResults.ts', 'Polls test results; emits Test Result Recorded / Failed'),
			dueSoon: poller('DueSoonPoller', 'lambdas/handlers/dueSoon.ts', 'Reads the devices coming due; emits Device Due Soon'),
			dueDates: poller('DueDatesPoller', 'lambdas/handlers/dueDates.ts', 'Reads every device hourly; keeps the history of due dates (compliance)'),
		};
		this.schedulerDlq = deadLetterQueue(this, 'SchedulerDlq', 'poller invocations EventBridge Scheduler could not deliver');

		const rate = config.scheduleRateMinutes;
		const hour = config.activeHours;
		const minutes = (offset: number) => (rate === 60 ? String(offset) : `${offset}/${rate}`);
		const schedule = (scheduleId: string, fn: lambda.Function, offset: number, description: string, minute = minutes(offset)) => {
			// One role per schedule: it may invoke this one function and write to the scheduler DLQ.
			const role = new iam.Role(this, `${scheduleId}Role`, {
				assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', { conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } } }),
				description: `EventBridge Scheduler: ${scheduleId}`,
			});
			const fnLogicalId = Stack.of(this).resolve((fn.node.defaultChild as lambda.CfnFunction).logicalId) as string;
			Validations.of(role).acknowledge({
				id: `AwsSolutions-IAM5[Resource::<${fnLogicalId}.Arn>:*]`,
				reason: "CDK's grantInvoke also covers the function's versions and aliases (its ARN followed by :*); the role can invoke only this one function.",
			});
			return new scheduler.Schedule(this, scheduleId, {
				description,
				schedule: scheduler.ScheduleExpression.cron({ minute, hour, timeZone: TimeZone.of(config.timeZone) }),
				target: new LambdaInvoke(fn, {
					role,
					deadLetterQueue: this.schedulerDlq,
					// Retried only while it is still this tick's run; after that the next tick is the retry.
					retryAttempts: 2,
					maxEventAge: Duration.minutes(Math.max(1, rate)),
				}),
			});
		};
		schedule('OverdueDevicesSchedule', this.functions.overdueDevices, 0, `Overdue devices poll every ${rate} min (${config.timeZone}, hours ${hour})`);
		// Half a period later, so the two pollers do not share the token's request budget at once.
		schedule('TestResultsSchedule', this.functions.testResults, Math.floor(rate / 2), `Test results poll every ${rate} min (${config.timeZone}, hours ${hour})`);
		// A quarter period later: a due date met or moved by a test shows within one period.
		schedule('DueSoonSchedule', this.functions.dueSoon, Math.floor(rate / 4), `Devices coming due, every ${rate} min (${config.timeZone}, hours ${hour})`);
		// Hourly (a day is the history's unit; each run reads every device), three quarters into a period.
		schedule('DueDatesSchedule', this.functions.dueDates, 0, `Due-date history, hourly (${config.timeZone}, hours ${hour})`, String(DUE_DATES_MINUTE(rate)));
	}
}
