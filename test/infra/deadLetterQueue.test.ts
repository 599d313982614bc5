import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { deadLetterQueue } from '../../infra/constructs/deadLetterQueue';
import { getAtt, ofType, ref, synthConstruct } from './synth';

const dlq = synthConstruct('DeadLetterQueueOnly', (stack) => deadLetterQueue(stack, 'Dlq', 'messages of a test'));

describe('deadLetterQueue', () => {
	it('is encrypted (SQS-managed) and keeps messages 14 days', () => {
		const [[, queue]] = ofType(dlq, 'AWS::SQS::Queue');
		expect(queue.Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 86400 });
	});

	it('refuses plain HTTP', () => {
		const queueId = dlq.id(dlq.construct);
		dlq.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
			Queues: [ref(queueId)],
			PolicyDocument: {
				Statement: Match.arrayWith([
					{ Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } }, Effect: 'Deny', Principal: { AWS: '*' }, Resource: getAtt(queueId) },
				]),
			},
		});
	});
});
