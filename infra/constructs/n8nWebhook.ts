import { CfnOutput, Duration, RemovalPolicy, SecretValue, Stack, Validations } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DETAIL_TYPES, EVENT_SOURCE } from '../../lambdas/events/names';
import { deadLetterQueue } from './deadLetterQueue';

/** The header the API destination sends to n8n; its value lives in Secrets Manager. */
export const WEBHOOK_HEADER = 'X-TEC-Webhook-Key';
export const WEBHOOK_RETRY = { attempts: 10, maxEventAge: Duration.hours(6) };

export interface N8nWebhookProps {
	bus: events.IEventBus;
	/** An n8n Webhook node's production URL (https). */
	url: string;
}

/** Events into an n8n Webhook node: rule → API destination with an API key header, and a DLQ. */
export class N8nWebhook extends Construct {
	readonly dlq: sqs.Queue;
	readonly rule: events.Rule;

	constructor(scope: Construct, id: string, props: N8nWebhookProps) {
		super(scope, id);
		this.dlq = deadLetterQueue(this, 'Dlq', 'events the n8n webhook did not accept within the retries');
		const headerSecret = new secretsmanager.Secret(this, 'Key', {
			description: `Value of the ${WEBHOOK_HEADER} header sent to the n8n Webhook node (set the same value in n8n's Header Auth credential)`,
			generateSecretString: { secretStringTemplate: JSON.stringify({ headerName: WEBHOOK_HEADER }), generateStringKey: 'apiKeyValue', passwordLength: 48, excludePunctuation: true },
			removalPolicy: RemovalPolicy.DESTROY,
		});
		Validations.of(headerSecret).acknowledge({
			id: 'AwsSolutions-SMG4',
			reason: 'A key shared with the n8n Header Auth credential: it must change on both sides at once, so it is rotated by hand (docs/aws-deployment.md, "Send events to n8n"), not by a rotation Lambda.',
		});
		const connection = new events.Connection(this, 'Connection', {
			description: 'n8n Webhook node (API key header; EventBridge keeps the value in its own Secrets Manager secret)',
			authorization: events.Authorization.apiKey(WEBHOOK_HEADER, SecretValue.secretsManager(headerSecret.secretArn, { jsonField: 'apiKeyValue' })),
		});
		const destination = new events.ApiDestination(this, 'Destination', {
			description: 'The n8n Webhook node',
			connection,
			endpoint: props.url,
			httpMethod: events.HttpMethod.POST,
			rateLimitPerSecond: 10,
		});
		this.rule = new events.Rule(this, 'Rule', {
			description: 'Device Overdue and Test Result Recorded -> n8n',
			eventBus: props.bus,
			eventPattern: { source: [EVENT_SOURCE], detailType: [DETAIL_TYPES.deviceOverdue, DETAIL_TYPES.testResultRecorded] },
			targets: [new targets.ApiDestination(destination, { deadLetterQueue: this.dlq, retryAttempts: WEBHOOK_RETRY.attempts, maxEventAge: WEBHOOK_RETRY.maxEventAge })],
		});
		const stack = Stack.of(this);
		new CfnOutput(stack, 'WebhookKeySecretArn', { value: headerSecret.secretArn, description: `Secret holding the ${WEBHOOK_HEADER} header value for n8n` });
		new CfnOutput(stack, 'N8nConnectionName', { value: connection.connectionName, description: 'EventBridge connection (update-connection changes the header value)' });
		new CfnOutput(stack, 'WebhookRuleArn', { value: this.rule.ruleArn, description: 'Replay archived events to n8n only: --destination FilterArns=<this>' });
	}
}
