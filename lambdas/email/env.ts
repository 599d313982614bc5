import * as z from 'zod/v4-mini';
import type { AccountRouting } from './accounts';
import { parseEmailSettings, recipientsSchema, type EmailSettings } from './settings';
import { once } from '../once';

/** What the e-mail functions read from their environment, once per cold start. */
const envSchema = once(() =>
	z.object({
		STATE_TABLE: z.string({ error: 'STATE_TABLE is required: the DynamoDB state table' }).check(z.minLength(1, 'STATE_TABLE is required: the DynamoDB state table (it is empty)')),
		EMAIL_SETTINGS: z.string({ error: 'EMAIL_SETTINGS is required: the e-mail settings as JSON (set by the CDK app)' }).check(z.minLength(2, 'EMAIL_SETTINGS is required: the e-mail settings as JSON (set by the CDK app; it is empty)')),
		TIME_ZONE: z._default(z.string(), 'UTC'),
		TEC_ENVIRONMENT: z._default(z.enum(['sandbox', 'production'], { error: 'TEC_ENVIRONMENT must be sandbox or production' }), 'sandbox'),
		SES_CONFIGURATION_SET: z.optional(z.string()),
		/** Several accounts: [{"account", "recipients"?}] (lambdas/email/accounts.ts), set by the CDK app. */
		ACCOUNTS_ROUTING: z.optional(z.string()),
		/** The report function: its sends' idempotency key prefix, the digest function's name (set by the CDK app). */
		SEND_KEY_PREFIX: z.optional(z.string()),
	}),
);

export interface EmailEnv {
	table: string;
	settings: EmailSettings;
	timeZone: string;
	environment: 'sandbox' | 'production';
	configurationSet?: string;
	accounts?: AccountRouting[];
	/** Where the sends' idempotency records are keyed under another function's name (lambdas/adapters/sesMailer.ts). */
	sendKeyPrefix?: string;
}

const routingSchema = once(() =>
	z.array(z.object({ account: z.string().check(z.minLength(1)), environment: z.optional(z.enum(['sandbox', 'production'])), recipients: z.optional(recipientsSchema()) })),
);

export function readEmailEnv(env: Record<string, string | undefined>): EmailEnv {
	const parsed = envSchema().safeParse(env);
	if (!parsed.success) throw new Error(`Invalid configuration: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
	let json: unknown;
	try {
		json = JSON.parse(parsed.data.EMAIL_SETTINGS);
	} catch (error) {
		throw new Error(`Invalid configuration: EMAIL_SETTINGS is not JSON (${(error as Error).message})`);
	}
	return {
		table: parsed.data.STATE_TABLE,
		settings: parseEmailSettings(json, 'EMAIL_SETTINGS'),
		timeZone: parsed.data.TIME_ZONE,
		environment: parsed.data.TEC_ENVIRONMENT,
		configurationSet: parsed.data.SES_CONFIGURATION_SET || undefined,
		accounts: parsed.data.ACCOUNTS_ROUTING ? readRouting(parsed.data.ACCOUNTS_ROUTING) : undefined,
		sendKeyPrefix: parsed.data.SEND_KEY_PREFIX?.trim() || undefined,
	};
}

function readRouting(text: string): AccountRouting[] {
	let json: unknown;
	try {
		json = JSON.parse(text);
	} catch (error) {
		throw new Error(`Invalid configuration: ACCOUNTS_ROUTING is not JSON (${(error as Error).message})`);
	}
	const parsed = routingSchema().safeParse(json);
	if (!Array.isArray(json)) throw new Error(`Invalid configuration: ACCOUNTS_ROUTING: expected a JSON array of {"account", "environment", "recipients"} (one per account, set by the CDK app), got ${text.slice(0, 40)}`);
	if (!parsed.success) throw new Error(`Invalid configuration: ACCOUNTS_ROUTING: ${parsed.error.issues.map((i) => `${i.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '')}: ${i.message}`).join('; ')}`);
	return parsed.data;
}
