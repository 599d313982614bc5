import { join } from 'node:path';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { handlerCode } from '../bundling';

export const LOG_RETENTION = logs.RetentionDays.ONE_MONTH;
const ROOT = join(__dirname, '..', '..');

export interface NodeFunctionProps {
	/** The handler module, relative to the repository root (exports `handler`). */
	entry: string;
	description: string;
	timeout: Duration;
	memorySize: number;
	/** Its Powertools service name (log lines, metrics dimension, traces). */
	serviceName: string;
	environment: Record<string, string>;
	retryAttempts?: number;
	/** How long Lambda keeps trying an asynchronous invocation (throttled, or waiting for its retries); Lambda's default is 6 hours. */
	maxEventAge?: Duration;
	deadLetterQueue?: sqs.IQueue;
}

/**
 * A Lambda function from one of the handlers: the shared bundle settings (../bundling.ts), Node 24
 * on arm64, its own log group, a role that may write only there, and X-Ray tracing on.
 */
export class NodeFunction extends Construct {
	readonly function: lambda.Function;
	readonly role: iam.Role;
	readonly logGroup: logs.LogGroup;

	constructor(scope: Construct, id: string, props: NodeFunctionProps) {
		super(scope, id);
		this.logGroup = new logs.LogGroup(this, 'Logs', { retention: LOG_RETENTION, removalPolicy: RemovalPolicy.DESTROY });
		this.role = new iam.Role(this, 'Role', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'), description: `${id} function` });
		this.role.addToPolicy(new iam.PolicyStatement({ sid: 'WriteOwnLogs', actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [this.logGroup.logGroupArn] }));
		this.function = new lambda.Function(this, 'Function', {
			code: handlerCode(join(ROOT, props.entry)),
			handler: 'index.handler',
			runtime: lambda.Runtime.NODEJS_24_X,
			architecture: lambda.Architecture.ARM_64,
			description: props.description,
			timeout: props.timeout,
			memorySize: props.memorySize,
			tracing: lambda.Tracing.ACTIVE,
			environment: {
				// Stack traces through the source maps (which carry no sources).
				NODE_OPTIONS: '--enable-source-maps',
				POWERTOOLS_SERVICE_NAME: props.serviceName,
				...props.environment,
			},
			role: this.role,
			logGroup: this.logGroup,
			retryAttempts: props.retryAttempts ?? 0,
			maxEventAge: props.maxEventAge,
			deadLetterQueue: props.deadLetterQueue,
		});
		Validations.of(this.role).acknowledge({
			id: 'AwsSolutions-IAM5[Resource::*]',
			reason: 'X-Ray tracing (Tracing.ACTIVE): xray:PutTraceSegments and xray:PutTelemetryRecords have no resource-level permissions, so AWS requires Resource "*" for them; nothing else in the policy is a wildcard.',
		});
	}
}
