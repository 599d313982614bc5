import { parseBaseUrl, sameOrigin, type BaseUrl } from './baseUrl';
import { ENDPOINTS, resolvePath, type OperationId } from './catalogue';
import { ServiceError, ValidationError, errorFromResponse, excerpt, tryParseJson } from './errors';
import { bodyText, type Clock, type HttpMethod, type HttpResponse, type RequestFn } from './http';
import type { Pacer } from './pacing';
import { pageSignature, readPage, type PagingAnomaly, type PagingOutcome } from './pagination';
import { DEFAULT_PAGE_SIZE, MAX_LIMIT, deleteParams, listParams, queryString, validateLimit, validateListQuery, type ListQuery } from './query';
import { DEFAULT_RETRY, isRetryable, parseRetryAfter, retryDelay, type RetryOptions } from './retry';

export type ClientEvent =
	| { type: 'response'; method: HttpMethod; path: string; status: number; durationMs: number; attempt: number }
	| { type: 'retry'; method: HttpMethod; path: string; kind: ServiceError['kind']; status?: number; waitMs: number; attempt: number }
	| { type: 'paginationStopped'; path: string; reason: PagingAnomaly };

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
	/**
	 * Re-read this many items before each page boundary and yield only items (by `id`) not yielded
	 * before in this scan, so deletes before the cursor cannot hide an item; when the list shifted
	 * further than this, the scan ends incomplete (`shifted`).
	 */
	overlap?: number;
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
	async *pages(operation: OperationId, query: ListQuery = {}, options: PageOptions = {}): AsyncGenerator<unknown[], PagingOutcome> {
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
		const overlap = options.overlap ?? 0;
		const yielded = new Set<string>();
		let lastId: string | undefined;
		const idOf = (item: unknown): string | undefined =>
			item && typeof item === 'object' && 'id' in item ? String((item as { id: unknown }).id) : undefined;
		const stopped = (reason: PagingAnomaly, detail: string): PagingOutcome => {
			this.options.onEvent?.({ type: 'paginationStopped', path, reason });
			return { complete: false, reason, detail };
		};

		while (remaining > 0) {
			if (visited.has(url)) return stopped('repeatedNext', `the "next" link of ${path} pointed to a page already read`);
			visited.add(url);
			const page = readPage(await this.sendJson('GET', url), path);
			if (page.items.length === 0) return { complete: true };
			const signature = pageSignature(page.items);
			if (signature === previous) return stopped('repeatedPage', `${path} answered the same page twice`);
			previous = signature;
			let fresh = page.items;
			if (overlap > 0) {
				if (lastId !== undefined) {
					const at = page.items.findIndex((item) => idOf(item) === lastId);
					if (at < 0) return stopped('shifted', `${path} shifted by more than the overlap of ${overlap} items while it was read`);
				}
				lastId = idOf(page.items[page.items.length - 1]);
				fresh = page.items.filter((item) => {
					const id = idOf(item);
					if (id === undefined) return true;
					if (yielded.has(id)) return false;
					yielded.add(id);
					return true;
				});
			}
			const items = fresh.length > remaining ? fresh.slice(0, remaining) : fresh;
			offset += page.items.length;
			remaining -= items.length;
			yield items;
			if (remaining <= 0) return options.maxItems !== undefined ? { complete: false, reason: 'maxItems', detail: `stopped after ${options.maxItems} items as asked` } : { complete: true };

			if (page.shape === 'envelope' && page.next && overlap === 0) {
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
			if (lastPage) return { complete: true };
			asked = Math.min(pageSize, remaining);
			// With an overlap, step back over it (never further than the start of this page).
			if (overlap > 0) offset -= Math.min(overlap, page.items.length - 1);
			url = listUrl(offset, asked);
		}
		return { complete: true };
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
			response = await this.send('GET', url, undefined, 'binary');
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
	): Promise<T> {
		const { clock, onEvent } = this.options;
		const path = pathOf(url, this.base);
		let waited = 0;
		let uncertain = false;
		for (let attempt = 1; ; attempt++) {
			if (paced) await this.options.pacer?.acquire();
			const started = clock.now();
			let error: ServiceError;
			try {
				const response = await request({
					method,
					url,
					headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
					body,
					responseType,
					timeoutMs: this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
				});
				onEvent?.({ type: 'response', method, path, status: response.status, durationMs: clock.now() - started, attempt });
				if (response.status >= 200 && response.status < 300) return read(response);
				error = errorFromResponse({
					status: response.status,
					bodyText: bodyText(response.body),
					method,
					path,
					retryAfterMs: parseRetryAfter(response.headers['retry-after'], clock.now()),
				});
				if (error.kind === 'rateLimit' && paced) this.options.pacer?.rateLimited(clock.now() + (error.retryAfterMs ?? 1000));
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
