import { parseBaseUrl, sameOrigin, type BaseUrl } from './baseUrl';
import { ENDPOINTS, resolvePath, type OperationId } from './catalogue';
import { ServiceError, ValidationError, describeWait, errorFromResponse, excerpt, ruleForStatus, tryParseJson } from './errors';
import { REDIRECT_STATUSES, bodyText, type Clock, type HttpMethod, type HttpResponse, type RequestFn } from './http';
import type { Pacer } from './pacing';
import {
	MAX_JSON_DEPTH,
	anchorOf,
	itemBound,
	itemKey,
	maxPageBytes,
	pageBound,
	STOPPED_READING,
	pageSignature,
	readPage,
	refusesPageSize,
	sharedPageSizes,
	smallerPageSize,
	unseenAfter,
	valueDeeperThan,
	type ItemKey,
	type Page,
	type PageMemory,
	type PagingAnomaly,
	type PagingOutcome,
	type RememberedPage,
} from './pagination';
import { DEFAULT_PROFILE, type ServiceProfile } from './profile';
import { deleteParams, listParams, pageNumberWindow, queryString, validateLimit, validateListQuery, type ListQuery, type ValidatedListQuery } from './query';
import { testDetail, toCanonical, translates } from './wire';
import { DEFAULT_RETRY, isRetryable, leastDelay, parseRetryAfter, retryDelay, type RetryOptions } from './retry';

