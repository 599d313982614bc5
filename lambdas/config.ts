import * as z from 'zod/v4-mini';
// Not z.core.$ZodError: the `core` namespace as a value keeps all of zod's core in a bundle.
import { $ZodError } from 'zod/v4/core';
import { transform } from '../client/node/zodMini';
import { PROFILE_MAX_PAGE_SIZE, parseBaseUrl } from '../client';
import { ServiceProfileSchema } from '../client/node/profileSchema';
import { DEFAULT_ACCOUNT_LEASE_WAIT_MS, DEFAULT_BACKFILL_SHARE, DEFAULT_SETTINGS, MIN_BACKFILL_SHARE, type PollerSettings } from './pollers/context';
import { once } from './once';

/** The pollers' configuration, read from the environment once per cold start. */
const whole = (name: string, fallback: number, min: number, max: number) =>
	z.pipe(
		z.optional(z.string()),
		transform((v: string | undefined, ctx) => {
			if (v === undefined || v === '') return fallback;
			const n = Number(v);
			if (!Number.isInteger(n) || n < min || n > max) {
				ctx.addIssue({ code: 'custom', message: `${name} must be a whole number from ${min} to ${max}, got "${v}"` });
				return z.NEVER;
			}
			return n;
		}),
	);

/** Lead stages as "30,7": whole days from 0 to 365; "0" (or empty stages only) turns Device Due Soon off. */
const stages = (name: string, fallback: number[]) =>
	z.pipe(
		z.optional(z.string()),
		transform((v: string | undefined, ctx) => {
			if (v === undefined || v.trim() === '') return fallback;
			const parts = v.split(',').map((p) => p.trim());
			const days = parts.map(Number);
			if (parts.some((p) => !/^\d+$/.test(p)) || days.some((d) => d > 365)) {
				ctx.addIssue({ code: 'custom', message: `${name} must be whole days from 0 to 365 separated by commas (for example "30,7"; "0" = off), got "${v}"` });
				return z.NEVER;
			}
			return days.filter((d) => d > 0);
		}),
	);

/**
 * A share above 0 and at most 1, written as a decimal ("0.8"); with `off`, 0 (off) or a share
 * from `off.least` to at most 1.
 */
const share = (name: string, fallback: number, off?: { least: number }) =>
	z.pipe(
		z.optional(z.string()),
		transform((v: string | undefined, ctx) => {
			if (v === undefined || v.trim() === '') return fallback;
			const n = Number(v);
			if (!/^\s*\d*\.?\d+\s*$/.test(v) || !((off ? n === 0 || n >= off.least : n > 0) && n <= 1)) {
				ctx.addIssue({ code: 'custom', message: `${name} must be ${off ? `0 (off) or a share from ${off.least}` : 'a share above 0'} to at most 1 (for example "${off ? '0.5' : '0.8'}"), got "${v}"` });
				return z.NEVER;
			}
			return n;
		}),
	);

