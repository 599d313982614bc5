import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../infra/config';
import { DIGEST_TIMEOUT, EMAIL_DETAIL_TYPES, REPORT_TIMEOUT } from '../../infra/constructs/emailAlerts';
import { detailTypesRead } from '../../lambdas/email/events';
import { TestEquipmentCloudAlerts } from '../../infra/stack';
import { BASE_CONFIG, getAtt, ref, synth, type Synth } from './synth';

// Synthesised with cdk-nag's checks registered (synth() throws on an unacknowledged finding).
const recipients = { default: ['ops@example.com'], customers: { 'Acme Instruments': ['custodian@acme.example'] }, escalation: { afterDays: 30, to: ['manager@example.com'] } };
const s = synth({ ...BASE_CONFIG, timeZone: 'Europe/Berlin', digestHour: '6', recipients: JSON.stringify(recipients) }, 'EmailAlertsTest');

type Json = ReturnType<typeof JSON.parse>;
const resources = (x: Synth) => x.json.Resources as Record<string, { Type: string; Properties: Record<string, Json> }>;
const props = (id: string) => resources(s)[id].Properties;
const statements = (fnId: string) => {
	const roleId = props(fnId).Role['Fn::GetAtt'][0] as string;
	return Object.values(resources(s))
		.filter((r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((x: Json) => x.Ref === roleId))
		.flatMap((r) => r.Properties.PolicyDocument.Statement);
};

describe('the alert e-mails construct', () => {
	const collector = s.id(s.stack.email.collector);
	const digest = s.id(s.stack.email.digest);
	const report = s.id(s.stack.email.report);

	it('e-mail settings past the functions\' 4 KB of environment are refused, naming what takes most of it: the interval settings\' department rows, or the routing', () => {
		const rows = Object.fromEntries(Array.from({ length: 90 }, (_, i) => [`Abteilung Nummer ${i}`, { environment: 'office', maxMonths: 18 }]));
		const build = (input: Record<string, unknown>) => () => new TestEquipmentCloudAlerts(new App(), 'EnvTooLarge', { config: parseConfig({ ...BASE_CONFIG, ...input }) });
		expect(build({ intervals: JSON.stringify({ departments: rows }) })).toThrow(/^intervals: the e-mail settings take \d+ bytes, \d+ of them the interval settings, .*give fewer intervals\.departments rows/);
		const many = { default: ['ops@example.com'], customers: Object.fromEntries(Array.from({ length: 90 }, (_, i) => [`Customer number ${i}`, [`c${i}@example.com`]])) };
		expect(build({ recipients: JSON.stringify(many) })).toThrow(/^recipients: the e-mail settings \(recipients, customer notices, intervals: 0 bytes\)/);
	});

	it('a rule sends the overdue, resolved, due-soon and failed-test events to the collector, with retries and a DLQ', () => {
		s.template.hasResourceProperties('AWS::Events::Rule', {
			EventBusName: ref(s.id(s.stack.bus)),
			EventPattern: { source: ['test-equipment-cloud'], 'detail-type': ['Device Overdue', 'Device Overdue Resolved', 'Device Due Soon', 'Test Result Failed'] },
			Targets: [{ Arn: getAtt(collector), Id: 'Target0', DeadLetterConfig: { Arn: getAtt(s.id(s.stack.email.eventsDlq)) }, RetryPolicy: { MaximumRetryAttempts: 8, MaximumEventAgeInSeconds: 21600 } }],
		});
		// Exactly the detail types the collector reads (the rest it would only ignore).
		expect([...EMAIL_DETAIL_TYPES].sort()).toEqual(detailTypesRead().sort());
	});

	it('the digest runs daily at the digest hour in the stack\'s time zone, told the time it was scheduled for', () => {
		s.template.hasResourceProperties('AWS::Scheduler::Schedule', {
			ScheduleExpression: 'cron(0 6 * * ? *)',
			ScheduleExpressionTimezone: 'Europe/Berlin',
			Target: { Arn: getAtt(digest), Input: JSON.stringify({ scheduledTime: '<aws.scheduler.scheduled-time>' }), RetryPolicy: { MaximumRetryAttempts: 4 }, DeadLetterConfig: { Arn: getAtt(s.id(s.stack.schedulerDlq)) } },
		});
		expect(props(digest).Timeout).toBe(DIGEST_TIMEOUT.toSeconds());
	});

	it('the monthly report has a function of its own, on the first of each month at the digest hour, told the time it was scheduled for; more time and memory than the digest', () => {
		s.template.hasResourceProperties('AWS::Scheduler::Schedule', {
			ScheduleExpression: 'cron(0 6 1-2 * ? *)',
			ScheduleExpressionTimezone: 'Europe/Berlin',
			Target: { Arn: getAtt(report), Input: JSON.stringify({ scheduledTime: '<aws.scheduler.scheduled-time>' }), RetryPolicy: { MaximumRetryAttempts: 4 }, DeadLetterConfig: { Arn: getAtt(s.id(s.stack.schedulerDlq)) } },
		});
		expect(props(report).Handler).toBe('index.handler');
		expect(props(report).Description).toMatch(/^Sends the monthly compliance report/);
		expect(props(report).Timeout).toBe(REPORT_TIMEOUT.toSeconds());
		expect(props(report).Timeout).toBeGreaterThanOrEqual(props(digest).Timeout);
		expect(props(report).MemorySize).toBeGreaterThanOrEqual(props(digest).MemorySize);
		// Its failed invocations go to the scheduler's dead-letter queue, as the digest's do.
		expect(props(report).DeadLetterConfig).toEqual({ TargetArn: getAtt(s.id(s.stack.schedulerDlq)) });
		s.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { FunctionName: ref(report), MaximumRetryAttempts: 2 });
	});

	it("the cost table's EventBridge Scheduler line counts the report's invocations as its schedule makes them", () => {
		const schedules = Object.values(s.template.findResources('AWS::Scheduler::Schedule')) as Json[];
		const expression = schedules.find((r) => JSON.stringify(r.Properties.Target.Arn) === JSON.stringify(getAtt(report))).Properties.ScheduleExpression as string;
		// cron(minutes hours day-of-month …): the days a month it runs, a range or a list.
		const days = expression.slice(5, -1).split(' ')[2].split(',').reduce((n, part) => n + (part.includes('-') ? Number(part.split('-')[1]) - Number(part.split('-')[0]) + 1 : 1), 0);
		const line = readFileSync(join(__dirname, '../../docs/aws-deployment.md'), 'utf8').split('\n').find((l) => l.startsWith('| EventBridge Scheduler |'));
		expect(line).toContain(`+ ${days} report invocations`);
	});

	it("the report reads the pollers' partitions and writes none; it reads the SES sending rate, as the digest does", () => {
		const st = statements(report);
		expect(st.map((x: Json) => x.Sid)).not.toContain('StateWrite');
		const read = st.find((x: Json) => x.Sid === 'StateRead');
		expect(read.Condition['ForAllValues:StringLike']['dynamodb:LeadingKeys']).toEqual(['dueDates:*', 'tests:*', 'scrapped:*', 'scrappedBin:*', 'measurementWarnings:*']);
		expect(st.find((x: Json) => x.Sid === 'ReadSendingRate')).toMatchObject({ Action: 'ses:GetAccount', Resource: '*' });
		// The digest no longer reads what only the report read.
		const digestReads = statements(digest).find((x: Json) => x.Sid === 'StateRead').Condition['ForAllValues:StringLike']['dynamodb:LeadingKeys'] as string[];
		expect(digestReads.filter((k) => /^(dueDates|tests|scrapped)/.test(k))).toEqual([]);
	});

	it('the e-mail functions get the validated settings, the state table and the time zone', () => {
		for (const fnId of [collector, digest, report]) {
			const vars = props(fnId).Environment.Variables;
			expect(vars).toMatchObject({ STATE_TABLE: ref(s.id(s.stack.table)), TIME_ZONE: 'Europe/Berlin', TEC_ENVIRONMENT: 'sandbox' });
			expect(JSON.parse(vars.EMAIL_SETTINGS)).toEqual({ mailFrom: BASE_CONFIG.mailFrom, digestHour: 6, immediateFailedTests: true, locale: 'en', recipients: { ...recipients, departments: {} }, customerNotices: { enabled: false, addresses: {}, optOut: [], locales: {}, maxRows: 100 } });
			expect(vars).not.toHaveProperty('ALERT_TOPIC_ARN');
		}
		// The report's sends keyed under the digest function's name (it sent them before the report had a function of its own).
		expect(props(report).Environment.Variables.SEND_KEY_PREFIX).toEqual(ref(digest));
		expect(props(digest).Environment.Variables).not.toHaveProperty('SEND_KEY_PREFIX');
	});

	it('least privilege: the state table, and SES only as the configured sender', () => {
		for (const fnId of [collector, digest, report]) {
			const st = statements(fnId);
			// Each on its own partitions (test/infra/leastPrivilege.test.ts).
			const table = st.filter((x: Json) => ['StateRead', 'StateWrite', 'Idempotency'].includes(x.Sid));
			for (const t of table) expect(t.Resource).toEqual(getAtt(s.id(s.stack.table)));
			expect(table.flatMap((t: Json) => t.Action)).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:Query', ...(fnId === report ? [] : ['dynamodb:BatchWriteItem'])]));
			const sesSt = st.find((x: Json) => x.Sid === 'SendAsTheSender');
			expect(sesSt.Action).toEqual(['ses:SendEmail', 'ses:SendRawEmail']);
			expect(sesSt.Condition).toEqual({ StringEquals: { 'ses:FromAddress': 'alerts@lab.example.com' } });
			expect(JSON.stringify(sesSt.Resource)).toContain(':identity/alerts@lab.example.com');
			expect(JSON.stringify(sesSt.Resource)).toContain(':identity/lab.example.com');
			expect(JSON.stringify(st)).not.toContain('sns:Publish');
		}
	});

	it('alarms on collector, digest and report errors, throttles and the events DLQ, to the alarms topic', () => {
		for (const fnId of [collector, digest, report]) {
			for (const metric of ['Errors', 'Throttles']) {
				s.template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: metric, Dimensions: [{ Name: 'FunctionName', Value: ref(fnId) }], Threshold: 1, AlarmActions: [ref(s.id(s.stack.topic))] });
			}
		}
		// Messages arriving in the events DLQ (test/infra/alarms.test.ts).
		const dlq = getAtt(s.id(s.stack.email.eventsDlq), 'QueueName');
		const watching = Object.values(s.template.findResources('AWS::CloudWatch::Alarm')).filter((a: Json) => (a.Properties.Metrics ?? []).some((m: Json) => m.MetricStat?.Metric.MetricName === 'NumberOfMessagesSent' && JSON.stringify(m.MetricStat.Metric.Dimensions) === JSON.stringify([{ Name: 'QueueName', Value: dlq }])));
		expect(watching).toHaveLength(1);
	});

	it('no re-test notices unless customerNotices.enabled: no function, no schedule', () => {
		expect(s.stack.email.notices).toBeUndefined();
		expect(JSON.stringify(s.json)).not.toMatch(/re-test notices/);
	});

	it('warns when mailFrom is still a placeholder', () => {
		Annotations.fromStack(s.stack).hasWarning('/EmailAlertsTest/Email', Match.stringLikeRegexp('mailFrom alerts@lab.example.com is a placeholder'));
	});

	it('the old path is gone: no SNS publishing function, no rule on the Overdue Devices Digest', () => {
		const rules = Object.values(resources(s)).filter((r) => r.Type === 'AWS::Events::Rule');
		expect(rules.flatMap((r) => r.Properties.EventPattern['detail-type'])).not.toContain('Overdue Devices Digest');
	});
});

describe('the e-mail settings are checked at deploy', () => {
	it('refuses bad settings with the same messages as the Lambdas and npm start', () => {
		let message = '';
		try {
			parseConfig({ ...BASE_CONFIG, mailFrom: undefined, digestHour: '25', recipients: '{"customers":{"Acme":["nope"]}}' });
		} catch (error) {
			message = (error as Error).message;
		}
		expect(message).toMatch(/^The TestEquipmentCloudAlerts settings are not valid:/);
		expect(message).toContain('mailFrom is required: the sender address verified in Amazon SES');
		expect(message).toContain('digestHour must be a whole hour from 0 to 23');
		expect(message).toContain('recipients.customers["Acme"]: "nope" is not an e-mail address');
	});

	it('without recipients, everything goes to alertEmails', () => {
		expect(parseConfig({ ...BASE_CONFIG }).email.recipients.default).toEqual(['ops@example.com', 'lab-lead@example.com']);
	});
});
