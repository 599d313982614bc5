import { expect } from 'vitest';
import {
	encodeFilter,
	listParams,
	validateFilter,
	validateListQuery,
	type DataType,
	type FilterInput,
	type FilterKeyType,
	type ListQuery,
	type OperationId,
} from '../../client';
import type { Answer, Prop } from '../support/sandbox';

/**
 * Helpers for the sandbox conformance suite: paths, the client's query builders, and an
 * independent model of the filter semantics. The sandbox itself and the HTTP client over it
 * live in test/support/sandbox.ts.
 */

/** Builds a list path with the client's own query builder (validated, then encoded). */
export function listPath(operation: OperationId, path: string, query: ListQuery, page?: { limit: number; offset?: number }): string {
	const params = listParams(validateListQuery(operation, query), page);
	return params.length === 0 ? path : `${path}?${new URLSearchParams(params).toString()}`;
}

/** One filter encoded with the client's encoder, as a query string (without `?`). */
export function filterQuery(filter: FilterInput, keyType: FilterKeyType): string {
	return new URLSearchParams([encodeFilter(validateFilter(filter, keyType))]).toString();
}

export const PATHS = {
	customers: '/data/customers/all/',
	devices: '/data/devices/all/',
	overdue: '/data/devices/overdue/',
	testResults: '/tests_performed/all/',
	projects: '/project/viewset/',
	users: '/users/all/',
	bin: '/recycle_bin/all/',
	propertyKeys: '/data/properties/all/',
} as const;

/** Property values of a rendered device/customer, by key id. */
export function props(item: { properties: Array<{ key_id: number; value: unknown }> }): Record<number, Prop['value']> {
	const out: Record<number, Prop['value']> = {};
	for (const p of item.properties) out[p.key_id] = p.value as Prop['value'];
	return out;
}

// ---- an independent model of the filter semantics ------------------------------------------

/**
 * The semantics the suite expects, written plainly (not taken from the sandbox):
 * Text: case-insensitive; a missing value counts as the empty text.
 * Number: numeric comparison; a missing value matches only notEquals.
 * Date: the calendar day (first 10 characters of a date or timestamp); a missing value matches
 * only notSameDate.
 */
export function matches(value: unknown, keyword: string, target: string, type: DataType): boolean {
	const missing = value === null || value === undefined || value === '';
	if (type === 'Number') {
		if (missing) return keyword === 'notEquals';
		const v = Number(value);
		const t = Number(target);
		switch (keyword) {
			case 'equals': return v === t;
			case 'notEquals': return v !== t;
			case 'greaterThan': return v > t;
			case 'greaterThanOrEquals': return v >= t;
			case 'lessThan': return v < t;
			case 'lessThanOrEquals': return v <= t;
		}
	}
	if (type === 'Date') {
		if (missing) return keyword === 'notSameDate';
		const day = String(value).slice(0, 10);
		switch (keyword) {
			case 'sameDate': return day === target;
			case 'notSameDate': return day !== target;
			case 'newer': return day > target;
			case 'newerOrSame': return day >= target;
			case 'olderThan': return day < target;
			case 'olderOrSame': return day <= target;
		}
	}
	if (type === 'Text') {
		const v = missing ? '' : String(value).toLowerCase();
		const t = target.toLowerCase();
		switch (keyword) {
			case 'equals': return v === t;
			case 'notEquals': return v !== t;
			case 'startsWith': return v.startsWith(t);
			case 'notStartsWith': return !v.startsWith(t);
			case 'endsWith': return v.endsWith(t);
			case 'notEndsWith': return !v.endsWith(t);
			case 'contains': return v.includes(t);
			case 'notContains': return !v.includes(t);
		}
	}
	throw new Error(`the suite's model has no ${keyword} for ${type}`);
}

export function matchesFilter(value: unknown, filter: FilterInput, type: DataType): boolean {
	const results = filter.conditions.map((c) => matches(value, c.keyword, String(c.value), type));
	return filter.join === 'OR' ? results.some(Boolean) : results.every(Boolean);
}

export function ids(items: Array<{ id: number }>): number[] {
	return items.map((i) => i.id).sort((a, b) => a - b);
}

/** An error answer: the status and a JSON body with a non-empty `description`. */
export function expectError(a: Answer, status: number, mentions?: string | RegExp): void {
	expect(a.status, a.text.slice(0, 300)).toBe(status);
	expect(a.headers.get('content-type') ?? '').toMatch(/application\/json/);
	expect(typeof a.body?.description, a.text).toBe('string');
	expect(a.body.description.length).toBeGreaterThan(0);
	if (mentions !== undefined) {
		if (typeof mentions === 'string') expect(a.body.description).toContain(mentions);
		else expect(a.body.description).toMatch(mentions);
	}
}

/** Calendar helpers of the suite's own (UTC days). */
export function addMonthsPlain(day: string, months: number): string {
	const [y, m, d] = day.split('-').map(Number);
	const total = y * 12 + (m - 1) + months;
	const ny = Math.floor(total / 12);
	const nm = (total % 12) + 1;
	const lastDay = new Date(Date.UTC(ny, nm, 0)).getUTCDate();
	return `${ny}-${String(nm).padStart(2, '0')}-${String(Math.min(d, lastDay)).padStart(2, '0')}`;
}

export function addDaysPlain(day: string, days: number): string {
	return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}
