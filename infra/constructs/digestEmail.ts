import { Duration, Validations } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DETAIL_TYPES, EVENT_SOURCE } from '../../lambdas/events/names';
import type { AlertsConfig } from '../config';
import { deadLetterQueue } from './deadLetterQueue';
import { NodeFunction } from './nodeFunction';

export interface DigestEmailProps {
	config: AlertsConfig;
	bus: events.IEventBus;
	topic: sns.ITopic;
}

/** The e-mail digest: a rule on Overdue Devices Digest → the formatter → the alerts topic. */
export class DigestEmail extends Construct {
	readonly function: lambda.Function;
	readonly dlq: sqs.Queue;

	constructor(scope: Construct, id: string, props: DigestEmailProps) {
		super(scope, id);
		this.dlq = deadLetterQueue(this, 'Dlq', 'digest events the e-mail function could not take or process');
		const fn = new NodeFunction(this, 'DigestEmail', {
			entry: 'lambdas/handlers/digestEmail.ts',
			description: 'Formats an Overdue Devices Digest into one readable e-mail and publishes it to the alerts topic',
			timeout: Duration.seconds(30),
			memorySize: 256,
			serviceName: 'digest-email',
			environment: { ALERT_TOPIC_ARN: props.topic.topicArn, TIME_ZONE: props.config.timeZone, ALERT_SENDER: `TestEquipmentCloudAlerts (${props.config.environment})` },
			retryAttempts: 2,
			deadLetterQueue: this.dlq,
		});
		this.function = fn.function;
		Validations.of(this.function).acknowledge({
			id: 'Serverless-LambdaAsyncFailureDestination',
			reason: 'Events the function fails on after its retries land in its dead-letter queue (DigestDlq, with a depth alarm), the same queue the rule uses for events it cannot deliver: one place to look and replay from.',
		});
		props.topic.grantPublish(this.function);
		Validations.of(fn.role as iam.Role).acknowledge({
			id: 'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
			reason: 'Publishing to an SNS topic encrypted with a customer managed key needs kms:GenerateDataKey* and kms:Decrypt (AWS documented publisher policy); the statement is limited to that one key.',
		});
		new events.Rule(this, 'Rule', {
			description: 'Overdue Devices Digest -> one e-mail',
			eventBus: props.bus,
			eventPattern: { source: [EVENT_SOURCE], detailType: [DETAIL_TYPES.overdueDevicesDigest] },
			targets: [new targets.LambdaFunction(this.function, { deadLetterQueue: this.dlq, retryAttempts: 8, maxEventAge: Duration.hours(2) })],
		});
	}
}
