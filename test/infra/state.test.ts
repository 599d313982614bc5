import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { PollerState } from '../../infra/constructs/state';

describe('PollerState', () => {
	const stack = new Stack(new App(), 'StateOnly');
	new PollerState(stack, 'State', { environment: 'production' });
	const template = Template.fromStack(stack);

	it('keeps the logical IDs of the table and the token from before the constructs (an update keeps the data)', () => {
		expect(Object.keys(template.findResources('AWS::DynamoDB::Table'))).toEqual(['State1C20CC9A']);
		expect(Object.keys(template.findResources('AWS::SecretsManager::Secret'))).toEqual(['AccessToken4AAD9E79']);
	});

	it('retains the table, and protects it from deletion in production', () => {
		template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain', Properties: { DeletionProtectionEnabled: true } });
	});
});
