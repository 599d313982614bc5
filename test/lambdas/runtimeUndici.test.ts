import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as zlib from 'node:zlib';
import { gunzipSync, gzipSync } from 'node:zlib';
import { request as undiciRequest } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as runtimeRequest } from '../../lambdas/bundling/undici';

/**
 * The Lambda bundles' `request` (lambdas/bundling/undici.ts, over the runtime's fetch) against a
 * real HTTP server, side by side with undici's own `request`, which tests and `npm start` use.
 */
let server: Server;
let base: string;
const seen: IncomingMessage['headers'][] = [];

function route(req: IncomingMessage, res: ServerResponse): void {
	seen.push(req.headers);
	const path = req.url ?? '/';
	if (path === '/text') {
		// A multi-byte character split across two chunks.
		const bytes = Buffer.from('{"name":"Prüfgerät ✓"}');
		res.writeHead(200, { 'content-type': 'application/json', 'X-Custom': 'yes' });
		res.write(bytes.subarray(0, 12));
		setTimeout(() => res.end(bytes.subarray(12)), 20);
	} else if (path === '/redirect') {
		res.writeHead(302, { location: '/text' }).end();
	} else if (path === '/gzip-if-asked') {
		const body = Buffer.from('plain body');
		if (/gzip/.test(String(req.headers['accept-encoding'] ?? ''))) res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(body));
		else res.writeHead(200).end(body);
	} else if (path === '/post') {
		let body = '';
		req.on('data', (c: Buffer) => (body += c.toString()));
		req.on('end', () => res.writeHead(201, { 'content-type': 'text/plain' }).end(`${req.method} ${body}`));
	} else if (path === '/no-headers') {
		// Never answers.
	} else if (path === '/stalled-body') {
		res.writeHead(200);
		res.write('first part');
	} else if (path === '/gzip-always') {
		// Compressed whatever was asked (a proxy that compresses on its own).
		res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' }).end(gzipSync(Buffer.from('plain body')));
	} else if (path === '/zstd-always') {
		// zstd whatever was asked, where this Node.js can compress it; elsewhere bytes labelled zstd.
		const coded = ZSTD ? ZSTD(Buffer.from('plain body')) : NOT_DECODED;
		res.writeHead(200, { 'content-encoding': 'zstd', 'content-length': coded.length, 'content-type': 'text/plain' }).end(coded);
	} else if (path === '/large') {
		// All of it at once: whatever the reader does next, the server is done.
		res.writeHead(200).end(Buffer.alloc(LARGE, 'x'));
	} else {
		res.writeHead(404).end();
	}
}

/** zlib's zstd where the runtime has it (Node.js 22.15+, 24): Node.js's fetch then decodes zstd too. */
const ZSTD = (zlib as { zstdCompressSync?: (data: Buffer) => Buffer }).zstdCompressSync;
/** A body labelled zstd for a runtime without it: fetch leaves a coding it does not know as it came. */
const NOT_DECODED = Buffer.from('not decoded');

/** More than a Readable buffers ahead of its reader (16 KiB): the reader's pause holds the rest back. */
const LARGE = 512 * 1024;

beforeAll(async () => {
	server = createServer(route);
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
	server.closeAllConnections();
	await new Promise((resolve) => server.close(resolve));
});

async function read(body: AsyncIterable<unknown>): Promise<string> {
	const chunks: Buffer[] = [];
	for await (const chunk of body) {
		expect(Buffer.isBuffer(chunk)).toBe(true);
		chunks.push(chunk as Buffer);
	}
	return Buffer.concat(chunks).toString('utf8');
}

const codeOf = (error: unknown) => (error as { code?: string }).code;