export type ClientEvent =
	| { type: 'response'; method: HttpMethod; path: string; status: number; durationMs: number; attempt: number }
	| { type: 'retry'; method: HttpMethod; path: string; kind: ServiceError['kind']; status?: number; waitMs: number; attempt: number }
	| { type: 'paginationStopped'; path: string; reason: PagingAnomaly; detail: string };

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
	/** The service's layout (paths, paging, names), resolved by `resolveProfile`; default: today's choices. */
	profile?: ServiceProfile;
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
	 * Re-read this many items before each page boundary (less than the page size) and yield only
	 * items whose `id` was not yielded before in this scan; when the re-read part does not reach the
	 * previous page, step back one page once, else end incomplete (`shifted`). For exact scans.
	 */
	overlap?: number;
	/** `'throw'`: a scan that ends incomplete (other than by `maxItems`) throws a ServiceError naming why. */
	incomplete?: 'return' | 'throw';
	/**
	 * Pages the caller read before, by a digest of their text: a page answered alike is not parsed
	 * when the caller's memory recalls it (its keys go to `memory.recalled`, and an empty array is
	 * yielded in its place). With a memory, every page read yields, even one with no new items.
	 */
	memory?: PageMemory;
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
	/** Every path, paging parameter and name this client uses on the wire. */
	readonly profile: ServiceProfile;
	private readonly retry: RetryOptions;

	constructor(private readonly options: ServiceClientOptions) {
		this.base = typeof options.baseUrl === 'string' ? parseBaseUrl(options.baseUrl) : options.baseUrl;
		this.retry = { ...DEFAULT_RETRY, ...options.retry };
		this.profile = options.profile ?? DEFAULT_PROFILE;
	}

	/** The largest page the service answers (the profile's `paging.maxPageSize`): what a full scan asks for. */
	get maxPageSize(): number {
		return this.profile.paging.maxPageSize;
	}

	/** The largest page this service serves as far as this process knows: the size it answered after refusing a larger one, else `maxPageSize`. */
	get largestPageSize(): number {
		return Math.min(this.maxPageSize, sharedPageSizes.get(this.base.apiRoot) ?? Number.POSITIVE_INFINITY);
	}

	/** One operation of the catalogue; resolves with the parsed JSON body (named canonically). */
	async call(operation: OperationId, options: CallOptions = {}): Promise<unknown> {
		const { method } = this.profile.operations[operation];
		const path = resolvePath(operation, options.pathParams, options.parameter, this.profile);
		const url = `${this.base.apiRoot}${path}${queryString(options.params ?? [])}`;
		const body = options.body === undefined ? undefined : JSON.stringify(options.body);
		const value = await this.sendJsonRemembered(method, url, body, undefined, undefined, ENDPOINTS[operation].kind === 'write');
		return operation === 'testResult.get' ? testDetail(this.profile, toCanonical(this.profile, 'testResult', value), false) : value;
	}

	/** Sends and parses JSON; an unreadable answer to an idempotent request is retried like a 5xx. */
	sendJson(method: HttpMethod, url: string, body?: string, maxChars?: number): Promise<unknown> {
		return this.sendJsonRemembered(method, url, body, maxChars);
	}

	/** `sendJson`, with a page memory: a `Digested` answer (recalled, or parsed with its digest). */
	private sendJsonRemembered(method: HttpMethod, url: string, body?: string, maxChars?: number, memory?: Remember, writes = method !== 'GET'): Promise<unknown> {
		if (!sameOrigin(url, this.base)) {
			return Promise.reject(new ValidationError('url', `only ${this.base.origin} may receive the access token`));
		}
		const path = pathOf(url, this.base);
		// A refused body (too large, too deep) is not retried: the same answer would come again.
		return this.attempts(method, url, body, 'text', this.options.request, true, (response) => parseJsonBody(response, method, path, maxChars, memory, writes)).then((value) => {
			if (value instanceof RefusedBody) throw value.error;
			return value;
		});
	}

	/**
	 * Delete one item: to the recycle bin, or for good with `directDelete`. A DELETE whose answer was
	 * lost is repeated; when the repeat finds the item already gone, the first attempt did the work
	 * and the delete succeeded (`already_deleted: true`), answered in the shape of the service's own
	 * answer: the id as a number, and the recycle bin entry the first attempt made (looked up).
	 */
	async delete(operation: 'customer.delete' | 'device.delete', id: unknown, directDelete: boolean, parameter?: string): Promise<unknown> {
		try {
			return await this.call(operation, { pathParams: { id }, params: deleteParams(directDelete), parameter });
		} catch (error) {
			if (error instanceof ServiceError && error.afterUncertainAttempt && isAlreadyDeleted(error, directDelete)) {
				const resource = ENDPOINTS[operation].resource as 'customer' | 'device';
				const binId = directDelete ? null : await this.recycleBinEntryOf(resource, id);
				// A 404 or 412 on the repeat of a delete to the bin, and the bin read without an entry for
				// the item: the first attempt did not put it there (it never existed, was gone before, or
				// the 412 meant something else). The bin was read, so the earlier attempt is known to have
				// done nothing: the repeat's own error.
				if (binId === NO_ENTRY) throw Object.assign(error, { afterUncertainAttempt: false, afterLostAnswer: false });
				// A 404 on the repeat of a permanent delete leaves no trace to look up: it is the first
				// attempt's work only when that attempt surely arrived (a 2xx answer cut off); after a 503
				// or a dropped connection it may as well be an ID that does not exist.
				if (directDelete && error.status === 404 && !error.afterAcceptedAttempt) throw error;
				return { id: numericId(id), deleted: true, direct_delete: directDelete, recycle_bin_id: binId, already_deleted: true };
			}
			throw error;
		}
	}

	/** The id of the newest recycle bin entry of an item; NO_ENTRY when the bin holds none, null when the bin cannot be read. */
	private async recycleBinEntryOf(resource: 'customer' | 'device', id: unknown): Promise<number | null | typeof NO_ENTRY> {
		const filters = [
			{ key: 'item_id', dataType: 'Number' as const, conditions: [{ keyword: 'equals', value: String(id) }] },
			{ key: 'resource', dataType: 'Text' as const, conditions: [{ keyword: 'equals', value: resource }] },
		];
		let found: number | typeof NO_ENTRY = NO_ENTRY;
		try {
			for await (const raw of this.items('recycleBin.list', { filters }, { pageSize: this.maxPageSize })) {
				const entry = raw as { id?: unknown; item_id?: unknown; resource?: unknown } | null;
				if (typeof entry?.id !== 'number' || String(entry.item_id) !== String(id) || entry.resource !== resource) continue;
				if (found === NO_ENTRY || entry.id > found) found = entry.id;
			}
		} catch {
			// The delete itself succeeded; without the bin's answer its entry is unknown (null).
			return null;
		}
		return found;
	}

	/**
	 * Streams a list page by page (never more than one page held). Follows `next` only on the
	 * base URL's origin. Its return value says whether the list was read to its normal end; any
	 * odd answer (see `PagingAnomaly`) ends the scan incomplete, and paging always ends (bounds in
	 * `PAGING_BOUNDS`). With `overlap`, each page re-reads the end of the one before, so that a
	 * list shifting while it is read loses nothing (items are yielded once per scan, by id).
	 */
	async *pages(operation: OperationId, query: ListQuery = {}, options: PageOptions = {}): AsyncGenerator<unknown[], PagingOutcome> {
		const validated = validateListQuery(operation, query);
		const paging = this.profile.paging;
		const byNumber = paging.style === 'pageNumber';
		const { resource } = ENDPOINTS[operation];
		const canonical = translates(this.profile, resource);
		let pageSize = validateLimit(options.pageSize ?? paging.defaultPageSize, 'pageSize', paging.maxPageSize);
		if (options.maxItems !== undefined) validateLimit(options.maxItems, 'limit', Number.MAX_SAFE_INTEGER);
		let overlap = options.overlap ?? 0;
		if (!Number.isSafeInteger(overlap) || overlap < 0 || overlap >= pageSize) {
			throw new ValidationError('overlap', `must be a whole number from 0 to ${pageSize - 1} (less than the page size), got ${String(overlap)}`);
		}
		let start = options.offset ?? 0;
		if (!Number.isSafeInteger(start) || start < 0) throw new ValidationError('offset', `must be a whole number of 0 or more, got ${String(start)}`);
		const sizeKey = this.base.apiRoot;
		const learned = sharedPageSizes.get(sizeKey);
		if (learned !== undefined && learned < pageSize) {
			pageSize = learned;
			overlap = Math.min(overlap, pageSize - 1);
		}
		const path = resolvePath(operation, {}, undefined, this.profile);
		const listUrl = (offset: number, limit: number) => `${this.base.apiRoot}${path}${queryString(listParams(validated, { limit, offset }, this.profile, resource))}`;
		const stop = (reason: PagingAnomaly, detail: string): PagingOutcome => {
			if (reason !== 'maxItems') this.options.onEvent?.({ type: 'paginationStopped', path, reason, detail });
			return { complete: false, reason, detail };
		};
		const strict = (outcome: PagingOutcome): PagingOutcome => {
			if (outcome.complete || outcome.reason === 'maxItems' || options.incomplete !== 'throw') return outcome;
			throw new ServiceError({ kind: 'invalidResponse', path, method: 'GET', message: `The list ${path} could not be read to its end (${outcome.reason}): ${outcome.detail}` });
		};

		let remaining = options.maxItems ?? Number.POSITIVE_INFINITY;
		let follow: string | undefined; // a `next` link to follow (without overlap)
		const visited = new Set<string>();
		const signatures = new Set<string>();
		const yielded = overlap > 0 ? new Set<ItemKey>() : undefined;
		let tail: ItemKey[] = []; // keys of the last items read, to find the previous page again
		let steppedBack = false;
		let probed = false; // the request after a full last page was made
		let announced: number | undefined;
		let effectiveSize = pageSize; // the smallest page size the service actually serves
		let pagesRead = 0;
		let delivered = 0;
		// A page size was refused, and the smaller one not answered yet.
		let sizeRefused = false;

		for (;;) {
			// A followed link asks for the size it names (else the service's own page size, at most ours).
			const linkLimit = follow === undefined ? Number.NaN : Number(paramOf(follow, paging.limitParam));
			let asked = follow === undefined ? Math.min(pageSize, remaining + (tail.length > 0 ? overlap : 0)) : Number.isSafeInteger(linkLimit) && linkLimit > 0 ? linkLimit : pageSize;
			// Page numbers name pages at multiples of their size: read from the window's start and
			// drop the items before `start` (read again, like an overlap).
			const window = byNumber ? pageNumberWindow(start, asked) : { start, size: asked };
			const skip = start - window.start;
			asked = window.size - skip;
			const url = follow ?? listUrl(window.start, window.size);
			// Only a link from the service can loop; the client's own steps back (overlap) are deliberate.
			if (follow !== undefined && visited.has(url)) return strict(stop('repeatedNext', `the link to offset ${start} was answered before`));
			visited.add(url);
			let page: Page;
			// A page the caller's memory recalls (items stand for their keys) or one parsed with its digest.
			let recalled: RememberedPage | undefined;
			let digest: string | undefined;
			try {
				const { memory } = options;
				// Remembered by where the answer starts (a page-number window may start before `start`).
				const remember = memory && { digest: memory.digest.bind(memory), recall: (d: string) => memory.recall(window.start, d) };
				const answer = await this.sendJsonRemembered('GET', url, undefined, maxPageBytes(window.size), remember);
				if (answer instanceof Digested) {
					({ digest, recalled } = answer);
					page = recalled ? { shape: recalled.shape, items: recalled.keys, next: recalled.next, count: recalled.count } : readPage(answer.value, path, this.profile);
				} else page = readPage(answer, path, this.profile);
			} catch (error) {
				if (refusesPageSize(error, byNumber ? paging.pageSizeParam : paging.limitParam, sentValues(validated)) && (follow === undefined || linkLimit > 1) && window.size > 1) {
					sizeRefused = true;
					pageSize = smallerPageSize(error, window.size);
					effectiveSize = Math.min(effectiveSize, pageSize);
					overlap = Math.min(overlap, pageSize - 1);
					visited.delete(url);
					if (follow !== undefined) follow = withParam(follow, paging.limitParam, String(pageSize));
					continue;
				}
				throw error;
			}
			// Only a size the service answered is remembered for later scans.
			if (sizeRefused) {
				sharedPageSizes.remember(sizeKey, pageSize);
				sizeRefused = false;
			}
			pagesRead++;
			const count = page.shape === 'envelope' ? page.count : undefined;
			// The first count bounds the scan: a count that keeps growing must not keep it going.
			if (count !== undefined) announced ??= count;
			if (canonical && !recalled) page = { ...page, items: page.items.map((item) => toCanonical(this.profile, resource, item)) };
			// The keys of the whole answer, for the memory: a recalled answer's items are its keys.
			const answerKeys = digest === undefined ? undefined : recalled ? recalled.keys : page.items.map(itemKey);
			if (skip > 0) page = { ...page, items: page.items.slice(skip) };
			const read = page.items.length;
			const end = start + read;
			const more =
				page.shape === 'envelope' && page.next ? true : page.shape === 'envelope' && page.next === null ? false : count !== undefined ? end < count : read >= asked;
			const next = page.shape === 'envelope' ? page.next : undefined;
			// A page larger than asked is refused whole: its items cannot be trusted to be the ones asked for.
			if (read > asked) return strict(stop('pageTooLarge', `the page at offset ${start} has ${read} items; ${asked} were asked for`));
			let items = page.items;

			if (read === 0) {
				if (more) return strict(stop('emptyPage', `an empty page at offset ${start} although ${next ? 'a next link' : `count ${count}`} says more follow`));
				if (count !== undefined && count > start) return strict(stop('countMismatch', `the list ended at ${start} items but count says ${count}`));
				// With overlap, a page after the first re-reads the end of the one before: empty, the
				// list shrank past it, and the anchor check below steps back, else ends `shifted`.
				if (!(yielded && tail.length > 0)) return { complete: true };
			}
			if (!steppedBack) {
				const signature = recalled ? `${items.length}:${String(items[0])}:${String(items[items.length - 1])}` : pageSignature(items);
				if (signatures.has(signature)) return strict(stop('repeatedPage', `the page at offset ${start} repeats an earlier page`));
				signatures.add(signature);
			}

			let fresh = items;
			let keys: ItemKey[] | undefined;
			if (yielded) {
				keys = answerKeys ? answerKeys.slice(skip) : items.map(itemKey);
				const anchor = tail.length > 0 ? anchorOf(keys, tail) : -1;
				if (tail.length > 0 && anchor < 0) {
					// The list shifted by more than the overlap: read further back once.
					if (steppedBack || start === 0) return strict(stop('shifted', `the page at offset ${start} does not contain the end of the page before (the list shifted by more than the overlap of ${overlap})`));
					steppedBack = true;
					start = Math.max(0, start - pageSize + overlap);
					continue;
				}
				steppedBack = false;
				fresh = unseenAfter(items, keys, anchor, yielded, remaining);
				tail = keys.slice(-(overlap + 1));
			}
			// A page cut short (`maxItems`) is not remembered: the caller handles only part of it.
			const whole = fresh.length <= remaining;
			if (!whole) fresh = fresh.slice(0, remaining);
			remaining -= fresh.length;
			delivered += fresh.length;
			if (digest !== undefined) {
				if (recalled) options.memory!.recalled(fresh as ItemKey[]);
				else if (whole) options.memory!.read(window.start, digest, { keys: answerKeys!, shape: page.shape, ...(page.shape === 'envelope' ? { next: page.next, count: page.count } : {}) });
				yield recalled ? [] : fresh;
			} else if (fresh.length > 0) yield fresh;
			// A suspended generator keeps what its variables hold: the page is let go before the next
			// request, or it lives on through the next page's parse and is copied into the old generation.
			page = NO_PAGE;
			items = fresh = [];

			if (remaining <= 0) return more ? stop('maxItems', `stopped after ${options.maxItems} items`) : { complete: true };
			if (!more) {
				if (count !== undefined && count !== end) return strict(stop('countMismatch', `the list ended at ${end} items but count says ${count}`));
				if (read < asked || probed) return { complete: true };
				// ASSUMED: a full last page is checked with one more request (offset = its end): a
				// `count` and `next` that lie alike would otherwise cut the list at a page boundary.
				probed = true;
				follow = undefined;
				start = yielded ? end - Math.min(overlap, read - 1) : end;
				continue;
			}
			const nextOffset = next ? offsetOfLink(next, this.profile) : undefined;
			if (nextOffset !== undefined && /^\d+$/.test(nextOffset) && Number(nextOffset) < end) {
				return strict(stop('repeatedNext', `the next link points back to offset ${nextOffset} after ${end} items`));
			}
			if (count !== undefined && end >= count) return strict(stop('countMismatch', `count says ${count} items but more follow after ${end}`));
			if (read < asked) effectiveSize = Math.min(effectiveSize, read);
			if (delivered > itemBound(announced, pageSize)) {
				return strict(stop('tooManyItems', `${delivered} items read; the service announced ${announced ?? 'no count'}`));
			}
			if (pagesRead >= pageBound(announced, Math.max(1, effectiveSize - overlap))) {
				return strict(stop('tooManyPages', `${pagesRead} pages read; the service announced ${announced ?? 'no count'} items`));
			}

			if (next && !sameOrigin(next, this.base)) {
				throw new ServiceError({
					kind: 'invalidResponse',
					path,
					message: `Refusing to follow a "next" link to another origin (${safeOrigin(next)}); the access token is only sent to ${this.base.origin}`,
				});
			}
			if (yielded || !next || byNumber) {
				follow = undefined;
				start = yielded ? end - Math.min(overlap, read - 1) : end;
				continue;
			}
			follow = learned !== undefined || pageSize < (options.pageSize ?? paging.defaultPageSize) ? withParam(next, paging.limitParam, String(pageSize), true) : next;
			start = end;
		}
	}

	/** Every item of a list, one at a time; returns how the scan ended, like `pages`. */
	async *items(operation: OperationId, query: ListQuery = {}, options: PageOptions = {}): AsyncGenerator<unknown, PagingOutcome> {
		const pages = this.pages(operation, query, options);
		let finished = false;
		try {
			for (;;) {
				const next = await pages.next();
				if (next.done) {
					finished = true;
					return next.value;
				}
				yield* next.value;
			}
		} finally {
			if (!finished) await pages.return(STOPPED_READING);
		}
	}

	/**
	 * Generates the download link (valid 5 minutes) and fetches the file at once. A link that expired
	 * before it was fetched (410: slow retries of either request can outlast it) is generated again,
	 * once; a fresh link that expires too is an error that says so.
	 */
	async downloadFile(fileId: unknown, parameter = 'fileId'): Promise<DownloadedFile> {
		try {
			return await this.downloadOnce(fileId, parameter);
		} catch (error) {
			if (!(error instanceof ServiceError && error.status === 410)) throw error;
		}
		try {
			return await this.downloadOnce(fileId, parameter);
		} catch (error) {
			if (!(error instanceof ServiceError && error.status === 410)) throw error;
			const { kind, status, description, bodyExcerpt, method, path } = error;
			throw new ServiceError({
				kind,
				status,
				description,
				bodyExcerpt,
				method,
				path,
				retryable: false,
				advice: `a fresh link, generated after the first had expired, expired too before it was fetched: the requests took longer than the link's 5 minutes (lower Timeout or Max Retry Wait, or try again later)`,
				message: `File ${String(fileId)}: the download link expired before it was fetched, and a fresh link expired too (links are valid for 5 minutes)`,
				cause: error,
			});
		}
	}

	private async downloadOnce(fileId: unknown, parameter: string): Promise<DownloadedFile> {
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
		const before = { uncertain: false, lost: false, accepted: false };
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
					if (error.kind === 'rateLimit' && paced) this.options.pacer?.rateLimited(clock.now() + Math.min(1000, budgetLeft), false);
					throw marked(beyondBudget(error, retryAfter ?? '', this.retry.maxTotalWaitMs), before);
				}
				// The service's limiter always names its Retry-After: only then is the token crowded
				// (a 429 without one, from a proxy, pauses the token but does not slow it afterwards).
				if (error.kind === 'rateLimit' && paced) this.options.pacer?.rateLimited(clock.now() + Math.min(error.retryAfterMs ?? 1000, budgetLeft), error.retryAfterMs !== undefined);
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
				if (cause instanceof ServiceError && (cause.kind === 'redirect' || cause.advice !== undefined)) throw marked(cause, before);
			}
			marked(error, before);
			if (attempt >= this.retry.maxAttempts || !isRetryable(error, method)) throw error;
			let wait = Math.max(retryDelay(error, attempt, this.retry), leastDelay(this.retry));
			const left = this.retry.maxTotalWaitMs - waited;
			// A backoff longer than what is left of the budget waits the rest of it: the retries end when
			// the budget is spent, not a backoff earlier. A Retry-After is never shortened (it would be refused again).
			if (wait > left && error.retryAfterMs === undefined && left >= leastDelay(this.retry)) wait = left;
			if (wait > left) throw error;
			before.uncertain ||= mayHaveActed(error);
			before.lost ||= error.kind === 'network' || error.kind === 'invalidResponse';
			before.accepted ||= error.kind === 'invalidResponse' && error.status !== undefined && error.status >= 200 && error.status < 300;
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
			const slot = paced ? await this.options.pacer?.acquire(a.budgetLeft) : undefined;
			const response = await request({
				method: a.method,
				url,
				headers: a.body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
				body: a.body,
				responseType: a.responseType,
				timeoutMs: this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
			});
			// How long the answer took tells the pacer when the request may really have left (Pacer.windowEnd).
			// Errors answered at once (a 429) are not a round trip of their kind.
			if (slot && response.status < 400) this.options.pacer!.answered(slot, `${a.method} ${a.path.replace(/\d+/g, '#')}`);
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

