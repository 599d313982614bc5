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
import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox/server';

/**
 * Helpers for the sandbox conformance suite: every call goes over real HTTP to a running
 * sandbox. Requests are spread over a pool of tokens so the 5 requests/second/token limit is
 * never hit by accident (the rate-limit test uses its own tokens on purpose).
 */

/** A fixed account clock keeps the demo data identical on every run. */
export const FIXED_NOW = Date.parse('2026-03-16T10:00:00Z');

export async function start(options: SandboxOptions = {}): Promise<Sandbox> {
	return startSandbox({ now: () => FIXED_NOW, ...options });
}

export interface Prop {
	key_id: number;
	name: string;
	data_type: string;
	value: string | number | boolean | null;
	[k: string]: unknown;
}

/** A list item or detail as the suite reads it (fields beyond these are read as unknown). */
export interface Item {
	id: number;
	properties: Prop[];
	[k: string]: unknown;
}

/** A response body as the suite reads it; which members exist depends on the endpoint. */
export interface Body {
	description: string;
	count: number;
	next: string | null;
	previous: string | null;
	results: Item[];
	[k: string]: unknown;
}

export interface Answer<T = Body> {
	status: number;
	headers: Headers;
	text: string;
	/** Parsed body, or undefined when it is not JSON. */
	body: T;
}

async function answer(res: Response): Promise<Answer> {
	const text = await res.text();
	let body: unknown;
	try {
		body = JSON.parse(text);
	} catch {
		body = undefined;
	}
	return { status: res.status, headers: res.headers, text, body: body as Body };
}

export class Admin {
	constructor(private readonly sandbox: Sandbox) {}

	async call(method: string, path: string, body?: unknown): Promise<Answer> {
		const res = await fetch(`${this.sandbox.adminUrl}${path}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		return answer(res);
	}

	async token(options: { environment?: string; scopes?: string[]; expires_at?: string; label?: string } = {}): Promise<{ id: number; token: string }> {
		const a = await this.call('POST', '/tokens', options);
		expect(a.status, a.text).toBe(201);
		return a.body as unknown as { id: number; token: string };
	}

	async state(): Promise<{ now: string; today: string }> {
		return (await this.call('GET', '/')).body as unknown as { now: string; today: string };
	}

	async reset(): Promise<void> {
		expect((await this.call('POST', '/reset', {})).status).toBe(200);
	}

	async advance(body: { advance_days?: number; advance_ms?: number; now?: string }): Promise<{ now: string; today: string }> {
		const a = await this.call('PUT', '/clock', body);
		expect(a.status, a.text).toBe(200);
		return a.body as unknown as { now: string; today: string };
	}

	async clearFaults(): Promise<void> {
		await this.call('DELETE', '/faults');
	}
}

/** A client over real HTTP with a pool of full-scope tokens (at most 4 requests per token per 1.1 s). */
export class Api {
	readonly admin: Admin;
	private pool: Array<{ token: string; used: number[] }> = [];

	constructor(readonly sandbox: Sandbox) {
		this.admin = new Admin(sandbox);
	}

	get base(): string {
		return `${this.sandbox.url}/api/v1`;
	}

	private async freshToken(): Promise<string> {
		const now = performance.now();
		for (const t of this.pool) {
			t.used = t.used.filter((u) => u > now - 1100);
			if (t.used.length < 4) {
				t.used.push(now);
				return t.token;
			}
		}
		const { token } = await this.admin.token({ label: 'conformance pool' });
		this.pool.push({ token, used: [now] });
		return token;
	}

	/** One request under /api/v1. `token: null` sends no Authorization header. */
	async call(method: string, path: string, options: { body?: unknown; rawBody?: string; token?: string | null; headers?: Record<string, string> } = {}): Promise<Answer> {
		const token = options.token === undefined ? await this.freshToken() : options.token;
		const headers: Record<string, string> = { ...(options.headers ?? {}) };
		if (token !== null) headers.authorization = `Token ${token}`;
		let body: string | undefined;
		if (options.rawBody !== undefined) {
			body = options.rawBody;
			headers['content-type'] ??= 'application/json';
		} else if (options.body !== undefined) {
			body = JSON.stringify(options.body);
			headers['content-type'] = 'application/json';
		}
		const url = path.startsWith('http') ? path : `${this.base}${path}`;
		return answer(await fetch(url, { method, headers, body }));
	}

	get(path: string, token?: string | null): Promise<Answer> {
		return this.call('GET', path, { token });
	}

	/** GET expecting 200. */
	async ok(path: string): Promise<Body> {
		const a = await this.get(path);
		expect(a.status, `${path}: ${a.text.slice(0, 300)}`).toBe(200);
		return a.body;
	}

	/** Every item of a list, one request with the maximum page size per page, following `next`. */
	async all(path: string): Promise<Item[]> {
		const sep = path.includes('?') ? '&' : '?';
		let page = await this.ok(`${path}${sep}limit=1000`);
		const items = [...page.results];
		while (page.next) {
			page = await this.ok(page.next);
			items.push(...page.results);
		}
		expect(items.length).toBe(page.count);
		return items;
	}
}

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
