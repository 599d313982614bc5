import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { afterAll } from 'vitest';
import { parseConfig, type AlertsConfig } from '../../infra/config';
import { TestEquipmentCloudAlerts } from '../../infra/stack';

/** The feature flags of cdk.json (aws-cdk-lib's recommended set), so tests synthesise what `cdk synth` does. */
export const FEATURE_FLAGS: Record<string, unknown> = Object.fromEntries(
	Object.entries((JSON.parse(readFileSync(join(__dirname, '../../cdk.json'), 'utf8')) as { context: Record<string, unknown> }).context).filter(([key]) => key.startsWith('@aws-cdk')),
);

export const BASE_CONFIG = {
	environment: 'sandbox',
	baseUrl: 'https://tec.example.com',
	alertEmails: 'ops@example.com,lab-lead@example.com',
	mailFrom: 'Calibration alerts <alerts@lab.example.com>',
} as const;

export interface Synth {
	stack: TestEquipmentCloudAlerts;
	template: Template;
	json: Record<string, unknown>;
	config: AlertsConfig;
	/** The logical ID of a construct's CloudFormation resource. */
	id(construct: IConstruct): string;
}

/**
 * Synthesises the stack as `cdk synth` does: cdk-nag's AWS Solutions and Serverless checks registered through
 * Validations, so any unacknowledged finding makes Template.fromStack throw (the gate).
 * NodejsFunction bundles the handlers with the local esbuild (a few seconds).
 */
export function synth(input: Record<string, unknown>, stackId = 'TestEquipmentCloudAlerts'): Synth {
	const outdir = mkdtempSync(join(tmpdir(), 'tec-cdk-'));
	afterAll(() => rmSync(outdir, { recursive: true, force: true }));
	const app = new App({ outdir, context: FEATURE_FLAGS });
	const config = parseConfig(input);
	const stack = new TestEquipmentCloudAlerts(app, stackId, { config });
	Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
	const template = Template.fromStack(stack);
	return {
		stack,
		template,
		json: template.toJSON(),
		config,
		// resolve() honours overrideLogicalId (the state keeps its IDs from before the constructs).
		id: (construct) => Stack.of(construct).resolve(((construct.node.defaultChild ?? construct) as CfnElement).logicalId) as string,
	};
}

export const getAtt = (logicalId: string, attr = 'Arn') => ({ 'Fn::GetAtt': [logicalId, attr] });
export const ref = (logicalId: string) => ({ Ref: logicalId });

export interface ConstructSynth<T> {
	construct: T;
	stack: Stack;
	template: Template;
	json: Record<string, unknown>;
	/** The logical ID of a construct's CloudFormation resource. */
	id(construct: IConstruct): string;
}

/**
 * One construct in a small stack of its own (with cdk.json's feature flags), for its own
 * assertions; `build` adds what it rests on (a bus, a table) and returns the construct.
 */
export function synthConstruct<T>(stackId: string, build: (stack: Stack) => T): ConstructSynth<T> {
	const outdir = mkdtempSync(join(tmpdir(), 'tec-cdk-'));
	afterAll(() => rmSync(outdir, { recursive: true, force: true }));
	const stack = new Stack(new App({ outdir, context: FEATURE_FLAGS }), stackId);
	const construct = build(stack);
	const template = Template.fromStack(stack);
	return {
		construct,
		stack,
		template,
		json: template.toJSON(),
		id: (c) => stack.resolve(((c.node.defaultChild ?? c) as CfnElement).logicalId) as string,
	};
}

/** CloudFormation JSON: dynamically typed, as JSON.parse returns it. */
export type Json = ReturnType<typeof JSON.parse>;
type Resources = Record<string, { Type: string; Properties: Record<string, Json> }>;
export const resourcesOf = (s: { json: Record<string, unknown> }) => s.json.Resources as Resources;
export const ofType = (s: { json: Record<string, unknown> }, type: string) => Object.entries(resourcesOf(s)).filter(([, r]) => r.Type === type);
export const propsOf = (s: { json: Record<string, unknown> }, logicalId: string) => resourcesOf(s)[logicalId].Properties;
/** The statements of the identity policies attached to a role. */
export function roleStatements(s: { json: Record<string, unknown> }, roleLogicalId: string): Json[] {
	return ofType(s, 'AWS::IAM::Policy')
		.filter(([, p]) => p.Properties.Roles.some((r: Json) => r.Ref === roleLogicalId))
		.flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
}
export const roleOf = (s: { json: Record<string, unknown> }, fnLogicalId: string) => propsOf(s, fnLogicalId).Role['Fn::GetAtt'][0] as string;
// Actions sorted: the recommended flag @aws-cdk/aws-iam:minimizePolicies sorts them.
export const XRAY = { Action: ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'], Effect: 'Allow', Resource: '*' };
