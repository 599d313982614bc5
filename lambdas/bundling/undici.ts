/**
 * What the Lambda bundles take from undici: its `request`, answered by the undici that the Node.js
 * runtime itself ships (behind the global `fetch`), so no second copy of undici (225 KiB with its
 * WebAssembly HTTP parser) is bundled. infra/bundling.ts resolves `undici` to this module in Lambda
 * bundles only; tests and `npm start` use the undici package. An import of anything else from
 * `undici` in Lambda code fails the bundle (esbuild: no matching export), so nothing is silently
 * missing.
 *
 * Kept as `request` gives it (lambdas/adapters/undiciService.ts relies on each): no redirect
 * followed (undici's fetch hands a 3xx back as it came under `redirect: 'manual'`), undici's own
 * errors (not fetch's "fetch failed" wrapper), `headersTimeout` failing with undici's code, and
 * `bodyTimeout` too, counting as undici does only the server's silence (a reader that pauses
 * longer is no timeout), a body that is a Node stream of Buffers and can be destroyed. Node's
 * fetch publishes undici's diagnostics channels too, which the Powertools Tracer records.
 *
 * Two differences stay. Fetch decodes the content codings it knows (gzip, deflate, br, and zstd
 * where the runtime's zlib has it: Node.js 24), whatever was asked, and cannot be told not to: identity is asked for unless the caller asks
 * otherwise, and an answer that comes coded all the same is handed over decoded, without its
 * `content-encoding` and `content-length` (they describe the coded body), where undici's `request`
 * hands over the coded bytes. And fetch refuses the ports the Fetch standard blocks (1, 22, 25,
 * 6000, …): client/baseUrl.ts refuses a base URL on one of them.
 */
import { Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import type { Dispatcher } from 'undici';

type RequestOptions = Pick<Dispatcher.RequestOptions, 'headers' | 'body' | 'headersTimeout' | 'bodyTimeout'> & { method?: Dispatcher.HttpMethod };

class UndiciTimeout extends Error {
	constructor(
		readonly code: 'UND_ERR_HEADERS_TIMEOUT' | 'UND_ERR_BODY_TIMEOUT',
		message: string,
	) {
		super(message);
		this.name = code === 'UND_ERR_HEADERS_TIMEOUT' ? 'HeadersTimeoutError' : 'BodyTimeoutError';
	}
}

/** undici's own error rather than fetch's "fetch failed" around it. */
const undiciError = (error: unknown): unknown => (error instanceof TypeError && error.cause instanceof Error ? error.cause : error);

/** The answer's chunks as Buffers; `bodyTimeout` is the longest wait for the next one, as in undici. */
async function* chunks(reader: ReadableStreamDefaultReader<Uint8Array>, bodyTimeout: number | undefined, abort: AbortController): AsyncGenerator<Buffer> {
	for (;;) {
		// Only while waiting for the server: the timer stops before the chunk is handed to the reader.
		const timer = bodyTimeout ? setTimeout(() => abort.abort(new UndiciTimeout('UND_ERR_BODY_TIMEOUT', 'Body Timeout Error')), bodyTimeout) : undefined;
		let read: Awaited<ReturnType<typeof reader.read>>;
		try {
			read = await reader.read();
		} catch (error) {
			throw undiciError(error);
		} finally {
			clearTimeout(timer);
		}
		if (read.done) return;
		yield Buffer.from(read.value.buffer, read.value.byteOffset, read.value.byteLength);
	}
}

/** The answer's body as a Node stream of Buffers; destroying it lets go of the answer at once. */
function bodyStream(body: ReadableStream<Uint8Array> | null, bodyTimeout: number | undefined, abort: AbortController): Readable {
	if (body === null) return Readable.from([]);
	const next = chunks(body.getReader(), bodyTimeout, abort);
	return new Readable({
		async read() {
			try {
				const { done, value } = await next.next();
				this.push(done ? null : value);
			} catch (error) {
				this.destroy(error as Error);
			}
		},
		destroy(error, callback) {
			abort.abort();
			callback(error);
		},
	});
}

/** The codings Node.js's fetch decodes (a coding it does not know leaves the body coded); zstd only where zlib has it, as in undici. */
const DECODED = new Set(['gzip', 'x-gzip', 'deflate', 'br', ...(typeof (zlib as { createZstdDecompress?: unknown }).createZstdDecompress === 'function' ? ['zstd'] : [])]);

export async function request(url: string | URL, options: RequestOptions = {}): Promise<Pick<Dispatcher.ResponseData, 'statusCode' | 'headers' | 'body'>> {
	const abort = new AbortController();
	const headersTimeout = options.headersTimeout ?? undefined;
	const timer = headersTimeout ? setTimeout(() => abort.abort(new UndiciTimeout('UND_ERR_HEADERS_TIMEOUT', 'Headers Timeout Error')), headersTimeout) : undefined;
	let response: Response;
	try {
		response = await fetch(url, {
			method: options.method ?? 'GET',
			headers: { 'accept-encoding': 'identity', ...(options.headers as Record<string, string> | undefined) },
			body: options.body as RequestInit['body'],
			redirect: 'manual',
			signal: abort.signal,
		});
	} catch (error) {
		throw undiciError(error);
	} finally {
		clearTimeout(timer);
	}
	const headers: Record<string, string> = {};
	response.headers.forEach((value, name) => {
		headers[name] = value;
	});
	// Fetch has decoded the body (it decodes only when it knows every coding named): the headers of the coded one no longer describe it.
	const codings = headers['content-encoding']?.toLowerCase().split(',').map((c) => c.trim()).filter((c) => c !== '' && c !== 'identity');
	if (codings !== undefined && codings.length > 0 && codings.every((c) => DECODED.has(c))) {
		delete headers['content-encoding'];
		delete headers['content-length'];
	}
	const body = bodyStream(response.body, options.bodyTimeout ?? undefined, abort);
	return { statusCode: response.status, headers, body: body as unknown as Dispatcher.ResponseData['body'] };
}
