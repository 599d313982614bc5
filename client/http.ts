import { redactSecret } from './errors';

/**
 * The one seam between the client core and the network. Each face injects its own:
 * n8n's `httpRequestWithAuthentication` in the node, undici in the Lambdas and the runner.
 * The request function adds authentication itself, so the core never holds a token.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpRequest {
	method: HttpMethod;
	/** Absolute URL, query string included. */
	url: string;
	headers: Record<string, string>;
	/** JSON text for writes. */
	body?: string;
	/** `binary` for file downloads; JSON endpoints use `text`. */
	responseType: 'text' | 'binary';
	timeoutMs: number;
}

export interface HttpResponse {
	status: number;
	/** Header names in lower case. */
	headers: Record<string, string | undefined>;
	body: string | Uint8Array;
}

/**
 * Resolves with any HTTP status (never throws for 4xx/5xx); rejects only when no response
 * arrived (connection refused or dropped, timeout).
 */
export type RequestFn = (request: HttpRequest) => Promise<HttpResponse>;

/** Time, injected so pacing and retries are testable and n8n can supply its own sleep. */
export interface Clock {
	now(): number;
	sleep(ms: number): Promise<void>;
}

export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

export const IDEMPOTENT_METHODS: ReadonlySet<HttpMethod> = new Set(['GET', 'PUT', 'DELETE']);

export function bodyText(body: string | Uint8Array): string {
	return typeof body === 'string' ? body : new TextDecoder().decode(body);
}

/**
 * An answer with the token removed from its headers and text (see `redactSecret`). A successful
 * binary answer is a file the user asked for and is passed on untouched.
 */
export function redactResponse(response: HttpResponse, secret: string | undefined): HttpResponse {
	if (!secret) return response;
	const headers: HttpResponse['headers'] = {};
	for (const [name, value] of Object.entries(response.headers)) headers[name] = value === undefined ? value : redactSecret(value, secret);
	const file = typeof response.body !== 'string' && response.status >= 200 && response.status < 300;
	const body = file ? response.body : redactSecret(bodyText(response.body), secret);
	return { status: response.status, headers, body: typeof response.body === 'string' || file ? body : new TextEncoder().encode(body as string) };
}
