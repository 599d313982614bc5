import type { HttpMethod, HttpRequest, HttpResponse, RequestFn } from '../../client';
import { VirtualClock } from '../support/virtualClock';

export const BASE = 'https://tec.example.com';
export const API = `${BASE}/api/v1`;

export interface Recorded {
	method: HttpMethod;
	url: string;
	/** Path under the origin, without the query string. */
	pathname: string;
	query: URLSearchParams;
	headers: Record<string, string>;
	body?: string;
	responseType: 'text' | 'binary';
	/** Virtual time at which the request started. */
	at: number;
}

export type Handler = (req: Recorded, index: number) => HttpResponse | Promise<HttpResponse>;

export interface Router {
	request: RequestFn;
	calls: Recorded[];
}

/**
 * A request function over an in-test router: every request is recorded (with the virtual time
 * it started) before the handler answers. A handler that throws makes the request reject, as a
 * network failure would.
 */
export function router(clock: { now(): number }, handler: Handler): Router {
	const calls: Recorded[] = [];
	const request: RequestFn = async (req: HttpRequest) => {
		const u = new URL(req.url);
		const rec: Recorded = {
			method: req.method,
			url: req.url,
			pathname: u.pathname,
			query: u.searchParams,
			headers: req.headers,
			body: req.body,
			responseType: req.responseType,
			at: clock.now(),
		};
		calls.push(rec);
		return handler(rec, calls.length - 1);
	};
	return { request, calls };
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
	return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

export function text(status: number, body: string, headers: Record<string, string> = {}): HttpResponse {
	return { status, headers, body };
}

/** Answers `responses` in order (the last one repeats). */
export function sequence(...responses: Array<HttpResponse | Error>): Handler {
	return (_req, i) => {
		const r = responses[Math.min(i, responses.length - 1)];
		if (r instanceof Error) throw r;
		return r;
	};
}

export function newClock(): VirtualClock {
	return new VirtualClock();
}

/** Collects everything an async generator yields. */
export async function collect<T>(gen: AsyncIterable<T>): Promise<T[]> {
	const out: T[] = [];
	for await (const x of gen) out.push(x);
	return out;
}

/** Runs `fn` and returns what it threw (fails the test when it does not throw). */
export function thrown(fn: () => unknown): Error {
	try {
		fn();
	} catch (e) {
		return e as Error;
	}
	throw new Error('expected a throw, got none');
}

export async function rejected(p: Promise<unknown>): Promise<Error> {
	try {
		await p;
	} catch (e) {
		return e as Error;
	}
	throw new Error('expected a rejection, got none');
}
