import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, RUN_COMPLETED_METRIC } from '../../lambdas/handlers/metricNames';
import { periodsCondition } from '../activeHours';
import { POLLER_NAMES, type PollerName } from './pollers';

/** Intervals without a complete run before the heartbeat alarm fires. */
export const HEARTBEAT_INTERVALS = 3;
/** Hours without a complete digest run before its heartbeat fires: a day, and the hour daylight saving moves it. */
export const DIGEST_HEARTBEAT_HOURS = 26;

export interface AlarmsProps {
	topic: sns.ITopic;
}

/** Alarms on one topic (alarm and OK), each added in one line by the stack. */
export class Alarms extends Construct {
	readonly alarms: cloudwatch.Alarm[] = [];
	private readonly topic: sns.ITopic;

	constructor(scope: Construct, id: string, props: AlarmsProps) {
		super(scope, id);
		this.topic = props.topic;
	}

	/** Fires when the metric reaches 1 (errors, throttles, messages in a DLQ). */
	add(id: string, metric: cloudwatch.IMetric, description: string, evaluationPeriods = 1, datapointsToAlarm = 1): cloudwatch.Alarm {
		return this.register(
			new cloudwatch.Alarm(this, id, {
				alarmDescription: description,
				metric,
				threshold: 1,
				comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
				evaluationPeriods,
				datapointsToAlarm,
				treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
			}),
		);
	}

	/** A function's errors (`evaluationPeriods`/`datapointsToAlarm`) and throttles. */
	function(name: string, fn: lambda.IFunction, period: Duration, what: string, errorsOf: [number, number] = [1, 1]): void {
		const [evaluationPeriods, datapointsToAlarm] = errorsOf;
		const errors = evaluationPeriods === 1 ? `The ${what} failed` : `The ${what} failed in ${datapointsToAlarm} of the last ${evaluationPeriods} periods (see its log group)`;
		this.add(`${name}Errors`, fn.metricErrors({ period, statistic: 'Sum' }), errors, evaluationPeriods, datapointsToAlarm);
		this.add(`${name}Throttles`, fn.metricThrottles({ period, statistic: 'Sum' }), `The ${what} was throttled (account concurrency)`);
	}

