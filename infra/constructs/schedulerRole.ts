import { Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';

/**
 * The role EventBridge Scheduler assumes (for this account only) to invoke `functions`, with
 * cdk-nag's finding acknowledged: CDK's grantInvoke also covers each function's versions and aliases
 * (its ARN followed by `:*`). The schedule's target grants the invoke and the DLQ write.
 */
export function schedulerRole(scope: Construct, id: string, description: string, functions: readonly lambda.Function[], whom = 'this one function'): iam.Role {
	const stack = Stack.of(scope);
	const role = new iam.Role(scope, id, {
		assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', { conditions: { StringEquals: { 'aws:SourceAccount': stack.account } } }),
		description: `EventBridge Scheduler: ${description}`,
	});
	Validations.of(role).acknowledge(
		...functions.map((fn) => ({
			id: `AwsSolutions-IAM5[Resource::<${stack.resolve((fn.node.defaultChild as lambda.CfnFunction).logicalId) as string}.Arn>:*]`,
			reason: `CDK's grantInvoke also covers the function's versions and aliases (its ARN followed by :*); the role can invoke only ${whom}.`,
		})),
	);
	return role;
}
