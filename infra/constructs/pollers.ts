import { ArnFormat, Duration, RemovalPolicy, Stack, TimeZone, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { profileDifferences } from '../../client';
import type { AccountSettings, ScheduledAccount } from '../../lambdas/accounts';
import type { AlertsConfig } from '../config';
import { deadLetterQueue } from './deadLetterQueue';
import { schedulerRole } from './schedulerRole';
import { NodeFunction } from './nodeFunction';
import { POLLER_PARTITIONS, grantStatePartitions } from './stateAccess';

/** Lambda timeout of a poller, and the time it keeps in hand: it stops before a page when less is left. */
export const POLLER_TIMEOUT = Duration.minutes(5);
export const POLLER_SAFETY = Duration.seconds(60);
export const POLLER_MEMORY_MB = 512;
/**
 * The longest a poller run waits for its account's lease (another poller of the account running):
 * inside the timeout with two safety margins and a run's time to spare. Then it skips to its next tick.
 */
export const ACCOUNT_LEASE_WAIT = Duration.minutes(2);
/** The Powertools service name of the pollers: the `service` dimension of their metrics. */
export const POLLER_SERVICE = 'pollers';

/** The minute of each hour the due-date history poller runs: three quarters into a poll period, apart from the others. */
export const DUE_DATES_MINUTE = (rate: number): number => Math.floor((rate * 3) / 4);

export type PollerName = 'overdueDevices' | 'testResults' | 'dueSoon' | 'dueDates';
/**
 * The minute (past the hour, or into each period) each poller runs at: the test results half a
 * period after the overdue devices, so the two do not share the token's request budget at once; due
 * soon a quarter period later (a due date met or moved by a test shows within one period); the
 * due-date history hourly, three quarters into a period.
 */
export const POLLER_OFFSETS = (rate: number): Record<PollerName, number> => ({ overdueDevices: 0, testResults: Math.floor(rate / 2), dueSoon: Math.floor(rate / 4), dueDates: DUE_DATES_MINUTE(rate) });

/** The local minutes past the hour a poller's runs start at (within the active hours). */
export function pollerRunMinutes(poller: PollerName, rate: number): number[] {
	const offset = POLLER_OFFSETS(rate)[poller];
	if (poller === 'dueDates' || rate >= 60) return [offset];
	return Array.from({ length: 60 }, (_, m) => m).filter((m) => m % rate === offset % rate);
}

/** The pollers every poll period runs (the due-date history runs hourly): each account's heartbeat watches them. */
export const POLLER_NAMES: readonly PollerName[] = ['overdueDevices', 'testResults', 'dueSoon'];

/**
 * The most accounts one stack holds: each adds six resources (four schedules, its token secret,
 * its heartbeat alarm), a seventh with the customer notices (their schedule), and a tenth of the
 * due-date heartbeat; the stack itself about 100; CloudFormation allows 500 per stack
 * (docs/scale.md says what comes next; test/infra/accounts.test.ts synthesizes the largest).
 */
export const MAX_ACCOUNTS_PER_STACK = 55;

/** Where the stack keeps an account's token (several accounts): one secret per account, under one prefix. */
export const accountSecretName = (stackName: string, id: string) => `tec-token/${stackName}/${id}`;

/**
 * Whether a poller reads the stack's own token secret (the single-account one): the one account
 * unless it names its own `tokenSecretArn`; with several, the account named `default` (what the
 * single-account settings become) unless it names one. Else the stack creates no such secret.
 */
export const pollersReadStackToken = (config: AlertsConfig): boolean =>
	config.accounts.length === 1 ? !config.accounts[0].tokenSecretArn : config.accounts.some((a) => a.id === 'default' && !a.tokenSecretArn);

export interface PollersProps {
	config: AlertsConfig;
	table: dynamodb.ITable;
	/** The stack's own token secret, where `pollersReadStackToken` (else unused). */
	tokenSecret?: secretsmanager.ISecret;
	bus: events.IEventBus;
}

/**
 * The pollers, each on an EventBridge Scheduler schedule in the configured time zone. With several
 * accounts: one schedule per account and poller, whose input names the account (Scheduler is the
 * fan-out: docs/architecture.md, "Many accounts"), and a token secret per account.
 */
export class Pollers extends Construct {
	readonly functions: Record<PollerName, lambda.Function>;
	readonly schedulerDlq: sqs.Queue;
	/** Each account's token secret, by account id (several accounts; one account: `tokenSecret`). */
	readonly accountSecrets: Record<string, secretsmanager.ISecret> = {};
	/**
	 * How another function reads the accounts as the pollers do (the customer re-test notices): the
	 * one account's environment, or each account's schedule input; the token secrets it may read.
	 */
	readonly accountAccess: AccountAccess;

	constructor(scope: Construct, id: string, props: PollersProps) {
		super(scope, id);
		const { config } = props;
		const several = config.accounts.length > 1;
		if (config.accounts.length > MAX_ACCOUNTS_PER_STACK) {
			throw new Error(`accounts: at most ${MAX_ACCOUNTS_PER_STACK} accounts per stack (CloudFormation's 500 resources), got ${config.accounts.length}; split the list over several stacks (docs/scale.md)`);
		}
		const one = config.accounts[0];
		if (pollersReadStackToken(config) && !props.tokenSecret) throw new Error("Pollers: the stack's token secret is read here (see pollersReadStackToken) but was not given");
		const tokenSecret = !several && one.tokenSecretArn ? secretsmanager.Secret.fromSecretCompleteArn(this, 'AccountToken', one.tokenSecretArn) : props.tokenSecret!;
		const environment = {
			...(several
				? { TEC_ACCOUNTS: 'schedule' }
				: { TEC_BASE_URL: one.baseUrl, TEC_ENVIRONMENT: one.environment, TEC_TOKEN_SECRET_ARN: tokenSecret.secretArn }),
			STATE_TABLE: props.table.tableName,
			EVENT_BUS_NAME: props.bus.eventBusName,
			REMINDER_DAYS: String(config.reminderDays),
			LOOKBACK_DAYS: String(config.lookbackDays),
			SAFETY_MS: String(POLLER_SAFETY.toMilliseconds()),
			// One account's pollers never run at once (the account's lease in the state table).
			ACCOUNT_LEASE_WAIT_MS: String(ACCOUNT_LEASE_WAIT.toMilliseconds()),
			...(config.dueSoonDays === undefined ? {} : { DUE_SOON_DAYS: config.dueSoonDays }),
			// Only the keys that differ from the defaults: a Lambda's environment holds 4 KB in all.
			...(config.serviceProfile === undefined ? {} : { TEC_SERVICE_PROFILE: JSON.stringify(profileDifferences(config.serviceProfile)) }),
		};
		if (several) for (const a of config.accounts) this.accountSecrets[a.id] = this.accountSecret(a, props.tokenSecret);
		const stack = Stack.of(this);
		// Several accounts: the stack's own token secrets by their name prefix (one statement whatever
		// the count), and the ones given by ARN.
		const secretArns = several
			? [
					...(config.accounts.some((a) => !a.tokenSecretArn && a.id !== 'default')
						? [stack.formatArn({ service: 'secretsmanager', resource: 'secret', arnFormat: ArnFormat.COLON_RESOURCE_NAME, resourceName: `${accountSecretName(stack.stackName, '')}*` })]
						: []),
					...config.accounts.filter((a) => a.tokenSecretArn || a.id === 'default').map((a) => this.accountSecrets[a.id].secretArn),
				]
			: [tokenSecret.secretArn];
		this.accountAccess = {
			environment: several ? {} : { TEC_BASE_URL: one.baseUrl, TEC_ENVIRONMENT: one.environment, TEC_TOKEN_SECRET_ARN: tokenSecret.secretArn, ...(config.serviceProfile === undefined ? {} : { TEC_SERVICE_PROFILE: JSON.stringify(profileDifferences(config.serviceProfile)) }) },
			inputs: several ? config.accounts.map((a) => ({ id: a.id, account: scheduledAccountOf(a, this.accountSecrets[a.id].secretArn) })) : [],
			secretArns,
		};
		const poller = (name: PollerName, fnId: string, entry: string, description: string) => {
			// A tick throttled or held back is dropped once its poll interval has passed: the next tick
			// is the retry (Lambda would otherwise keep it up to 6 hours and run it late, beside newer ticks).
			const maxEventAge = Duration.minutes(name === 'dueDates' ? 60 : Math.max(1, config.scheduleRateMinutes));
			// The measured values' settings: only the test-results poller reads them (its near-limit events and its backfill).
			const own: Record<string, string> = name === 'testResults' ? { NEAR_LIMIT_THRESHOLD: String(config.nearLimitThreshold), BACKFILL_SHARE: String(config.backfillShare) } : {};
			const fn = new NodeFunction(this, fnId, { entry, description, timeout: POLLER_TIMEOUT, memorySize: POLLER_MEMORY_MB, serviceName: POLLER_SERVICE, environment: { ...environment, ...own }, retryAttempts: 0, maxEventAge });
			// Its own partitions of the state table only (the history, the notices log and the e-mails' are others').
			grantStatePartitions(fn.role, props.table, POLLER_PARTITIONS[name]);
			// The due-date history publishes no events (it keeps the history and its metrics).
			if (name !== 'dueDates') fn.role.addToPolicy(new iam.PolicyStatement({ sid: 'PublishEvents', actions: ['events:PutEvents'], resources: [props.bus.eventBusArn] }));
			fn.role.addToPolicy(new iam.PolicyStatement({ sid: 'ReadAccessToken', actions: ['secretsmanager:GetSecretValue'], resources: secretArns }));
			if (several) {
				Validations.of(fn.role).acknowledge({
					id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${accountSecretName(stack.stackName, '')}*]`,
					reason: 'The token secrets this stack creates, one per account, all named tec-token/<stack>/<account id>: one statement for any number of accounts (a statement per secret would outgrow the role policy size at about 90 accounts).',
				});
			}
			const skipped = 'A failed poller run is not replayed: the next scheduled tick is the retry (what was read and emitted is in the state table), and failures raise the Errors alarm (2 of 3 runs) and the heartbeat alarm. A DLQ or on-failure destination would collect invocation records nobody replays.';
			Validations.of(fn.function).acknowledge({ id: 'Serverless-LambdaDLQ', reason: skipped }, { id: 'Serverless-LambdaAsyncFailureDestination', reason: skipped });
			return fn.function;
		};
		this.functions = {
			overdueDevices: poller('overdueDevices', 'OverdueDevicesPoller', 'lambdas/handlers/overdueDevices.ts', 'Polls the overdue devices list; emits Device Overdue / Resolved / Digest'),
			testResults: poller('testResults', 'TestResultsPoller', 'lambdas/handlers/testResults.ts', 'Polls test results; emits Test Result Recorded / Failed'),
			dueSoon: poller('dueSoon', 'DueSoonPoller', 'lambdas/handlers/dueSoon.ts', 'Reads the devices coming due; emits Device Due Soon'),
			dueDates: poller('dueDates', 'DueDatesPoller', 'lambdas/handlers/dueDates.ts', 'Reads every device hourly; keeps the history of due dates (compliance)'),
		};
		this.schedulerDlq = deadLetterQueue(this, 'SchedulerDlq', 'poller invocations EventBridge Scheduler could not deliver');

		const rate = config.scheduleRateMinutes;
		const hour = config.activeHours;
		const minutes = (offset: number) => (rate === 60 ? String(offset) : `${offset}/${rate}`);
		const schedule = (scheduleId: string, fn: lambda.Function, offset: number, description: string, minute = minutes(offset)) => {
			// One role per schedule: it may invoke this one function and write to the scheduler DLQ.
			const role = schedulerRole(this, `${scheduleId}Role`, scheduleId, [fn]);
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
		const offsets = POLLER_OFFSETS(rate);
		const what: Record<PollerName, string> = { overdueDevices: 'Overdue devices poll', testResults: 'Test results poll', dueSoon: 'Devices coming due', dueDates: 'Due-date history' };
		if (!several) {
			schedule('OverdueDevicesSchedule', this.functions.overdueDevices, offsets.overdueDevices, `${what.overdueDevices} every ${rate} min (${config.timeZone}, hours ${hour})`);
			schedule('TestResultsSchedule', this.functions.testResults, offsets.testResults, `${what.testResults} every ${rate} min (${config.timeZone}, hours ${hour})`);
			schedule('DueSoonSchedule', this.functions.dueSoon, offsets.dueSoon, `${what.dueSoon} every ${rate} min (${config.timeZone}, hours ${hour})`);
			// Hourly (a day is the history's unit; each run reads every device), three quarters into a period.
			schedule('DueDatesSchedule', this.functions.dueDates, 0, `Due-date history, hourly (${config.timeZone}, hours ${hour})`, String(DUE_DATES_MINUTE(rate)));
			return;
		}
		// Several accounts: one schedule per account and poller, all through one role (it may invoke
		// the three pollers and write to the scheduler DLQ). A failed, slow or throttled account is its
		// own invocation: it never holds up another's. A flexible window of a quarter period spreads
		// the accounts' runs over it (Lambda concurrency), never into the next poller's quarter.
		const all: PollerName[] = [...POLLER_NAMES, 'dueDates'];
		const role = schedulerRole(this, 'AccountSchedulesRole', 'the pollers of every account', all.map((p) => this.functions[p]), 'the pollers');
		const window = Math.floor(rate / 4);
		for (const a of config.accounts) {
			for (const p of all) {
				const hourly = p === 'dueDates';
				new scheduler.Schedule(this, `${p[0].toUpperCase()}${p.slice(1)}Schedule-${a.id}`, {
					description: `${what[p]} of account ${a.id} ${hourly ? 'hourly' : `every ${rate} min`} (${config.timeZone}, hours ${hour})`,
					schedule: scheduler.ScheduleExpression.cron({ minute: hourly ? String(DUE_DATES_MINUTE(rate)) : minutes(offsets[p]), hour, timeZone: TimeZone.of(config.timeZone) }),
					timeWindow: window >= 1 ? scheduler.TimeWindow.flexible(Duration.minutes(window)) : scheduler.TimeWindow.off(),
					target: new LambdaInvoke(this.functions[p], {
						role,
						deadLetterQueue: this.schedulerDlq,
						retryAttempts: 2,
						maxEventAge: Duration.minutes(Math.max(1, rate)),
						input: scheduler.ScheduleTargetInput.fromObject({ account: scheduledAccountOf(a, this.accountSecrets[a.id].secretArn) }),
					}),
				});
			}
		}
	}

	/** An account's token secret: given by ARN, the single-account secret for `default`, else one of its own. */
	private accountSecret(a: AccountSettings, single: secretsmanager.ISecret | undefined): secretsmanager.ISecret {
		if (a.tokenSecretArn) return secretsmanager.Secret.fromSecretCompleteArn(this, `Token-${a.id}`, a.tokenSecretArn);
		if (a.id === 'default') return single!;
		const secret = new secretsmanager.Secret(this, `AccessToken-${a.id}`, {
			secretName: accountSecretName(Stack.of(this).stackName, a.id),
			description: `Test Equipment Cloud access token of account ${a.id} (${a.environment}) for the pollers: put {"token":"..."} or the plain token in it`,
			generateSecretString: { secretStringTemplate: JSON.stringify({ token: '' }), generateStringKey: 'unused', passwordLength: 16, excludePunctuation: true },
			removalPolicy: RemovalPolicy.DESTROY,
		});
		Validations.of(secret).acknowledge({
			id: 'AwsSolutions-SMG4',
			reason: 'The access token is issued in the Test Equipment Cloud web app; there is no API to mint one, so a rotation Lambda cannot rotate it. Rotate it by hand (put-secret-value); the pollers re-read it within 5 minutes.',
		});
		return secret;
	}
}

export interface AccountAccess {
	environment: Record<string, string>;
	/** Several accounts: what each account's schedule hands a function (`{"account": …}`). */
	inputs: Array<{ id: string; account: ScheduledAccount }>;
	secretArns: string[];
}

/** What an account's schedules hand its pollers (lambdas/accounts.ts, scheduledAccountSchema). */
function scheduledAccountOf(a: AccountSettings, tokenSecretArn: string): ScheduledAccount {
	return {
		id: a.id,
		environment: a.environment,
		baseUrl: a.baseUrl,
		tokenSecretArn,
		account: a.account ?? a.id,
		...(a.partition === undefined ? {} : { partition: a.partition }),
		...(a.dueSoonStages === undefined ? {} : { dueSoonStages: a.dueSoonStages }),
		...(a.reminderDays === undefined ? {} : { reminderDays: a.reminderDays }),
		...(a.profileInput === undefined ? {} : { profile: a.profileInput }),
	};
}
