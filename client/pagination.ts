import { ServiceError, excerpt } from './errors';
import { DEFAULT_PROFILE, type ServiceProfile } from './profile';

/**
 * Reading one page of a list. The client accepts both shapes a list may come in: a bare JSON
 * array, or a paged envelope whose keys for items, count and next the profile names
 * (`paging.itemsKey`, `countKey`, `nextKey`; by default `{results, next?, count?}`).
 */
export type Page =
	| { shape: 'array'; items: unknown[] }
	| { shape: 'envelope'; items: unknown[]; next: string | null | undefined; count: number | undefined };

export function readPage(value: unknown, where: string, profile: ServiceProfile = DEFAULT_PROFILE): Page {
	if (Array.isArray(value)) return { shape: 'array', items: value };
	const { itemsKey, countKey, nextKey } = profile.paging;
	const v = value as Record<string, unknown> | null;
	if (itemsKey !== null && v && typeof v === 'object' && Array.isArray(v[itemsKey])) {
		const next = nextKey === null ? undefined : v[nextKey];
		const count = countKey === null ? undefined : v[countKey];
		return {
			shape: 'envelope',
			items: v[itemsKey] as unknown[],
			next: typeof next === 'string' && next !== '' ? next : next === null ? null : undefined,
			count: typeof count === 'number' && Number.isSafeInteger(count) && count >= 0 ? count : undefined,
		};
	}
	throw new ServiceError({
		kind: 'invalidResponse',
		message: `Expected a list (a JSON array${itemsKey === null ? '' : ` or an object with "${itemsKey}"`}) from ${where}, got: ${excerpt(JSON.stringify(value) ?? String(value))}`,
		path: where,
	});
}

/** Identifies a page cheaply, to notice a server that answers the same page again. */
export function pageSignature(items: unknown[]): string {
	return `${items.length}:${itemKey(items[0])}:${itemKey(items[items.length - 1])}`;
}

/**
 * An item's identity within one scan: its `id` (ids that print alike are alike: 5 and "5"), else its
 * JSON. A whole-number id is its own key (a number: no string built, cheap to hash for a scan that
 * remembers every id it yielded); any other id is "#" and its text.
 */
export type ItemKey = string | number;

const CANONICAL_INTEGER = /^(?:0|-?[1-9]\d*)$/;

export function itemKey(item: unknown): ItemKey {
	if (item && typeof item === 'object' && 'id' in item) {
		const id = (item as { id: unknown }).id;
		if (typeof id === 'number' && Number.isSafeInteger(id)) return id;
		if (typeof id === 'string' && CANONICAL_INTEGER.test(id) && Number.isSafeInteger(Number(id))) return Number(id);
		return `#${String(id)}`;
	}
	try {
		return JSON.stringify(item) ?? 'undefined';
	} catch {
		return '?';
	}
}

/**
 * Where a page of an overlapped scan goes on: the position of the latest key of the previous
 * page's `tail` found on this page (its last occurrence), or -1 when none is (the list shifted by
 * more than the overlap). Per-item loops of a scan live in small functions like this one.
 */
export function anchorOf(keys: readonly ItemKey[], tail: readonly ItemKey[]): number {
	const rank = new Map(tail.map((key, r) => [key, r]));
	let best = -1;
	let anchor = -1;
	for (let i = 0; i < keys.length; i++) {
		const r = rank.get(keys[i]);
		if (r === undefined || r < best) continue;
		best = r;
		anchor = i;
	}
	return anchor;
}

/**
 * The items after `anchor` whose keys this scan has not yielded yet, at most `limit` of them; their
 * keys join `yielded` (an id twice on one page is yielded once too).
 */
export function unseenAfter(items: readonly unknown[], keys: readonly ItemKey[], anchor: number, yielded: Set<ItemKey>, limit: number): unknown[] {
	const fresh: unknown[] = [];
	for (let i = anchor + 1; i < keys.length && fresh.length < limit; i++) {
		// One hash operation per item: a key yielded before leaves the size as it was.
		const before = yielded.size;
		if (yielded.add(keys[i]).size === before) continue;
		fresh.push(items[i]);
	}
	return fresh;
}

/**
 * What a scan needs of a page it read before, to go on without parsing it again: the keys of its
 * items (after any renaming), in order, and where the list goes on.
 */
export interface RememberedPage {
	keys: ItemKey[];
	shape: Page['shape'];
	next?: string | null;
	count?: number;
}

