import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../infra/config';
import { EventBus } from '../../infra/constructs/eventBus';
import { Pollers } from '../../infra/constructs/pollers';
import { PollerState } from '../../infra/constructs/state';
import { DEFAULT_SETTINGS } from '../../lambdas/pollers/context';
import { BASE_CONFIG, XRAY, getAtt, ofType, propsOf, ref, roleOf, roleStatements, synthConstruct } from './synth';

/** The pollers with what they rest on (state, bus), and nothing else of the stack. */
function pollersOnly(stackId: string, input: Record<string, unknown>) {
	return synthConstruct(stackId, (stack) => {
		const config = parseConfig(input);
		const state = new PollerState(stack, 'State', { environment: config.environment });
		const events = new EventBus(stack, 'Events');
		return { state, events, pollers: new Pollers(stack, 'Pollers', { config, table: state.table, tokenSecret: state.tokenSecret, bus: events.bus }) };
	});
}
const basic = pollersOnly('PollersOnly', { ...BASE_CONFIG });
const custom = pollersOnly('PollersCustom', {
	...BASE_CONFIG,
	environment: 'production',
	timeZone: 'Europe/Berlin',
	activeHours: '6-20',
	scheduleRateMinutes: '10',
	reminderDays: '3',
	lookbackDays: '14',
	dueSoonDays: '60, 14',
	nearLimitThreshold: '0.9',
	backfillShare: '0',
});
const fns = basic.construct.pollers.functions;

