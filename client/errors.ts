/**
 * Every failure the service (or the way to it) can produce, as one typed error.
 * Statuses come from the spec's error table; the messages say what a user can do about it.
 */

export type ServiceErrorKind =
	| 'badRequest'
	| 'auth'
	| 'notFound'
	| 'precondition'
	| 'permission'
	| 'license'
	| 'rateLimit'
	| 'maintenance'
	| 'server'
	| 'network'
	| 'invalidResponse'
	/** A redirect the client will not follow (another origin, or a write turned into a GET). */
	| 'redirect';

interface StatusRule {
	kind: ServiceErrorKind;
	retryable: boolean;
	message: string;
}

/** The spec's error table, plus the statuses any HTTP service may answer. */
const STATUS_RULES: Record<number, StatusRule> = {
	400: { kind: 'badRequest', retryable: false, message: 'The service rejected the request: incorrect or missing parameters' },
	401: {
		kind: 'auth',
		retryable: false,
		message:
			'The access token is invalid, expired or deleted, or it belongs to the other environment (sandbox and production tokens are not interchangeable)',
	},
	404: { kind: 'notFound', retryable: false, message: 'The requested item does not exist (it may have been deleted)' },
	410: { kind: 'notFound', retryable: false, message: 'The link has expired or no longer exists (download links are valid for 5 minutes)' },
	412: { kind: 'precondition', retryable: false, message: 'Precondition failed: the item is not in a state that allows this change (for example it was deleted)' },
	413: {
		kind: 'permission',
		retryable: false,
		message:
			'The access token lacks the permission scope for this request; change its scopes on the Administration page, API Access tab',
	},
	426: { kind: 'license', retryable: false, message: 'The account licence has expired; renew it to use the interface' },
	427: { kind: 'license', retryable: false, message: 'The account licence has expired; renew it to use the interface' },
	429: { kind: 'rateLimit', retryable: true, message: 'Too many requests: the limit is 5 requests per second per access token' },
	451: { kind: 'maintenance', retryable: true, message: 'The service is under maintenance; try again later' },
};

export function ruleForStatus(status: number): StatusRule {
	const rule = STATUS_RULES[status];
	if (rule) return rule;
	if (status >= 500) return { kind: 'server', retryable: true, message: `Unexpected server error (HTTP ${status})` };
	return { kind: 'badRequest', retryable: false, message: `The service rejected the request (HTTP ${status})` };
}

export interface ServiceErrorInit {
	kind: ServiceErrorKind;
	message: string;
	status?: number;
	retryable?: boolean;
	description?: string;
	bodyExcerpt?: string;
	retryAfterMs?: number;
	method?: string;
	path?: string;
	cause?: unknown;
	advice?: string;
}

export class ServiceError extends Error {
	override readonly name = 'ServiceError';
	readonly kind: ServiceErrorKind;
	readonly status?: number;
	readonly retryable: boolean;
	/** The service's own `description` field, when the body carried one. */
	readonly description?: string;
	readonly bodyExcerpt?: string;
	readonly retryAfterMs?: number;
	readonly method?: string;
	/** Path under /api/v1 without the query string (queries may hold user data). */
	readonly path?: string;
	/**
	 * What the client adds to the service's refusal, e.g. that the wait the service asked for is
	 * longer than the caller's retry budget. Faces show it after the status message.
	 */
	readonly advice?: string;
	/**
	 * Set by the client when an earlier attempt of the same request may have reached the service
	 * (no answer, an unreadable answer or a 5xx): this answer may describe the first attempt's effect.
	 */
	afterUncertainAttempt = false;
	/**
	 * Set by the client when an earlier attempt got no answer or one cut off or unreadable (not a
	 * 5xx the service answered whole): what that attempt did is unknown to the caller.
	 */
	afterLostAnswer = false;
	/**
	 * Set by the client when an earlier attempt got a success (2xx) answer that was cut off or
	 * unreadable: that request surely arrived and was accepted.
	 */
	afterAcceptedAttempt = false;

	constructor(init: ServiceErrorInit) {
		super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
		this.kind = init.kind;
		this.status = init.status;
		this.retryable = init.retryable ?? false;
		this.description = init.description;
		this.bodyExcerpt = init.bodyExcerpt;
		this.retryAfterMs = init.retryAfterMs;
		this.method = init.method;
		this.path = init.path;
		this.advice = init.advice;
	}
}

/** Bad input caught before any request: names the parameter and what would be valid. */
export class ValidationError extends Error {
	override readonly name = 'ValidationError';
	constructor(
		readonly parameter: string,
		message: string,
	) {
		super(`${parameter}: ${message}`);
	}
}

/** How every face names a request that got no answer in time (n8n and undici word it differently). */
export function noAnswerWithin(timeoutMs: number): string {
	return `no answer within the timeout of ${timeoutMs / 1000} s`;
}

export const EXCERPT_LENGTH = 200;

export function excerpt(text: string): string {
	const flat = text.replace(/\s+/g, ' ').trim();
	return flat.length > EXCERPT_LENGTH ? `${flat.slice(0, EXCERPT_LENGTH)}…` : flat;
}

/** Reads `description` from an error body without ever throwing. */
export function descriptionOf(body: unknown): string | undefined {
	if (body && typeof body === 'object' && !Array.isArray(body)) {
		const d = (body as Record<string, unknown>).description;
		if (typeof d === 'string' && d.length > 0) return d;
		if (d !== undefined && d !== null) return JSON.stringify(d);
	}
	return undefined;
}

export function errorFromResponse(args: {
	status: number;
	bodyText: string;
	method: string;
	path: string;
	retryAfterMs?: number;
}): ServiceError {
	const rule = ruleForStatus(args.status);
	const parsed = tryParseJson(args.bodyText);
	const description = parsed.ok ? descriptionOf(parsed.value) : undefined;
	const detail = description ?? (args.bodyText ? `response: ${excerpt(args.bodyText)}` : undefined);
	return new ServiceError({
		kind: rule.kind,
		status: args.status,
		retryable: rule.retryable,
		description,
		bodyExcerpt: args.bodyText ? excerpt(args.bodyText) : undefined,
		retryAfterMs: args.retryAfterMs,
		method: args.method,
		path: args.path,
		message: `${rule.message} (HTTP ${args.status} on ${args.method} ${args.path})${detail ? `: ${detail}` : ''}`,
	});
}

export type JsonParseResult = { ok: true; value: unknown } | { ok: false; error: string };

export function tryParseJson(text: string): JsonParseResult {
	try {
		return { ok: true, value: JSON.parse(text) as unknown };
	} catch (error) {
		return { ok: false, error: error instanceof Error ? error.message : String(error) };
	}
}

export const REDACTED = '[redacted]';

/**
 * The one redaction of the access token, used by every adapter that holds it: any text it passes
 * on (answers read by the client, error messages, log lines) goes through here first. An upstream
 * that echoes the request's Authorization header must not put the token into errors, logs or
 * saved execution data. Tokens shorter than 8 characters are not secrets worth a blind replace
 * (and would mangle ordinary text); the service's tokens are much longer.
 */
export function redactSecret(text: string, secret: string | undefined): string {
	if (!secret || secret.length < 8 || !text.includes(secret)) return text;
	return text.split(secret).join(REDACTED);
}

/** A wait in words: "45 s", "12 min", "24 h". */
export function describeWait(ms: number): string {
	const s = Math.ceil(ms / 1000);
	if (s < 120) return `${s} s`;
	if (s < 7200) return `${Math.round(s / 60)} min`;
	return `${Math.round((s / 3600) * 10) / 10} h`;
}
