import { parseBaseUrl } from '../client';
import { readAccountsFile, tokensFromEnv, type AccountSettings } from '../lambdas/accounts';
import { connectService } from '../lambdas/adapters/undiciService';
import type { AccountRouting } from '../lambdas/email/accounts';
import type { Recipients } from '../lambdas/email/settings';
import type { Log } from '../lambdas/ports';
import type { RunnerAccount } from '../lambdas/runner';

/**
 * `npm start -- --accounts FILE`: every account of the list with its own client (its own token,
 * so its own budget of 5 requests per second). The list and the tokens are checked before
 * anything runs; a problem names the account and the key.
 */
export interface LocalAccounts {
	settings: AccountSettings[];
	runners: RunnerAccount[];
	/** Every account's token: removed from every line written. */
	tokens: string[];
	/** Each account's e-mail routing (several accounts). */
	routing?: AccountRouting[];
	/** The environment of the account that keeps the single-account state file (else the first's): names the default state files. */
	environment: 'sandbox' | 'production';
}

export function localAccounts(path: string, env: Record<string, string | undefined>, options: { timeoutMs: number; log: Log; defaultRecipients?: Recipients }): LocalAccounts {
	const settings = readAccountsFile(path, { needTokenEnv: true, defaultRecipients: options.defaultRecipients });
	const tokens = tokensFromEnv(settings, env);
	const runners = settings.map((a): RunnerAccount => {
		const token = tokens.get(a.id)!;
		return {
			client: connectService({
				baseUrl: parseBaseUrl(a.baseUrl, `accounts "${a.id}" baseUrl`),
				token,
				environment: a.environment,
				timeoutMs: options.timeoutMs,
				profile: a.profile,
				onEvent: (e) => {
					if (e.type === 'retry') options.log.warn('Retrying a request', { account: a.id, path: e.path, status: e.status, kind: e.kind, waitMs: e.waitMs });
				},
			}),
			environment: a.environment,
			account: a.account,
			partition: a.partition,
			settings: {
				...(a.dueSoonStages === undefined ? {} : { dueSoonStages: a.dueSoonStages }),
				...(a.reminderDays === undefined ? {} : { reminderDays: a.reminderDays }),
			},
		};
	});
	const main = settings.find((a) => a.partition === undefined) ?? settings[0];
	const routing = settings.length > 1 ? settings.map((a) => ({ account: a.id, environment: a.environment, recipients: a.recipients })) : undefined;
	return { settings, runners, tokens: [...tokens.values()], environment: main.environment, routing };
}
