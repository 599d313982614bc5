import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configFromContext, placeholderWarnings } from '../../infra/config';

const ROOT = join(__dirname, '../..');

/** cdk.json's context without the feature flags: what `cdk deploy` reads beside the command line. */
function cdkJsonSettings(): Record<string, unknown> {
	const context = (JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }).context;
	return Object.fromEntries(Object.entries(context).filter(([key]) => !key.startsWith('@aws-cdk')));
}

/** The `-c key=value` pairs of the README's deploy command (section "Deploy"). */
function readmeDeployCommand(): Record<string, string> {
	const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
	const block = /### Deploy\n\n```sh\n(npx cdk deploy[\s\S]*?)```/.exec(readme)?.[1];
	if (!block) throw new Error('README.md: no "### Deploy" section with an `npx cdk deploy` block');
	return Object.fromEntries([...block.matchAll(/-c (\w+)=(\S+)/g)].map((m) => [m[1], m[2].replace(/^'(.*)'$/, '$1')]));
}

describe("the README's deploy command, with cdk.json's context", () => {
	const command = readmeDeployCommand();
	const config = configFromContext((key) => command[key] ?? cdkJsonSettings()[key]);

	it('sends every alert e-mail to alertEmails when recipients are not given ("everything to alertEmails")', () => {
		const alertEmails = command.alertEmails.split(',');
		expect(config.alertEmails).toEqual(alertEmails);
		expect(config.email.recipients.default).toEqual(alertEmails);
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
