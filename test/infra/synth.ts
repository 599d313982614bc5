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
