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

export const IDEMPOTENT_METHODS: ReadonlySet<HttpMethod> = new Set(['GET', 'PUT', 'DELETE']);

export function bodyText(body: string | Uint8Array): string {
	return typeof body === 'string' ? body : new TextDecoder().decode(body);
}
