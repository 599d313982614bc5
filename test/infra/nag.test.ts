import { App, Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { BASE_CONFIG, synth } from './synth';

// With the n8n webhook: the variant with the most resources. synth() registers cdk-nag's
// AwsSolutionsChecks and ServerlessChecks through Validations; an unacknowledged finding makes it throw.
const full = synth({ ...BASE_CONFIG, environment: 'production', n8nWebhookUrl: 'https://n8n.example.com/webhook/tec' });

/** Every acknowledgement in the stack: rule id → reasons, with the construct path. */
function acknowledgements(stack: Stack): Array<{ path: string; id: string; reason: string }> {
	const out: Array<{ path: string; id: string; reason: string }> = [];
	for (const c of stack.node.findAll()) {
		for (const m of c.node.metadata) {
			if (m.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
			for (const [id, reason] of Object.entries(m.data as Record<string, string>)) out.push({ path: c.node.path, id, reason });
		}
	}
	return out;
}

describe('cdk-nag (AWS Solutions and Serverless)', () => {
	it('passes: synth with the checks registered did not throw, and produced the stack', () => {
		expect(Object.keys(full.json.Resources as object).length).toBeGreaterThan(40);
	});

	it('is a gate: a finding nobody acknowledged fails the synth', () => {
		const app = new App();
		const stack = new Stack(app, 'Unreviewed');
		new sqs.Queue(stack, 'PlainQueue', { encryption: sqs.QueueEncryption.UNENCRYPTED });
		Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
		expect(() => Template.fromStack(stack)).toThrow(/AwsSolutions-SQS(2|3|4)/);
	});

	it('the Serverless pack is a gate too: a function without tracing fails the synth', () => {
		const app = new App();
		const stack = new Stack(app, 'Untraced');
		new lambda.Function(stack, 'Fn', { runtime: lambda.Runtime.NODEJS_24_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = async () => {}') });
		Validations.of(app).addPlugins(new ServerlessChecks(app));
		expect(() => Template.fromStack(stack)).toThrow(/Serverless-LambdaTracing/);
	});

	it('every acknowledged finding carries a written reason, and the list is the reviewed one', () => {
		const acks = acknowledgements(full.stack);
		for (const a of acks) expect(a.reason.length, `${a.path} ${a.id}`).toBeGreaterThan(60);
		const byRule = acks.map((a) => `${a.path.replace(/^[^/]+\//, '')}: ${a.id.replace(/^Annotation::/, '')}`).sort();
		const poller = (name: string) => full.id(name === 'o' ? full.stack.pollers.overdueDevices : name === 'd' ? full.stack.pollers.dueSoon : name === 'h' ? full.stack.pollers.dueDates : full.stack.pollers.testResults);
		expect(byRule).toEqual(
			[
				'State/AccessToken: AwsSolutions-SMG4',
				'N8nWebhook/Key: AwsSolutions-SMG4',
				// Dead-letter queues are not themselves redriven.
				...['Pollers/SchedulerDlq', 'Email/EventsDlq', 'N8nWebhook/Dlq', 'Alerts/DeliveryDlq'].flatMap((q) => [`${q}: AwsSolutions-SQS3`, `${q}: Serverless-SQSRedrivePolicy`]),
				`Pollers/OverdueDevicesScheduleRole: AwsSolutions-IAM5[Resource::<${poller('o')}.Arn>:*]`,
				`Pollers/TestResultsScheduleRole: AwsSolutions-IAM5[Resource::<${poller('t')}.Arn>:*]`,
				`Pollers/DueSoonScheduleRole: AwsSolutions-IAM5[Resource::<${poller('d')}.Arn>:*]`,
				`Pollers/DueDatesScheduleRole: AwsSolutions-IAM5[Resource::<${poller('h')}.Arn>:*]`,
				`Email/DigestScheduleRole: AwsSolutions-IAM5[Resource::<${full.id(full.stack.email.digest)}.Arn>:*]`,
				`Email/ReportScheduleRole: AwsSolutions-IAM5[Resource::<${full.id(full.stack.email.report)}.Arn>:*]`,
				// X-Ray's two actions have no resource-level permissions.
				...['Pollers/OverdueDevicesPoller', 'Pollers/TestResultsPoller', 'Pollers/DueSoonPoller', 'Pollers/DueDatesPoller', 'Email/Collector', 'Email/Digest', 'Email/Report'].map((f) => `${f}/Role: AwsSolutions-IAM5[Resource::*]`),
				// A failed poller run is retried by the next tick, not replayed from a queue.
				...['Pollers/OverdueDevicesPoller', 'Pollers/TestResultsPoller', 'Pollers/DueSoonPoller', 'Pollers/DueDatesPoller'].flatMap((f) => [`${f}/Function: Serverless-LambdaDLQ`, `${f}/Function: Serverless-LambdaAsyncFailureDestination`]),
				// In SES's sandbox the recipients' identities are checked too; only the sender may send.
				...['Email/Collector', 'Email/Digest', 'Email/Report'].map((f) => `${f}/Role: AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*]`),
				// AWS Backup's own service role policy for the state table's backups.
				'StateBackup/Plan/State: AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup]',
				// The e-mail functions' failed invocations go to their dead-letter queues.
				...['Email/Collector', 'Email/Digest', 'Email/Report'].map((f) => `${f}/Function: Serverless-LambdaAsyncFailureDestination`),
			].sort(),
		);
	});
});
