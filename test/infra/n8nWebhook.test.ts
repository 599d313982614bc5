import * as events from 'aws-cdk-lib/aws-events';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { N8nWebhook, WEBHOOK_HEADER } from '../../infra/constructs/n8nWebhook';
import { getAtt, ofType, ref, roleStatements, synthConstruct } from './synth';

const WEBHOOK = 'https://n8n.example.com/webhook/test-equipment-cloud';

describe('N8nWebhook', () => {
	const s = synthConstruct('N8nWebhookOnly', (stack) => {
		const bus = new events.EventBus(stack, 'Bus');
		return { bus, webhook: new N8nWebhook(stack, 'N8nWebhook', { bus, url: WEBHOOK }) };
	});

	it('sends Device Overdue and Test Result Recorded to the API destination, with a DLQ and bounded retries', () => {
		s.template.resourceCountIs('AWS::Events::Connection', 1);
		const [connectionId, connection] = ofType(s, 'AWS::Events::Connection')[0];
		expect(connection.Properties.AuthorizationType).toBe('API_KEY');
		expect(connection.Properties.AuthParameters.ApiKeyAuthParameters.ApiKeyName).toBe(WEBHOOK_HEADER);
		const [destinationId] = ofType(s, 'AWS::Events::ApiDestination')[0];
		s.template.hasResourceProperties('AWS::Events::ApiDestination', {
			ConnectionArn: getAtt(connectionId),
			InvocationEndpoint: WEBHOOK,
			HttpMethod: 'POST',
			InvocationRateLimitPerSecond: 10,
		});
		s.template.hasResourceProperties('AWS::Events::Rule', {
			EventBusName: ref(s.id(s.construct.bus)),
			EventPattern: { source: ['test-equipment-cloud'], 'detail-type': ['Device Overdue', 'Test Result Recorded'] },
			Targets: [
				{
					Arn: getAtt(destinationId),
					Id: 'Target0',
					DeadLetterConfig: { Arn: getAtt(s.id(s.construct.webhook.dlq)) },
					RetryPolicy: { MaximumRetryAttempts: 10, MaximumEventAgeInSeconds: 6 * 3600 },
					RoleArn: Match.anyValue(),
				},
			],
		});
		const rule = ofType(s, 'AWS::Events::Rule').find(([, r]) => r.Properties.Targets[0].Arn['Fn::GetAtt'][0] === destinationId)![1];
		const roleId = rule.Properties.Targets[0].RoleArn['Fn::GetAtt'][0] as string;
		expect(roleStatements(s, roleId)).toEqual([{ Action: 'events:InvokeApiDestination', Effect: 'Allow', Resource: getAtt(destinationId) }]);
	});

	it('the header value is generated into a secret, never written in the template; the connection reads it by dynamic reference', () => {
		const secrets = ofType(s, 'AWS::SecretsManager::Secret');
		expect(secrets).toHaveLength(1);
		const [keyId, key] = secrets[0];
		expect(key.Properties.SecretString).toBeUndefined();
		expect(key.Properties.GenerateSecretString).toMatchObject({ GenerateStringKey: 'apiKeyValue', PasswordLength: 48, SecretStringTemplate: JSON.stringify({ headerName: WEBHOOK_HEADER }) });
		const [, connection] = ofType(s, 'AWS::Events::Connection')[0];
		expect(connection.Properties.AuthParameters.ApiKeyAuthParameters.ApiKeyValue).toEqual({
			'Fn::Join': ['', ['{{resolve:secretsmanager:', ref(keyId), ':SecretString:apiKeyValue::}}']],
		});
	});

	it('names the secret, the connection and the rule in the stack outputs', () => {
		expect(Object.keys(s.json.Outputs as object).sort()).toEqual(['N8nConnectionName', 'WebhookKeySecretArn', 'WebhookRuleArn']);
	});
});
