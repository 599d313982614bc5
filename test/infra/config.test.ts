import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { ConfigError, configFromContext, parseConfig } from '../../infra/config';
import { FEATURE_FLAGS } from './synth';

const minimal = { baseUrl: 'https://tec.example.com', alertEmails: 'ops@example.com', mailFrom: 'alerts@example.com' };

function problems(input: Record<string, unknown>): string {
	try {
		parseConfig(input);
	} catch (error) {
		expect(error).toBeInstanceOf(ConfigError);
		return (error as Error).message;
	}
	throw new Error('expected the settings to be refused');
}

describe('stack settings (context or props)', () => {
	it('fills in the defaults', () => {
		expect(parseConfig(minimal)).toEqual({
			environment: 'sandbox',
			baseUrl: 'https://tec.example.com',
			scheduleRateMinutes: 5,
			timeZone: 'UTC',
			activeHours: '*',
			alertEmails: ['ops@example.com'],
			n8nWebhookUrl: undefined,
			reminderDays: 7,
			lookbackDays: 7,
			nearLimitThreshold: 0.8,
			backfillShare: 0.5,
			email: { mailFrom: 'alerts@example.com', digestHour: 7, immediateFailedTests: true, locale: 'en', recipients: { default: ['ops@example.com'], customers: {}, departments: {} }, customerNotices: { enabled: false, addresses: {}, optOut: [], locales: {}, maxRows: 100 } },
			// The single account as a list of one (lambdas/accounts.ts).
			accounts: [{ id: 'default', environment: 'sandbox', baseUrl: 'https://tec.example.com' }],
		});
	});

	it('refuses a customer notice template with an unknown placeholder at synth, naming it', () => {
		expect(problems({ ...minimal, customerNotices: { enabled: true, introduction: 'Dear {customer}' } })).toContain('customerNotices.introduction: unknown placeholder {customer}; valid placeholders are {customerName}');
		expect(parseConfig({ ...minimal, customerNotices: '{"enabled": true, "optOut": ["Acme GmbH"]}' }).email.customerNotices).toMatchObject({ enabled: true, optOut: ['Acme GmbH'] });
	});

	it('intervals: the monthly report’s interval settings, each part optional (-c intervals=<JSON> or an object); a bad one refused naming the setting and what would be valid', () => {
		expect(parseConfig(minimal).email.intervals).toBeUndefined();
		const given = { defaultEnvironment: 'office', departments: { Werkstatt: { environment: 'workshop', minMonths: 3 } } };
		expect(parseConfig({ ...minimal, intervals: JSON.stringify(given) }).email.intervals).toEqual(given);
		expect(parseConfig({ ...minimal, intervals: { reliabilityTarget: 0.95, confidence: 0.8, minMonths: 2 } }).email.intervals).toEqual({ reliabilityTarget: 0.95, confidence: 0.8, minMonths: 2 });
		expect(problems({ ...minimal, intervals: { reliabilityTarget: 98 } })).toContain('intervals.reliabilityTarget: must be a share above 0.5 and below 1 (0.98 for 98 %), got 98');
		expect(problems({ ...minimal, intervals: { minMonths: 30 } })).toContain('intervals.minMonths: must be at most 12 months, the DGUV V3 maximum of the environment workshop');
		expect(problems({ ...minimal, intervals: { departments: { IT: { environment: 'garden' } } } })).toContain('intervals.departments[IT].environment: must be one of office, workshop, constructionSite, got "garden"');
		expect(problems({ ...minimal, intervals: { departments: { IT: { maxMonths: 0 } } } })).toContain('intervals.departments[IT].maxMonths: must be a whole number of months from 1 to 120, got 0');
		expect(problems({ ...minimal, intervals: { departments: { Verwaltung: {}, ' verwaltung': { environment: 'office' } } } })).toContain('intervals.departments: "Verwaltung" and " verwaltung" name the same department');
		expect(problems({ ...minimal, intervals: { maxMonths: 24 } })).toContain('intervals: unknown "maxMonths"; valid keys are reliabilityTarget, confidence, defaultEnvironment, minMonths, departments');
		expect(problems({ ...minimal, intervals: { departments: { IT: { max: 24 } } } })).toContain('intervals.departments[IT]: unknown "max"; valid keys are environment, minMonths, maxMonths');
		expect(problems({ ...minimal, intervals: '{"minMonths": ' })).toContain('intervals: expected an object');
		expect(problems({ ...minimal, intervals: { departments: ['IT'] } })).toContain('intervals.departments: expected an object of department name → settings');
		expect(parseConfig({ ...minimal, intervals: '' }).email.intervals).toBeUndefined();
	});

	it('reads command-line strings (-c key=value) and cdk.json numbers and lists alike', () => {
		const fromCli = parseConfig({
			...minimal,
			environment: 'production',
			baseUrl: 'https://tec.example.com/',
			scheduleRateMinutes: '15',
			timeZone: 'Europe/Berlin',
			activeHours: '06-20',
			alertEmails: 'ops@example.com, lab@example.com;boss@example.com',
			n8nWebhookUrl: 'https://n8n.example.com/webhook/abc',
			reminderDays: '0',
			lookbackDays: '30',
		});
		expect(fromCli).toMatchObject({
			environment: 'production',
			baseUrl: 'https://tec.example.com',
			scheduleRateMinutes: 15,
			activeHours: '6-20',
			alertEmails: ['ops@example.com', 'lab@example.com', 'boss@example.com'],
			n8nWebhookUrl: 'https://n8n.example.com/webhook/abc',
			reminderDays: 0,
			lookbackDays: 30,
		});
		expect(parseConfig({ ...minimal, alertEmails: ['a@example.com'], scheduleRateMinutes: 30 })).toMatchObject({ alertEmails: ['a@example.com'], scheduleRateMinutes: 30 });
		// An empty webhook URL (cdk.json's default) means no webhook.
		expect(parseConfig({ ...minimal, n8nWebhookUrl: '' }).n8nWebhookUrl).toBeUndefined();
	});

	it('refuses wrong settings with one clear message listing every problem', () => {
		const message = problems({
			environment: 'staging',
			baseUrl: 'http://tec.example.com',
			scheduleRateMinutes: '7',
			timeZone: 'Mars/Olympus',
			activeHours: '20-6',
			alertEmails: 'ops@example.com,not-an-address',
			n8nWebhookUrl: 'ftp://n8n',
			reminderDays: '-1',
			lookbackDays: '1.5',
		});
		expect(message).toContain('environment must be sandbox or production, got "staging"');
		expect(message).toContain('baseUrl must use https');
		expect(message).toContain('scheduleRateMinutes must be one of 1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60');
		expect(message).toContain('timeZone must be an IANA time zone such as Europe/Berlin or UTC, got "Mars/Olympus"');
		expect(message).toContain('activeHours must be * or a range of hours like 6-20');
		expect(message).toContain('alertEmails: "not-an-address" is not an e-mail address');
		expect(message).toContain('n8nWebhookUrl must use https');
		expect(message).toContain('reminderDays must be a whole number from 0 to 365, got "-1"');
		expect(message).toContain('lookbackDays must be a whole number from 1 to 90, got "1.5"');
		expect(message).toContain('see docs/aws-deployment.md, "Deploy"');
	});

	it('nearLimitThreshold and backfillShare: shares read from -c strings and cdk.json numbers; a bad one refused naming the key and the valid range', () => {
		expect(parseConfig({ ...minimal, nearLimitThreshold: '0.9', backfillShare: 0 })).toMatchObject({ nearLimitThreshold: 0.9, backfillShare: 0 });
		expect(parseConfig({ ...minimal, nearLimitThreshold: 1, backfillShare: '1' })).toMatchObject({ nearLimitThreshold: 1, backfillShare: 1 });
		expect(parseConfig({ ...minimal, nearLimitThreshold: '', backfillShare: '' })).toMatchObject({ nearLimitThreshold: 0.8, backfillShare: 0.5 });
		for (const bad of [0, '0', -0.1, 1.5, '80%', 'high', '1e-1']) expect(problems({ ...minimal, nearLimitThreshold: bad })).toContain(`nearLimitThreshold must be a share above 0 to at most 1 (for example 0.8), got "${String(bad)}"`);
		for (const bad of [-0.5, 2, 'half', '.5.']) expect(problems({ ...minimal, backfillShare: bad })).toContain(`backfillShare must be 0 (off) or a share from 0.05 to at most 1 (for example 0.5), got "${String(bad)}"`);
	});

	it('backfillShare: a share under 0.05 (one request per 4.1 s, a device’s 5 reads in a slice) is refused, naming the key and the valid range; 0.05 and 0 (no backfill) are taken', () => {
		for (const bad of [0.001, '0.001', 0.049, 1e-8]) expect(problems({ ...minimal, backfillShare: bad })).toContain(`backfillShare must be 0 (off) or a share from 0.05 to at most 1 (for example 0.5), got "${String(bad)}"`);
		expect(parseConfig({ ...minimal, backfillShare: '0.05' })).toMatchObject({ backfillShare: 0.05 });
		expect(parseConfig({ ...minimal, backfillShare: '0' })).toMatchObject({ backfillShare: 0 });
	});

	it('refuses a baseUrl on a port fetch refuses, alone or in the accounts list, saying why', () => {
		expect(problems({ ...minimal, baseUrl: 'https://tec.example.com:6000' })).toMatch(/baseUrl: port 6000 is one fetch refuses .*"bad port"/);
		const accounts = JSON.stringify([{ id: 'a', environment: 'production', baseUrl: 'https://tec.example.com:10080' }, { id: 'b', environment: 'production', baseUrl: 'https://tec.example.com' }]);
		expect(problems({ ...minimal, baseUrl: undefined, accounts })).toMatch(/accounts\[0\] "a": .*port 10080 is one fetch refuses/);
		expect(parseConfig({ ...minimal, baseUrl: 'https://tec.example.com:8443' }).accounts[0].baseUrl).toBe('https://tec.example.com:8443');
	});

	it('names the required settings when they are missing', () => {
		const message = problems({});
		expect(message).toContain('baseUrl is required');
		expect(message).toContain('alertEmails is required');
		expect(problems({ ...minimal, alertEmails: '' })).toContain('alertEmails is required');
		expect(problems({ ...minimal, baseUrl: 'not a url' })).toContain('baseUrl "not a url" is not a URL');
		expect(problems({ ...minimal, baseUrl: 'https://user:pw@tec.example.com' })).toContain('must not contain a user name or password');
		expect(problems({ ...minimal, alertEmails: 'a@example.com,A@example.com' })).toContain('listed twice');
	});

	it('reads the CDK context, and the defaults in cdk.json are valid (npm run synth uses them)', () => {
		const cdkJson = JSON.parse(readFileSync(join(__dirname, '../../cdk.json'), 'utf8')) as { app: string; context: Record<string, unknown> };
		expect(cdkJson.app).toBe('npx tsx infra/app.ts');
		const app = new App({ context: cdkJson.context });
		expect(configFromContext((k) => app.node.tryGetContext(k))).toMatchObject({ environment: 'sandbox', scheduleRateMinutes: 5, alertEmails: ['alerts@example.com'] });
		const overridden = new App({ context: { ...cdkJson.context, baseUrl: 'https://tec.acme.test', alertEmails: 'x@acme.test' } });
		expect(configFromContext((k) => overridden.node.tryGetContext(k))).toMatchObject({ baseUrl: 'https://tec.acme.test', alertEmails: ['x@acme.test'] });
	});

	it('the e-mails\' language: -c locale=de, and per recipient in recipients.locales; anything else named with the valid values', () => {
		const recipients = JSON.stringify({ default: ['ops@example.com'], customers: { 'Acme GmbH': ['anna@acme.example'] }, locales: { 'Acme GmbH': 'en' } });
		const app = new App({ context: { ...minimal, locale: 'de', recipients } });
		expect(configFromContext((k) => app.node.tryGetContext(k)).email).toMatchObject({ locale: 'de', recipients: { locales: { 'Acme GmbH': 'en' } } });
		expect(problems({ ...minimal, locale: 'fr' })).toContain('locale must be one of en, de');
		expect(problems({ ...minimal, recipients: JSON.stringify({ default: ['ops@example.com'], locales: { default: 'english' } }) })).toContain('recipients.locales["default"]: "english" is not a locale; valid values are en, de');
	});
});

describe('cdk.json feature flags', () => {
	it('holds every flag aws-cdk-lib recommends for the installed version, with its recommended value', () => {
		const recommended = JSON.parse(readFileSync(require.resolve('aws-cdk-lib/recommended-feature-flags.json'), 'utf8')) as Record<string, unknown>;
		expect(FEATURE_FLAGS).toEqual(recommended);
	});
});
