import { parseBaseUrl, sameOrigin, type BaseUrl } from './baseUrl';
import { ENDPOINTS, resolvePath, type OperationId } from './catalogue';
import { ServiceError, ValidationError, describeWait, errorFromResponse, excerpt, ruleForStatus, tryParseJson } from './errors';
import { REDIRECT_STATUSES, bodyText, type Clock, type HttpMethod, type HttpResponse, type RequestFn } from './http';
import type { Pacer } from './pacing';
import { pageSignature, readPage } from './pagination';
import { DEFAULT_PAGE_SIZE, MAX_LIMIT, deleteParams, listParams, queryString, validateLimit, validateListQuery, type ListQuery } from './query';
import { DEFAULT_RETRY, isRetryable, parseRetryAfter, retryDelay, type RetryOptions } from './retry';

export type ClientEvent =
	| { type: 'response'; method: HttpMethod; path: string; status: number; durationMs: number; attempt: number }
	| { type: 'retry'; method: HttpMethod; path: string; kind: ServiceError['kind']; status?: number; waitMs: number; attempt: number }
	| { type: 'paginationStopped'; path: string; reason: 'repeatedNext' | 'repeatedPage' };

export interface ServiceClientOptions {
	baseUrl: string | BaseUrl;
	/** Authenticated request function of the face (it adds the token). */
	request: RequestFn;
	/** Unauthenticated requests, for download links on another host (never given the token). */
	requestAnonymous?: RequestFn;
	clock: Clock;
	/** The token's shared pacer (see `sharedPacers.forKey(pacingKey(token), clock)`). */
	pacer?: Pacer;
	retry?: Partial<RetryOptions>;
	timeoutMs?: number;
	onEvent?: (event: ClientEvent) => void;
}

export interface CallOptions {
	pathParams?: Record<string, unknown>;
	params?: Array<[string, string]>;
	body?: unknown;
	/** The user-facing name of the path parameter, for validation messages. */
	parameter?: string;
}

export interface PageOptions {
	/** Items per request (`limit`). */
	pageSize?: number;
	/** Stop after this many items in all; unset = every item. */
	maxItems?: number;
	/** Items to skip first (`offset` of the first request): to go on where an earlier call stopped. */
	offset?: number;
}

export interface DownloadedFile {
	data: Uint8Array;
	fileName?: string;
	mimeType?: string;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

/** The service in code: one request path (pacing, retries, errors) under every operation. */
export class ServiceClient {
	readonly base: BaseUrl;
	private readonly retry: RetryOptions;

	constructor(private readonly options: ServiceClientOptions) {
		this.base = typeof options.baseUrl === 'string' ? parseBaseUrl(options.baseUrl) : options.baseUrl;
		this.retry = { ...DEFAULT_RETRY, ...options.retry };
	}

	/** One operation of the catalogue; resolves with the parsed JSON body. */
	async call(operation: OperationId, options: CallOptions = {}): Promise<unknown> {
		const { method } = ENDPOINTS[operation];
		const path = resolvePath(operation, options.pathParams, options.parameter);
		const url = `${this.base.apiRoot}${path}${queryString(options.params ?? [])}`;
		const body = options.body === undefined ? undefined : JSON.stringify(options.body);
		return this.sendJson(method, url, body);
	}

	/** Sends and parses JSON; an unreadable answer to an idempotent request is retried like a 5xx. */
	sendJson(method: HttpMethod, url: string, body?: string): Promise<unknown> {
		if (!sameOrigin(url, this.base)) {
			return Promise.reject(new ValidationError('url', `only ${this.base.origin} may receive the access token`));
		}
		const path = pathOf(url, this.base);
		return this.attempts(method, url, body, 'text', this.options.request, true, (response) => parseJsonBody(response, method, path));
	}

	/**
	 * Delete one item: to the recycle bin, or for good with `directDelete`. A DELETE whose answer was
	 * lost is repeated; when the repeat finds the item already gone, the first attempt did the work
	 * and the delete succeeded (`already_deleted: true`).
	 */
	async delete(operation: 'customer.delete' | 'device.delete', id: unknown, directDelete: boolean, parameter?: string): Promise<unknown> {
		try {
			return await this.call(operation, { pathParams: { id }, params: deleteParams(directDelete), parameter });
		} catch (error) {
			if (error instanceof ServiceError && error.afterUncertainAttempt && isAlreadyDeleted(error, directDelete)) {
				return { id, deleted: true, direct_delete: directDelete, already_deleted: true };
			}
			throw error;
		}
	}

