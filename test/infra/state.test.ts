import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { PollerState } from '../../infra/constructs/state';

describe('PollerState', () => {
	const stack = new Stack(new App(), 'StateOnly');
	new PollerState(stack, 'State', { environment: 'production' });
	const template = Template.fromStack(stack);
	const sandboxStack = new Stack(new App(), 'StateSandbox');
	new PollerState(sandboxStack, 'State', { environment: 'sandbox' });
	const sandbox = Template.fromStack(sandboxStack);

	it('keeps the logical IDs of the table and the token from before the constructs (an update keeps the data)', () => {
		expect(Object.keys(template.findResources('AWS::DynamoDB::Table'))).toEqual(['State1C20CC9A']);
		expect(Object.keys(template.findResources('AWS::SecretsManager::Secret'))).toEqual(['AccessToken4AAD9E79']);
	});

	it('the table is on-demand with pk/sk, TTL on expiresAt, point-in-time recovery and encryption, and retained', () => {
		sandbox.resourceCountIs('AWS::DynamoDB::Table', 1);
		sandbox.hasResource('AWS::DynamoDB::Table', {
			DeletionPolicy: 'Retain',
			Properties: {
				KeySchema: [
					{ AttributeName: 'pk', KeyType: 'HASH' },
					{ AttributeName: 'sk', KeyType: 'RANGE' },
				],
				AttributeDefinitions: [
					{ AttributeName: 'pk', AttributeType: 'S' },
					{ AttributeName: 'sk', AttributeType: 'S' },
				],
				BillingMode: 'PAY_PER_REQUEST',
				TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
				PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
				SSESpecification: { SSEEnabled: true },
				DeletionProtectionEnabled: false,
			},
		});
	});

	it('retains the table, and protects it from deletion in production', () => {
		template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain', Properties: { DeletionProtectionEnabled: true } });
	});

	it("keeps CloudFormation's name unless a fixed one is given: an update of a stack deployed before leaves its table as it is (a name set on it would replace it with an empty one)", () => {
		// The table's resource as every stack deployed so far has it: same logical id, no TableName.
		expect(template.findResources('AWS::DynamoDB::Table').State1C20CC9A.Properties.TableName).toBeUndefined();
		const generated = new Stack(new App(), 'StateGenerated');
		new PollerState(generated, 'State', { environment: 'sandbox', tableName: 'generated' });
		expect(Template.fromStack(generated).findResources('AWS::DynamoDB::Table').State1C20CC9A.Properties.TableName).toBeUndefined();
	});

	it('takes a fixed name when given (a first deploy): an update that would replace the table then fails loudly instead of starting an empty one', () => {
		const named = new Stack(new App(), 'StateNamed');
		new PollerState(named, 'State', { environment: 'sandbox', tableName: 'lab-alerts-state' });
		expect(Template.fromStack(named).findResources('AWS::DynamoDB::Table').State1C20CC9A.Properties.TableName).toBe('lab-alerts-state');
	});

	it('creates the token secret without a value: "token" empty until put-secret-value', () => {
		const [secret] = Object.values(sandbox.findResources('AWS::SecretsManager::Secret')) as Array<{ Properties: ReturnType<typeof JSON.parse> }>;
		expect(secret.Properties.SecretString).toBeUndefined();
		expect(JSON.parse(secret.Properties.GenerateSecretString.SecretStringTemplate)).toEqual({ token: '' });
		expect(secret.Properties.GenerateSecretString.GenerateStringKey).not.toBe('token');
	});
});
