import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { CONTEXT_KEYS, configFromContext, placeholderWarnings } from '../../infra/config';
import { POLLER_OFFSETS } from '../../infra/constructs/pollers';
import { resourcesOf, synth } from './synth';

const ROOT = join(__dirname, '../..');

/** cdk.json's context without the feature flags: what `cdk deploy` reads beside the command line. */
function cdkJsonSettings(): Record<string, unknown> {
	const context = (JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }).context;
	return Object.fromEntries(Object.entries(context).filter(([key]) => !key.startsWith('@aws-cdk')));
}

/** docs/aws-deployment.md: how to deploy, the page the README links to. */
const deployment = () => readFileSync(join(ROOT, 'docs/aws-deployment.md'), 'utf8');

/** The `-c key=value` pairs of the deploy command (docs/aws-deployment.md, section "Deploy"). */
function readmeDeployCommand(): Record<string, string> {
	const block = /## Deploy\n\n```sh\n(npx cdk deploy[\s\S]*?)```/.exec(deployment())?.[1];
	if (!block) throw new Error('docs/aws-deployment.md: no "## Deploy" section with an `npx cdk deploy` block');
	return Object.fromEntries([...block.matchAll(/-c (\w+)=(\S+)/g)].map((m) => [m[1], m[2].replace(/^'(.*)'$/, '$1')]));
}

describe("the deploy command of docs/aws-deployment.md, with cdk.json's context", () => {
	const command = readmeDeployCommand();
	const config = configFromContext((key) => command[key] ?? cdkJsonSettings()[key]);

	it('sends every alert e-mail to alertEmails when recipients are not given ("everything to alertEmails")', () => {
		const alertEmails = command.alertEmails.split(',');
		expect(config.alertEmails).toEqual(alertEmails);
		expect(config.email.recipients.default).toEqual(alertEmails);
	});

	it('gives every setting its table calls required (cdk.json holds only placeholders for them: mailFrom would send as alerts@example.com)', () => {
		const required = [...deployment().matchAll(/^\| `(\w+)` \| .* \| required \|$/gm)].map((m) => m[1]);
		expect(required).toEqual(expect.arrayContaining(['baseUrl', 'alertEmails', 'mailFrom']));
		expect(required.filter((key) => command[key] === undefined)).toEqual([]);
	});

	it('warns of every placeholder address among the recipients and alertEmails, naming the key', () => {
		const warnings = placeholderWarnings(configFromContext((key) => ({ ...cdkJsonSettings(), recipients: { default: ['alerts@example.com'], customers: { Acme: ['acme@lab.example.org'] } }, alertEmails: 'ops@company.de' })[key]));
		expect(warnings).toEqual(
			expect.arrayContaining([
				expect.stringContaining('recipients: alerts@example.com is a placeholder'),
				expect.stringContaining('recipients: acme@lab.example.org is a placeholder'),
			]),
		);
		expect(warnings.join('\n')).not.toContain('ops@company.de');
		expect(placeholderWarnings(config).join('\n')).toContain('alertEmails: maintenance@your-company.example is a placeholder');
	});
});

