import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod/v4';
import { AccountsError, parseAccounts, singleAccount, type AccountSettings } from '../lambdas/accounts';
import { MIN_BACKFILL_SHARE } from '../lambdas/pollers/context';
import { refusedPort, type ServiceProfile } from '../client';
import { readProfileFile } from '../client/node/profileSchema';
import { allRecipients, emailSettingsSchema, type EmailSettings } from '../lambdas/email/settings';

/**
 * The stack's settings, from CDK context (`cdk deploy -c key=value`, or cdk.json) or props.
 * Context values from the command line are strings; cdk.json may hold numbers and arrays.
 */
export interface AlertsConfig {
	/**
	 * Which Test Equipment Cloud environment the token belongs to. With `accounts`, the accounts' own
	 * (each account's state is kept under its own): production when any account is (the table's
	 * deletion protection, the topic's and dashboard's names).
	 */
	environment: 'sandbox' | 'production';
	/** The service's base address (https, without /api/v1); with `accounts`, each account has its own. */
	baseUrl?: string;
	/**
	 * The accounts polled (context `accounts`: a JSON file's path, or the array itself; lambdas/accounts.ts).
	 * Without it, the single account of `baseUrl` and `environment`, as a list of one.
	 */
	accounts: AccountSettings[];
	/** Minutes between polls: a divisor of 60 (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30) or 60. */
	scheduleRateMinutes: number;
	/** IANA time zone the schedule (and the e-mail's times) run in. */
	timeZone: string;
	/** Hours of the day (in timeZone) to poll, `H-H` inclusive, e.g. `6-20`; `*` = all day. */
	activeHours: string;
	/** Who gets the overdue e-mails and the alarms (each confirms a subscription e-mail). */
	alertEmails: string[];
	/** An n8n Webhook node's production URL (https); when set, events go there too. */
	n8nWebhookUrl?: string;
	/** Re-send `Device Overdue` every N days while a device stays overdue (0 = never). */
	reminderDays: number;
	/** Test results dated up to N days before the watermark are still picked up. */
	lookbackDays: number;
	/** Lead stages of `Device Due Soon` in days, as "30,7" ("0" = off); unset = the pollers' default. */
	dueSoonDays?: string;
	/** The share of a measured value's limit at or above which Test Result Near Limit is announced (0 < x ≤ 1). */
	nearLimitThreshold: number;
	/** The share of the token's requests the first run's backfill of measured values may take (0 = off, else from MIN_BACKFILL_SHARE to 1). */
	backfillShare: number;
	/**
	 * The alert e-mails (context keys mailFrom, recipients, digestHour, immediateFailedTests, locale,
	 * customerNotices, intervals; lambdas/email/settings.ts). Without recipients, everything goes to alertEmails.
	 */
	email: EmailSettings;
	/** The service profile (context `serviceProfile`: a JSON file), checked at synth; unset = the defaults. */
	serviceProfile?: ServiceProfile;
	/** A fixed name for the state table, set on a first deploy and kept (infra/constructs/state.ts); unset or `generated` = CloudFormation's. */
	stateTableName?: string;
}

export const CONTEXT_KEYS = [
	'environment',
	'baseUrl',
	'scheduleRateMinutes',
	'timeZone',
	'activeHours',
	'alertEmails',
	'n8nWebhookUrl',
	'reminderDays',
	'lookbackDays',
	'dueSoonDays',
	'nearLimitThreshold',
	'backfillShare',
	'mailFrom',
	'recipients',
	'digestHour',
	'immediateFailedTests',
	'locale',
	'customerNotices',
	'intervals',
	'accounts',
	'serviceProfile',
	'stateTableName',
] as const;

export const DEFAULTS = {
	environment: 'sandbox',
	scheduleRateMinutes: 5,
	timeZone: 'UTC',
	activeHours: '*',
	reminderDays: 7,
	lookbackDays: 7,
	nearLimitThreshold: 0.8,
	backfillShare: 0.5,
} as const;

export class ConfigError extends Error {
	override readonly name = 'ConfigError';
}

