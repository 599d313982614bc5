import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LambdaFunction } from '../support/lambdaRuntime';

/**
 * The deploy commands the README links to, read from the docs that hold them (so the test follows
 * the text an operator copies: docs/aws-deployment.md, docs/alerts.md's "Many accounts",
 * docs/emails.md's settings), synthesized with the CDK CLI as `cdk deploy` synthesizes them
 * (cdk.json's context under the command's `-c`), and the template read back: functions,
 * schedules, rules, alarms.
 */
const ROOT = join(__dirname, '../..');

/** The fenced code blocks of a page of the docs. */
const blocksOf = (file: string) => [...readFileSync(join(ROOT, file), 'utf8').matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], text: m[2] }));

/** The `-c key=value` pairs of a shell command (continuation lines joined, quotes removed). */
function contextOf(command: string): Array<[string, string]> {
	const line = command.replace(/\\\n/g, ' ');
	return [...line.matchAll(/-c\s+(\w+)=('[^']*'|"[^"]*"|\S+)/g)].map((m) => [m[1], m[2].replace(/^'(.*)'$|^"(.*)"$/s, (_, a, b) => a ?? b)]);
}

/** The `npx cdk deploy` command of docs/aws-deployment.md's "Deploy" section (one account). */
export function deployCommand(): Array<[string, string]> {
	const block = blocksOf('docs/aws-deployment.md').find((b) => b.lang === 'sh' && /^npx cdk deploy \\/.test(b.text));
	if (!block) throw new Error('docs/aws-deployment.md has no "npx cdk deploy \\" block in "Deploy"');
	return contextOf(block.text);
}

/** The several-accounts command of docs/alerts.md ("Many accounts") and its accounts.json. */
export function accountsCommand(): { context: Array<[string, string]>; accountsJson: string } {
	const blocks = blocksOf('docs/alerts.md');
	const line = blocks.flatMap((b) => b.text.split('\n')).find((l) => /npx cdk deploy -c accounts=/.test(l));
	const accounts = blocks.find((b) => b.lang === 'json' && b.text.trimStart().startsWith('['));
	if (!line || !accounts) throw new Error('docs/alerts.md has no "npx cdk deploy -c accounts=…" command or no accounts list in "Many accounts"');
	return { context: contextOf(line), accountsJson: accounts.text };
}

/** A JSON fragment of docs/emails.md (`"key": {…}` in a json block), as the value for `-c key='…'`. */
export function readmeSetting(key: string): string {
	const block = blocksOf('docs/emails.md').find((b) => b.lang === 'json' && b.text.trimStart().startsWith(`"${key}": {`));
	if (!block) throw new Error(`docs/emails.md has no json block "${key}": {…}`);
	return JSON.stringify((JSON.parse(`{${block.text}}`) as Record<string, unknown>)[key]);
}

/** cdk.json's context: what `cdk deploy` adds under the command's `-c` values. */
export const cdkJsonContext = (JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }).context;

type Json = ReturnType<typeof JSON.parse>;
export interface Resource {
	Type: string;
	Properties: Json;
}

export interface Synthesized {
	outdir: string;
	/** The command's context (strings, as the CLI passes them). */
	context: Record<string, string>;
	resources: Record<string, Resource>;
	/** Resolves CloudFormation intrinsics to what the deployed stack would hold here. */
	resolve(value: Json): Json;
	ofType(type: string): Array<[string, Resource]>;
	/** A function of the template as Lambda would run it. */
	fn(logicalId: string): LambdaFunction;
	/** The function a resource (schedule, rule) targets by ARN, resolved to its logical ID. */
	targetOf(arn: Json): string;
	isFunction(arn: Json): boolean;
}

const PSEUDO: Record<string, string> = { 'AWS::Partition': 'aws', 'AWS::Region': 'eu-central-1', 'AWS::AccountId': '123456789012', 'AWS::URLSuffix': 'amazonaws.com', 'AWS::StackName': 'TestEquipmentCloudAlerts', 'AWS::NoValue': '' };

/**
 * `cdk synth` of one command: the docs' `cdk deploy` with synth instead of deploy (the same
 * app, context and bundling), into a folder of its own. `bundleCache` (TEC_BUNDLE_CACHE,
 * infra/bundleCache.ts): a synth of the same code after the first takes the first's bundles, each
 * while every file it was built from is unchanged.
 */
export async function synthesize(context: Array<[string, string]>, files: Record<string, string> = {}, bundleCache?: string): Promise<Synthesized> {
	const outdir = mkdtempSync(join(tmpdir(), 'tec-readme-'));
	// Files the command names (accounts.json) next to it, as the operator has them.
	for (const [name, text] of Object.entries(files)) writeFileSync(join(outdir, name), text);
	const value = (v: string) => (v in files ? join(outdir, v) : v);
	const args = ['cdk', 'synth', '--no-notices', '--no-lookups', '-q', '-o', join(outdir, 'cdk.out'), ...context.flatMap(([k, v]) => ['-c', `${k}=${value(v)}`])];
	await new Promise<void>((resolve, reject) =>
		execFile('npx', args, { cwd: ROOT, env: { ...process.env, ...(bundleCache && { TEC_BUNDLE_CACHE: bundleCache }), CDK_DISABLE_CLI_TELEMETRY: '1', CDK_DISABLE_VERSION_CHECK: '1', AWS_EC2_METADATA_DISABLED: 'true' }, maxBuffer: 16 * 1024 * 1024 }, (error, _out, err) =>
			error ? reject(new Error(`cdk synth ${context.map(([k, v]) => `-c ${k}=${v}`).join(' ')} failed:\n${err}`)) : resolve(),
		),
	);
	const template = JSON.parse(readFileSync(join(outdir, 'cdk.out', 'TestEquipmentCloudAlerts.template.json'), 'utf8')) as { Resources: Record<string, Resource> };
	const resources = template.Resources;
	const nameOf = (id: string): string => {
		const r = resources[id];
		if (!r) return PSEUDO[id] ?? id;
		const p = r.Properties ?? {};
		if (r.Type === 'AWS::DynamoDB::Table') return p.TableName ?? `tec-${id}`;
		if (r.Type === 'AWS::Events::EventBus') return p.Name ?? id;
		if (r.Type === 'AWS::SecretsManager::Secret') return `arn:aws:secretsmanager:eu-central-1:123456789012:secret:${p.Name ?? id}-AbCdEf`;
		if (r.Type === 'AWS::Lambda::Function') return p.FunctionName ?? id;
		return id;
	};
	const resolve = (v: Json): Json => {
		if (Array.isArray(v)) return v.map(resolve);
		if (v === null || typeof v !== 'object') return v;
		if ('Ref' in v) return nameOf(v.Ref);
		if ('Fn::GetAtt' in v) {
			const [id, attr] = v['Fn::GetAtt'];
			return attr === 'Arn' && resources[id]?.Type === 'AWS::Lambda::Function' ? `arn:aws:lambda:eu-central-1:123456789012:function:${nameOf(id)}` : `${nameOf(id)}.${attr}`;
		}
		if ('Fn::Join' in v) return (resolve(v['Fn::Join'][1]) as string[]).join(v['Fn::Join'][0]);
		if ('Fn::Sub' in v) return String(v['Fn::Sub']).replace(/\$\{([\w:]+)\}/g, (_, id: string) => nameOf(id));
		return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x)]));
	};
	const functionOf = (arn: Json) => Object.keys(resources).find((k) => resources[k].Type === 'AWS::Lambda::Function' && resolve(arn) === `arn:aws:lambda:eu-central-1:123456789012:function:${nameOf(k)}`);
	const cli = Object.fromEntries(context);
	return {
		outdir,
		context: cli,
		resources,
		resolve,
		ofType: (type) => Object.entries(resources).filter(([, r]) => r.Type === type),
		fn(id) {
			const p = resources[id].Properties;
			return {
				name: nameOf(id),
				assetDir: join(outdir, 'cdk.out', `asset.${String(p.Code.S3Key).replace(/\.zip$/, '')}`),
				handler: p.Handler,
				timeoutSeconds: p.Timeout ?? 3,
				memoryMb: p.MemorySize ?? 128,
				environment: resolve(p.Environment?.Variables ?? {}) as Record<string, string>,
			};
		},
		targetOf(arn) {
			const id = functionOf(arn);
			if (!id) throw new Error(`no function of the template has the ARN ${String(resolve(arn))}`);
			return id;
		},
		isFunction: (arn) => functionOf(arn) !== undefined,
	};
}