	/**
	 * Messages arriving in a dead-letter queue: messages sent to it, or its depth rising, in a period.
	 * Not the depth itself: the queue keeps a message 14 days, and an alarm on the depth would stay in
	 * ALARM all that time, silent about every later failure. It returns to OK when nothing new arrives.
	 */
	queue(id: string, queue: sqs.IQueue, description: string): void {
		const period = Duration.minutes(5);
		const arriving = new cloudwatch.MathExpression({
			expression: 'MAX([FILL(sent, 0), DIFF(FILL(visible, 0))])',
			usingMetrics: { sent: queue.metricNumberOfMessagesSent({ period, statistic: 'Sum' }), visible: queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }) },
			period,
			label: 'Messages arriving (sent, or the depth rising)',
		});
		this.add(id, arriving, `${description}; each new arrival alarms again (the queue keeps messages 14 days)`);
	}

	/**
	 * The digest's heartbeat: fires when no digest run has completed in 26 hours (a day, and the hour
	 * a daylight-saving change moves it): schedule disabled, failing, or throttled. RunCompleted of the
	 * e-mail service, hourly; missing data counts as none. So after a first deploy it is in ALARM
	 * until the first digest (`firstRun`, e.g. "daily at 6:00 Europe/Berlin"): CloudWatch cannot tell
	 * hours before a first run from missed runs, and missing data that does not breach would silence
	 * a digest that stops for good (the metric is sent only by a complete run). Its e-mail says so.
	 */
	digestHeartbeat(service: string, firstRun: string): cloudwatch.Alarm {
		const runs = new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName: RUN_COMPLETED_METRIC, dimensionsMap: { service }, statistic: 'Sum', period: Duration.hours(1) });
		return this.register(
			new cloudwatch.Alarm(this, 'DigestHeartbeat', {
				alarmDescription: `The daily e-mail digest has not completed a run in 26 hours: its schedule disabled, failing or throttled (see its log group). No digest is not "nothing to report". After a first deploy this alarm is in ALARM until the first digest has run (${firstRun}): CloudWatch counts the hours before it as missed runs; an OK follows that run.`,
				metric: runs,
				threshold: 1,
				comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
				evaluationPeriods: DIGEST_HEARTBEAT_HOURS,
				datapointsToAlarm: DIGEST_HEARTBEAT_HOURS,
				treatMissingData: cloudwatch.TreatMissingData.BREACHING,
			}),
		);
	}

	/**
	 * The due-date history's heartbeat per account (several accounts): fires when any account's hourly
	 * run has not completed in `HEARTBEAT_INTERVALS` hours. An alarm holds at most 10 metrics, so one
	 * alarm per ten accounts, on the least running of them (the alarm names its accounts).
	 */
	accountsDueDatesHeartbeat(accounts: readonly string[], service: string, utcPeriods?: number[]): cloudwatch.Alarm[] {
		const period = Duration.hours(1);
		const out: cloudwatch.Alarm[] = [];
		for (let i = 0; i < accounts.length; i += 10) {
			const group = accounts.slice(i, i + 10);
			const usingMetrics: Record<string, cloudwatch.IMetric> = {};
			group.forEach((account, j) => {
				usingMetrics[`a${j}`] = new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName: RUN_COMPLETED_METRIC, dimensionsMap: { service, poller: 'dueDates', account }, statistic: 'Sum', period });
			});
			const least = `MIN([${group.map((_, j) => `FILL(a${j}, 0)`).join(', ')}])`;
			const metric = new cloudwatch.MathExpression({
				expression: utcPeriods ? `IF(${periodsCondition(utcPeriods, 60, 'FILL(a0, 0)')}, ${least}, 1)` : least,
				usingMetrics,
				period,
				label: `Due-date history runs of the least running of ${group.join(', ')}`,
			});
			out.push(
				this.heartbeatAlarm(
					accounts.length > 10 ? `DueDatesHeartbeat${i / 10 + 1}` : 'DueDatesHeartbeat',
					`The dueDates poller of one of the accounts ${group.join(', ')} has not completed a run in ${HEARTBEAT_INTERVALS} hours: its schedule disabled, throttled, failing or its token is wrong (see the poller's log group, key "account"). No history is not "nothing to report".`,
					metric,
				),
			);
		}
		return out;
	}

	/**
	 * The heartbeat: a poller that has not completed a run in `HEARTBEAT_INTERVALS` intervals
	 * (schedule disabled, throttled, failing, broken credentials) fires, because silence would
	 * look like "nothing overdue". The pollers emit RunCompleted = 1 per complete run; missing
	 * data counts as breaching. With active hours, the periods outside them count as complete
	 * (metric math on the UTC hour and minute; `utcPeriods` are the periods a run is expected in,
	 * infra/activeHours.ts).
	 */
	heartbeat(poller: PollerName, service: string, intervalMinutes: number, utcPeriods?: number[]): cloudwatch.Alarm {
		const period = Duration.minutes(intervalMinutes);
		const runs = new cloudwatch.Metric({
			namespace: METRICS_NAMESPACE,
			metricName: RUN_COMPLETED_METRIC,
			dimensionsMap: { service, poller },
			statistic: 'Sum',
			period,
		});
		const metric = utcPeriods
			? new cloudwatch.MathExpression({
					expression: `IF(${periodsCondition(utcPeriods, intervalMinutes, 'filled')}, filled, 1)`,
					usingMetrics: { filled: new cloudwatch.MathExpression({ expression: 'FILL(runs, 0)', usingMetrics: { runs }, period }) },
					period,
					label: `${poller} complete runs (hours outside the schedule count as 1)`,
				})
			: runs;
		return this.heartbeatAlarm(`${poller[0].toUpperCase()}${poller.slice(1)}Heartbeat`, `The ${poller} poller has not completed a run in ${HEARTBEAT_INTERVALS} intervals of ${intervalMinutes} min: schedule disabled, throttled, failing or the token is wrong (see its log group). No run is not "nothing to report".`, metric);
	}

	/**
	 * An account's heartbeat (several accounts): fires when any of its three pollers has not
	 * completed a run in `HEARTBEAT_INTERVALS` intervals. Its metric is the smallest of the three
	 * pollers' RunCompleted with the account's dimension, so
	 * one alarm per account, not three.
	 */
	accountHeartbeat(account: string, service: string, intervalMinutes: number, utcPeriods?: number[]): cloudwatch.Alarm {
		const period = Duration.minutes(intervalMinutes);
		const usingMetrics: Record<string, cloudwatch.IMetric> = {};
		POLLER_NAMES.forEach((poller, i) => {
			usingMetrics[`p${i}`] = new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName: RUN_COMPLETED_METRIC, dimensionsMap: { service, poller, account }, statistic: 'Sum', period });
		});
		const least = `MIN([${POLLER_NAMES.map((_, i) => `FILL(p${i}, 0)`).join(', ')}])`;
		const metric = new cloudwatch.MathExpression({
			expression: utcPeriods ? `IF(${periodsCondition(utcPeriods, intervalMinutes, 'FILL(p0, 0)')}, ${least}, 1)` : least,
			usingMetrics,
			period,
			label: `${account}: complete runs of its least running poller${utcPeriods ? ' (hours outside the schedule count as 1)' : ''}`,
		});
		return this.heartbeatAlarm(`AccountHeartbeat-${account}`, `Account ${account}: a poller has not completed a run in ${HEARTBEAT_INTERVALS} intervals of ${intervalMinutes} min: its schedules disabled, throttled, failing or its token is wrong (see the pollers' log groups, key "account"). No run is not "nothing to report".`, metric);
	}

	/** A heartbeat: fires when the metric stays below one complete run for `HEARTBEAT_INTERVALS` intervals (no data counts as none). */
	private heartbeatAlarm(id: string, alarmDescription: string, metric: cloudwatch.IMetric): cloudwatch.Alarm {
		return this.register(
			new cloudwatch.Alarm(this, id, {
				alarmDescription,
				metric,
				threshold: 1,
				comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
				evaluationPeriods: HEARTBEAT_INTERVALS,
				datapointsToAlarm: HEARTBEAT_INTERVALS,
				treatMissingData: cloudwatch.TreatMissingData.BREACHING,
			}),
		);
	}

	private register(alarm: cloudwatch.Alarm): cloudwatch.Alarm {
		alarm.addAlarmAction(new SnsAction(this.topic));
		alarm.addOkAction(new SnsAction(this.topic));
		this.alarms.push(alarm);
		return alarm;
	}
}