const RATES = [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60];
const EMAIL = /^[^\s@,;<>"]+@[^\s@,;<>"]+\.[^\s@,;<>"]+$/;

const blankToUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);

function whole(name: string, fallback: number, min: number, max: number) {
	return z.preprocess(
		blankToUndefined,
		z
			.union([z.number(), z.string()])
			.optional()
			.transform((v, ctx) => {
				if (v === undefined) return fallback;
				const n = typeof v === 'number' ? v : Number(v.trim());
				if (!Number.isInteger(n) || n < min || n > max) {
					ctx.addIssue({ code: 'custom', message: `${name} must be a whole number from ${min} to ${max}, got "${v}"` });
					return z.NEVER;
				}
				return n;
			}),
	);
}

/** A share of a whole, from above 0 (or from 0, `off`) to at most 1, as the pollers read it (lambdas/config.ts). */
/** A share above 0 and at most 1; with `off`, 0 (off) or a share from `off.least` to at most 1. */
function share(name: string, fallback: number, off?: { least: number }) {
	return z.preprocess(
		blankToUndefined,
		z
			.union([z.number(), z.string()])
			.optional()
			.transform((v, ctx) => {
				if (v === undefined) return fallback;
				const n = typeof v === 'number' ? v : /^\s*\d*\.?\d+\s*$/.test(v) ? Number(v) : Number.NaN;
				if (!Number.isFinite(n) || !((off ? n === 0 || n >= off.least : n > 0) && n <= 1)) {
					ctx.addIssue({ code: 'custom', message: `${name} must be ${off ? `0 (off) or a share from ${off.least}` : 'a share above 0'} to at most 1 (for example ${fallback}), got "${String(v)}"` });
					return z.NEVER;
				}
				return n;
			}),
	);
}

function httpsUrl(name: string, example: string, allowQuery: boolean) {
	return z.string({ error: `${name} is required, e.g. ${example}` }).transform((v, ctx) => {
		let url: URL;
		try {
			url = new URL(v.trim());
		} catch {
			ctx.addIssue({ code: 'custom', message: `${name} "${v}" is not a URL; expected e.g. ${example}` });
			return z.NEVER;
		}
		if (url.protocol !== 'https:') ctx.addIssue({ code: 'custom', message: `${name} must use https (the Lambda functions and EventBridge reach it over the internet), got "${v}"` });
		if (url.username || url.password) ctx.addIssue({ code: 'custom', message: `${name} must not contain a user name or password` });
		if (url.hash) ctx.addIssue({ code: 'custom', message: `${name} must not contain a fragment` });
		if (url.search && !allowQuery) ctx.addIssue({ code: 'custom', message: `${name} must not contain a query string` });
		// The service's address only: EventBridge, not fetch, calls the n8n webhook.
		const port = name === 'baseUrl' ? refusedPort(url) : undefined;
		if (port) ctx.addIssue({ code: 'custom', message: `${name}: ${port}` });
		return url.toString().replace(/\/+$/, '');
	});
}

function isTimeZone(v: string): boolean {
	try {
		new Intl.DateTimeFormat('en', { timeZone: v });
		return v.includes('/') || v === 'UTC';
	} catch {
		return false;
	}
}

