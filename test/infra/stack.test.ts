import { readFileSync, readdirSync, statSync } from 'node:fs';
import Module, { builtinModules, createRequire } from 'node:module';
import { join } from 'node:path';
import { Stage } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../lambdas/pollers/context';
import { WEBHOOK_HEADER } from '../../infra/stack';
import { BASE_CONFIG, getAtt, ref, synth, type Synth } from './synth';

// Two variants, each synthesised once (with cdk-nag: a finding would throw here).
const basic = synth({ ...BASE_CONFIG });
const WEBHOOK = 'https://n8n.example.com/webhook/test-equipment-cloud';
const full = synth(
	{
		...BASE_CONFIG,
		environment: 'production',
		n8nWebhookUrl: WEBHOOK,
		timeZone: 'Europe/Berlin',
		activeHours: '6-20',
		scheduleRateMinutes: '10',
		reminderDays: '3',
		lookbackDays: '14',
	},
	'TestEquipmentCloudAlertsFull',
);

/** CloudFormation JSON: dynamically typed, as JSON.parse returns it. */
type Json = ReturnType<typeof JSON.parse>;
type Resources = Record<string, { Type: string; Properties: Record<string, Json> }>;
const resources = (s: Synth) => s.json.Resources as Resources;
const ofType = (s: Synth, type: string) => Object.entries(resources(s)).filter(([, r]) => r.Type === type);
const props = (s: Synth, logicalId: string) => resources(s)[logicalId].Properties;
/** The statements of the identity policy attached to a role. */
function roleStatements(s: Synth, roleLogicalId: string): Json[] {
	return ofType(s, 'AWS::IAM::Policy')
		.filter(([, p]) => p.Properties.Roles.some((r: Json) => r.Ref === roleLogicalId))
		.flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
}
const roleOf = (s: Synth, fnLogicalId: string) => props(s, fnLogicalId).Role['Fn::GetAtt'][0] as string;
const NODE_BUILTINS = new Set(builtinModules);
// Actions sorted: the recommended flag @aws-cdk/aws-iam:minimizePolicies sorts them.
const XRAY = { Action: ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'], Effect: 'Allow', Resource: '*' };

/** Runs `load` with the repository's node_modules on NODE_PATH, as the Lambda runtime has its SDK. */
function withRuntimeNodePath<T>(load: () => T): T {
	const before = process.env.NODE_PATH;
	process.env.NODE_PATH = join(__dirname, '../../node_modules');
	(Module as unknown as { _initPaths(): void })._initPaths();
	try {
		return load();
	} finally {
		if (before === undefined) delete process.env.NODE_PATH;
		else process.env.NODE_PATH = before;
		(Module as unknown as { _initPaths(): void })._initPaths();
	}
}
const asList = (v: unknown) => (Array.isArray(v) ? v : [v]);

/**
 * A run of characters that looks generated (a token, a key) rather than named: split into
 * CamelCase words and digit runs, a generated string gives tiny pieces (hex or base62: 1-2
 * characters on average), CDK names (words plus an 8-character hash) long ones.
 */
function looksRandom(run: string): boolean {
	const core = run.replace(/[0-9A-F]{8}$/, '');
	if (core.length < 20) return false;
	const words = core.match(/[A-Z][a-z]+|[a-z]+|[A-Z]+(?![a-z])|\d+/g) ?? [];
	return core.length / Math.max(1, words.length) < 2.5;
}

describe('environment-agnostic', () => {
	it('bakes in no account, region or lookup', () => {
		const text = JSON.stringify(basic.json);
		expect(text).not.toMatch(/\b\d{12}\b/);
		expect(text).not.toMatch(/\b(us|eu|ap|sa|ca|me|af|il|mx)-(east|west|north|south|central|northeast|southeast)-\d\b/);
		expect(basic.stack.account).toMatch(/^\$\{Token/);
		expect(basic.stack.region).toMatch(/^\$\{Token/);
		// No context lookups were recorded (they would need credentials at synth time).
		expect(basic.stack.node.metadata.filter((m) => m.type === 'aws:cdk:missing-context')).toEqual([]);
	});
});

describe('event bus and archive', () => {
	it('creates one custom bus with an archive of the test-equipment-cloud source', () => {
		basic.template.resourceCountIs('AWS::Events::EventBus', 1);
		const busId = basic.id(basic.stack.bus);
		basic.template.hasResourceProperties('AWS::Events::Archive', {
			SourceArn: getAtt(busId),
			EventPattern: { source: ['test-equipment-cloud'] },
			RetentionDays: 90,
		});
		basic.template.resourceCountIs('AWS::Events::Archive', 1);
	});
});

describe('the pollers', () => {
	const pollers = () => Object.values(basic.stack.pollers).map((f) => basic.id(f));

	it('run on the current Node.js runtime on arm64 with a 5 minute timeout and their config', () => {
		const tableId = basic.id(basic.stack.table);
		const secretId = basic.id(basic.stack.tokenSecret);
		const busId = basic.id(basic.stack.bus);
		for (const fnId of pollers()) {
			const p = props(basic, fnId);
			expect(p.Runtime).toBe('nodejs24.x');
			expect(p.Architectures).toEqual(['arm64']);
			expect(p.Timeout).toBe(300);
			expect(p.MemorySize).toBe(512);
			expect(p.Handler).toBe('index.handler');
			expect(p.TracingConfig).toEqual({ Mode: 'Active' });
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
			});
			// The poller stops before a page with less than SAFETY_MS left: well inside the timeout,
			// and more than its default (a page, its events and its state writes fit in it).
			const safety = Number(p.Environment.Variables.SAFETY_MS);
			expect(safety).toBeLessThanOrEqual((p.Timeout * 1000) / 4);
			expect(safety).toBeGreaterThanOrEqual(DEFAULT_SETTINGS.safetyMs);
		}
		expect(props(full, full.id(full.stack.pollers.overdueDevices)).Environment.Variables).toMatchObject({
			TEC_ENVIRONMENT: 'production',
			REMINDER_DAYS: '3',
			LOOKBACK_DAYS: '14',
		});
	});

	it('have their own log groups with a retention', () => {
		for (const fnId of [...pollers(), basic.id(basic.stack.email.collector), basic.id(basic.stack.email.digest)]) {
			const logGroupId = props(basic, fnId).LoggingConfig.LogGroup.Ref as string;
			expect(resources(basic)[logGroupId].Type).toBe('AWS::Logs::LogGroup');
			expect(props(basic, logGroupId).RetentionInDays).toBe(30);
		}
		basic.template.resourceCountIs('AWS::Logs::LogGroup', 5);
	});

	it('have async retries off (the next tick is the retry)', () => {
		for (const fnId of pollers()) {
			basic.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { FunctionName: ref(fnId), Qualifier: '$LATEST', MaximumRetryAttempts: 0 });
		}
	});

	it('are bundled with esbuild: one minified file each (at most 600 KiB), source maps without sources, loadable', () => {
		const outdir = Stage.of(basic.stack)!.outdir;
		const assets = readdirSync(outdir).filter((d) => d.startsWith('asset.') && statSync(join(outdir, d)).isDirectory());
		expect(assets).toHaveLength(5);
		for (const dir of assets) {
			const files = readdirSync(join(outdir, dir)).sort();
			expect(files).toEqual(['index.js', 'index.js.map']);
			const code = readFileSync(join(outdir, dir, 'index.js'), 'utf8');
			expect(code.length / code.split('\n').length).toBeGreaterThan(2000); // minified: long lines
			expect(Buffer.byteLength(code)).toBeLessThanOrEqual(600 * 1024);
			expect(code).toMatch(/sourceMappingURL=index\.js\.map/);
			const map = JSON.parse(readFileSync(join(outdir, dir, 'index.js.map'), 'utf8')) as { sources: string[]; sourcesContent?: unknown[] };
			expect(map.sources.some((s) => s.includes('lambdas/handlers/'))).toBe(true);
			expect((map.sourcesContent ?? []).filter((c) => c !== null)).toEqual([]);
			// Everything is in the bundle but the AWS SDK v3, which the Lambda runtime provides on its
			// NODE_PATH (/var/runtime/node_modules); here the repository's node_modules stands in for it.
			const required = new Set([...code.matchAll(/require\("(@[^"]+|[a-z][^"]*)"\)/g)].map((m) => m[1]).filter((m) => !m.startsWith('node:')));
			expect([...required].filter((m) => !NODE_BUILTINS.has(m) && !/^@(aws-sdk|smithy)\//.test(m))).toEqual([]);
			const mod = withRuntimeNodePath(() => createRequire(__filename)(join(outdir, dir, 'index.js'))) as { handler?: unknown };
			expect(typeof mod.handler).toBe('function');
		}
	});
});

describe('the schedules (EventBridge Scheduler, not scheduled rules)', () => {
	it('invoke each poller every 5 minutes in the time zone, offset from each other, with a DLQ', () => {
		const dlqId = basic.id(basic.stack.schedulerDlq);
		const expected = [
			[basic.stack.pollers.overdueDevices, 'cron(0/5 * * * ? *)'],
			[basic.stack.pollers.testResults, 'cron(2/5 * * * ? *)'],
			[basic.stack.pollers.dueSoon, 'cron(1/5 * * * ? *)'],
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
		// Plus the daily e-mail digest (test/infra/emailAlerts.test.ts).
		basic.template.resourceCountIs('AWS::Scheduler::Schedule', 4);
		// No legacy scheduled rules.
		for (const [, rule] of ofType(basic, 'AWS::Events::Rule')) expect(rule.Properties.ScheduleExpression).toBeUndefined();
	});

	it('follow the configured rate, time zone and hours', () => {
		const exprs = ofType(full, 'AWS::Scheduler::Schedule').map(([, s]) => [s.Properties.ScheduleExpression, s.Properties.ScheduleExpressionTimezone, s.Properties.Target.RetryPolicy.MaximumEventAgeInSeconds]);
		expect(exprs.sort()).toEqual([
			['cron(0 7 * * ? *)', 'Europe/Berlin', 7200],
			['cron(0/10 6-20 * * ? *)', 'Europe/Berlin', 600],
			['cron(2/10 6-20 * * ? *)', 'Europe/Berlin', 600],
			['cron(5/10 6-20 * * ? *)', 'Europe/Berlin', 600],
		]);
	});

	it('each use a role that may invoke only its poller and write only to the scheduler DLQ', () => {
		const dlqId = basic.id(basic.stack.schedulerDlq);
		for (const [, schedule] of ofType(basic, 'AWS::Scheduler::Schedule')) {
			const roleId = schedule.Properties.Target.RoleArn['Fn::GetAtt'][0] as string;
			const fnId = schedule.Properties.Target.Arn['Fn::GetAtt'][0] as string;
			expect(props(basic, roleId).AssumeRolePolicyDocument.Statement).toEqual([
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

describe('the dead-letter queues', () => {
	it('are encrypted, refuse plain HTTP and keep messages 14 days', () => {
		basic.template.resourceCountIs('AWS::SQS::Queue', 3);
		full.template.resourceCountIs('AWS::SQS::Queue', 4);
		for (const [queueId, queue] of ofType(full, 'AWS::SQS::Queue')) {
			expect(queue.Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 86400 });
			full.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
				Queues: [ref(queueId)],
				PolicyDocument: {
					Statement: Match.arrayWith([
						{ Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } }, Effect: 'Deny', Principal: { AWS: '*' }, Resource: getAtt(queueId) },
					]),
				},
			});
		}
	});
});

describe('the state table', () => {
	it('is on-demand with pk/sk, TTL on expiresAt, point-in-time recovery and encryption', () => {
		basic.template.resourceCountIs('AWS::DynamoDB::Table', 1);
		basic.template.hasResource('AWS::DynamoDB::Table', {
			DeletionPolicy: 'Retain',
			Properties: {
				KeySchema: [
					{ AttributeName: 'pk', KeyType: 'HASH' },
					{ AttributeName: 'sk', KeyType: 'RANGE' },
				],
				AttributeDefinitions: [
					{ AttributeName: 'pk', AttributeType: 'S' },
					{ AttributeName: 'sk', AttributeType: 'S' },
				],
				BillingMode: 'PAY_PER_REQUEST',
				TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
				PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
				SSESpecification: { SSEEnabled: true },
				DeletionProtectionEnabled: false,
			},
		});
		full.template.hasResourceProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: true });
	});
});

describe('least privilege', () => {
	it('pollers: items of the state table, PutEvents on the bus, the token secret, their own logs; nothing else', () => {
		const tableId = basic.id(basic.stack.table);
		const busId = basic.id(basic.stack.bus);
		const secretId = basic.id(basic.stack.tokenSecret);
		for (const fn of Object.values(basic.stack.pollers)) {
			const fnId = basic.id(fn);
			const logGroupId = props(basic, fnId).LoggingConfig.LogGroup.Ref as string;
			// In any order (CDK adds X-Ray's when the function gets its tracing).
			const statements = roleStatements(basic, roleOf(basic, fnId));
			expect(statements).toHaveLength(5);
			expect(statements).toEqual(expect.arrayContaining([
				XRAY,
				{ Sid: 'WriteOwnLogs', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Effect: 'Allow', Resource: getAtt(logGroupId) },
				{
					Sid: 'StateTableItems',
					Action: ['dynamodb:BatchWriteItem', 'dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query'],
					Effect: 'Allow',
					Resource: getAtt(tableId),
				},
				{ Sid: 'PublishEvents', Action: 'events:PutEvents', Effect: 'Allow', Resource: getAtt(busId) },
				{ Sid: 'ReadAccessToken', Action: 'secretsmanager:GetSecretValue', Effect: 'Allow', Resource: ref(secretId) },
			]));
		}
	});

	it('the state store uses only the DynamoDB actions granted', () => {
		const code = readFileSync(join(__dirname, '../../lambdas/adapters/dynamoStateStore.ts'), 'utf8');
		const commands = new Set([...code.matchAll(/new (\w+)Command\(/g)].map((m) => m[1]));
		const action: Record<string, string> = { Query: 'dynamodb:Query', Get: 'dynamodb:GetItem', Put: 'dynamodb:PutItem', BatchWrite: 'dynamodb:BatchWriteItem', Delete: 'dynamodb:DeleteItem' };
		const granted = roleStatements(basic, roleOf(basic, basic.id(basic.stack.pollers.overdueDevices))).find((s) => s.Sid === 'StateTableItems').Action as string[];
		for (const c of commands) {
			expect(action[c], `DynamoDB command ${c} has no grant`).toBeDefined();
			expect(granted).toContain(action[c]);
		}
	});


	it('no identity policy has a wildcard action or resource (but X-Ray\'s, which has no resources), and no role has a managed policy', () => {
		for (const s of [basic, full]) {
			for (const [, policy] of ofType(s, 'AWS::IAM::Policy')) {
				for (const st of policy.Properties.PolicyDocument.Statement) {
					for (const a of asList(st.Action)) {
						expect(a).not.toBe('*');
						expect(a).not.toMatch(/:\*$/);
						if (a.includes('*')) expect(a).toBe('kms:GenerateDataKey*');
					}
					if (JSON.stringify(st) !== JSON.stringify(XRAY)) for (const r of asList(st.Resource)) expect(r).not.toBe('*');
					expect(st.Effect).toBe('Allow');
				}
			}
			for (const [, role] of ofType(s, 'AWS::IAM::Role')) {
				expect(role.Properties.ManagedPolicyArns).toBeUndefined();
				expect(role.Properties.Policies).toBeUndefined();
			}
		}
	});
});

describe('the access token secret', () => {
	it('is created without a value in the template: "token" empty until put-secret-value', () => {
		const secretId = basic.id(basic.stack.tokenSecret);
		const p = props(basic, secretId);
		expect(p.SecretString).toBeUndefined();
		expect(JSON.parse(p.GenerateSecretString.SecretStringTemplate)).toEqual({ token: '' });
		expect(p.GenerateSecretString.GenerateStringKey).not.toBe('token');
	});

	it('no template holds a secret value or anything token-like', () => {
		for (const s of [basic, full]) {
			const text = JSON.stringify(s.json);
			expect(text).not.toMatch(/"SecretString"/);
			expect(text).not.toMatch(/SecretBinary/);
			// The webhook key reaches the connection only as a dynamic reference, resolved by CloudFormation.
			const connections = ofType(s, 'AWS::Events::Connection');
			for (const [, c] of connections) {
				expect(JSON.stringify(c.Properties.AuthParameters.ApiKeyAuthParameters.ApiKeyValue)).toMatch(/^\{"Fn::Join":\["",\["\{\{resolve:secretsmanager:",\{"Ref":"N8nWebhookKey[0-9A-F]+"\},":SecretString:apiKeyValue::\}\}"\]\]\}$/);
			}
			// Long random-looking strings: only the asset file names (content hashes) may be there.
			const strings: string[] = [];
			const walk = (v: unknown, key = ''): void => {
				if (typeof v === 'string') {
					if (key !== 'S3Key') strings.push(v);
				} else if (Array.isArray(v)) v.forEach((x) => walk(x, key));
				else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
			};
			walk(s.json);
			for (const str of strings) {
				expect(str, 'hex token').not.toMatch(/[0-9a-f]{32,}/i);
				for (const run of str.match(/[A-Za-z0-9+/_=-]{20,}/g) ?? []) expect(looksRandom(run), `token-like string "${run}"`).toBe(false);
			}
		}
	});
});

describe('the alarms topic', () => {


	it('the topic is encrypted with a rotating KMS key, refuses plain HTTP and has the e-mail subscriptions', () => {
		const topicId = basic.id(basic.stack.topic);
		const keyId = props(basic, topicId).KmsMasterKeyId['Fn::GetAtt'][0] as string;
		expect(resources(basic)[keyId].Type).toBe('AWS::KMS::Key');
		expect(props(basic, keyId).EnableKeyRotation).toBe(true);
		// CloudWatch alarms can use the key and publish to the topic.
		expect(props(basic, keyId).KeyPolicy.Statement).toContainEqual({
			Sid: 'AllowCloudWatchAlarmsToUseTheKey',
			Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
			Effect: 'Allow',
			Principal: { Service: 'cloudwatch.amazonaws.com' },
			Resource: '*',
		});
		basic.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
			Topics: [ref(topicId)],
			PolicyDocument: {
				Statement: [
					{ Sid: 'AllowPublishThroughSSLOnly', Action: 'sns:Publish', Effect: 'Deny', Principal: '*', Resource: ref(topicId), Condition: { Bool: { 'aws:SecureTransport': 'false' } } },
					{
						Sid: 'AllowCloudWatchAlarmsOfThisAccount',
						Action: 'sns:Publish',
						Effect: 'Allow',
						Principal: { Service: 'cloudwatch.amazonaws.com' },
						Resource: ref(topicId),
						Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
					},
				],
			},
		});
		const subs = ofType(basic, 'AWS::SNS::Subscription').map(([, s]) => s.Properties);
		const redrive = { deadLetterTargetArn: getAtt(basic.id(basic.stack.alertDeliveryDlq)) };
		expect(subs).toEqual([
			{ Protocol: 'email', Endpoint: 'ops@example.com', TopicArn: ref(topicId), RedrivePolicy: redrive },
			{ Protocol: 'email', Endpoint: 'lab-lead@example.com', TopicArn: ref(topicId), RedrivePolicy: redrive },
		]);
	});
});

describe('the n8n webhook', () => {
	it('is absent without a webhook URL', () => {
		for (const type of ['AWS::Events::Connection', 'AWS::Events::ApiDestination']) basic.template.resourceCountIs(type, 0);
		basic.template.resourceCountIs('AWS::SecretsManager::Secret', 1);
	});

	it('sends Device Overdue and Test Result Recorded to the API destination, with a DLQ and bounded retries', () => {
		full.template.resourceCountIs('AWS::Events::Connection', 1);
		const [connectionId, connection] = ofType(full, 'AWS::Events::Connection')[0];
		expect(connection.Properties.AuthorizationType).toBe('API_KEY');
		expect(connection.Properties.AuthParameters.ApiKeyAuthParameters.ApiKeyName).toBe(WEBHOOK_HEADER);
		const [destinationId] = ofType(full, 'AWS::Events::ApiDestination')[0];
		full.template.hasResourceProperties('AWS::Events::ApiDestination', {
			ConnectionArn: getAtt(connectionId),
			InvocationEndpoint: WEBHOOK,
			HttpMethod: 'POST',
			InvocationRateLimitPerSecond: 10,
		});
		const webhookDlqId = full.id(full.stack.webhookDlq!);
		full.template.hasResourceProperties('AWS::Events::Rule', {
			EventBusName: ref(full.id(full.stack.bus)),
			EventPattern: { source: ['test-equipment-cloud'], 'detail-type': ['Device Overdue', 'Test Result Recorded'] },
			Targets: [
				{
					Arn: getAtt(destinationId),
					Id: 'Target0',
					DeadLetterConfig: { Arn: getAtt(webhookDlqId) },
					RetryPolicy: { MaximumRetryAttempts: 10, MaximumEventAgeInSeconds: 6 * 3600 },
					RoleArn: Match.anyValue(),
				},
			],
		});
		const rule = ofType(full, 'AWS::Events::Rule').find(([, r]) => r.Properties.Targets[0].Arn['Fn::GetAtt'][0] === destinationId)![1];
		const roleId = rule.Properties.Targets[0].RoleArn['Fn::GetAtt'][0] as string;
		expect(roleStatements(full, roleId)).toEqual([{ Action: 'events:InvokeApiDestination', Effect: 'Allow', Resource: getAtt(destinationId) }]);
	});

	it('the header value is generated into a secret of the stack, never written in the template', () => {
		const secrets = ofType(full, 'AWS::SecretsManager::Secret');
		expect(secrets).toHaveLength(2);
		const [, key] = secrets.find(([id]) => id.startsWith('N8nWebhookKey'))!;
		expect(key.Properties.SecretString).toBeUndefined();
		expect(key.Properties.GenerateSecretString).toMatchObject({ GenerateStringKey: 'apiKeyValue', PasswordLength: 48, SecretStringTemplate: JSON.stringify({ headerName: WEBHOOK_HEADER }) });
	});
});

describe('alarms', () => {
	const alarms = (s: Synth) => ofType(s, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);

	it('cover poller errors and throttles, a heartbeat per poller, the e-mail functions, and every DLQ; all go to the alerts topic', () => {
		// Pollers 6, heartbeats 3, scheduler and alert delivery DLQs 2, e-mails 5 (test/infra/emailAlerts.test.ts), webhook DLQ 1 when set.
		expect(alarms(basic)).toHaveLength(16);
		expect(alarms(full)).toHaveLength(17);
		for (const s of [basic, full]) {
			const topic = ref(s.id(s.stack.topic));
			for (const a of alarms(s)) {
				expect(a.AlarmActions).toEqual([topic]);
				expect(a.OKActions).toEqual([topic]);
				if (a.AlarmName === undefined && /not completed a run/.test(a.AlarmDescription)) continue; // the heartbeats (own test)
				expect(a).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', TreatMissingData: 'notBreaching' });
			}
		}
	});

	it('poller errors: 2 failed runs in 3 periods; throttles: any', () => {
		for (const fn of [basic.stack.pollers.overdueDevices, basic.stack.pollers.testResults]) {
			const dims = [{ Name: 'FunctionName', Value: ref(basic.id(fn)) }];
			basic.template.hasResourceProperties('AWS::CloudWatch::Alarm', { Namespace: 'AWS/Lambda', MetricName: 'Errors', Dimensions: dims, Statistic: 'Sum', Period: 300, EvaluationPeriods: 3, DatapointsToAlarm: 2 });
			basic.template.hasResourceProperties('AWS::CloudWatch::Alarm', { Namespace: 'AWS/Lambda', MetricName: 'Throttles', Dimensions: dims, EvaluationPeriods: 1 });
		}
		full.template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'Errors', Period: 600 });
	});

	it('DLQ depth on the scheduler, e-mail events, alert delivery and webhook DLQs', () => {
		for (const q of [full.stack.schedulerDlq, full.stack.email.eventsDlq, full.stack.alertDeliveryDlq, full.stack.webhookDlq!]) {
			full.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
				Namespace: 'AWS/SQS',
				MetricName: 'ApproximateNumberOfMessagesVisible',
				Dimensions: [{ Name: 'QueueName', Value: getAtt(full.id(q), 'QueueName') }],
				Statistic: 'Maximum',
			});
		}
	});
});

