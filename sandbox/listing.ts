import {
	ValidationError,
	wireFieldName,
	parseEnabled,
	parseFilter,
	validateFilterKey,
	type DataType,
	type Filter,
	type FilterKeyType,
	type Resource,
	type ServiceProfile,
} from '../client';

/**
 * The list engine behind every list endpoint: filters (the client's parser, so both sides speak
 * one language), search, ordering, paging in the profile's style (limit/offset or page numbers),
 * field names as the profile names them on the wire.
 *
 * Semantics (documented in docs/sandbox.md, "The sandbox": its choices where the specification is silent):
 * - Text compares case-insensitively (Unicode lower case); a missing value counts as "".
 * - Number compares numerically; a missing value matches only notEquals.
 * - Date compares calendar days (the date part of a date or timestamp); a missing value matches
 *   only notSameDate.
 */

export type Value = string | number | boolean | null | undefined;

export interface ListSource<T> {
	resource: Resource;
	keyType: FilterKeyType;
	/** The data type of a property key id or field; undefined = unknown key. */
	dataTypeOf(key: number | string): DataType | undefined;
	value(item: T, key: number | string): Value;
	/** Values `search` looks into. */
	searchable(item: T): Value[];
	id(item: T): number;
}

export interface ListRequest {
	filters: Array<{ filter: Filter; dataType: DataType }>;
	enabled?: number[];
	ordering?: { key: number | string; desc: boolean; dataType: DataType; order: ServiceProfile['ordering'] };
	search?: string;
	limit: number;
	offset: number;
}

type Query = Record<string, string | string[] | undefined>;

function single(query: Query, name: string): string | undefined {
	const v = query[name];
	if (Array.isArray(v)) throw new ValidationError(name, 'is given more than once; give it once');
	return v;
}

function knownKeys<T>(source: ListSource<T>, profile: ServiceProfile): string {
	return source.keyType === 'fieldName'
		? Object.values(profile.fields[source.resource as keyof ServiceProfile['fields']] ?? {}).map((f) => f.name).join(', ')
		: 'the ids listed by the property-key list';
}

/** A wire field name → its canonical name (the one the sandbox's records use). */
function canonicalField(profile: ServiceProfile, resource: Resource, wire: string): string | undefined {
	const fields = profile.fields[resource as keyof ServiceProfile['fields']];
	if (!fields) return wire;
	return Object.keys(fields).find((canonical) => wireFieldName(profile, resource, canonical) === wire);
}

function keyWithType<T>(source: ListSource<T>, raw: string, parameter: string, profile: ServiceProfile): { key: number | string; dataType: DataType } {
	const wire = validateFilterKey(raw, source.keyType, parameter);
	const key = typeof wire === 'string' ? canonicalField(profile, source.resource, wire) : wire;
	const dataType = key === undefined ? undefined : source.dataTypeOf(key);
	if (key === undefined || !dataType) {
		throw new ValidationError(parameter, `unknown ${source.keyType === 'fieldName' ? 'field' : 'property key id'} ${wire}; known: ${knownKeys(source, profile)}`);
	}
	return { key, dataType };
}

/** The paging parameters of `profile`'s style: [page size, position]. */
export function pagingNames(profile: ServiceProfile): [string, string] {
	const p = profile.paging;
	return p.style === 'limitOffset' ? [p.limitParam, p.offsetParam] : [p.pageSizeParam, p.pageParam];
}