const Schema = z.object({
	environment: z.preprocess(
		(v) => blankToUndefined(v) ?? DEFAULTS.environment,
		z.enum(['sandbox', 'production'], { error: (i) => `environment must be sandbox or production, got "${String(i.input)}"` }),
	),
	baseUrl: z.preprocess(blankToUndefined, httpsUrl('baseUrl', 'https://tec.example.com', false).optional()),
	scheduleRateMinutes: whole('scheduleRateMinutes', DEFAULTS.scheduleRateMinutes, 1, 60).refine((n) => RATES.includes(n), {
		message: `scheduleRateMinutes must be one of ${RATES.join(', ')} (a divisor of 60, so the polls keep the same minutes every hour)`,
	}),
	timeZone: z.preprocess(
		(v) => blankToUndefined(v) ?? DEFAULTS.timeZone,
		z.string().superRefine((v, ctx) => {
			if (!isTimeZone(v)) ctx.addIssue({ code: 'custom', message: `timeZone must be an IANA time zone such as Europe/Berlin or UTC, got "${v}"` });
		}),
	),
	activeHours: z.preprocess(
		(v) => blankToUndefined(v) ?? DEFAULTS.activeHours,
		z.string().transform((v, ctx) => {
			const t = v.trim();
			if (t === '*') return t;
			const m = /^(\d{1,2})-(\d{1,2})$/.exec(t);
			if (!m || Number(m[1]) > 23 || Number(m[2]) > 23 || Number(m[1]) >= Number(m[2])) {
				ctx.addIssue({ code: 'custom', message: `activeHours must be * or a range of hours like 6-20 (0 to 23, start before end), got "${v}"` });
				return z.NEVER;
			}
			return `${Number(m[1])}-${Number(m[2])}`;
		}),
	),
	alertEmails: z.preprocess(
		(v) => (typeof v === 'string' ? v.split(/[,;\s]+/).filter(Boolean) : v),
		z
			.array(z.string(), { error: 'alertEmails is required: one or more e-mail addresses, comma separated' })
			.min(1, 'alertEmails is required: one or more e-mail addresses, comma separated')
			.max(20, 'alertEmails: at most 20 addresses (use a mailing list for more)')
			.superRefine((list, ctx) => {
				for (const e of list) if (!EMAIL.test(e)) ctx.addIssue({ code: 'custom', message: `alertEmails: "${e}" is not an e-mail address` });
				if (new Set(list.map((e) => e.toLowerCase())).size !== list.length) ctx.addIssue({ code: 'custom', message: 'alertEmails: an address is listed twice' });
			}),
	),
	n8nWebhookUrl: z.preprocess(blankToUndefined, httpsUrl('n8nWebhookUrl', 'https://n8n.example.com/webhook/test-equipment-cloud', true).optional()),
	reminderDays: whole('reminderDays', DEFAULTS.reminderDays, 0, 365),
	lookbackDays: whole('lookbackDays', DEFAULTS.lookbackDays, 1, 90),
	nearLimitThreshold: share('nearLimitThreshold', DEFAULTS.nearLimitThreshold),
	backfillShare: share('backfillShare', DEFAULTS.backfillShare, { least: MIN_BACKFILL_SHARE }),
	dueSoonDays: z.preprocess(
		(v) => (Array.isArray(v) ? v.join(',') : typeof v === 'number' ? String(v) : blankToUndefined(v)),
		z
			.string()
			.regex(/^\s*\d{1,3}(\s*,\s*\d{1,3})*\s*$/, 'dueSoonDays must be whole days separated by commas, like 30,7 (0 = off)')
			.transform((v) => v.replace(/\s/g, ''))
			.optional(),
	),
	stateTableName: z.preprocess(
		blankToUndefined,
		z
			.string()
			.regex(/^[A-Za-z0-9_.-]{3,255}$/, 'stateTableName must be a DynamoDB table name (3 to 255 letters, digits, _ . -) or "generated" (the name CloudFormation gives the table, the default)')
			.optional(),
	),
	// A file, read and checked here with the messages every face gives (the key path, what is allowed).
	serviceProfile: z.preprocess(
		blankToUndefined,
		z
			.string({ error: 'serviceProfile must be the path of a service profile JSON file (see docs/service-profile.md)' })
			.transform((file, ctx) => {
				try {
					return readProfileFile(file);
				} catch (error) {
					ctx.addIssue({ code: 'custom', message: (error as Error).message });
					return z.NEVER;
				}
			})
			.optional(),
	),
});

