import { ServiceError, excerpt } from './errors';

/**
 * Reading one page of a list. The client accepts both shapes a list may come in:
 * a bare JSON array, or a paged envelope `{results, next?, count?}` (see PAGINATION in query.ts).
 */
export type Page =
	| { shape: 'array'; items: unknown[] }
	| { shape: 'envelope'; items: unknown[]; next: string | null | undefined; count: number | undefined };

export function readPage(value: unknown, where: string): Page {
	if (Array.isArray(value)) return { shape: 'array', items: value };
	if (value && typeof value === 'object' && Array.isArray((value as { results?: unknown }).results)) {
		const v = value as { results: unknown[]; next?: unknown; count?: unknown };
		return {
			shape: 'envelope',
			items: v.results,
			next: typeof v.next === 'string' && v.next !== '' ? v.next : v.next === null ? null : undefined,
			count: typeof v.count === 'number' && Number.isFinite(v.count) ? v.count : undefined,
		};
	}
	throw new ServiceError({
		kind: 'invalidResponse',
		message: `Expected a list (a JSON array or an object with "results") from ${where}, got: ${excerpt(JSON.stringify(value) ?? String(value))}`,
		path: where,
	});
}

/** Identifies a page cheaply, to notice a server that answers the same page again. */
export function pageSignature(items: unknown[]): string {
	const idOf = (item: unknown): string =>
		item && typeof item === 'object' && 'id' in item ? String((item as { id: unknown }).id) : JSON.stringify(item);
	return `${items.length}:${idOf(items[0])}:${idOf(items[items.length - 1])}`;
}

/** Why a scan stopped before the list's normal end (the client's `paginationStopped` reason). */
export type PagingAnomaly =
	| 'repeatedNext'
	| 'repeatedPage'
	| 'emptyPage'
	| 'countMismatch'
	| 'tooManyPages'
	| 'tooManyItems'
	| 'pageTooLarge'
	| 'maxItems'
	| 'shifted';

/** How a scan ended: the return value of `ServiceClient.pages()`. Only a complete scan may be read as "the whole list". */
export type PagingOutcome = { complete: true } | { complete: false; reason: PagingAnomaly; detail: string };