	/**
	 * Streams a list page by page (never more than one page held). Follows `next` only on the
	 * base URL's origin; stops on an empty page, a repeated page or a repeated `next`.
	 */
	async *pages(operation: OperationId, query: ListQuery = {}, options: PageOptions = {}): AsyncGenerator<unknown[]> {
		const validated = validateListQuery(operation, query);
		const pageSize = validateLimit(options.pageSize ?? DEFAULT_PAGE_SIZE, 'pageSize', MAX_LIMIT);
		let remaining = options.maxItems ?? Number.POSITIVE_INFINITY;
		if (options.maxItems !== undefined) validateLimit(options.maxItems, 'limit', Number.MAX_SAFE_INTEGER);
		let offset = options.offset ?? 0;
		if (!Number.isSafeInteger(offset) || offset < 0) throw new ValidationError('offset', `must be a whole number of 0 or more, got ${String(offset)}`);
		const path = resolvePath(operation);
		const listUrl = (offset: number, limit: number) =>
			`${this.base.apiRoot}${path}${queryString(listParams(validated, { limit, offset }))}`;

		let asked = Math.min(pageSize, remaining);
		let url = listUrl(offset, asked);
		const visited = new Set<string>();
		let previous: string | undefined;

		while (remaining > 0) {
			if (visited.has(url)) {
				this.options.onEvent?.({ type: 'paginationStopped', path, reason: 'repeatedNext' });
				return;
			}
			visited.add(url);
			const page = readPage(await this.sendJson('GET', url), path);
			if (page.items.length === 0) return;
			const signature = pageSignature(page.items);
			if (signature === previous) {
				this.options.onEvent?.({ type: 'paginationStopped', path, reason: 'repeatedPage' });
				return;
			}
			previous = signature;
			const items = page.items.length > remaining ? page.items.slice(0, remaining) : page.items;
			offset += page.items.length;
			remaining -= items.length;
			yield items;
			if (remaining <= 0) return;

			if (page.shape === 'envelope' && page.next) {
				if (!sameOrigin(page.next, this.base)) {
					throw new ServiceError({
						kind: 'invalidResponse',
						path,
						message: `Refusing to follow a "next" link to another origin (${safeOrigin(page.next)}); the access token is only sent to ${this.base.origin}`,
					});
				}
				url = page.next;
				continue;
			}
			const lastPage =
				page.shape === 'envelope' && page.next === null
					? true
					: page.shape === 'envelope' && page.count !== undefined
						? offset >= page.count
						: page.items.length < asked; // no paging hints: a short page is the last
			if (lastPage) return;
			asked = Math.min(pageSize, remaining);
			url = listUrl(offset, asked);
		}
	}

	/** Every item of a list, one at a time. */
	async *items(operation: OperationId, query: ListQuery = {}, options: PageOptions = {}): AsyncGenerator<unknown> {
		for await (const page of this.pages(operation, query, options)) yield* page;
	}

	/** Generates the download link (valid 5 minutes) and fetches the file at once. */
	async downloadFile(fileId: unknown, parameter = 'fileId'): Promise<DownloadedFile> {
		const link = (await this.call('file.downloadLink', { pathParams: { id: fileId }, parameter })) as Record<string, unknown> | null;
		const url = [link?.url, link?.download_url, link?.link].find((u): u is string => typeof u === 'string' && u !== '');
		if (!url) {
			throw new ServiceError({ kind: 'invalidResponse', message: `The download link response has no URL: ${excerpt(JSON.stringify(link))}` });
		}
		let response: HttpResponse;
		if (sameOrigin(url, this.base)) {
			response = await this.attempts('GET', url, undefined, 'binary', this.options.request, true, (r) => r, 'anonymousElsewhere');
		} else {
			// An unreadable (or relative) link is refused like any other, not a TypeError.
			const target = URL.canParse(url) ? new URL(url) : undefined;
			if (target?.protocol !== 'https:' || !this.options.requestAnonymous) {
				throw new ServiceError({
					kind: 'invalidResponse',
					message: `Refusing to download from ${safeOrigin(url)}: links to other hosts must use https and are fetched without the access token`,
				});
			}
			response = await this.attempts('GET', url, undefined, 'binary', this.options.requestAnonymous, false, (r) => r);
		}
		const data = typeof response.body === 'string' ? new TextEncoder().encode(response.body) : response.body;
		const fileName =
			fileNameFromDisposition(response.headers['content-disposition']) ??
			(typeof link?.file_name === 'string' ? link.file_name : undefined);
		const mimeType = response.headers['content-type']?.split(';')[0].trim() || (typeof link?.mime_type === 'string' ? link.mime_type : undefined);
		return { data, fileName, mimeType };
	}