/**
 * A caller's memory of the pages of a list, by the offset of their first item and a digest of
 * their text (`PageOptions.memory`). A page answered with exactly the text remembered at its
 * offset is not parsed when `recall` returns it: only the caller knows whether it can do without
 * the items this time (it gets their keys through `recalled`).
 */
export interface PageMemory {
	/** A collision-resistant digest of a page's text (the caller's: the client core uses no Node.js module). */
	digest(text: string): string;
	/** The page remembered at this offset with this digest, when the caller can do without its items now. */
	recall(offset: number, digest: string): RememberedPage | undefined;
	/** A page read in full (not cut by `maxItems`), just before its items are yielded (the caller keeps it once they are handled). */
	read(offset: number, digest: string, page: RememberedPage): void;
	/** The keys of a recalled page's items this scan had not yielded before (an empty array is yielded for it). */
	recalled(keys: ItemKey[]): void;
}

/** Why a scan ended before the list's normal end. */
export type PagingAnomaly =
	/** A `next` link seen before, or one that points back to an offset already read. */
	| 'repeatedNext'
	/** The same page (length, first and last item) answered twice in one scan. */
	| 'repeatedPage'
	/** An empty page although the service said more items follow. */
	| 'emptyPage'
	/** `count` disagrees with what was read (the list ended before it, or goes on past it). */
	| 'countMismatch'
	/** More pages than the announced `count` can fill (or the hard cap without a count). */
	| 'tooManyPages'
	/** More items than the announced `count` plus the margin (or the hard cap without a count). */
	| 'tooManyItems'
	/** A page with more items than asked for (refused whole: not the items asked for). */
	| 'pageTooLarge'
	/** The re-read overlap does not reach the previous page: the list shifted more than the overlap. */
	| 'shifted'
	/** The caller's own `maxItems` was reached before the end. */
	| 'maxItems';

export type PagingOutcome = { complete: true } | { complete: false; reason: PagingAnomaly; detail: string };

/**
 * Items re-read at each page boundary by a scan that must see every item once (`overlap`): enough
 * for the deletes before the cursor that a live list sees between two pages, never more than a
 * fifth of a page.
 */
export function boundaryOverlap(pageSize: number): number {
	return Math.max(1, Math.min(20, Math.floor(pageSize / 5)));
}

/** What a caller hands `return()` when it stops reading a list before its end. */
export const STOPPED_READING: PagingOutcome = { complete: false, reason: 'maxItems', detail: 'the caller stopped reading' };

/**
 * ASSUMED (the spec publishes no bounds): a scan may read at most the first `count` the service
 * announced plus 10 % (at least one page) of margin — lists change while they are read — and
 * without any `count` at most the hard cap. Paging ends in every case.
 */
export const PAGING_BOUNDS = {
	marginShare: 0.1,
	hardCap: { pages: 10_000, items: 2_000_000 },
	/** Pages beyond what the items could fill, before `tooManyPages`. */
	extraPages: 2,
} as const;

export function itemBound(announced: number | undefined, pageSize: number): number {
	if (announced === undefined) return PAGING_BOUNDS.hardCap.items;
	return Math.min(PAGING_BOUNDS.hardCap.items, announced + Math.max(pageSize, Math.ceil(announced * PAGING_BOUNDS.marginShare)));
}

export function pageBound(announced: number | undefined, pageSize: number): number {
	if (announced === undefined) return PAGING_BOUNDS.hardCap.pages;
	return Math.min(PAGING_BOUNDS.hardCap.pages, Math.ceil(itemBound(announced, pageSize) / pageSize) + PAGING_BOUNDS.extraPages);
}

/**
 * ASSUMED (the service's largest page is not published): a 400 whose description names the page
 * size parameter (`limit`, or `page_size` with page numbers) refuses the page size. The client
 * retries with the largest size the description names below the one asked (e.g. "from 1 to 500"),
 * else half of it, and once the service answers that size, remembers it for that base URL
 * (process-wide, like the pacers) so later scans ask for it at once.
 *
 * Quoted text is the caller's own value echoed back (a filter value "no limit"): it is left out
 * before the name is looked for, unless it is the name alone (`"limit" must be at most 500`) and
 * no value sent is the name alone (a filter value "limit" quoted back); so are the values the
 * request sent (`sent`), quoted or not.
 */
