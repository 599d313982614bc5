import { describe, expect, it } from 'vitest';
import { AlertsTopic } from '../../infra/constructs/alertsTopic';
import { getAtt, ofType, propsOf, ref, resourcesOf, synthConstruct } from './synth';

describe('AlertsTopic', () => {
	const s = synthConstruct('AlertsTopicOnly', (stack) => new AlertsTopic(stack, 'Alerts', { environment: 'sandbox', emails: ['ops@example.com', 'lab-lead@example.com'] }));
	const topicId = s.id(s.construct.topic);

	it('is encrypted with a rotating KMS key that CloudWatch alarms may use', () => {
		const keyId = propsOf(s, topicId).KmsMasterKeyId['Fn::GetAtt'][0] as string;
		expect(resourcesOf(s)[keyId].Type).toBe('AWS::KMS::Key');
		expect(propsOf(s, keyId).EnableKeyRotation).toBe(true);
		expect(propsOf(s, keyId).KeyPolicy.Statement).toContainEqual({
			Sid: 'AllowCloudWatchAlarmsToUseTheKey',
			Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
			Effect: 'Allow',
			Principal: { Service: 'cloudwatch.amazonaws.com' },
			Resource: '*',
		});
	});

	it('refuses plain HTTP and takes alarms of this account only', () => {
		s.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
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
	});

	it('has an e-mail subscription per address, whose undelivered messages go to its DLQ', () => {
		const subs = ofType(s, 'AWS::SNS::Subscription').map(([, x]) => x.Properties);
		const redrive = { deadLetterTargetArn: getAtt(s.id(s.construct.deliveryDlq)) };
		expect(subs).toEqual([
			{ Protocol: 'email', Endpoint: 'ops@example.com', TopicArn: ref(topicId), RedrivePolicy: redrive },
			{ Protocol: 'email', Endpoint: 'lab-lead@example.com', TopicArn: ref(topicId), RedrivePolicy: redrive },
		]);
	});
});
