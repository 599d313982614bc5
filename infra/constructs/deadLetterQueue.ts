import { Duration, Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

export const DLQ_RETENTION = Duration.days(14);

/** An encrypted, TLS-only dead-letter queue that keeps messages 14 days. */
export function deadLetterQueue(scope: Construct, id: string, what: string): sqs.Queue {
	const queue = new sqs.Queue(scope, id, { encryption: sqs.QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: DLQ_RETENTION });
	Validations.of(queue).acknowledge(
		{ id: 'AwsSolutions-SQS3', reason: `This queue is itself a dead-letter queue (${what}); cdk-nag only recognises DLQs referenced by another queue's redrive policy.` },
		{ id: 'Serverless-SQSRedrivePolicy', reason: `This queue is itself the dead-letter queue (${what}); a redrive policy on it would move the messages to a third queue nobody reads.` },
	);
	return queue;
}