	/** Sends one request with pacing and bounded retries; resolves with a 2xx response. */
	send(method: HttpMethod, url: string, body: string | undefined, responseType: 'text' | 'binary'): Promise<HttpResponse> {
		if (!sameOrigin(url, this.base)) {
			return Promise.reject(new ValidationError('url', `only ${this.base.origin} may receive the access token`));
		}
		return this.attempts(method, url, body, responseType, this.options.request, true, (response) => response);
	}

	private async attempts<T>(
		method: HttpMethod,
		url: string,
		body: string | undefined,
		responseType: 'text' | 'binary',
		request: RequestFn,
		paced: boolean,
		read: (response: HttpResponse) => T,
		redirects: RedirectPolicy = paced ? 'sameOrigin' : 'httpsOnly',
	): Promise<T> {
		const { clock, onEvent } = this.options;
		const path = pathOf(url, this.base);
		let waited = 0;
		let uncertain = false;
		for (let attempt = 1; ; attempt++) {
			const budgetLeft = this.retry.maxTotalWaitMs - waited;
			const started = clock.now();
			let error: ServiceError;
			try {
				const response = await this.follow({ method, url, body, responseType, request, paced, redirects, path, budgetLeft });
				onEvent?.({ type: 'response', method, path, status: response.status, durationMs: clock.now() - started, attempt });
				if (response.status >= 200 && response.status < 300) return read(response);
				const retryAfter = response.headers['retry-after'];
				error = errorFromResponse({
					status: response.status,
					bodyText: bodyText(response.body),
					method,
					path,
					retryAfterMs: parseRetryAfter(retryAfter, clock.now()),
				});
				if (error.retryAfterMs !== undefined && error.retryAfterMs > budgetLeft && isRetryable(error, method)) {
					// The wait the service asked for does not fit the caller's budget: say so at once, and
					// pause the token no longer than a plain 429 would (the next caller decides for itself).
					if (error.kind === 'rateLimit' && paced) this.options.pacer?.rateLimited(clock.now() + Math.min(1000, budgetLeft));
					throw beyondBudget(error, retryAfter ?? '', this.retry.maxTotalWaitMs);
				}
				if (error.kind === 'rateLimit' && paced) this.options.pacer?.rateLimited(clock.now() + Math.min(error.retryAfterMs ?? 1000, budgetLeft));
			} catch (cause) {
				error =
					cause instanceof ServiceError
						? cause
						: new ServiceError({
								kind: 'network',
								retryable: true,
								method,
								path,
								cause,
								message: `No response from the service for ${method} ${path}: ${cause instanceof Error ? cause.message : String(cause)}`,
							});
				if (cause instanceof ServiceError && (cause.kind === 'redirect' || cause.advice !== undefined)) throw cause;
			}
			error.afterUncertainAttempt = uncertain;
			if (attempt >= this.retry.maxAttempts || !isRetryable(error, method)) throw error;
			const wait = retryDelay(error, attempt, this.retry);
			if (waited + wait > this.retry.maxTotalWaitMs) throw error;
			uncertain ||= mayHaveActed(error);
			waited += wait;
			onEvent?.({ type: 'retry', method, path, kind: error.kind, status: error.status, waitMs: wait, attempt });
			await clock.sleep(wait);
		}
	}