export function refusesPageSize(error: unknown, parameter = DEFAULT_PROFILE.paging.limitParam, sent: readonly string[] = []): error is ServiceError {
	if (!(error instanceof ServiceError) || error.status !== 400) return false;
	const name = parameter.toLowerCase();
	const sentName = sent.some((value) => value.trim().toLowerCase() === name);
	const text = withoutEchoes(unquoted((error.description ?? error.message).toLowerCase(), sentName ? undefined : name), name, sent);
	// The parameter's name as a word of its own (not a part of a longer name).
	const word = (i: number) => i < 0 || i >= text.length || !/[a-z0-9_]/.test(text[i]);
	for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
		if (word(at - 1) && word(at + name.length)) return true;
	}
	return false;
}

/**
 * The text without the values the request sent (`sent`: filter values, search) that contain the
 * name but are not the name alone: a service may echo them without quotes ("no limit is not a
 * finite number").
 */
function withoutEchoes(text: string, name: string, sent: readonly string[]): string {
	let out = text;
	for (const value of sent) {
		const echo = value.trim().toLowerCase();
		if (echo !== name && echo.includes(name)) out = out.split(echo).join(' ');
	}
	return out;
}

/** The text without its quoted parts ("…", '…', “…”, «…») but the name alone (when given): what the service says, not what it echoes. */
function unquoted(text: string, name: string | undefined): string {
	return text.replace(/"([^"]*)"|“([^”]*)”|«([^»]*)»|(?<![a-z0-9])'([^']*)'(?![a-z0-9])/gi, (quoted, ...inner: unknown[]) => {
		const content = inner.slice(0, 4).find((v): v is string => typeof v === 'string');
		return content?.trim() === name ? ` ${name} ` : ' ';
	});
}

export function smallerPageSize(error: ServiceError, asked: number): number {
	const text = error.description ?? error.message;
	const named = [...text.matchAll(/\d+/g)].map((m) => Number(m[0])).filter((n) => Number.isSafeInteger(n) && n >= 1 && n < asked);
	return named.length > 0 ? Math.max(...named) : Math.max(1, Math.floor(asked / 2));
}

export class PageSizeMemory {
	private readonly sizes = new Map<string, number>();

	/** The largest page the service at `key` accepted, when it refused a larger one. */
	get(key: string): number | undefined {
		return this.sizes.get(key);
	}

	remember(key: string, size: number): void {
		const known = this.sizes.get(key);
		if (known === undefined || size < known) this.sizes.set(key, size);
	}

	forget(key: string): void {
		this.sizes.delete(key);
	}

	/** Forgets every size (a test file sharing a process starts as a process of its own would). */
	clear(): void {
		this.sizes.clear();
	}
}

/** The process-wide memory of refused page sizes, keyed by API root. */
export const sharedPageSizes = new PageSizeMemory();

/**
 * ASSUMED: no answer of this service nests deeper than a few levels (a test result with steps and
 * limits is about 6). Deeper JSON is refused before anyone reads it: recursive code anywhere
 * downstream (serialising events, n8n copying items) would otherwise overflow the stack.
 */
export const MAX_JSON_DEPTH = 100;

/**
 * Whether a parsed JSON value nests arrays/objects deeper than `max`. Checked on the value, not the
 * text: V8's JSON.parse does not recurse (any depth parses; the size guard bounds the text), and a
 * walk over a page's containers costs a fifth of a scan over its characters. The walk stops
 * `max` levels down, so its own recursion stays shallow.
 */
export function valueDeeperThan(value: unknown, max: number): boolean {
	if (typeof value !== 'object' || value === null) return false;
	if (max <= 0) return true;
	// Only containers are walked into: most values of a record are primitives, and a call for each
	// was most of the walk's cost.
	if (Array.isArray(value)) {
		for (let i = 0; i < value.length; i++) {
			const item: unknown = value[i];
			if (typeof item === 'object' && item !== null && valueDeeperThan(item, max - 1)) return true;
		}
		return false;
	}
	for (const key in value) {
		const item = (value as Record<string, unknown>)[key];
		if (typeof item === 'object' && item !== null && valueDeeperThan(item, max - 1)) return true;
	}
	return false;
}

/**
 * ASSUMED: one record of this service stays well under 64 KB of JSON; a page answer is refused
 * unread when its body exceeds the size asked × that (memory stays bounded per page).
 */
export const MAX_ITEM_BYTES = 64 * 1024;

export function maxPageBytes(asked: number): number {
	return (asked + 1) * MAX_ITEM_BYTES;
}
