import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scheduledAccount } from '../../lambdas/accounts';
import { DETAIL_TYPES } from '../../lambdas/events/names';
import { parseConfig } from '../../infra/config';
import { Alarms } from '../../infra/constructs/alarms';
import { AlertsTopic } from '../../infra/constructs/alertsTopic';
import { EventBus } from '../../infra/constructs/eventBus';
import { MAX_ACCOUNTS_PER_STACK, Pollers } from '../../infra/constructs/pollers';
import { PollerState } from '../../infra/constructs/state';
import { BASE_CONFIG, ofType, type Json, propsOf, roleOf, roleStatements, synth, synthConstruct } from './synth';

/** Several accounts in one stack: a schedule per account and poller, a token secret and a heartbeat alarm per account. */
const arn = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:site-c-token-AbCdEf';
const ACCOUNTS = [
	{ id: 'default', environment: 'production', baseUrl: 'https://tec.example.com' },
	{ id: 'site-b', environment: 'sandbox', baseUrl: 'https://tec-b.example.com', dueSoonDays: [14], recipients: { default: ['b@example.com'] } },
	{ id: 'site-c', environment: 'production', baseUrl: 'https://tec-c.example.com', tokenSecretArn: arn },
];
const input = { ...BASE_CONFIG, accounts: ACCOUNTS, activeHours: '6-20' };

const small = synthConstruct('AccountsPollers', (stack) => {
	const config = parseConfig(input);
	const state = new PollerState(stack, 'State', { environment: config.environment });
	const events = new EventBus(stack, 'Events');
	const pollers = new Pollers(stack, 'Pollers', { config, table: state.table, tokenSecret: state.tokenSecret, bus: events.bus });
	const alarms = new Alarms(stack, 'Alarms', { topic: new AlertsTopic(stack, 'Alerts', { environment: 'sandbox', emails: ['ops@example.com'] }).topic });
	// Runs expected in the UTC hours 5, 6 and 7 (their 5-minute periods).
	for (const a of config.accounts) alarms.accountHeartbeat(a.id, 'pollers', 5, [5, 6, 7].flatMap((h) => Array.from({ length: 12 }, (_, i) => h * 60 + i * 5)));
	return { state, pollers, alarms };
});

