import { App, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as sns from 'aws-cdk-lib/aws-sns';
import { describe, expect, it } from 'vitest';
import { activeUtcHours, activeUtcPeriods } from '../../infra/activeHours';
import { Alarms, HEARTBEAT_INTERVALS } from '../../infra/constructs/alarms';
import { METRICS_NAMESPACE, RUN_COMPLETED_METRIC } from '../../lambdas/handlers/metricNames';
import { BASE_CONFIG, synth } from './synth';

/** The Alarms construct on its own: a stack with a topic and nothing else. */
function alarmsStack(build: (alarms: Alarms) => void): Template {
	const stack = new Stack(new App(), 'AlarmsOnly');
	const alarms = new Alarms(stack, 'Alarms', { topic: new sns.Topic(stack, 'Topic') });
	build(alarms);
	return Template.fromStack(stack);
}
type Json = ReturnType<typeof JSON.parse>;
const alarmsOf = (t: Template) => Object.values(t.findResources('AWS::CloudWatch::Alarm')).map((r: Json) => r.Properties);

describe('heartbeat alarm', () => {
	it('fires when a poller has completed no run in 3 intervals: RunCompleted < 1, missing data breaches', () => {
		const [a] = alarmsOf(alarmsStack((alarms) => alarms.heartbeat('overdueDevices', 'pollers', 5)));
		expect(HEARTBEAT_INTERVALS).toBe(3);
		expect(a).toMatchObject({
			Namespace: METRICS_NAMESPACE,
			MetricName: RUN_COMPLETED_METRIC,
			Dimensions: expect.arrayContaining([
				{ Name: 'poller', Value: 'overdueDevices' },
				{ Name: 'service', Value: 'pollers' },
			]),
			Statistic: 'Sum',
			Period: 300,
			Threshold: 1,
			ComparisonOperator: 'LessThanThreshold',
			EvaluationPeriods: 3,
			DatapointsToAlarm: 3,
			TreatMissingData: 'breaching',
		});
		expect(a.AlarmActions).toHaveLength(1);
		expect(a.OKActions).toHaveLength(1);
	});

	it('with active hours, hours outside them count as a complete run (metric math on the UTC hour)', () => {
		const hours = activeUtcHours('6-20', 'UTC')!;
		const [a] = alarmsOf(alarmsStack((alarms) => alarms.heartbeat('testResults', 'pollers', 10, activeUtcPeriods('6-20', 'UTC', 10, [5, 15, 25, 35, 45, 55]))));
		expect(a).toMatchObject({ ComparisonOperator: 'LessThanThreshold', Threshold: 1, EvaluationPeriods: 3, TreatMissingData: 'breaching' });
		const expressions = (a.Metrics as Json[]).map((m) => m.Expression).filter(Boolean);
		expect(expressions).toContain('FILL(runs, 0)');
		const ifExpr = expressions.find((e: string) => e.startsWith('IF('));
		expect(ifExpr).toBe(`IF(${hours.map((h) => `HOUR(filled) == ${h}`).join(' OR ')}, filled, 1)`);
		const runs = (a.Metrics as Json[]).find((m) => m.Id === 'runs');
		expect(runs.MetricStat).toMatchObject({ Metric: { Namespace: METRICS_NAMESPACE, MetricName: RUN_COMPLETED_METRIC }, Period: 600, Stat: 'Sum' });
		expect(runs.ReturnData).toBe(false);
	});

	it('other alarms: threshold 1, missing data is fine, alarm and OK to the topic', () => {
		const list = alarmsOf(alarmsStack((alarms) => alarms.add('Custom', new cloudwatch.Metric({ namespace: 'N', metricName: 'M', period: Duration.minutes(5) }), 'A custom alarm')));
		expect(list).toHaveLength(1);
		expect(list[0]).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', TreatMissingData: 'notBreaching' });
	});
});

describe('active hours in UTC (what the heartbeat expects)', () => {
	it('UTC: the hours themselves', () => {
		expect(activeUtcHours('6-20', 'UTC')).toEqual([6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
	});
	it('a zone with daylight saving: only the UTC hours active in winter and in summer', () => {
		// Europe/Berlin 6-20: UTC 5-19 in winter, 4-18 in summer.
		expect(activeUtcHours('6-20', 'Europe/Berlin')).toEqual([5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18]);
	});
	it('a half-hour offset: only UTC hours covered in full', () => {
		// Asia/Kolkata (+5:30) 8-17 is 02:30-12:29 UTC.
		expect(activeUtcHours('8-17', 'Asia/Kolkata')).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11]);
	});
	it('all day: a run in every hour', () => {
		expect(activeUtcHours('*', 'Europe/Berlin')).toBeUndefined();
	});
});

describe('the stack adds a heartbeat per poller', () => {
	const s = synth({ ...BASE_CONFIG, activeHours: '6-20', timeZone: 'Europe/Berlin', scheduleRateMinutes: '10' }, 'TestEquipmentCloudAlertsHeartbeat');
	it('one for each poller, on its interval, only in the scheduled hours, to the alerts topic', () => {
		const heartbeats = Object.values(s.template.findResources('AWS::CloudWatch::Alarm')).map((r: Json) => r.Properties).filter((p) => /poller has not completed a run/.test(p.AlarmDescription));
		expect(heartbeats).toHaveLength(4);
		// The due-date history poller runs hourly: its heartbeat counts hours.
		expect(heartbeats[3].Metrics.find((m: Json) => m.Id === 'runs').MetricStat).toMatchObject({ Period: 3600, Metric: { Dimensions: expect.arrayContaining([{ Name: 'poller', Value: 'dueDates' }]) } });
		for (const [i, poller] of ['overdueDevices', 'testResults', 'dueSoon'].entries()) {
			const h = heartbeats[i];
			expect(h.AlarmActions).toEqual([{ Ref: s.id(s.stack.topic) }]);
			const runs = (h.Metrics as Json[]).find((m) => m.Id === 'runs');
			expect(runs.MetricStat.Metric.Dimensions).toEqual(expect.arrayContaining([{ Name: 'poller', Value: poller }, { Name: 'service', Value: 'pollers' }]));
			expect(runs.MetricStat.Period).toBe(600);
			expect((h.Metrics as Json[]).find((m) => String(m.Expression).startsWith('IF(')).Expression).toContain('HOUR(filled) == 5 OR');
		}
	});
	it('the pollers and the e-mail functions are traced (X-Ray active) and name their Powertools service', () => {
		for (const fn of [s.stack.pollers.overdueDevices, s.stack.pollers.testResults, s.stack.email.collector, s.stack.email.digest]) {
			const p = (s.json.Resources as Record<string, Json>)[s.id(fn)].Properties;
			expect(p.TracingConfig).toEqual({ Mode: 'Active' });
			expect(p.Environment.Variables.POWERTOOLS_SERVICE_NAME).toMatch(/^(pollers|email)$/);
		}
	});
});

describe('heartbeats where no UTC hour is active in full, every season (Australia/Adelaide, +9:30/+10:30, hours 6-7)', () => {
	const s = synth({ ...BASE_CONFIG, activeHours: '6-7', timeZone: 'Australia/Adelaide', scheduleRateMinutes: '5' }, 'TecAdelaide');
	const heartbeats = Object.values(s.template.findResources('AWS::CloudWatch::Alarm'))
		.map((r: Json) => r.Properties)
		.filter((p) => /poller has not completed a run/.test(p.AlarmDescription));
	const condition = (h: Json) => String((h.Metrics as Json[]).find((m) => String(m.Expression).startsWith('IF(')).Expression);

	it('every heartbeat expects runs in the UTC periods that hold one in both seasons, never an empty condition', () => {
		expect(heartbeats).toHaveLength(4);
		for (const h of heartbeats) expect(condition(h)).not.toMatch(/IF\(\s*,/);
		// Overdue devices every 5 min from 6:00 to 7:55 local: 19:30-21:25 UTC in January, 20:30-22:25 in July.
		expect(condition(heartbeats[0])).toBe('IF((HOUR(filled) == 20 AND MINUTE(filled) >= 30 AND MINUTE(filled) <= 55) OR (HOUR(filled) == 21 AND MINUTE(filled) >= 0 AND MINUTE(filled) <= 25), filled, 1)');
		// The due-date history at 6:03 and 7:03 local: the UTC hour 20 holds a run in both seasons.
		expect(condition(heartbeats[3])).toBe('IF(HOUR(filled) == 20, filled, 1)');
	});

	it('a digest heartbeat: no complete digest run in 26 hours (RunCompleted of the e-mail service) fires', () => {
		const digest = Object.values(s.template.findResources('AWS::CloudWatch::Alarm')).map((r: Json) => r.Properties).find((p) => /digest has not completed a run/.test(p.AlarmDescription));
		expect(digest).toMatchObject({
			MetricName: RUN_COMPLETED_METRIC,
			Dimensions: [{ Name: 'service', Value: 'email' }],
			Period: 3600,
			EvaluationPeriods: 26,
			DatapointsToAlarm: 26,
			ComparisonOperator: 'LessThanThreshold',
			TreatMissingData: 'breaching',
		});
		// Missing data breaches from the deploy on (CloudWatch cannot wait for a first run): the e-mail it sends says so, and when the first digest comes.
		expect(digest.AlarmDescription).toContain(`After a first deploy this alarm is in ALARM until the first digest has run (daily at ${s.config.email.digestHour}:00 ${s.config.timeZone})`);
	});

	it('a dead-letter queue alarms on messages arriving, not on its depth: it returns to OK and alarms again on the next failure', () => {
		const dlqs = Object.values(s.template.findResources('AWS::CloudWatch::Alarm')).map((r: Json) => r.Properties).filter((p) => /DLQ/.test(p.AlarmDescription));
		expect(dlqs.length).toBeGreaterThanOrEqual(3);
		for (const d of dlqs) {
			expect(d.MetricName).toBeUndefined();
			const metrics = d.Metrics as Json[];
			expect(metrics.find((m) => m.ReturnData !== false).Expression).toBe('MAX([FILL(sent, 0), DIFF(FILL(visible, 0))])');
			expect(metrics.map((m) => m.MetricStat?.Metric.MetricName).filter(Boolean).sort()).toEqual(['ApproximateNumberOfMessagesVisible', 'NumberOfMessagesSent']);
			expect(d).toMatchObject({ ComparisonOperator: 'GreaterThanOrEqualToThreshold', Threshold: 1, EvaluationPeriods: 1, TreatMissingData: 'notBreaching' });
		}
	});
});

describe('the due-date history heartbeat of several accounts', () => {
	it('one alarm per ten accounts, each account on its own metric (the least running fires)', () => {
		const ids = Array.from({ length: 12 }, (_, i) => `site-${i}`);
		const list = alarmsOf(alarmsStack((alarms) => alarms.accountsDueDatesHeartbeat(ids, 'pollers')));
		expect(list).toHaveLength(2);
		const accountsOf = (a: Json) => (a.Metrics as Json[]).filter((m) => m.MetricStat).map((m) => m.MetricStat.Metric.Dimensions.find((d: Json) => d.Name === 'account').Value);
		expect(list.map(accountsOf)).toEqual([ids.slice(0, 10), ids.slice(10)]);
		for (const a of list) expect(a).toMatchObject({ ComparisonOperator: 'LessThanThreshold', EvaluationPeriods: 3, TreatMissingData: 'breaching' });
	});
});
