import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scheduledAccount } from '../../lambdas/accounts';
import { readDigestInvocation } from '../../lambdas/email/events';
import { NOTICES_WAIT_MS } from '../../lambdas/email/notices';
import { DIGEST_TIMEOUT, NOTICES_TIMEOUT } from '../../infra/constructs/emailAlerts';
import { BASE_CONFIG, getAtt, ofType, propsOf, ref, roleOf, roleStatements, synth, type Json } from './synth';

/** The customer re-test notices on AWS: a function of their own, scheduled daily at the digest hour (the 1st sends, a later day catches up) (synthesised with cdk-nag's checks). */
const notices = { enabled: true, replyTo: 'booking@lab.example.com' };
const one = synth({ ...BASE_CONFIG, timeZone: 'Europe/Berlin', digestHour: '6', customerNotices: JSON.stringify(notices) }, 'NoticesOne');
const arn = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:site-c-token-AbCdEf';
const several = synth(
	{
		...BASE_CONFIG,
		customerNotices: JSON.stringify(notices),
		accounts: [
			{ id: 'default', environment: 'production', baseUrl: 'https://tec.example.com' },
			{ id: 'site-c', environment: 'production', baseUrl: 'https://tec-c.example.com', tokenSecretArn: arn },
		],
	},
	'NoticesSeveral',
);

/** A schedule's input with the ARNs CloudFormation resolves at deploy read as "<token>". */
const text = (v: Json): string => (typeof v === 'string' ? v : v['Fn::Join'] ? (v['Fn::Join'][1] as Json[]).map((p) => (typeof p === 'string' ? p : '<token>')).join(v['Fn::Join'][0]) : '<token>');

