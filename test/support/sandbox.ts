import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { DEFAULT_PROFILE } from '../../client';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox/server';

/**
 * A sandbox over real HTTP for tests: its admin API, a client with a pool of tokens (so the
 * 5 requests/second/token limit is never hit by accident) and the preamble that starts one
 * sandbox per test file.
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
	constructor(private readonly sandbox: () => Sandbox) {}

	async call(method: string, path: string, body?: unknown): Promise<Answer> {
		const res = await fetch(`${this.sandbox().adminUrl}${path}`, {
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
	readonly admin = new Admin(() => this.sandbox);
	private pool: Array<{ token: string; used: number[] }> = [];
	private started: Sandbox | undefined;

	/** Without a sandbox, `useSandbox` gives it one before the file's first test. */
	constructor(sandbox?: Sandbox) {
		this.started = sandbox;
	}

	get sandbox(): Sandbox {
		if (!this.started) throw new Error('no sandbox yet: useSandbox() starts it before the first test of the file');
		return this.started;
	}

	set sandbox(sandbox: Sandbox) {
		this.started = sandbox;
		this.pool = [];
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
		let page = await this.ok(`${path}${sep}limit=${DEFAULT_PROFILE.paging.maxPageSize}`);
		const items = [...page.results];
		while (page.next) {
			page = await this.ok(page.next);
			items.push(...page.results);
		}
		expect(items.length).toBe(page.count);
		return items;
	}
}

/**
 * The preamble of a file (or describe block) of sandbox tests: one sandbox, started before the
 * first test and stopped after the last, on the fixed account clock (`FIXED_NOW`) unless the
 * options give `now`; `resetEach` restores the demo data before every test. The returned Api
 * reaches the sandbox itself as `api.sandbox`.
 */
export function useSandbox(options: SandboxOptions & { resetEach?: boolean } = {}): Api {
	const { resetEach = false, ...sandboxOptions } = options;
	const api = new Api();
	let sandbox: Sandbox | undefined;
	beforeAll(async () => {
		sandbox = await start(sandboxOptions);
		api.sandbox = sandbox;
	});
	afterAll(async () => {
		await sandbox?.stop();
	});
	if (resetEach) beforeEach(() => api.admin.reset());
	return api;
}