	/**
	 * One attempt, following redirects by hand (every face's request function returns 3xx as is).
	 * Same-origin redirects are followed with the token; 307/308 keep the method and body; a
	 * 301/302/303 answer to a write is refused (a write never becomes a GET); a redirect to another
	 * origin is refused naming both. Anonymous requests (download links on other hosts) follow
	 * https redirects only.
	 */
	private async follow(a: {
		method: HttpMethod;
		url: string;
		body: string | undefined;
		responseType: 'text' | 'binary';
		request: RequestFn;
		paced: boolean;
		redirects: RedirectPolicy;
		path: string;
		budgetLeft: number;
	}): Promise<HttpResponse> {
		let { url, request, paced } = a;
		for (let hop = 0; ; hop++) {
			if (paced) await this.options.pacer?.acquire(a.budgetLeft);
			const response = await request({
				method: a.method,
				url,
				headers: a.body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
				body: a.body,
				responseType: a.responseType,
				timeoutMs: this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
			});
			const location = response.headers.location;
			if (!REDIRECT_STATUSES.has(response.status) || !location) return response;
			const refuse = (why: string) =>
				new ServiceError({
					kind: 'redirect',
					status: response.status,
					method: a.method,
					path: a.path,
					message: `The service answered ${a.method} ${a.path} with a redirect (HTTP ${response.status}) ${why}`,
				});
			const target = URL.canParse(location, url) ? new URL(location, url) : undefined;
			if (!target || (target.protocol !== 'https:' && target.protocol !== 'http:')) throw refuse(`to an unreadable or non-web address; not followed`);
			if (hop >= MAX_REDIRECTS) throw refuse(`for the ${MAX_REDIRECTS + 1}th time; not followed (a redirect loop?)`);
			if (paced && target.origin !== this.base.origin) {
				const anonymous = this.options.requestAnonymous;
				if (a.redirects !== 'anonymousElsewhere' || target.protocol !== 'https:' || !anonymous) {
					throw refuse(
						`to another origin (${target.origin}); refusing to follow it: the access token is only sent to ${this.base.origin}`,
					);
				}
				// A download handed to another host (object storage): fetched there without the token.
				request = anonymous;
				paced = false;
			} else if (!paced && target.protocol !== 'https:') {
				throw refuse(`to ${target.origin}; downloads from other hosts must use https, so it was not followed`);
			}
			if (a.method !== 'GET' && response.status !== 307 && response.status !== 308) {
				throw refuse(`to ${pathOf(target.href, this.base)}; a ${a.method} is never re-sent as a GET, so nothing was repeated`);
			}
			url = target.href;
		}
	}
}

/** Redirects followed within one attempt, at most. */
const MAX_REDIRECTS = 5;

/**
 * sameOrigin: API calls; the token never leaves the base URL's origin.
 * anonymousElsewhere: a download; a redirect to another https host is fetched without the token.
 * httpsOnly: an anonymous request; it follows https redirects only.
 */
type RedirectPolicy = 'sameOrigin' | 'anonymousElsewhere' | 'httpsOnly';

/** A Retry-After longer than the caller's budget: the refusal, naming the wait asked for. */
function beyondBudget(error: ServiceError, header: string, budgetMs: number): ServiceError {
	const wait = describeWait(error.retryAfterMs ?? 0);
	const asked = /^\s*\d+(\.\d+)?\s*$/.test(header) ? `${wait}` : `until ${header.trim()} (${wait})`;
	const advice = `the service asked to wait ${asked} before retrying (Retry-After), longer than the retry budget of ${describeWait(budgetMs)}; try again later`;
	return new ServiceError({
		kind: error.kind,
		status: error.status,
		retryable: false,
		description: error.description,
		bodyExcerpt: error.bodyExcerpt,
		retryAfterMs: error.retryAfterMs,
		method: error.method,
		path: error.path,
		advice,
		message: `${ruleForStatus(error.status ?? 429).message} (HTTP ${error.status} on ${error.method} ${error.path}): ${advice}`,
	});
}

function parseJsonBody(response: HttpResponse, method: HttpMethod, path: string): unknown {
	const text = bodyText(response.body);
	if (text.trim() === '') return null;
	const parsed = tryParseJson(text);
	if (parsed.ok) return parsed.value;
	throw new ServiceError({
		kind: 'invalidResponse',
		status: response.status,
		retryable: true,
		method,
		path,
		bodyExcerpt: excerpt(text),
		message: `The service answered HTTP ${response.status} to ${method} ${path} with a body that is not valid JSON (${text.length} characters): ${excerpt(text)}`,
	});
}

/** Whether the service may have acted on a request that failed this way (429 and 451 refuse before acting). */
function mayHaveActed(error: ServiceError): boolean {
	return error.kind === 'network' || error.kind === 'invalidResponse' || error.kind === 'server';
}

/**
 * Assumed (the spec names 412 "precondition failed" without saying when): a DELETE of an item that
 * is already in the recycle bin answers 412, and one of an item removed for good answers 404.
 */
function isAlreadyDeleted(error: ServiceError, directDelete: boolean): boolean {
	return error.status === 404 || (!directDelete && error.status === 412);
}

function pathOf(url: string, base: BaseUrl): string {
	try {
		const { pathname } = new URL(url);
		const apiPath = new URL(base.apiRoot).pathname;
		return pathname.startsWith(apiPath) ? pathname.slice(apiPath.length) || '/' : pathname;
	} catch {
		return '?';
	}
}

function safeOrigin(url: string): string {
	try {
		return new URL(url).origin;
	} catch {
		return 'an unreadable URL';
	}
}

function fileNameFromDisposition(header: string | undefined): string | undefined {
	if (!header) return undefined;
	const star = /filename\*=(?:UTF-8'')?([^;]+)/i.exec(header);
	if (star) {
		try {
			return decodeURIComponent(star[1].trim().replace(/^"|"$/g, ''));
		} catch {
			/* fall through to the plain form */
		}
	}
	const plain = /filename="?([^";]+)"?/i.exec(header);
	return plain?.[1];
}