describe('the customer re-test notices on AWS', () => {
	it("one account: a function with the account's address, its token secret (read only), the state table and SES as the sender; daily at the digest hour", () => {
		const fn = one.id(one.stack.email.notices!);
		const vars = propsOf(one, fn).Environment.Variables;
		expect(vars).toMatchObject({ TEC_BASE_URL: BASE_CONFIG.baseUrl, TEC_ENVIRONMENT: 'sandbox', TEC_TOKEN_SECRET_ARN: ref(one.id(one.stack.tokenSecret!)), STATE_TABLE: ref(one.id(one.stack.table)), TIME_ZONE: 'Europe/Berlin' });
		expect(JSON.parse(vars.EMAIL_SETTINGS).customerNotices).toMatchObject(notices);
		expect(propsOf(one, fn).Timeout).toBe(NOTICES_TIMEOUT.toSeconds());
		const st = roleStatements(one, roleOf(one, fn));
		expect(st.find((x: Json) => x.Sid === 'ReadAccessToken')).toMatchObject({ Action: 'secretsmanager:GetSecretValue', Resource: ref(one.id(one.stack.tokenSecret!)) });
		expect(st.find((x: Json) => x.Sid === 'ReadSendingRate')).toMatchObject({ Action: 'ses:GetAccount', Resource: '*' });
		expect(st.find((x: Json) => x.Sid === 'SendAsTheSender').Condition).toEqual({ StringEquals: { 'ses:FromAddress': 'alerts@lab.example.com' } });
		expect(st.find((x: Json) => x.Sid === 'StateWrite').Resource).toEqual(getAtt(one.id(one.stack.table)));
		// The digest reads the SES rate too (it records it for the collector, also when the notices are off).
		expect(roleStatements(one, roleOf(one, one.id(one.stack.email.digest))).find((x: Json) => x.Sid === 'ReadSendingRate')).toMatchObject({ Action: 'ses:GetAccount', Resource: '*' });
		// The digest and the collector never read the token.
		for (const other of [one.stack.email.digest, one.stack.email.collector]) expect(JSON.stringify(roleStatements(one, roleOf(one, one.id(other))))).not.toContain('secretsmanager');

		one.template.hasResourceProperties('AWS::Scheduler::Schedule', {
			// Daily at the digest hour: the 1st sends, a later day catches up a month whose 1st did not run (a daylight-saving gap).
			ScheduleExpression: 'cron(0 6 * * ? *)',
			ScheduleExpressionTimezone: 'Europe/Berlin',
			Target: { Arn: getAtt(fn), Input: JSON.stringify({ scheduledTime: '<aws.scheduler.scheduled-time>' }), RetryPolicy: { MaximumRetryAttempts: 4 }, DeadLetterConfig: { Arn: getAtt(one.id(one.stack.schedulerDlq)) } },
		});
		// The digest at the same hour waits for the notices' summary, within its timeout.
		one.template.hasResourceProperties('AWS::Scheduler::Schedule', { ScheduleExpression: 'cron(0 6 * * ? *)', Target: { Arn: getAtt(one.id(one.stack.email.digest)) } });
		expect(DIGEST_TIMEOUT.toMilliseconds()).toBeGreaterThanOrEqual(NOTICES_WAIT_MS + 5 * 60_000);
		one.template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'Errors', Dimensions: [{ Name: 'FunctionName', Value: ref(fn) }] });
	});

	it('several accounts: one schedule per account whose input names it as the function reads it, and every account token secret readable', () => {
		const fn = several.id(several.stack.email.notices!);
		expect(propsOf(several, fn).Environment.Variables).not.toHaveProperty('TEC_BASE_URL');
		const schedules = ofType(several, 'AWS::Scheduler::Schedule').filter(([, r]) => JSON.stringify(r.Properties.Target.Arn) === JSON.stringify(getAtt(fn)));
		expect(schedules).toHaveLength(2);
		const inputs = schedules.map(([, r]) => JSON.parse(text(r.Properties.Target.Input)) as { scheduledTime: string; account: unknown });
		expect(inputs.map((i) => scheduledAccount(i)?.id).sort()).toEqual(['default', 'site-c']);
		for (const i of inputs) {
			expect(i.scheduledTime).toBe('<aws.scheduler.scheduled-time>');
			expect(readDigestInvocation({ ...i, scheduledTime: '2026-12-01T06:00:00Z' })).toEqual({ scheduledTime: '2026-12-01T06:00:00Z' });
			expect(schedules.every(([, r]) => r.Properties.ScheduleExpression === 'cron(0 7 * * ? *)')).toBe(true);
		}
		expect(inputs.find((i) => scheduledAccount(i)?.id === 'site-c')).toMatchObject({ account: { tokenSecretArn: arn, baseUrl: 'https://tec-c.example.com' } });
		const read = roleStatements(several, roleOf(several, fn)).find((x: Json) => x.Sid === 'ReadAccessToken');
		expect(JSON.stringify(read.Resource)).toContain(arn);
	});

	it('a daylight-saving gap (Australia/Sydney, digest hour 2, 1 October 2028) skips the 1st: the schedule fires again the next day', () => {
		// No instant of 1 October 2028 is 02:xx in Sydney: the clocks go from 01:59 to 03:00, and Scheduler skips the firing.
		const hoursOn1st = new Set<string>();
		for (let t = Date.parse('2028-09-30T12:00:00Z'); t < Date.parse('2028-10-01T14:00:00Z'); t += 15 * 60_000) {
			const local = new Intl.DateTimeFormat('en-CA', { timeZone: 'Australia/Sydney', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', hourCycle: 'h23' }).format(new Date(t));
			if (local.startsWith('2028-10-01')) hoursOn1st.add(local.slice(-2));
		}
		expect(hoursOn1st.has('02')).toBe(false);
		const schedules = ofType(one, 'AWS::Scheduler::Schedule').filter(([, r]) => JSON.stringify(r.Properties.Target.Arn) === JSON.stringify(getAtt(one.id(one.stack.email.notices!))));
		expect(schedules.length).toBeGreaterThan(0);
		// The day-of-month field: every day, so 2 October 02:00 is a firing.
		for (const [, r] of schedules) expect(String(r.Properties.ScheduleExpression).split(' ')[2]).toBe('*');
	});

	it("what docs/emails.md says of a failed run is what the stack does: the scheduler's retries deliver the invocation; a failed run is retried by Lambda twice, then lands in the scheduler DLQ", () => {
		const fn = one.id(one.stack.email.notices!);
		one.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { FunctionName: ref(fn), MaximumRetryAttempts: 2 });
		expect(propsOf(one, fn).DeadLetterConfig).toEqual({ TargetArn: getAtt(one.id(one.stack.schedulerDlq)) });
		// The notices are described in docs/emails.md; no page of the README or the docs may say otherwise.
		const read = (file: string) => readFileSync(join(__dirname, '..', '..', file), 'utf8').replace(/\s+/g, ' ');
		const docs = readdirSync(join(__dirname, '..', '..', 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
		const all = ['README.md', ...docs].map(read).join(' ');
		expect(all.includes('retried by the scheduler'), 'the README or a doc says the scheduler retries a failed run').toBe(false);
		expect(all.includes("the scheduler's retries send only what is missing"), "the README or a doc says the scheduler's retries resend").toBe(false);
		expect(read('docs/emails.md').includes('a failed run is retried by Lambda twice, then goes to the scheduler DLQ'), 'docs/emails.md says who retries a failed run').toBe(true);
	});
});
