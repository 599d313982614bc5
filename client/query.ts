import { ENDPOINTS, FILTER_KEY_TYPE, SUPPORTS_ENABLED, type OperationId } from './catalogue';
import { ValidationError } from './errors';
import { encodeFilter, validateFilter, validateFilterKey, type Filter, type FilterInput } from './filters';

/**
 * Building list queries: enabled, ordering, search, limit, filters, and the page offset.
 *
 * ASSUMED (the spec names only `limit`): lists page like Django REST framework's
 * limit/offset pagination, the style `/project/viewset/` suggests: `limit` is the page size,
 * `offset` the index of the first item, and the answer is `{count, next, previous, results}`.
 * Clients also accept a bare array (see pagination.ts).
 */
export const PAGINATION = { limitParam: 'limit', offsetParam: 'offset' } as const;

/** The page size the client asks for when the caller does not choose one. */
export const DEFAULT_PAGE_SIZE = 100;
/** Upper bound of `limit` accepted by the validator (the service's maximum is not published). */
export const MAX_LIMIT = 1000;

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

export function validateLimit(limit: unknown, parameter = 'limit', max = MAX_LIMIT): number {
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

/** Query parameters in a fixed order (so identical queries give identical URLs). */
export function listParams(query: ValidatedListQuery, page?: { limit: number; offset?: number }): Array<[string, string]> {
	const params: Array<[string, string]> = [];
	if (query.enabled) params.push(['enabled', `[${query.enabled.join(',')}]`]);
	if (query.ordering) params.push(['ordering', `${query.ordering.direction === 'desc' ? '-' : ''}${query.ordering.key}`]);
	if (query.search !== undefined) params.push(['search', query.search]);
	for (const f of query.filters) params.push(encodeFilter(f));
	if (page) {
		params.push([PAGINATION.limitParam, String(page.limit)]);
		if (page.offset) params.push([PAGINATION.offsetParam, String(page.offset)]);
	}
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