describe('several accounts in one stack', () => {
	it('one schedule per account and poller, whose input names the account as the pollers read it', () => {
		const schedules = ofType(small, 'AWS::Scheduler::Schedule');
		// Three every poll period and the hourly due-date history, per account.
		expect(schedules).toHaveLength(12);
		// The input is a JSON string with the secrets' ARNs resolved at deploy (Fn::Join): those read as "<token>".
		const text = (v: Json): string => (typeof v === 'string' ? v : v['Fn::Join'] ? (v['Fn::Join'][1] as Json[]).map((p) => (typeof p === 'string' ? p : '<token>')).join(v['Fn::Join'][0]) : '<token>');
		// Each input is read by the handler's own schema (lambdas/accounts.ts).
		const read = schedules.map(([, s]) => JSON.parse(text(s.Properties.Target.Input)) as unknown);
		const siteB = read.map((i) => scheduledAccount(i)).filter((a) => a?.id === 'site-b');
		expect(siteB).toHaveLength(4);
		expect(siteB[0]).toMatchObject({ environment: 'sandbox', baseUrl: 'https://tec-b.example.com', account: 'site-b', partition: 'site-b', dueSoonStages: [14] });
		// `default` keeps the single-account state and keys; an account of several still names itself in events.
		const def = read.map((i) => scheduledAccount(i)).find((a) => a?.id === 'default');
		expect(def?.partition).toBeUndefined();
		expect(def?.account).toBe('default');
		expect(read.map((i) => scheduledAccount(i)).find((a) => a?.id === 'site-c')?.tokenSecretArn).toBe(arn);
		// Spread over a quarter period; one shared role.
		for (const [, s] of schedules) expect(s.Properties.FlexibleTimeWindow).toEqual({ Mode: 'FLEXIBLE', MaximumWindowInMinutes: 1 });
		expect(schedules.filter(([, s]) => /^cron\(3 /.test(s.Properties.ScheduleExpression as string))).toHaveLength(3);
		expect(new Set(schedules.map(([, s]) => JSON.stringify(s.Properties.Target.RoleArn))).size).toBe(1);
	});

	it('a token secret per account: its own for a new one, the single-account secret for default, the given ARN', () => {
		const secrets = ofType(small, 'AWS::SecretsManager::Secret');
		// The single-account secret (kept for `default`) and site-b's own; site-c's is given.
		expect(secrets).toHaveLength(2);
		expect(secrets.map(([, s]) => s.Properties.Name)).toContain('tec-token/AccountsPollers/site-b');
		expect(small.construct.pollers.accountSecrets.default).toBe(small.construct.state.tokenSecret!);
		const fn = small.construct.pollers.functions.overdueDevices;
		const read = roleStatements(small, roleOf(small, small.id(fn))).find((s) => s.Sid === 'ReadAccessToken');
		expect(JSON.stringify(read.Resource)).toContain('tec-token/');
		expect(read.Resource).toContainEqual(arn);
		expect(read.Resource).toContainEqual({ Ref: small.id(small.construct.state.tokenSecret!) });
	});

	it('the pollers take the account from the schedule: no single account in their environment', () => {
		for (const fn of Object.values(small.construct.pollers.functions)) {
			const vars = propsOf(small, small.id(fn)).Environment.Variables;
			expect(vars.TEC_ACCOUNTS).toBe('schedule');
			expect(vars.TEC_BASE_URL).toBeUndefined();
			expect(vars.TEC_TOKEN_SECRET_ARN).toBeUndefined();
		}
	});

	it('a heartbeat alarm per account on the least running of its pollers, the only metrics with an Account dimension', () => {
		const alarms = ofType(small, 'AWS::CloudWatch::Alarm');
		expect(alarms).toHaveLength(3);
		for (const [, alarm] of alarms) {
			const metrics = alarm.Properties.Metrics as Array<{ Id: string; Expression?: string; MetricStat?: { Metric: { Dimensions: Array<{ Name: string; Value: string }> } } }>;
			const accounts = new Set(metrics.flatMap((m) => m.MetricStat?.Metric.Dimensions.filter((d) => d.Name === 'account').map((d) => d.Value) ?? []));
			expect(accounts.size).toBe(1);
			expect(metrics.filter((m) => m.MetricStat)).toHaveLength(3);
			expect(metrics.find((m) => m.Expression)?.Expression).toMatch(/^IF\(HOUR\(FILL\(p0, 0\)\) == 5 OR .*, MIN\(\[FILL\(p0, 0\), FILL\(p1, 0\), FILL\(p2, 0\)\]\), 1\)$/);
			expect(alarm.Properties.ComparisonOperator).toBe('LessThanThreshold');
			expect(alarm.Properties.TreatMissingData).toBe('breaching');
		}
	});

	it('refuses a bad accounts list at synth, naming the account and the key', () => {
		expect(() => parseConfig({ ...input, accounts: [...ACCOUNTS, { ...ACCOUNTS[1] }] })).toThrow('accounts "site-b" and "site-b": id: listed twice');
		expect(() => parseConfig({ ...input, accounts: [{ ...ACCOUNTS[1], baseUrl: 'http://127.0.0.1:8787' }, ACCOUNTS[0]] })).toThrow('accounts[0] "site-b": baseUrl: must use https');
		expect(() => parseConfig({ ...input, accounts: [ACCOUNTS[2], { ...ACCOUNTS[1], tokenSecretArn: arn }] })).toThrow('accounts "site-c" and "site-b": tokenSecretArn: the same token for two accounts');
		expect(() => parseConfig({ ...input, accounts: 'no-such-file.json' })).toThrow('accounts: "no-such-file.json" is neither a readable JSON file nor a JSON array');
		const many = Array.from({ length: MAX_ACCOUNTS_PER_STACK + 1 }, (_, i) => ({ id: `a${i}`, environment: 'sandbox', baseUrl: 'https://tec.example.com' }));
		expect(() => synthConstruct('TooMany', (stack) => {
			const config = parseConfig({ ...input, accounts: many });
			const state = new PollerState(stack, 'State', { environment: 'sandbox' });
			return new Pollers(stack, 'Pollers', { config, table: state.table, tokenSecret: state.tokenSecret, bus: new EventBus(stack, 'Events').bus });
		})).toThrow(`accounts: at most ${MAX_ACCOUNTS_PER_STACK} accounts per stack`);
	});

	it('reads the list from a file (context accounts=FILE); the single-account keys are a list of one', () => {
		const file = join(mkdtempSync(join(tmpdir(), 'tec-cdk-accounts-')), 'accounts.json');
		writeFileSync(file, JSON.stringify(ACCOUNTS));
		expect(parseConfig({ ...BASE_CONFIG, accounts: file }).accounts.map((a) => a.id)).toEqual(['default', 'site-b', 'site-c']);
		expect(parseConfig({ ...BASE_CONFIG }).accounts).toEqual([{ id: 'default', environment: 'sandbox', baseUrl: 'https://tec.example.com' }]);
	});
});

describe('the whole stack with several accounts', () => {
	// synth() registers cdk-nag's AWS Solutions and Serverless checks: an unacknowledged finding throws.
	const whole = synth({ ...BASE_CONFIG, accounts: ACCOUNTS }, 'TecAccounts');
	it('passes cdk-nag and holds per account only its schedules, secret and heartbeat alarm', () => {
		// Twelve of the pollers, the e-mail digest's and the monthly report's (one: the report goes through the accounts itself).
		expect(ofType(whole, 'AWS::Scheduler::Schedule')).toHaveLength(14);
		const heartbeats = ofType(whole, 'AWS::CloudWatch::Alarm').filter(([id]) => id.includes('Heartbeat'));
		// One per account, the hourly due-date history's, and the digest's.
		expect(heartbeats.filter(([id]) => id.includes('AccountHeartbeat'))).toHaveLength(3);
		expect(heartbeats.filter(([id]) => !id.includes('AccountHeartbeat')).map(([id]) => id)).toEqual([expect.stringContaining('DueDatesHeartbeat'), expect.stringContaining('DigestHeartbeat')]);
	});

	it("the single-account token secret for the account named default: its logical ID, its output, default's pollers read it", () => {
		expect(ofType(whole, 'AWS::SecretsManager::Secret').map(([id]) => id)).toContain('AccessToken4AAD9E79');
		expect((whole.json.Outputs as Record<string, { Value: unknown }>).TokenSecretArn.Value).toEqual({ Ref: 'AccessToken4AAD9E79' });
		const read = roleStatements(whole, roleOf(whole, whole.id(whole.stack.pollers.overdueDevices))).find((x) => x.Sid === 'ReadAccessToken');
		expect(read.Resource).toContainEqual({ Ref: 'AccessToken4AAD9E79' });
	});

	it("the due-date history's heartbeat watches each account's runs (one account's silence is not hidden by the others')", () => {
		const [[, dueDates]] = ofType(whole, 'AWS::CloudWatch::Alarm').filter(([id]) => id.includes('DueDatesHeartbeat'));
		const watched = (dueDates.Properties.Metrics as Json[]).filter((m) => m.MetricStat).map((m) => m.MetricStat.Metric.Dimensions);
		expect(watched.map((d: Json[]) => d.find((x) => x.Name === 'account')?.Value)).toEqual(['default', 'site-b', 'site-c']);
		for (const d of watched) expect(d).toEqual(expect.arrayContaining([{ Name: 'poller', Value: 'dueDates' }]));
	});

	it("the dashboard shows each account's compliance, never one account's as the deployment's", () => {
		const [[, dashboard]] = ofType(whole, 'AWS::CloudWatch::Dashboard');
		const text = JSON.stringify(dashboard.Properties.DashboardBody);
		const widgets = JSON.parse((dashboard.Properties.DashboardBody['Fn::Join'][1] as Json[]).map((p) => (typeof p === 'string' ? p : 'x')).join('')).widgets as Json[];
		const now = widgets.find((w) => w.properties.title === 'Calibration now').properties.metrics as Json[][];
		expect(now.map((m) => m.slice(2).join(' '))).toEqual(
			['default', 'site-b', 'site-c', 'default', 'site-b', 'site-c'].map((a) => expect.stringContaining(`account ${a}`)),
		);
		expect(text).toContain('site-c: On time last month (%)');
	});

	it('the Schema Registry says events carry the account', () => {
		const schemas = ofType(whole, 'AWS::EventSchemas::Schema');
		// One schema per event of the contract, each of them carrying the account.
		expect(schemas.length).toBe(Object.keys(DETAIL_TYPES).length);
		for (const [, schema] of schemas) expect(JSON.stringify(JSON.parse(schema.Properties.Content as string))).toContain('"account":{"description":"The Test Equipment Cloud account');
	});

	it("takes the stack's environment from the accounts (cdk.json's \"sandbox\" does not name or unprotect production): the table's deletion protection, the topic's and dashboard's names", () => {
		expect(whole.config.environment).toBe('production');
		expect(propsOf(whole, whole.id(whole.stack.table)).DeletionProtectionEnabled).toBe(true);
		expect(propsOf(whole, whole.id(whole.stack.topic)).DisplayName).toBe('Test Equipment Cloud (production)');
		expect(ofType(whole, 'AWS::CloudWatch::Dashboard').map(([, d]) => d.Properties.DashboardName)).toEqual(['TecAccounts-production-compliance']);
		expect(parseConfig({ ...BASE_CONFIG, environment: 'production', accounts: [ACCOUNTS[1], { ...ACCOUNTS[1], id: 'site-d', baseUrl: 'https://tec-d.example.com' }] }).environment).toBe('sandbox');
	});

	it("the e-mail functions get each account's routing (its own recipients, else the deployment's)", () => {
		for (const fn of [whole.stack.email.collector, whole.stack.email.digest, whole.stack.email.report]) {
			const routing = JSON.parse(propsOf(whole, whole.id(fn)).Environment.Variables.ACCOUNTS_ROUTING as string) as Array<{ account: string; recipients?: { default: string[] } }>;
			expect(routing.map((r) => [r.account, r.recipients?.default])).toEqual([['default', undefined], ['site-b', ['b@example.com']], ['site-c', undefined]]);
			// Each account's environment where it is not the stack's (production): where its pollers keep its state, which the digest and the report read.
			expect(propsOf(whole, whole.id(fn)).Environment.Variables.TEC_ENVIRONMENT).toBe('production');
			expect(routing.map((r) => (r as { environment?: string }).environment)).toEqual([undefined, 'sandbox', undefined]);
		}
	});
});

describe('several accounts, none named default: no single-account token secret', () => {
	const withoutDefault = synth({ ...BASE_CONFIG, accounts: ACCOUNTS.slice(1) }, 'TecAccountsNoDefault');
	it('neither the secret nor its output TokenSecretArn (a token put there would be read by nothing), only the accounts\' own', () => {
		expect(ofType(withoutDefault, 'AWS::SecretsManager::Secret').map(([, x]) => x.Properties.Name)).toEqual(['tec-token/TecAccountsNoDefault/site-b']);
		expect(Object.keys(withoutDefault.json.Outputs as object)).not.toContain('TokenSecretArn');
		expect(withoutDefault.stack.tokenSecret).toBeUndefined();
	});
});

describe('the most accounts one stack holds', () => {
	it(`${MAX_ACCOUNTS_PER_STACK} accounts with customer notices and the n8n webhook stay within CloudFormation's 500 resources`, () => {
		const accounts = Array.from({ length: MAX_ACCOUNTS_PER_STACK }, (_, i) => ({ id: `site-${i}`, environment: 'production', baseUrl: `https://tec-${i}.example.com` }));
		const most = synth({ ...BASE_CONFIG, accounts, customerNotices: JSON.stringify({ enabled: true }), n8nWebhookUrl: 'https://n8n.example.com/webhook/tec' }, 'TecMostAccounts');
		expect(Object.keys(most.json.Resources as object).length).toBeLessThanOrEqual(500);
	}, 300_000);
});
