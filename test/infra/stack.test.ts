import { readFileSync, readdirSync, statSync } from 'node:fs';
import Module, { builtinModules, createRequire } from 'node:module';
import { join } from 'node:path';
import { Stage } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { BASE_CONFIG, XRAY, getAtt, ofType, propsOf, ref, synth, type Json, type Synth } from './synth';

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

const props = propsOf;
const NODE_BUILTINS = new Set(builtinModules);

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

describe('the pollers', () => {
	const pollers = () => Object.values(basic.stack.pollers).map((f) => basic.id(f));

	it('are NodeFunctions (test/infra/nodeFunction.test.ts) configured by the Pollers construct (test/infra/pollers.test.ts), as are the e-mail functions', () => {
		const fns = [...pollers(), basic.id(basic.stack.email.collector), basic.id(basic.stack.email.digest), basic.id(basic.stack.email.report)];
		for (const fnId of fns) expect(props(basic, fnId)).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], TracingConfig: { Mode: 'Active' } });
		basic.template.resourceCountIs('AWS::Lambda::Function', fns.length);
		basic.template.resourceCountIs('AWS::Logs::LogGroup', fns.length);
	});

	it('are bundled with esbuild: one minified file each (at most 600 KiB), source maps without sources, loadable', () => {
		const outdir = Stage.of(basic.stack)!.outdir;
		const assets = readdirSync(outdir).filter((d) => d.startsWith('asset.') && statSync(join(outdir, d)).isDirectory());
		expect(assets).toHaveLength(7);
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
	it('one per poller (test/infra/pollers.test.ts), the daily e-mail digest and the monthly report (test/infra/emailAlerts.test.ts); no scheduled rules', () => {
		basic.template.resourceCountIs('AWS::Scheduler::Schedule', 6);
		for (const [, rule] of ofType(basic, 'AWS::Events::Rule')) expect(rule.Properties.ScheduleExpression).toBeUndefined();
	});
});

describe('the dead-letter queues', () => {
	it('the stack\'s only queues are its dead-letter queues (test/infra/deadLetterQueue.test.ts): scheduler, e-mail events, alert delivery, and the webhook\'s when set', () => {
		basic.template.resourceCountIs('AWS::SQS::Queue', 3);
		full.template.resourceCountIs('AWS::SQS::Queue', 4);
		for (const [, queue] of ofType(full, 'AWS::SQS::Queue')) expect(queue.Properties).toMatchObject({ SqsManagedSseEnabled: true });
	});
});

describe('least privilege', () => {
	it('no identity policy has a wildcard action or resource (but X-Ray\'s and SES GetAccount\'s, which have no resources), and no role has a managed policy', () => {
		for (const s of [basic, full]) {
			for (const [, policy] of ofType(s, 'AWS::IAM::Policy')) {
				for (const st of policy.Properties.PolicyDocument.Statement) {
					for (const a of asList(st.Action)) {
						expect(a).not.toBe('*');
						expect(a).not.toMatch(/:\*$/);
						if (a.includes('*')) expect(a).toBe('kms:GenerateDataKey*');
					}
					// X-Ray's and SES GetAccount (the sending rate) have no resource-level permissions: '*' alone.
					const noResources = JSON.stringify(st) === JSON.stringify(XRAY) || JSON.stringify(asList(st.Action)) === JSON.stringify(['ses:GetAccount']);
					if (!noResources) for (const r of asList(st.Resource)) expect(r).not.toBe('*');
					expect(st.Effect).toBe('Allow');
				}
			}
			for (const [, role] of ofType(s, 'AWS::IAM::Role')) {
				// AWS Backup's role for the state table's backups has the service role policy AWS documents for it, and nothing else.
				if (role.Properties.AssumeRolePolicyDocument.Statement[0].Principal.Service === 'backup.amazonaws.com') {
					expect(JSON.stringify(role.Properties.ManagedPolicyArns)).toMatch(/^\[\{"Fn::Join":\["",\["arn:",\{"Ref":"AWS::Partition"\},":iam::aws:policy\/service-role\/AWSBackupServiceRolePolicyForBackup"\]\]\}\]$/);
					continue;
				}
				expect(role.Properties.ManagedPolicyArns).toBeUndefined();
				expect(role.Properties.Policies).toBeUndefined();
			}
		}
	});
});

describe('secrets', () => {
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

describe('the n8n webhook', () => {
	it('is absent without a webhook URL', () => {
		for (const type of ['AWS::Events::Connection', 'AWS::Events::ApiDestination']) basic.template.resourceCountIs(type, 0);
		basic.template.resourceCountIs('AWS::SecretsManager::Secret', 1);
	});

});

describe('alarms', () => {
	const alarms = (s: Synth) => ofType(s, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);

	it('cover poller errors and throttles, a heartbeat per poller, the e-mail functions, and every DLQ; all go to the alerts topic', () => {
		// Pollers 8, heartbeats 4 and the digest's, scheduler and alert delivery DLQs 2, e-mails 7 (test/infra/emailAlerts.test.ts), webhook DLQ 1 when set.
		expect(alarms(basic)).toHaveLength(22);
		expect(alarms(full)).toHaveLength(23);
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

	it('messages arriving in the scheduler, e-mail events, alert delivery and webhook DLQs (test/infra/alarms.test.ts)', () => {
		const watched = alarms(full).flatMap((a) => ((a.Metrics ?? []) as Json[]).filter((m) => m.MetricStat?.Metric.MetricName === 'NumberOfMessagesSent').map((m) => m.MetricStat.Metric.Dimensions[0].Value));
		expect(watched).toEqual(expect.arrayContaining([full.stack.schedulerDlq, full.stack.email.eventsDlq, full.stack.alertDeliveryDlq, full.stack.webhookDlq!].map((q) => getAtt(full.id(q), 'QueueName'))));
	});
});

describe('outputs', () => {
	it('name what the README refers to', () => {
		const base = ['AlertsTopicArn', 'ArchiveArn', 'DueDatesPollerName', 'DueSoonPollerName', 'EventBusArn', 'EventBusName', 'OverdueDevicesPollerName', 'SchemaRegistryName', 'StateTableName', 'TestResultsPollerName', 'TokenSecretArn'];
		expect(Object.keys(basic.json.Outputs as object).sort()).toEqual(base);
		expect(Object.keys(full.json.Outputs as object).sort()).toEqual([...base, 'N8nConnectionName', 'WebhookKeySecretArn', 'WebhookRuleArn'].sort());
		expect((basic.json.Outputs as Record<string, { Value: unknown }>).TokenSecretArn.Value).toEqual(ref(basic.id(basic.stack.tokenSecret!)));
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
