import { ENDPOINTS, FILTER_KEY_TYPE, SUPPORTS_ENABLED, type OperationId, type Resource } from './catalogue';
import { ValidationError } from './errors';
import { encodeFilter, validateFilter, validateFilterKey, type Filter, type FilterInput } from './filters';
import { DEFAULT_PROFILE, type FieldResource, type ServiceProfile } from './profile';

/**
 * Building list queries: enabled, ordering, search, limit, filters, and the page's position.
 * Paging parameter names and field names come from the service profile (`client/profile.ts`):
 * callers speak the canonical field names, the wire gets the service's.
 */

export interface Ordering {
	/** Property key id (customers, devices, overdue devices) or field name (the other lists). */
	key: number | string;
	direction: 'asc' | 'desc';
}

export interface ListQuery {
	enabled?: Array<number | string>;
	ordering?: Ordering;
	search?: string;
	filters?: FilterInput[];
}

/** A list query after validation: what goes on the wire, minus paging. */
export interface ValidatedListQuery {
	enabled?: number[];
	ordering?: { key: number | string; direction: 'asc' | 'desc' };
	search?: string;
	filters: Filter[];
}

export function validateLimit(limit: unknown, parameter = 'limit', max = DEFAULT_PROFILE.paging.maxPageSize): number {
	if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1 || limit > max) {
		throw new ValidationError(parameter, `must be a whole number from 1 to ${max}, got ${JSON.stringify(limit) ?? String(limit)}`);
	}
	return limit;
}

export function validateListQuery(operation: OperationId, query: ListQuery = {}): ValidatedListQuery {
	const { resource, kind } = ENDPOINTS[operation];
	if (kind !== 'list') throw new ValidationError('operation', `${operation} is not a list`);
	const keyType = FILTER_KEY_TYPE[resource];
	const out: ValidatedListQuery = { filters: [] };

	if (query.enabled !== undefined && query.enabled.length > 0) {
		if (!SUPPORTS_ENABLED.has(resource)) {
			throw new ValidationError('enabled', `applies to customers, devices and overdue devices only, not to ${resource}`);
		}
		out.enabled = query.enabled.map((id) => validateFilterKey(id, 'propertyKeyId', 'enabled') as number);
	}
	if (query.ordering !== undefined) {
		const { direction } = query.ordering;
		if (direction !== 'asc' && direction !== 'desc') {
			throw new ValidationError('ordering', `direction must be asc or desc, got ${JSON.stringify(direction)}`);
		}
		out.ordering = { key: validateFilterKey(query.ordering.key, keyType, 'ordering'), direction };
	}
	if (query.search !== undefined && query.search !== '') {
		if (typeof query.search !== 'string') throw new ValidationError('search', 'must be text');
		out.search = query.search;
	}
	const seen = new Set<string>();
	for (const [i, f] of (query.filters ?? []).entries()) {
		const filter = validateFilter(f, keyType, `filters[${i}]`);
		const name = String(filter.key);
		if (seen.has(name)) {
			throw new ValidationError(`filters[${i}]`, `${name} is filtered twice; put both conditions in one filter joined by AND or OR`);
		}
		seen.add(name);
		out.filters.push(filter);
	}
	return out;
}

/** Where a page starts and how many items it holds (the client turns it into the profile's parameters). */
export interface PagePosition {
	limit: number;
	offset?: number;
}

/**
 * The paging parameters of one page in the profile's style. Page numbers can only name a page
 * that starts at a multiple of its size: the client chooses such positions (`pageNumberWindow`).
 */
export function pagingParams(page: PagePosition, profile: ServiceProfile = DEFAULT_PROFILE): Array<[string, string]> {
	const p = profile.paging;
	const offset = page.offset ?? 0;
	if (p.style === 'limitOffset') return offset ? [[p.limitParam, String(page.limit)], [p.offsetParam, String(offset)]] : [[p.limitParam, String(page.limit)]];
	if (offset % page.limit !== 0) throw new ValidationError('offset', `must be a multiple of the page size (${page.limit}) with page-number paging, got ${offset}`);
	return [
		[p.pageParam, String(offset / page.limit + p.firstPage)],
		[p.pageSizeParam, String(page.limit)],
	];
}

/**
 * With page-number paging, the page to ask for so that it holds the item at `offset` and reaches
 * as far past it as it can: a size from `size` down to half of it, the one whose page ends last.
 * The items before `offset` on that page are read again (an overlap, harmless to a scan by id).
 */
export function pageNumberWindow(offset: number, size: number): { start: number; size: number } {
	let best = { start: Math.floor(offset / size) * size, size };
	for (let s = size - 1; s >= Math.max(1, Math.ceil(size / 2)); s--) {
		const start = Math.floor(offset / s) * s;
		if (start + s > best.start + best.size) best = { start, size: s };
		if (start === offset) break;
	}
	return best;
}

/** The service's name of a canonical field of a list filtered by field name. */
export function wireFieldName(profile: ServiceProfile, resource: Resource, name: string): string {
	return profile.fields[resource as FieldResource]?.[name]?.name ?? name;
}

/** Query parameters in a fixed order (so identical queries give identical URLs). */
export function listParams(query: ValidatedListQuery, page?: PagePosition, profile: ServiceProfile = DEFAULT_PROFILE, resource?: Resource): Array<[string, string]> {
	const wire = (key: number | string) => (typeof key === 'string' && resource !== undefined ? wireFieldName(profile, resource, key) : key);
	const params: Array<[string, string]> = [];
	if (query.enabled) params.push(['enabled', `[${query.enabled.join(',')}]`]);
	if (query.ordering) params.push(['ordering', `${query.ordering.direction === 'desc' ? '-' : ''}${wire(query.ordering.key)}`]);
	if (query.search !== undefined) params.push(['search', query.search]);
	for (const f of query.filters) params.push(encodeFilter({ ...f, key: wire(f.key) }));
	if (page) params.push(...pagingParams(page, profile));
	return params;
}

export function queryString(params: Array<[string, string]>): string {
	return params.length === 0 ? '' : `?${new URLSearchParams(params).toString()}`;
}

/** `direct_delete` is a flag: present means "bypass the recycle bin". */
export function deleteParams(directDelete: boolean): Array<[string, string]> {
	return directDelete ? [['direct_delete', 'true']] : [];
}

/** Parses `enabled=[1,2]` (the sandbox's side). */
export function parseEnabled(raw: string): number[] {
	const m = /^\[\s*(\d+(\s*,\s*\d+)*)?\s*\]$/.exec(raw.trim());
	if (!m) throw new ValidationError('enabled', `must be property key ids written like [1,2], got ${JSON.stringify(raw)}`);
	return m[1] ? m[1].split(',').map((s) => validateFilterKey(s.trim(), 'propertyKeyId', 'enabled') as number) : [];
}
