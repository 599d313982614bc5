import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import * as z from 'zod/v4-mini';
import { parseBaseUrl, type ServiceProfile } from '../client';
import { ServiceProfileSchema } from '../client/node/profileSchema';
import { recipientsSchema, type Recipients } from './email/recipients';
import { once } from './once';

/**
 * The accounts one deployment watches: a JSON array, one object per Test Equipment Cloud
 * account (`npm start -- --accounts FILE`, CDK context `accounts`). One schema, read by
 * `npm start` and by the CDK app, so a mistake is named the same way in both. Today's
 * single-account settings become a list of one (`singleAccount`).
 */

/** A short name: letters, digits and `-`; it goes into state keys, dedupe keys, metric dimensions and resource names. */
export const ACCOUNT_ID = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,30}[A-Za-z0-9])?$/;
/** What the single-account settings are called as a list of one; an account of this id keeps their state and keys. */
export const DEFAULT_ACCOUNT_ID = 'default';
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+$/;

const whole = (key: string, min: number, max: number) =>
	z.number({ error: `${key}: expected a whole number from ${min} to ${max}` }).check(z.int(`${key}: expected a whole number from ${min} to ${max}`), z.gte(min, `${key}: expected a whole number from ${min} to ${max}`), z.lte(max, `${key}: expected a whole number from ${min} to ${max}`));

const accountSchema = once(() =>
	z.strictObject(
		{
			id: z.string({ error: 'id: required, a short name of letters, digits and "-" (e.g. "site-berlin")' }).check(z.regex(ACCOUNT_ID, 'id: only letters, digits and "-" (not first or last), at most 32 characters, e.g. "site-berlin"')),
			environment: z.enum(['sandbox', 'production'], { error: 'environment: expected "sandbox" or "production"' }),
			baseUrl: z.string({ error: 'baseUrl: required, the service address, e.g. https://tec.example.com' }),
			/** Local (`npm start`): the environment variable holding the account's token. */
			tokenEnv: z.optional(z.string({ error: 'tokenEnv: expected the name of an environment variable, e.g. "TEC_TOKEN_SITE_BERLIN"' }).check(z.regex(ENV_NAME, 'tokenEnv: expected the name of an environment variable (letters, digits, _), e.g. "TEC_TOKEN_SITE_BERLIN"'))),
			/** AWS: an existing Secrets Manager secret with the token; without it the stack creates one per account. */
			tokenSecretArn: z.optional(z.string({ error: 'tokenSecretArn: expected a Secrets Manager secret ARN' }).check(z.regex(SECRET_ARN, 'tokenSecretArn: expected a Secrets Manager secret ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>)'))),
			recipients: z.optional(z.unknown()),
			/** Lead stages of Device Due Soon in days; [] = off. */
			dueSoonDays: z.optional(z.array(whole('dueSoonDays[]', 0, 365), { error: 'dueSoonDays: expected a list of whole days, e.g. [30, 7] ([] = off)' })),
			reminderDays: z.optional(whole('reminderDays', 0, 365)),
			/** The service's layout for this account (client/profile.ts; a partial profile over the defaults). */
			profile: z.optional(z.unknown()),
		},
		{ error: 'expected an object with id, environment, baseUrl and tokenEnv (locally) or tokenSecretArn (AWS, optional)' },
	),
);

export interface AccountSettings {
	id: string;
	environment: 'sandbox' | 'production';
	/** As written, trimmed (the client parses it again; it was checked here). */
	baseUrl: string;
	tokenEnv?: string;
	tokenSecretArn?: string;
	/** Its own routing, else the deployment's default recipients. */
	recipients?: Recipients;
	dueSoonStages?: number[];
	reminderDays?: number;
	/** Its service profile, checked and merged over the defaults; `profileInput` as written (what the AWS schedules hand on). */
	profile?: ServiceProfile;
	profileInput?: unknown;
	/** The id in its events' `detail.metadata.account`; unset in a single-account setup (its events stay as they were). */
	account?: string;
	/** The id in its dedupe keys, state namespaces and leases; unset for the one account of a single-account setup and for `default`. */
	partition?: string;
}

export class AccountsError extends Error {
	override readonly name = 'AccountsError';
}