export const configSchema = once(() =>
	z.object({
		// Parsed once here; the client receives the parsed base URL (and keys the token's budget by it).
		TEC_BASE_URL: z.optional(
			z.pipe(
				z.string(),
				transform((v: string, ctx) => {
					try {
						return parseBaseUrl(v, 'TEC_BASE_URL');
					} catch (error) {
						ctx.addIssue({ code: 'custom', message: (error as Error).message });
						return z.NEVER;
					}
				}),
			),
		),
		TEC_ENVIRONMENT: z._default(z.enum(['sandbox', 'production'], { error: 'TEC_ENVIRONMENT must be sandbox or production' }), 'sandbox'),
		TEC_TOKEN_SECRET_ARN: z.optional(z.string().check(z.minLength(1))),
		/** `schedule`: several accounts, each schedule's input names the account (lambdas/accounts.ts); else the one account of TEC_BASE_URL. */
		TEC_ACCOUNTS: z.optional(z.enum(['schedule'], { error: 'TEC_ACCOUNTS must be "schedule" or unset' })),
		STATE_TABLE: z.string({ error: 'STATE_TABLE is required: the DynamoDB state table' }).check(z.minLength(1, 'STATE_TABLE is required: the DynamoDB state table (it is empty)')),
		EVENT_BUS_NAME: z.string({ error: 'EVENT_BUS_NAME is required: the EventBridge bus to publish to' }).check(z.minLength(1, 'EVENT_BUS_NAME is required: the EventBridge bus to publish to (it is empty)')),
		REMINDER_DAYS: whole('REMINDER_DAYS', DEFAULT_SETTINGS.reminderDays, 0, 365),
		LOOKBACK_DAYS: whole('LOOKBACK_DAYS', DEFAULT_SETTINGS.lookbackDays, 1, 90),
		PAGE_SIZE: whole('PAGE_SIZE', DEFAULT_SETTINGS.pageSize, 1, PROFILE_MAX_PAGE_SIZE),
		DIGEST_MAX_DEVICES: whole('DIGEST_MAX_DEVICES', DEFAULT_SETTINGS.digestMaxDevices, 1, 5000),
		SAFETY_MS: whole('SAFETY_MS', DEFAULT_SETTINGS.safetyMs, 1000, 600_000),
		// How long a run waits for its account's other poller (docs/architecture.md, "Processes sharing one token, and one account's pollers never at once").
		ACCOUNT_LEASE_WAIT_MS: whole('ACCOUNT_LEASE_WAIT_MS', DEFAULT_ACCOUNT_LEASE_WAIT_MS, 0, 900_000),
		DUE_SOON_DAYS: stages('DUE_SOON_DAYS', DEFAULT_SETTINGS.dueSoonStages),
		// Test Result Near Limit: the share of a limit at or above which a passed result is announced.
		NEAR_LIMIT_THRESHOLD: share('NEAR_LIMIT_THRESHOLD', DEFAULT_SETTINGS.nearLimitThreshold),
		// The first run's backfill of recent measured values: the share of the token's requests it may take (0 = none).
		BACKFILL_SHARE: share('BACKFILL_SHARE', DEFAULT_BACKFILL_SHARE, { least: MIN_BACKFILL_SHARE }),
		// The service profile as JSON (infra/ puts the keys that differ from the defaults here); unset = the defaults.
		TEC_SERVICE_PROFILE: z.pipe(
			z.optional(z.string()),
			transform((v: string | undefined, ctx) => {
				if (v === undefined || v.trim() === '') return undefined;
				try {
					return ServiceProfileSchema.parse(JSON.parse(v));
				} catch (error) {
					const message = error instanceof $ZodError ? error.issues.map((i) => i.message).join('; ') : `service profile: is not JSON (${(error as Error).message})`;
					ctx.addIssue({ code: 'custom', message: `TEC_SERVICE_PROFILE: ${message}` });
					return z.NEVER;
				}
			}),
		),
	}),
);

export type Config = z.infer<ReturnType<typeof configSchema>>;

export class ConfigError extends Error {
	override readonly name = 'ConfigError';
}

/** The one wording of a function's configuration error: every problem, each naming its variable. */
export function invalidConfiguration(issues: ReadonlyArray<{ message: string }>): ConfigError {
	return new ConfigError(`Invalid configuration: ${issues.map((i) => i.message).join('; ')}`);
}

export function readConfig(env: Record<string, string | undefined>): Config {
	const parsed = configSchema().safeParse(env);
	const issues: Array<{ message: string }> = [...(parsed.error?.issues ?? [])];
	// One account (no TEC_ACCOUNTS): its address and token secret come from the environment.
	if (env.TEC_ACCOUNTS === undefined) {
		if (!env.TEC_BASE_URL) issues.unshift({ message: 'TEC_BASE_URL is required: the base address of the service (without /api/v1)' });
		if (!env.TEC_TOKEN_SECRET_ARN) issues.push({ message: 'TEC_TOKEN_SECRET_ARN is required: the Secrets Manager secret holding the access token' });
	}
	if (!parsed.success || issues.length > 0) throw invalidConfiguration(issues);
	return parsed.data;
}

export function settingsFrom(config: Config, leaseMs: number): PollerSettings {
	return {
		pageSize: config.PAGE_SIZE,
		reminderDays: config.REMINDER_DAYS,
		lookbackDays: config.LOOKBACK_DAYS,
		digestMaxDevices: config.DIGEST_MAX_DEVICES,
		safetyMs: config.SAFETY_MS,
		leaseMs,
		dueSoonStages: config.DUE_SOON_DAYS,
		nearLimitThreshold: config.NEAR_LIMIT_THRESHOLD,
		backfillShare: config.BACKFILL_SHARE,
	};
}