describe('the pollers', () => {
	it('a throttled or delayed tick is dropped once its poll interval has passed (the next tick is the retry), never run hours late', () => {
		const configs = (s: typeof basic) => ofType(s, 'AWS::Lambda::EventInvokeConfig').map(([, c]) => c.Properties);
		for (const [s, rate] of [[basic, 5], [custom, 10]] as const) {
			const byFunction = new Map(configs(s).map((c) => [c.FunctionName.Ref as string, c]));
			const f = s.construct.pollers.functions;
			for (const fn of [f.overdueDevices, f.testResults, f.dueSoon]) expect(byFunction.get(s.id(fn))).toMatchObject({ MaximumEventAgeInSeconds: rate * 60, MaximumRetryAttempts: 0 });
			expect(byFunction.get(s.id(f.dueDates))).toMatchObject({ MaximumEventAgeInSeconds: 3600, MaximumRetryAttempts: 0 });
		}
	});

	it('have a 5 minute timeout, 512 MB and their configuration', () => {
		const tableId = basic.id(basic.construct.state.table);
		const secretId = basic.id(basic.construct.state.tokenSecret!);
		const busId = basic.id(basic.construct.events.bus);
		for (const fn of Object.values(fns)) {
			const p = propsOf(basic, basic.id(fn));
			expect(p.Timeout).toBe(300);
			expect(p.MemorySize).toBe(512);
			expect(p.Environment.Variables).toEqual({
				NODE_OPTIONS: '--enable-source-maps',
				POWERTOOLS_SERVICE_NAME: 'pollers',
				TEC_BASE_URL: 'https://tec.example.com',
				TEC_ENVIRONMENT: 'sandbox',
				TEC_TOKEN_SECRET_ARN: ref(secretId),
				STATE_TABLE: ref(tableId),
				EVENT_BUS_NAME: ref(busId),
				REMINDER_DAYS: '7',
				LOOKBACK_DAYS: '7',
				SAFETY_MS: '60000',
				ACCOUNT_LEASE_WAIT_MS: '120000',
				// The measured values' settings, in the one function that reads them (its near-limit events and backfill), at their defaults.
				...(fn === fns.testResults ? { NEAR_LIMIT_THRESHOLD: '0.8', BACKFILL_SHARE: '0.5' } : {}),
			});
			// The poller stops before a page with less than SAFETY_MS left: well inside the timeout,
			// and more than its default (a page, its events and its state writes fit in it).
			const safety = Number(p.Environment.Variables.SAFETY_MS);
			expect(safety).toBeLessThanOrEqual((p.Timeout * 1000) / 4);
			expect(safety).toBeGreaterThanOrEqual(DEFAULT_SETTINGS.safetyMs);
		}
		expect(propsOf(custom, custom.id(custom.construct.pollers.functions.overdueDevices)).Environment.Variables).toMatchObject({
			TEC_ENVIRONMENT: 'production',
			REMINDER_DAYS: '3',
			LOOKBACK_DAYS: '14',
		});
	});

	it('nearLimitThreshold and backfillShare reach the test-results poller’s NEAR_LIMIT_THRESHOLD and BACKFILL_SHARE (0 = no backfill), and no other function', () => {
		const f = custom.construct.pollers.functions;
		expect(propsOf(custom, custom.id(f.testResults)).Environment.Variables).toMatchObject({ NEAR_LIMIT_THRESHOLD: '0.9', BACKFILL_SHARE: '0' });
		for (const fn of [f.overdueDevices, f.dueSoon, f.dueDates]) {
			const env = propsOf(custom, custom.id(fn)).Environment.Variables;
			expect(env.NEAR_LIMIT_THRESHOLD).toBeUndefined();
			expect(env.BACKFILL_SHARE).toBeUndefined();
		}
	});

	it('the due-soon poller gets the configured lead stages; without them the pollers keep their default', () => {
		expect(propsOf(custom, custom.id(custom.construct.pollers.functions.dueSoon)).Environment.Variables.DUE_SOON_DAYS).toBe('60,14');
		expect(propsOf(basic, basic.id(fns.dueSoon)).Environment.Variables.DUE_SOON_DAYS).toBeUndefined();
		expect(parseConfig({ ...BASE_CONFIG }).dueSoonDays).toBeUndefined();
		expect(parseConfig({ ...BASE_CONFIG, dueSoonDays: [30, 7] }).dueSoonDays).toBe('30,7');
		expect(() => parseConfig({ ...BASE_CONFIG, dueSoonDays: 'soon' })).toThrow(/dueSoonDays must be whole days separated by commas, like 30,7/);
	});

	it('may use items of the state table, PutEvents on the bus, the token secret and their own logs; nothing else', () => {
		const tableId = basic.id(basic.construct.state.table);
		const busId = basic.id(basic.construct.events.bus);
		const secretId = basic.id(basic.construct.state.tokenSecret!);
		for (const fn of Object.values(fns)) {
			const fnId = basic.id(fn);
			const logGroupId = propsOf(basic, fnId).LoggingConfig.LogGroup.Ref as string;
			// In any order (CDK adds X-Ray's when the function gets its tracing).
			const statements = roleStatements(basic, roleOf(basic, fnId));
			// The due-date history publishes nothing; its partitions of the table: test/infra/leastPrivilege.test.ts.
			const publishes = fn !== fns.dueDates;
			expect(statements).toHaveLength(publishes ? 7 : 6);
			expect(statements).toEqual(
				expect.arrayContaining([
					XRAY,
					{ Sid: 'WriteOwnLogs', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Effect: 'Allow', Resource: getAtt(logGroupId) },
					...['StateRead', 'StateWrite', 'StateLeases'].map((Sid) => expect.objectContaining({ Sid, Effect: 'Allow', Resource: getAtt(tableId) })),
					...(publishes ? [{ Sid: 'PublishEvents', Action: 'events:PutEvents', Effect: 'Allow', Resource: getAtt(busId) }] : []),
					{ Sid: 'ReadAccessToken', Action: 'secretsmanager:GetSecretValue', Effect: 'Allow', Resource: ref(secretId) },
				]),
			);
		}
	});

	it("one account's pollers never run at once: every poller takes the account's lease in the one state table, and may wait for it within its timeout", () => {
		const tableId = basic.id(basic.construct.state.table);
		const timeouts = new Set<number>();
		for (const fn of Object.values(fns)) {
			const p = propsOf(basic, basic.id(fn));
			const env = p.Environment.Variables;
			// The same table for all four: the lease is one item there (pk "lease", sk "account:<scope>").
			expect(env.STATE_TABLE).toEqual(ref(tableId));
			const wait = Number(env.ACCOUNT_LEASE_WAIT_MS);
			// A run that waits the longest still has two safety margins and a minute to work in.
			expect(wait).toBeGreaterThan(0);
			expect(wait + 2 * Number(env.SAFETY_MS) + 60_000).toBeLessThanOrEqual(p.Timeout * 1000);
			timeouts.add(p.Timeout);
			// Taking and giving back the lease: a conditional PutItem and a conditional DeleteItem on the table.
			const items = roleStatements(basic, roleOf(basic, basic.id(fn))).find((st) => st.Sid === 'StateLeases');
			expect(items.Resource).toEqual(getAtt(tableId));
			expect(items.Action).toEqual(expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:DeleteItem']));
			expect(items.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['lease'] } });
		}
		// The lease outlives no invocation by long (the handler sets it to the time left + 30 s), so a
		// crashed run holds the account up one timeout at most: the same timeout everywhere.
		expect(timeouts.size).toBe(1);
		// Several accounts: each account's schedules carry its own id (its own lease), so accounts never wait for each other.
		const several = pollersOnly('PollersSeveral', { ...BASE_CONFIG, accounts: [{ id: 'a', environment: 'sandbox', baseUrl: 'https://tec.example.com' }, { id: 'b', environment: 'sandbox', baseUrl: 'https://tec-b.example.com' }] });
		const inputs = ofType(several, 'AWS::Scheduler::Schedule').map(([, x]) => / of account (\w+) /.exec(x.Properties.Description as string)?.[1]);
		expect(new Set(inputs)).toEqual(new Set(['a', 'b']));
		expect(inputs.filter((id) => id === 'a')).toHaveLength(4);
		// A second synth in the test, which bundles the pollers again.
	}, 180_000);

	it('the state store uses only the DynamoDB actions granted', () => {
		const code = readFileSync(join(__dirname, '../../lambdas/adapters/dynamoStateStore.ts'), 'utf8');
		const commands = new Set([...code.matchAll(/new (\w+)Command\(/g)].map((m) => m[1]));
		const action: Record<string, string> = { Query: 'dynamodb:Query', Get: 'dynamodb:GetItem', Put: 'dynamodb:PutItem', BatchWrite: 'dynamodb:BatchWriteItem', Delete: 'dynamodb:DeleteItem' };
		const granted = roleStatements(basic, roleOf(basic, basic.id(fns.overdueDevices)))
			.filter((st) => String(st.Sid).startsWith('State'))
			.flatMap((st) => (Array.isArray(st.Action) ? st.Action : [st.Action]) as string[]);
		for (const c of commands) {
			expect(action[c], `DynamoDB command ${c} has no grant`).toBeDefined();
			expect(granted).toContain(action[c]);
		}
	});
});

