import { ServiceError } from './errors';
import { IDEMPOTENT_METHODS, type HttpMethod } from './http';

export interface RetryOptions {
	/** Attempts in all, the first included (Infinity: as many as maxTotalWaitMs allows). */
	maxAttempts: number;
	/** Upper bound of the time spent waiting between attempts of one request. */
	maxTotalWaitMs: number;
	baseDelayMs: number;
	maxDelayMs: number;
	/** 451 (maintenance) waits start here: maintenance lasts minutes, not milliseconds. */
	maintenanceDelayMs: number;
	random: () => number;
}

export const DEFAULT_RETRY: RetryOptions = {
	maxAttempts: 6,
	maxTotalWaitMs: 90_000,
	baseDelayMs: 500,
	maxDelayMs: 20_000,
	maintenanceDelayMs: 10_000,
	random: Math.random,
};

/**
 * The retries of a caller that promises a wait budget (the n8n node's and trigger's Max Retry
 * Wait): attempts until the budget is spent, each wait capped by maxDelayMs. A count of attempts
 * would end a 30 s outage's retries after about 11 s of a 120 s budget.
 */
export function budgetRetry(maxTotalWaitMs?: number): Partial<RetryOptions> {
	return { maxAttempts: Number.POSITIVE_INFINITY, ...(maxTotalWaitMs === undefined ? {} : { maxTotalWaitMs }) };
}

/**
 * The least wait between two attempts: a Retry-After of 0 on every answer must still spend the
 * budget, or attempts bounded only by it would never end.
 */
export function leastDelay(options: RetryOptions): number {
	return Math.max(1, options.baseDelayMs / 2);
}

/**
 * Whether an attempt that failed with `error` may be repeated.
 * 429 and 451 mean the service refused the request before acting on it, so every method may be
 * repeated. 5xx, network errors and unreadable answers leave the outcome unknown: only
 * idempotent methods (GET, PUT, DELETE) are repeated; a POST is never sent twice.
 */
export function isRetryable(error: ServiceError, method: HttpMethod): boolean {
	if (error.kind === 'rateLimit' || error.kind === 'maintenance') return true;
	if (error.kind === 'server' || error.kind === 'network' || error.kind === 'invalidResponse') {
		return IDEMPOTENT_METHODS.has(method);
	}
	return false;
}

/** Wait before attempt `failures + 1`: Retry-After when given, else exponential backoff with jitter. */
export function retryDelay(error: ServiceError, failures: number, options: RetryOptions): number {
	if (error.retryAfterMs !== undefined) return error.retryAfterMs;
	const base = error.kind === 'maintenance' ? options.maintenanceDelayMs : options.baseDelayMs;
	const cap = Math.min(options.maxDelayMs, base * 2 ** Math.max(0, failures - 1));
	// "Equal jitter": never retry at once, never in lockstep with other callers.
	return Math.round(cap / 2 + options.random() * (cap / 2));
}

/** `Retry-After` as seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(header: string | undefined, now: number): number | undefined {
	if (header === undefined) return undefined;
	const text = header.trim();
	if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
	const at = Date.parse(text);
	return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