/** What a scan's variables hold between pages (see `pages`). */
const NO_PAGE: Page = { shape: 'array', items: [] };

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

/** An answer refused unread (thrown by `sendJson` after the retry loop, so it is not retried). */
class RefusedBody {
	constructor(readonly error: ServiceError) {}
}

/** A page answer read with a page memory: recalled (not parsed), or parsed, with its text's digest. */
class Digested {
	constructor(
		readonly digest: string,
		readonly recalled: RememberedPage | undefined,
		readonly value: unknown,
	) {}
}

/** A page memory as one answer's reading sees it (its offset given). */
type Remember = Pick<PageMemory, 'digest'> & { recall(digest: string): RememberedPage | undefined };

function parseJsonBody(response: HttpResponse, method: HttpMethod, path: string, maxChars?: number, memory?: Remember, writes = method !== 'GET'): unknown {
	const text = bodyText(response.body);
	if (text.trim() === '') return null;
	const refuse = (why: string) =>
		new RefusedBody(new ServiceError({ kind: 'invalidResponse', status: response.status, retryable: false, method, path, message: `The service answered HTTP ${response.status} to ${method} ${path} with ${why}; refusing to read it` }));
	if (maxChars !== undefined && text.length > maxChars) return refuse(`${text.length} characters, more than a page of this size can hold (${maxChars})`);
	// The same text as a page read and checked before: the caller may go on without parsing it.
	const digest = memory?.digest(text);
	const recalled = digest === undefined ? undefined : memory!.recall(digest);
	if (recalled) return new Digested(digest!, recalled, undefined);
	const parsed = tryParseJson(text);
	if (parsed.ok) {
		if (valueDeeperThan(parsed.value, MAX_JSON_DEPTH)) return refuse(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
		return digest === undefined ? parsed.value : new Digested(digest, undefined, parsed.value);
	}
	throw new ServiceError({
		kind: 'invalidResponse',
		status: response.status,
		retryable: true,
		method,
		path,
		bodyExcerpt: excerpt(text),
		message: `The service answered HTTP ${response.status} to ${method} ${path} with a body that is not valid JSON (${text.length} characters): ${excerpt(text)}${writes ? mayHaveWritten(method, response.status) : ''}`,
	});
}

/** What a cut-off or unreadable 2xx answer to a write means for the caller: it may have been done. */
function mayHaveWritten(method: HttpMethod, status: number): string {
	if (method === 'GET' || status < 200 || status >= 300) return '';
	return `. The write may have been accepted (HTTP ${status} is success): check whether it took effect before sending it again, or it may be done twice (a repeated create makes a second record)`;
}

/** The text values a list request sends (search, filter values): the service may echo them in a 400. */
function sentValues(query: ValidatedListQuery): string[] {
	return [...(query.search === undefined ? [] : [query.search]), ...query.filters.flatMap((f) => f.conditions.map((c) => c.value))];
}

/** An id given as whole-number text, as the service answers it: a number. */
function numericId(id: unknown): unknown {
	return typeof id === 'string' && /^(?:0|[1-9]\d*)$/.test(id) && Number.isSafeInteger(Number(id)) ? Number(id) : id;
}

/** What the attempts before this failure may have done (see `ServiceError.afterUncertainAttempt`). */
function marked(error: ServiceError, before: { uncertain: boolean; lost: boolean; accepted: boolean }): ServiceError {
	error.afterUncertainAttempt = before.uncertain;
	error.afterLostAnswer = before.lost;
	error.afterAcceptedAttempt = before.accepted;
	return error;
}

/** Whether the service may have acted on a request that failed this way (429 and 451 refuse before acting). */
function mayHaveActed(error: ServiceError): boolean {
	return error.kind === 'network' || error.kind === 'invalidResponse' || error.kind === 'server';
}

/** The recycle bin was read and holds no entry for the item. */
const NO_ENTRY = Symbol('no recycle bin entry');

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

/** The offset a `next` link points at, in the profile's paging style. */
function offsetOfLink(url: string, profile: ServiceProfile): string | undefined {
	const p = profile.paging;
	if (p.style === 'limitOffset') return paramOf(url, p.offsetParam);
	const page = Number(paramOf(url, p.pageParam));
	const size = Number(paramOf(url, p.pageSizeParam));
	return Number.isSafeInteger(page) && Number.isSafeInteger(size) && page >= p.firstPage && size > 0 ? String((page - p.firstPage) * size) : undefined;
}

function paramOf(url: string, name: string): string | undefined {
	try {
		return new URL(url).searchParams.get(name) ?? undefined;
	} catch {
		return undefined;
	}
}

/** `url` with its query parameter `name` set (only lowered, with `onlyLower`). */
function withParam(url: string, name: string, value: string, onlyLower = false): string {
	try {
		const u = new URL(url);
		const current = u.searchParams.get(name);
		if (current === null || (onlyLower && Number(current) <= Number(value))) return url;
		u.searchParams.set(name, value);
		return u.toString();
	} catch {
		return url;
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
