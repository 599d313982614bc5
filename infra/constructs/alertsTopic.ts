import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { deadLetterQueue } from './deadLetterQueue';

export interface AlertsTopicProps {
	environment: 'sandbox' | 'production';
	emails: string[];
}

/** One encrypted topic for the alert e-mails and the alarms, with an e-mail subscription each. */
export class AlertsTopic extends Construct {
	readonly topic: sns.Topic;
	readonly key: kms.Key;
	/** Messages SNS could not deliver to an e-mail address after its retries. */
	readonly deliveryDlq: sqs.Queue;

	constructor(scope: Construct, id: string, props: AlertsTopicProps) {
		super(scope, id);
		this.key = new kms.Key(this, 'Key', {
			description: 'Encrypts the Test Equipment Cloud alerts topic',
			enableKeyRotation: true,
			removalPolicy: RemovalPolicy.DESTROY,
			pendingWindow: Duration.days(7),
		});
		// CloudWatch alarms publish to the encrypted topic: they need the key (AWS documented policy).
		this.key.addToResourcePolicy(
			new iam.PolicyStatement({
				sid: 'AllowCloudWatchAlarmsToUseTheKey',
				principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
				actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
				resources: ['*'],
			}),
		);
		this.topic = new sns.Topic(this, 'Topic', {
			displayName: `Test Equipment Cloud (${props.environment})`,
			masterKey: this.key,
			enforceSSL: true,
		});
		this.topic.addToResourcePolicy(
			new iam.PolicyStatement({
				sid: 'AllowCloudWatchAlarmsOfThisAccount',
				principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
				actions: ['sns:Publish'],
				resources: [this.topic.topicArn],
				conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
			}),
		);
		this.deliveryDlq = deadLetterQueue(this, 'DeliveryDlq', 'alert e-mails SNS could not deliver to a subscriber');
		for (const email of props.emails) this.topic.addSubscription(new subscriptions.EmailSubscription(email, { deadLetterQueue: this.deliveryDlq }));
	}
}