export interface ParseAccountsOptions {
	/** Where the list came from, for the message (a file name, "context accounts"). */
	source: string;
	/** The recipients an account without its own gets; without it every account needs `recipients`. */
	defaultRecipients?: Recipients;
	/** On AWS the Lambda functions reach the service over the internet: https only. */
	httpsOnly?: boolean;
	/** Locally: every account needs `tokenEnv`. */
	needTokenEnv?: boolean;
}

/** Checks the list; every problem in one error, each naming the account and the key. */
export function parseAccounts(input: unknown, options: ParseAccountsOptions): AccountSettings[] {
	const problems: string[] = [];
	if (!Array.isArray(input) || input.length === 0) {
		throw new AccountsError(`The accounts list (${options.source}) is not valid: expected a JSON array of one or more accounts, e.g. [{"id": "site-berlin", "environment": "production", "baseUrl": "https://tec.example.com", "tokenEnv": "TEC_TOKEN_BERLIN"}]`);
	}
	const out: AccountSettings[] = [];
	input.forEach((raw, i) => {
		const name = typeof (raw as { id?: unknown })?.id === 'string' ? `accounts[${i}] "${(raw as { id: string }).id}"` : `accounts[${i}]`;
		const parsed = accountSchema().safeParse(raw);
		if (!parsed.success) {
			for (const issue of parsed.error.issues) problems.push(`${name}: ${issue.code === 'unrecognized_keys' ? `unknown key ${issue.keys.map((k) => `"${k}"`).join(', ')}; valid keys are id, environment, baseUrl, tokenEnv, tokenSecretArn, recipients, dueSoonDays, reminderDays, profile` : issue.message}`);
			return;
		}
		const a = parsed.data;
		try {
			const base = parseBaseUrl(a.baseUrl, 'baseUrl');
			if (options.httpsOnly && !base.origin.startsWith('https:')) problems.push(`${name}: baseUrl: must use https (the Lambda functions reach the service over the internet), got "${a.baseUrl}"`);
		} catch (error) {
			problems.push(`${name}: ${(error as Error).message}`);
		}
		if (options.needTokenEnv && a.tokenEnv === undefined) problems.push(`${name}: tokenEnv: required, the name of the environment variable that holds this account's token`);
		let recipients: Recipients | undefined;
		if (a.recipients !== undefined) {
			const r = recipientsSchema().safeParse(a.recipients);
			if (r.success) recipients = r.data;
			else for (const issue of r.error.issues) problems.push(`${name}: ${issue.message}`);
		} else if (!options.defaultRecipients) {
			problems.push(`${name}: recipients: required, as no default recipients are set (give the account {"default": ["lab@example.com"]} or set the deployment's recipients)`);
		}
		let profile: ServiceProfile | undefined;
		if (a.profile !== undefined) {
			const p = ServiceProfileSchema.safeParse(a.profile);
			if (p.success) profile = p.data;
			else for (const issue of p.error.issues) problems.push(`${name}: ${['profile', ...issue.path.map(String)].join('.')}: ${issue.message}`);
		}
		out.push({
			id: a.id,
			environment: a.environment,
			baseUrl: a.baseUrl.trim(),
			tokenEnv: a.tokenEnv,
			tokenSecretArn: a.tokenSecretArn,
			recipients,
			dueSoonStages: a.dueSoonDays?.filter((d) => d > 0),
			reminderDays: a.reminderDays,
			...(profile ? { profile, profileInput: a.profile } : {}),
		});
	});
	const byId = new Map<string, string>();
	out.forEach((a) => {
		const previous = byId.get(a.id.toLowerCase());
		if (previous) problems.push(`accounts "${previous}" and "${a.id}": id: listed twice (ids must differ, whatever their case)`);
		else byId.set(a.id.toLowerCase(), a.id);
	});
	sharedToken(out, (a) => a.tokenEnv, 'tokenEnv', problems);
	sharedToken(out, (a) => a.tokenSecretArn, 'tokenSecretArn', problems);
	if (problems.length > 0) throw new AccountsError(`The accounts list (${options.source}) is not valid:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
	return withPartitions(out);
}

/** Two accounts on one token would share one budget of 5 requests per second: refused, naming both. */
function sharedToken(accounts: AccountSettings[], of: (a: AccountSettings) => string | undefined, key: string, problems: string[]): void {
	const seen = new Map<string, string>();
	for (const a of accounts) {
		const value = of(a);
		if (value === undefined) continue;
		const first = seen.get(value);
		if (first) problems.push(`accounts "${first}" and "${a.id}": ${key}: the same token for two accounts (they would share one budget of 5 requests per second); give each account its own token`);
		else seen.set(value, a.id);
	}
}

function withPartitions(accounts: AccountSettings[]): AccountSettings[] {
	if (accounts.length === 1) return accounts;
	return accounts.map((a) => ({ ...a, account: a.id, partition: a.id === DEFAULT_ACCOUNT_ID ? undefined : a.id }));
}

/** Reads and checks an accounts file. */
export function readAccountsFile(path: string, options: Omit<ParseAccountsOptions, 'source'>): AccountSettings[] {
	const full = resolve(path);
	let json: unknown;
	try {
		json = JSON.parse(readFileSync(full, 'utf8'));
	} catch (error) {
		const e = error as NodeJS.ErrnoException;
		throw new AccountsError(e.code === 'ENOENT' ? `The accounts file ${full} does not exist` : `The accounts file ${full} is not JSON (${e.message})`);
	}
	return parseAccounts(json, { ...options, source: full });
}

/** Today's single-account settings as a list of one: nothing about its events or state changes. */
export function singleAccount(settings: Omit<AccountSettings, 'id' | 'account' | 'partition'>): AccountSettings[] {
	return [{ id: DEFAULT_ACCOUNT_ID, ...settings }];
}

/**
 * The tokens of the accounts from the environment (`npm start`): a missing or empty variable, or
 * two accounts whose variables hold the same token, refused naming the account and the key.
 */
export function tokensFromEnv(accounts: AccountSettings[], env: Record<string, string | undefined>): Map<string, string> {
	const problems: string[] = [];
	const tokens = new Map<string, string>();
	const owner = new Map<string, string>();
	for (const a of accounts) {
		const value = a.tokenEnv ? env[a.tokenEnv]?.trim() : undefined;
		if (!a.tokenEnv) problems.push(`account "${a.id}": tokenEnv: required, the name of the environment variable that holds its token`);
		else if (!value) problems.push(`account "${a.id}": tokenEnv: the environment variable ${a.tokenEnv} is not set (put the account's access token in it)`);
		else if (owner.has(value)) problems.push(`accounts "${owner.get(value)}" and "${a.id}": tokenEnv: ${accounts.find((x) => x.id === owner.get(value))?.tokenEnv} and ${a.tokenEnv} hold the same token (the accounts would share one budget of 5 requests per second)`);
		else {
			owner.set(value, a.id);
			tokens.set(a.id, value);
		}
	}
	if (problems.length > 0) throw new AccountsError(`The accounts' tokens are not usable:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
	return tokens;
}

/**
 * What a poller's schedule hands it when the deployment watches several accounts (one schedule per
 * account and poller, infra/constructs/pollers.ts): the account to read, checked at the start of
 * the invocation.
 */
export const scheduledAccountSchema = once(() =>
	z.object({
		id: z.string().check(z.regex(ACCOUNT_ID)),
		environment: z.enum(['sandbox', 'production']),
		baseUrl: z.string().check(z.minLength(1)),
		tokenSecretArn: z.string().check(z.minLength(1)),
		account: z.string().check(z.regex(ACCOUNT_ID)),
		partition: z.optional(z.string().check(z.regex(ACCOUNT_ID))),
		dueSoonStages: z.optional(z.array(z.number().check(z.int(), z.gte(1), z.lte(365)))),
		reminderDays: z.optional(z.number().check(z.int(), z.gte(0), z.lte(365))),
		/** As the list gave it; merged over the defaults when read. */
		profile: z.optional(z.unknown()),
	}),
);
export type ScheduledAccount = z.input<ReturnType<typeof scheduledAccountSchema>>;

/** The account in a scheduled invocation's input, or undefined when it names none (a single-account deployment). */
export function scheduledAccount(input: unknown): (Omit<ScheduledAccount, 'profile'> & { profile?: ServiceProfile }) | undefined {
	if (input === null || typeof input !== 'object' || !('account' in input)) return undefined;
	const parsed = z.extend(scheduledAccountSchema(), { profile: z.optional(ServiceProfileSchema) }).safeParse((input as { account: unknown }).account);
	if (!parsed.success) throw new AccountsError(`The schedule's input names no valid account: ${parsed.error.issues.map((i) => `account.${i.path.join('.')}: ${i.message}`).join('; ')}`);
	return parsed.data;
}
