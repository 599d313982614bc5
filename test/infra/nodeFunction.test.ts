import { Duration } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { NodeFunction } from '../../infra/constructs/nodeFunction';
import { XRAY, getAtt, propsOf, ref, resourcesOf, roleOf, roleStatements, synthConstruct } from './synth';

describe('NodeFunction', () => {
	const s = synthConstruct('NodeFunctionOnly', (stack) =>
		new NodeFunction(stack, 'Probe', {
			entry: 'lambdas/handlers/dueSoon.ts',
			description: 'A handler of the repository',
			timeout: Duration.seconds(30),
			memorySize: 256,
			serviceName: 'probe',
			environment: { SOME_SETTING: 'x' },
		}),
	);
	const fnId = s.id(s.construct.function);

	it('runs the handler on the current Node.js runtime on arm64, traced, with source maps and its service name', () => {
		expect(propsOf(s, fnId)).toMatchObject({
			Runtime: 'nodejs24.x',
			Architectures: ['arm64'],
			Handler: 'index.handler',
			Timeout: 30,
			MemorySize: 256,
			TracingConfig: { Mode: 'Active' },
			Environment: { Variables: { NODE_OPTIONS: '--enable-source-maps', POWERTOOLS_SERVICE_NAME: 'probe', SOME_SETTING: 'x' } },
		});
	});

	it('has its own log group with a retention of 30 days', () => {
		const logGroupId = propsOf(s, fnId).LoggingConfig.LogGroup.Ref as string;
		expect(resourcesOf(s)[logGroupId].Type).toBe('AWS::Logs::LogGroup');
		expect(propsOf(s, logGroupId).RetentionInDays).toBe(30);
	});

	it('has a role that may write only to its own logs (and send traces), and no managed policy', () => {
		const logGroupId = propsOf(s, fnId).LoggingConfig.LogGroup.Ref as string;
		const statements = roleStatements(s, roleOf(s, fnId));
		expect(statements).toHaveLength(2);
		expect(statements).toEqual(
			expect.arrayContaining([XRAY, { Sid: 'WriteOwnLogs', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Effect: 'Allow', Resource: getAtt(logGroupId) }]),
		);
		expect(propsOf(s, roleOf(s, fnId)).ManagedPolicyArns).toBeUndefined();
	});

	it('has async retries off unless asked (the next tick is the retry)', () => {
		s.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { FunctionName: ref(fnId), Qualifier: '$LATEST', MaximumRetryAttempts: 0 });
	});
});