export function parseListRequest<T>(source: ListSource<T>, query: Query, options: { enabled: boolean; profile: ServiceProfile }): ListRequest {
	const { profile } = options;
	const p = profile.paging;
	const request: ListRequest = { filters: [], limit: p.defaultPageSize, offset: 0 };
	const [sizeName, positionName] = pagingNames(profile);
	const limit = single(query, sizeName);
	if (limit !== undefined) {
		if (!/^\d+$/.test(limit) || Number(limit) < 1) throw new ValidationError(sizeName, `must be a whole number from 1 to ${p.maxPageSize}, got "${limit}"`);
		request.limit = Math.min(Number(limit), p.maxPageSize);
	}
	const position = single(query, positionName);
	if (position !== undefined) {
		if (p.style === 'limitOffset') {
			if (!/^\d+$/.test(position)) throw new ValidationError(positionName, `must be a whole number of 0 or more, got "${position}"`);
			request.offset = Number(position);
		} else {
			if (!/^\d+$/.test(position) || Number(position) < p.firstPage) throw new ValidationError(positionName, `must be a whole number of ${p.firstPage} or more, got "${position}"`);
			request.offset = (Number(position) - p.firstPage) * request.limit;
		}
	}
	const enabled = single(query, 'enabled');
	if (enabled !== undefined) {
		if (!options.enabled) throw new ValidationError('enabled', `is not available for ${source.resource} lists`);
		request.enabled = parseEnabled(enabled);
		for (const id of request.enabled) keyWithType(source, String(id), 'enabled', profile);
	}
	const ordering = single(query, 'ordering');
	if (ordering !== undefined && ordering !== '') {
		const desc = ordering.startsWith('-');
		const { key, dataType } = keyWithType(source, desc ? ordering.slice(1) : ordering, 'ordering', profile);
		request.ordering = { key, desc, dataType, order: profile.ordering };
	}
	const search = single(query, 'search');
	if (search !== undefined && search !== '') request.search = search.toLowerCase();

	const reserved = new Set(['enabled', 'ordering', 'search', sizeName, positionName]);
	for (const name of Object.keys(query)) {
		if (reserved.has(name)) continue;
		const raw = single(query, name);
		if (raw === undefined) continue;
		const { key, dataType } = keyWithType(source, name, name, profile);
		request.filters.push({ filter: { ...parseFilter(name, raw, source.keyType, dataType), key }, dataType });
	}
	return request;
}

type Predicate = (v: Value) => boolean;

function textOf(v: Value): string {
	return v === null || v === undefined ? '' : String(v).toLowerCase();
}

function dayOf(v: Value): string | undefined {
	return typeof v === 'string' && v.length >= 10 ? v.slice(0, 10) : undefined;
}

function numberOf(v: Value): number | undefined {
	if (typeof v === 'number') return v;
	if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
	return undefined;
}

function conditionPredicate(keyword: string, raw: string, dataType: DataType): Predicate {
	if (dataType === 'Number') {
		const x = Number(raw);
		const cmp = (f: (n: number) => boolean, missing = false): Predicate => (v) => {
			const n = numberOf(v);
			return n === undefined ? missing : f(n);
		};
		switch (keyword) {
			case 'equals': return cmp((n) => n === x);
			case 'notEquals': return cmp((n) => n !== x, true);
			case 'greaterThan': return cmp((n) => n > x);
			case 'greaterThanOrEquals': return cmp((n) => n >= x);
			case 'lessThan': return cmp((n) => n < x);
			case 'lessThanOrEquals': return cmp((n) => n <= x);
		}
	}
	if (dataType === 'Date') {
		const cmp = (f: (d: string) => boolean, missing = false): Predicate => (v) => {
			const d = dayOf(v);
			return d === undefined ? missing : f(d);
		};
		switch (keyword) {
			case 'sameDate': return cmp((d) => d === raw);
			case 'notSameDate': return cmp((d) => d !== raw, true);
			case 'newer': return cmp((d) => d > raw);
			case 'newerOrSame': return cmp((d) => d >= raw);
			case 'olderThan': return cmp((d) => d < raw);
			case 'olderOrSame': return cmp((d) => d <= raw);
		}
	}
	const x = raw.toLowerCase();
	// Lower-casing never changes the length of these values in practice; checking the length
	// first spares most lower-casing on large lists.
	const same = (v: Value) => (typeof v === 'string' && v.length !== x.length ? false : textOf(v) === x);
	switch (keyword) {
		case 'equals': return same;
		case 'notEquals': return (v) => !same(v);
		case 'startsWith': return (v) => textOf(v).startsWith(x);
		case 'notStartsWith': return (v) => !textOf(v).startsWith(x);
		case 'endsWith': return (v) => textOf(v).endsWith(x);
		case 'notEndsWith': return (v) => !textOf(v).endsWith(x);
		case 'contains': return (v) => textOf(v).includes(x);
		case 'notContains': return (v) => !textOf(v).includes(x);
	}
	// parseFilter has already refused keywords that do not apply to the data type.
	throw new ValidationError(keyword, `does not apply to ${dataType}`);
}