/** docs/aws-deployment.md's figures as the template of its own deploy command has them (one synth, with cdk-nag). */
describe("docs/aws-deployment.md's resource list and costs, counted from the template of its deploy command", () => {
	const command = readmeDeployCommand();
	const s = synth(Object.fromEntries(CONTEXT_KEYS.map((key) => [key, command[key] ?? cdkJsonSettings()[key]])), 'TestEquipmentCloudAlerts');
	const readme = deployment();
	const costs = readme.slice(readme.indexOf('## Costs at 1 poll every 5 minutes'), readme.indexOf('## Remove'));
	const resources = Object.entries(resourcesOf(s));
	const functions = resources.filter(([, r]) => r.Type === 'AWS::Lambda::Function').map(([, r]) => r.Properties);
	const pollers = functions.filter((f) => f.Environment.Variables.POWERTOOLS_SERVICE_NAME === 'pollers');
	const alarms = resources.filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm');
	const schedules = resources.filter(([, r]) => r.Type === 'AWS::Scheduler::Schedule').map(([, r]) => r.Properties.ScheduleExpression as string);
	const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six'];

	it('counts the pollers and their schedules as the template has them (three every 5 minutes, one hourly)', () => {
		const every5 = schedules.filter((e) => /^cron\(\S+\/5 /.test(e)).length;
		const hourly = schedules.filter((e) => /^cron\(\d+ \* /.test(e)).length;
		expect(pollers).toHaveLength(4);
		const flat = readme.replace(/\s+/g, ' ');
		expect(flat).toContain(`- ${WORDS[pollers.length]} pollers (`);
		expect(flat).toContain(`: ${WORDS[every5]} (overdue devices, devices due soon, test results) every 5 minutes`);
		expect(hourly).toBe(1);
		expect(flat).toContain('and the fourth, the due-date history (compliance), hourly');
		expect(costs).toContain(`${WORDS[every5][0].toUpperCase()}${WORDS[every5].slice(1)} pollers × 12 runs an hour × 24 × 30 days = **${(every5 * 12 * 24 * 30).toLocaleString('en-US')} runs a month**`);
		expect(costs).toContain(`and the due-date history ${hourly === 1 ? 'once an hour' : `${hourly} times an hour`} (720 runs)`);
	});

	it('counts the alarms (with the n8n webhook of the command, and without it)', () => {
		const n8n = alarms.filter(([id]) => id.includes('WebhookDlq')).length;
		expect(n8n).toBe(1);
		// CloudWatch bills an alarm per metric it reads (a dead-letter queue's reads two: sent, and the depth).
		const metrics = (list: typeof alarms) => list.reduce((sum, [, r]) => sum + (r.Properties.MetricName ? 1 : (r.Properties.Metrics as Array<{ MetricStat?: unknown }>).filter((m) => m.MetricStat).length), 0);
		const without = metrics(alarms.filter(([id]) => !id.includes('WebhookDlq')));
		expect(costs).toContain(`alarms ${alarms.length - n8n} (${alarms.length} with n8n) on ${without} metrics (${metrics(alarms)} with n8n) × $0.10 = $${(without / 10).toFixed(2)}`);
		expect(readme).toContain(`**${alarms.length - n8n} alarms** (${alarms.length} with n8n)`);
	});

	it("warns of the command's placeholder sender as of its placeholder recipients (your-company.example)", () => {
		Annotations.fromStack(s.stack).hasWarning('/TestEquipmentCloudAlerts/Email', Match.stringLikeRegexp(`mailFrom ${command.mailFrom} is a placeholder`));
	});

	it("warns of the command's placeholder baseUrl as of its placeholder addresses (the same rule of placeholder hosts)", () => {
		Annotations.fromStack(s.stack).hasWarning('/TestEquipmentCloudAlerts', Match.stringLikeRegexp(`baseUrl ${command.baseUrl} is a placeholder`));
	});

	it('counts the custom metrics as the template has them, and adds up the free-tier total from the rows it names', () => {
		// Five per poller run every period (a `poller` dimension each), ColdStart per service (pollers, email), the digest's RunCompleted.
		const every5 = schedules.filter((e) => /^cron\(\S+\/5 /.test(e)).length;
		const metrics = every5 * 5 + 2 + 1;
		expect(costs).toContain(`ColdStart per service: 2; the digest's RunCompleted: 1) ≈ ${metrics} × $0.30 = $${(metrics * 0.3).toFixed(2)};`);
		expect(costs).toContain('within the free tier ≈ $5.50 (KMS key, secret and its calls, DynamoDB, the metrics and alarms beyond the free ten)');
	});

	it("says when each poll runs in the period, as the template's schedules do", () => {
		const offsets = POLLER_OFFSETS(5);
		const at = (m: number) => `:${String(m).padStart(2, '0')}`;
		expect(readme).toContain(`overdue devices at ${at(offsets.overdueDevices)}, ${at(offsets.overdueDevices + 5)}`);
		expect(readme).toContain(`devices due soon at ${at(offsets.dueSoon)}, ${at(offsets.dueSoon + 5)}`);
		expect(readme).toMatch(new RegExp(`test results at ${at(offsets.testResults)}, ${at(offsets.testResults + 5)}`));
		expect(readme).toContain(`the due-date history hourly at ${at(offsets.dueDates)}`);
	});

	it("names the digest's timeout and the parts the template holds", () => {
		const digest = functions.find((f) => String(f.Description).startsWith('Sends the daily digest'))!;
		expect(costs).toContain(`the digest's ${digest.Timeout / 60}-minute timeout`);
		const types = new Set(resources.map(([, r]) => r.Type));
		for (const [type, words] of [
			['AWS::KMS::Key', 'customer managed KMS key'],
			['AWS::EventSchemas::Registry', 'schema registry'],
			['AWS::CloudWatch::Dashboard', 'compliance dashboard'],
			['AWS::Backup::BackupPlan', 'AWS Backup'],
		] as const) {
			expect(types.has(type), type).toBe(true);
			expect(readme.slice(readme.indexOf('# Deploy on AWS'), readme.indexOf('## Prerequisites')), words).toContain(words);
		}
	});
});

describe("docs/aws-deployment.md on the alarms of a first deploy", () => {
	it('says that the digest heartbeat is in ALARM until the first digest, and why, where the alarm subscriptions are confirmed', () => {
		const section = /## Confirm the alarm subscriptions\n([\s\S]*?)\n## /.exec(deployment())?.[1] ?? '';
		expect(section).toMatch(/digest heartbeat[^.]*in ALARM until the first digest/);
		expect(section).toMatch(/missing data[^.]*as a missed run/i);
		expect(section).toMatch(/poller heartbeats[^.]*token/i);
	});
});