/** Checks and normalises the settings; every problem is listed in one error. */
export function parseConfig(input: Record<string, unknown>): AlertsConfig {
	const parsed = Schema.safeParse(input);
	const recipients = blankToUndefined(input.recipients) ?? (parsed.success ? { default: parsed.data.alertEmails } : { default: ['alerts@example.com'] });
	const email = emailSettingsSchema().safeParse({ ...input, recipients });
	const accounts = readAccounts(blankToUndefined(input.accounts), blankToUndefined(input.baseUrl) !== undefined, parsed.data, email.data?.recipients);
	if (!parsed.success || !email.success || typeof accounts === 'string') {
		const issues = [...(parsed.error?.issues ?? []), ...(email.error?.issues ?? []), ...(typeof accounts === 'string' ? [{ message: accounts }] : [])];
		const problems = issues.map((i) => `  - ${i.message}`).join('\n');
		throw new ConfigError(
			`The TestEquipmentCloudAlerts settings are not valid:\n${problems}\nSet them with -c key=value (cdk deploy -c baseUrl=https://... -c alertEmails=ops@example.com) or in cdk.json "context"; see docs/aws-deployment.md, "Deploy".`,
		);
	}
	// With an accounts list the accounts say which environment they are; `environment` (cdk.json's
	// "sandbox") would name the stack and keep its table unprotected beside production accounts.
	const environment = blankToUndefined(input.accounts) === undefined ? parsed.data.environment : accounts.some((a) => a.environment === 'production') ? 'production' : 'sandbox';
	return { ...(parsed.data as Omit<AlertsConfig, 'email' | 'accounts'>), environment, accounts, email: email.data };
}

/** The accounts list (or the single account as a list of one); a string says what is wrong. */
function readAccounts(
	input: unknown,
	hasBaseUrl: boolean,
	settings: { baseUrl?: string; environment: 'sandbox' | 'production' } | undefined,
	defaultRecipients: EmailSettings['recipients'] | undefined,
): AccountSettings[] | string {
	if (input === undefined) {
		if (!hasBaseUrl) return 'baseUrl is required, e.g. https://tec.example.com (or give an accounts list: -c accounts=accounts.json)';
		return settings?.baseUrl === undefined ? [] : singleAccount({ environment: settings.environment, baseUrl: settings.baseUrl });
	}
	let list = input;
	if (typeof input === 'string') {
		const text = input.trim();
		try {
			list = JSON.parse(text.startsWith('[') ? text : readFileSync(resolve(text), 'utf8'));
		} catch (error) {
			return `accounts: "${text}" is neither a readable JSON file nor a JSON array (${(error as Error).message})`;
		}
	}
	try {
		return parseAccounts(list, { source: typeof input === 'string' ? `context accounts, ${input}` : 'context accounts', httpsOnly: true, defaultRecipients });
	} catch (error) {
		if (error instanceof AccountsError) return error.message.replace(/\n {2}- /g, '\n    ');
		throw error;
	}
}

/** A host of the documentation's examples (example.com/.org/.net, .example, .invalid): nobody reads mail or answers there. */
export const isPlaceholderHost = (host: string): boolean => /(^|\.)example\.(com|org|net)$|\.example$|\.invalid$/i.test(host);

/**
 * The alarm and alert addresses that are still placeholders (cdk.json's, docs/aws-deployment.md's), each
 * naming its key: e-mail to them bounces, and SES counts bounces against the account.
 */
export function placeholderWarnings(config: AlertsConfig): string[] {
	const out: string[] = [];
	const check = (key: string, addresses: string[]) => {
		for (const a of new Set(addresses)) if (isPlaceholderHost(a.split('@').pop() ?? '')) out.push(`${key}: ${a} is a placeholder; deploy with -c ${key.includes('recipients') ? 'recipients=<JSON>' : 'alertEmails=<your addresses>'} (without recipients everything goes to alertEmails)`);
	};
	check('alertEmails', config.alertEmails);
	check('recipients', allRecipients(config.email.recipients));
	for (const a of config.accounts) if (a.recipients) check(`accounts "${a.id}": recipients`, allRecipients(a.recipients));
	return out;
}

/** Reads the settings from a construct's context (node.tryGetContext). */
export function configFromContext(get: (key: string) => unknown): AlertsConfig {
	const input: Record<string, unknown> = {};
	for (const key of CONTEXT_KEYS) input[key] = get(key);
	return parseConfig(input);
}