export function filterPredicate(filter: Filter, dataType: DataType): Predicate {
	const parts = filter.conditions.map((c) => conditionPredicate(c.keyword, c.value, dataType));
	if (parts.length === 1) return parts[0];
	return filter.join === 'OR' ? (v) => parts.some((p) => p(v)) : (v) => parts.every((p) => p(v));
}

/** Ascending; a missing value compares as the lowest (the caller places it as the profile says). */
function compareValues(a: Value, b: Value, dataType: DataType, ignoreCase: boolean): number {
	const missingA = a === null || a === undefined || a === '';
	const missingB = b === null || b === undefined || b === '';
	if (missingA || missingB) return missingA === missingB ? 0 : missingA ? -1 : 1;
	if (dataType === 'Number') return (numberOf(a) ?? 0) - (numberOf(b) ?? 0);
	const x = dataType === 'Text' && ignoreCase ? textOf(a) : String(a);
	const y = dataType === 'Text' && ignoreCase ? textOf(b) : String(b);
	return x < y ? -1 : x > y ? 1 : 0;
}

export interface ListResult<T> {
	count: number;
	items: T[];
}

/** Applies filters, search and ordering, then cuts the requested page. */
export function runList<T>(source: ListSource<T>, all: Iterable<T>, request: ListRequest): ListResult<T> {
	const tests = request.filters.map(({ filter, dataType }) => ({ key: filter.key, test: filterPredicate(filter, dataType) }));
	const matched: T[] = [];
	for (const item of all) {
		let ok = true;
		for (const t of tests) {
			if (!t.test(source.value(item, t.key))) {
				ok = false;
				break;
			}
		}
		if (ok && request.search !== undefined) {
			ok = source.searchable(item).some((v) => textOf(v).includes(request.search!));
		}
		if (ok) matched.push(item);
	}
	if (request.ordering) {
		const { key, desc, dataType, order: served } = request.ordering;
		const sign = desc ? -1 : 1;
		// Missing values as the profile's `ordering.missing` says: last or first in both directions,
		// or as the lowest / highest value (then they follow the direction).
		const missingSign = served.missing === 'last' ? -1 : served.missing === 'first' ? 1 : served.missing === 'lowest' ? sign : -sign;
		const keyed = matched.map((item) => ({ item, v: source.value(item, key), id: source.id(item) }));
		const order = (a: (typeof keyed)[number], b: (typeof keyed)[number]) => {
			const c = compareValues(a.v, b.v, dataType, served.textCase === 'ignore');
			const missing = (a.v === null || a.v === undefined || a.v === '') !== (b.v === null || b.v === undefined || b.v === '');
			// Ties keep id order (stable paging).
			return (missing ? missingSign * c : sign * c) || a.id - b.id;
		};
		const first = smallest(keyed, request.offset + request.limit, order);
		return { count: matched.length, items: first.slice(request.offset).map((k) => k.item) };
	}
	return { count: matched.length, items: matched.slice(request.offset, request.offset + request.limit) };
}

/** The first `k` items in `order`, sorted: a bounded heap, so a page of a large list costs O(n log k). */
export function smallest<T>(items: T[], k: number, order: (a: T, b: T) => number): T[] {
	if (k >= items.length / 4) return items.sort(order).slice(0, k);
	const heap: T[] = []; // max-heap by `order`: the worst kept item at the root
	const down = (i: number) => {
		for (;;) {
			const l = 2 * i + 1;
			const r = l + 1;
			let worst = i;
			if (l < heap.length && order(heap[l], heap[worst]) > 0) worst = l;
			if (r < heap.length && order(heap[r], heap[worst]) > 0) worst = r;
			if (worst === i) return;
			[heap[i], heap[worst]] = [heap[worst], heap[i]];
			i = worst;
		}
	};
	for (const item of items) {
		if (heap.length < k) {
			heap.push(item);
			for (let i = heap.length - 1; i > 0; ) {
				const parent = (i - 1) >> 1;
				if (order(heap[i], heap[parent]) <= 0) break;
				[heap[i], heap[parent]] = [heap[parent], heap[i]];
				i = parent;
			}
		} else if (k > 0 && order(item, heap[0]) < 0) {
			heap[0] = item;
			down(0);
		}
	}
	return heap.sort(order);
}