describe('the schedules (EventBridge Scheduler, not scheduled rules)', () => {
	it('invoke each poller every 5 minutes in the time zone, offset from each other, with a DLQ', () => {
		const dlqId = basic.id(basic.construct.pollers.schedulerDlq);
		const expected = [
			[fns.overdueDevices, 'cron(0/5 * * * ? *)'],
			[fns.testResults, 'cron(2/5 * * * ? *)'],
			[fns.dueSoon, 'cron(1/5 * * * ? *)'],
			// Every device read once an hour: the due-date history.
			[fns.dueDates, 'cron(3 * * * ? *)'],
		] as const;
		for (const [fn, expression] of expected) {
			basic.template.hasResourceProperties('AWS::Scheduler::Schedule', {
				ScheduleExpression: expression,
				ScheduleExpressionTimezone: 'UTC',
				State: 'ENABLED',
				FlexibleTimeWindow: { Mode: 'OFF' },
				Target: {
					Arn: getAtt(basic.id(fn)),
					DeadLetterConfig: { Arn: getAtt(dlqId) },
					RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 300 },
					RoleArn: Match.anyValue(),
				},
			});
		}
		basic.template.resourceCountIs('AWS::Scheduler::Schedule', 4);
		basic.template.resourceCountIs('AWS::Events::Rule', 0);
	});

	it('follow the configured rate, time zone and hours', () => {
		const exprs = ofType(custom, 'AWS::Scheduler::Schedule').map(([, x]) => [x.Properties.ScheduleExpression, x.Properties.ScheduleExpressionTimezone, x.Properties.Target.RetryPolicy.MaximumEventAgeInSeconds]);
		expect(exprs.sort()).toEqual([
			['cron(0/10 6-20 * * ? *)', 'Europe/Berlin', 600],
			['cron(2/10 6-20 * * ? *)', 'Europe/Berlin', 600],
			['cron(5/10 6-20 * * ? *)', 'Europe/Berlin', 600],
			['cron(7 6-20 * * ? *)', 'Europe/Berlin', 600],
		]);
	});

	it('each use a role that may invoke only its poller and write only to the scheduler DLQ', () => {
		const dlqId = basic.id(basic.construct.pollers.schedulerDlq);
		for (const [, schedule] of ofType(basic, 'AWS::Scheduler::Schedule')) {
			const roleId = schedule.Properties.Target.RoleArn['Fn::GetAtt'][0] as string;
			const fnId = schedule.Properties.Target.Arn['Fn::GetAtt'][0] as string;
			expect(propsOf(basic, roleId).AssumeRolePolicyDocument.Statement).toEqual([
				{
					Action: 'sts:AssumeRole',
					Effect: 'Allow',
					Principal: { Service: 'scheduler.amazonaws.com' },
					Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
				},
			]);
			expect(roleStatements(basic, roleId)).toEqual([
				{ Action: 'lambda:InvokeFunction', Effect: 'Allow', Resource: [getAtt(fnId), { 'Fn::Join': ['', [getAtt(fnId), ':*']] }] },
				{ Action: 'sqs:SendMessage', Effect: 'Allow', Resource: getAtt(dlqId) },
			]);
		}
	});
});
