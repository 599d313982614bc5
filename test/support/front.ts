/**
 * A "front": a local HTTP server in front of the sandbox (as a proxy or gateway stands in front of
 * the service) that answers oddly on demand: redirects, echoes of the request's Authorization
 * header, Retry-After. Everything else is passed to the sandbox with the front's Host, so the
 * sandbox's own links (download links) point back through the front. It records every request
 * it received, headers and body included.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'undici';
import { serveLocally } from './localServer';

export interface Received {
	method: string;
	url: string;
	headers: IncomingHttpHeaders;
	body: string;
}

export type FrontRule =
	/** Answer `status` with `Location: location(path)` (once per path; `/_moved/…` is passed on). */
	| { kind: 'redirect'; status: number; location: (path: string) => string; only?: RegExp }
	/** Answer `status` with the request's Authorization header in the body and a header. */
	| { kind: 'echo'; status: number; json: boolean }
	/** Answer 429 with this Retry-After `times` times, then pass requests on. */
	| { kind: 'retryAfter'; value: string; times: number };

export interface Front {
	url: string;
	port: number;
	received: Received[];
	rule?: FrontRule;
	stop(): Promise<void>;
}

export const MOVED = '/_moved';

export async function startFront(sandboxUrl: string): Promise<Front> {
	const front: Front = { url: '', port: 0, received: [], stop: async () => undefined };
	const server = await serveLocally((req, raw, res) => {
		const body = raw.toString('utf8');
		const url = req.url ?? '/';
		front.received.push({ method: req.method ?? '', url, headers: req.headers, body });
		const rule = front.rule;
		if (rule?.kind === 'redirect' && !url.startsWith(MOVED) && (rule.only?.test(url) ?? true)) {
			res.writeHead(rule.status, { location: rule.location(url), 'content-type': 'application/json' }).end('{"moved":true}');
			return;
		}
		if (rule?.kind === 'echo') {
			const auth = String(req.headers.authorization ?? '');
			const text = rule.json ? JSON.stringify({ description: `Refused the header "Authorization: ${auth}"` }) : `<html>Refused: ${auth}</html>`;
			res.writeHead(rule.status, { 'content-type': rule.json ? 'application/json' : 'text/html', 'x-echo-authorization': auth }).end(text);
			return;
		}
		if (rule?.kind === 'retryAfter' && rule.times > 0) {
			rule.times--;
			res.writeHead(429, { 'retry-after': rule.value, 'content-type': 'application/json' }).end('{"description":"Request was throttled."}');
			return;
		}
		const path = url.startsWith(MOVED) ? url.slice(MOVED.length) : url;
		const headers: Record<string, string> = { host: `127.0.0.1:${front.port}` };
		for (const name of ['authorization', 'content-type', 'accept']) if (req.headers[name]) headers[name] = String(req.headers[name]);
		request(`${sandboxUrl}${path}`, { method: req.method as 'GET', headers, body: body === '' ? undefined : body })
			.then(async (answer) => {
				const out: Record<string, string> = {};
				for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined && !['connection', 'transfer-encoding', 'keep-alive'].includes(k)) out[k] = String(v);
				const data = Buffer.from(await answer.body.arrayBuffer());
				res.writeHead(answer.statusCode, out).end(data);
			})
			.catch(() => res.writeHead(502).end());
	});
	Object.assign(front, { port: server.port, url: server.url, stop: server.stop });
	return front;
}