describe('outputs', () => {
	it('name what the README refers to', () => {
		const base = ['AlertsTopicArn', 'ArchiveArn', 'DueSoonPollerName', 'EventBusArn', 'EventBusName', 'OverdueDevicesPollerName', 'SchemaRegistryName', 'StateTableName', 'TestResultsPollerName', 'TokenSecretArn'];
		expect(Object.keys(basic.json.Outputs as object).sort()).toEqual(base);
		expect(Object.keys(full.json.Outputs as object).sort()).toEqual([...base, 'N8nConnectionName', 'WebhookKeySecretArn', 'WebhookRuleArn'].sort());
		expect((basic.json.Outputs as Record<string, { Value: unknown }>).TokenSecretArn.Value).toEqual(ref(basic.id(basic.stack.tokenSecret)));
	});
});

describe('the token-like detector used above', () => {
	it('flags generated strings and passes CDK names', () => {
		expect(looksRandom('0f9a3c5e7b2d4f6a8c1e3b5d7f9a2c4e6b8d0f1a')).toBe(true); // a sandbox token (40 hex)
		expect(looksRandom('k3J9xQ2mP8vL5tR7wZ4nB6yC1hF0gD')).toBe(true);
		expect(looksRandom('TestEquipmentCloudAlertsBus85398D2D')).toBe(false);
		expect(looksRandom('OverdueDevicesPollerRoleDefaultPolicyF6231ADF')).toBe(false);
	});
});