describe("the Lambda bundles' request over the runtime's undici", () => {
	it('answers as undici does: status, lower-case headers, the body as Buffers (a character split between chunks intact)', async () => {
		const ours = await runtimeRequest(`${base}/text`);
		const theirs = await undiciRequest(`${base}/text`);
		expect(ours.statusCode).toBe(theirs.statusCode);
		expect(ours.headers['x-custom']).toBe('yes');
		expect(ours.headers['content-type']).toBe(theirs.headers['content-type']);
		expect(await read(ours.body)).toBe(await theirs.body.text());
	});

	it('sends the method, headers and body it is given', async () => {
		const answer = await runtimeRequest(`${base}/post`, { method: 'POST', headers: { 'content-type': 'text/plain', authorization: 'Token abc' }, body: 'hello' });
		expect(answer.statusCode).toBe(201);
		expect(await read(answer.body)).toBe('POST hello');
		expect(seen.at(-1)?.authorization).toBe('Token abc');
	});

	it('follows no redirect: the 3xx comes back with its location, as from undici', async () => {
		const answer = await runtimeRequest(`${base}/redirect`);
		expect(answer.statusCode).toBe(302);
		expect(answer.headers.location).toBe('/text');
	});

	it('asks for no compression and decodes none (the service answers identity, as to undici)', async () => {
		const answer = await runtimeRequest(`${base}/gzip-if-asked`);
		expect(seen.at(-1)?.['accept-encoding']).toBe('identity');
		expect(answer.headers['content-encoding']).toBeUndefined();
		expect(await read(answer.body)).toBe('plain body');
	});

	it('decodes what fetch decodes, whatever was asked (unlike undici), and then says so: no content-encoding or content-length of the coded body', async () => {
		for (const [path, headers] of [['/gzip-if-asked', { 'accept-encoding': 'gzip' }], ['/gzip-always', {}]] as const) {
			const ours = await runtimeRequest(`${base}${path}`, { headers });
			const theirs = await undiciRequest(`${base}${path}`, { headers });
			// undici hands the coded body over as it came, with its header; fetch cannot be told not to decode.
			expect(theirs.headers['content-encoding']).toBe('gzip');
			expect(gunzipSync(Buffer.from(await theirs.body.arrayBuffer())).toString()).toBe('plain body');
			expect(ours.headers['content-encoding'], path).toBeUndefined();
			expect(ours.headers['content-length'], path).toBeUndefined();
			expect(await read(ours.body)).toBe('plain body');
		}
		// zstd: decoded (and said so) where the runtime's zlib has it, as gzip; elsewhere left coded, labelled as it came.
		const zstd = await runtimeRequest(`${base}/zstd-always`);
		if (ZSTD) {
			expect(zstd.headers['content-encoding']).toBeUndefined();
			expect(zstd.headers['content-length']).toBeUndefined();
			expect(await read(zstd.body)).toBe('plain body');
		} else {
			expect(zstd.headers['content-encoding']).toBe('zstd');
			expect(zstd.headers['content-length']).toBe(String(NOT_DECODED.length));
			expect(await read(zstd.body)).toBe('not decoded');
		}
	});

	it("counts only the server's silence against the body timeout, not the reader's pauses (as undici)", async () => {
		for (const request of [runtimeRequest, undiciRequest]) {
			const answer = await request(`${base}/large`, { bodyTimeout: 50 });
			const reader = answer.body[Symbol.asyncIterator]();
			let bytes = ((await reader.next()).value as Buffer).length;
			// The reader pauses for six body timeouts while the rest waits, already sent.
			await new Promise((resolve) => setTimeout(resolve, 300));
			for (let next = await reader.next(); !next.done; next = await reader.next()) bytes += (next.value as Buffer).length;
			expect(bytes).toBe(LARGE);
		}
	});

	it('fails with undici\'s codes: headers timeout, body timeout, connection refused', async () => {
		await expect(runtimeRequest(`${base}/no-headers`, { headersTimeout: 100 })).rejects.toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT' });
		const stalled = await runtimeRequest(`${base}/stalled-body`, { bodyTimeout: 100 });
		await expect(read(stalled.body)).rejects.toMatchObject({ code: 'UND_ERR_BODY_TIMEOUT' });
		// A port nothing listens on any more.
		const closed = createServer();
		await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
		const nobody = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/`;
		await new Promise((resolve) => closed.close(resolve));
		expect(codeOf(await runtimeRequest(nobody).catch((error: unknown) => error))).toBe('ECONNREFUSED');
		expect(codeOf(await undiciRequest(nobody).catch((error: unknown) => error))).toBe('ECONNREFUSED');
	});

	it('a body destroyed before its end stops reading it', async () => {
		const answer = await runtimeRequest(`${base}/stalled-body`);
		const reader = answer.body[Symbol.asyncIterator]();
		expect(String((await reader.next()).value)).toBe('first part');
		answer.body.destroy();
		// The iteration ends (done, or the premature close) instead of waiting for the stalled answer.
		const after = await reader.next().catch((error: unknown) => ({ done: true, error }));
		expect(after.done).toBe(true);
		expect(answer.body.destroyed).toBe(true);
	});
});
