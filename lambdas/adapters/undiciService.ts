import { request as undiciRequest, type Dispatcher } from 'undici';
import { ServiceClient, noAnswerWithin, pacingKey, sharedPacers, type ClientEvent, type Clock, type HttpResponse, type RequestFn } from '../../client';

export const MAX_RESPONSE_BYTES = 20 * 1024 * 1024;

export const systemClock: Clock = {
	now: () => Date.now(),
	sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * The request function over undici. The token lives only in this closure: it is added to
 * requests, never logged, never kept on an object that could be serialised.
 */
export function undiciRequestFn(token: string | undefined, maxBytes = MAX_RESPONSE_BYTES): RequestFn {
	return async (req) => {
		const chunks: Buffer[] = [];
		let response: Dispatcher.ResponseData;
		try {
			response = await undiciRequest(req.url, {
				method: req.method,
				headers: token === undefined ? req.headers : { ...req.headers, authorization: `Token ${token}` },
				body: req.body,
				headersTimeout: req.timeoutMs,
				bodyTimeout: req.timeoutMs,
			});
			let size = 0;
			for await (const chunk of response.body) {
				size += (chunk as Buffer).length;
				if (size > maxBytes) {
					response.body.destroy();
					throw new Error(`the response is larger than ${Math.round(maxBytes / 1024 / 1024)} MB; refusing to read it`);
				}
				chunks.push(chunk as Buffer);
			}
		} catch (error) {
			const code = (error as { code?: unknown } | null)?.code;
			if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
				throw new Error(`${noAnswerWithin(req.timeoutMs)} (${(error as Error).message})`, { cause: error });
			}
			throw error;
		}
		const data = Buffer.concat(chunks);
		const headers: HttpResponse['headers'] = {};
		for (const [name, value] of Object.entries(response.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
		return { status: response.statusCode, headers, body: req.responseType === 'binary' ? new Uint8Array(data) : data.toString('utf8') };
	};
}

export interface ServiceConnection {
	baseUrl: string;
	token: string;
	environment: 'sandbox' | 'production';
	onEvent?: (event: ClientEvent) => void;
	clock?: Clock;
	timeoutMs?: number;
}

/** A client paced per token: every caller in this process shares the token's budget. */
export function connectService(c: ServiceConnection): ServiceClient {
	const clock = c.clock ?? systemClock;
	return new ServiceClient({
		baseUrl: c.baseUrl,
		request: undiciRequestFn(c.token),
		requestAnonymous: undiciRequestFn(undefined),
		clock,
		pacer: sharedPacers.forKey(pacingKey(c.token, `${c.environment}:${c.baseUrl}`), clock),
		timeoutMs: c.timeoutMs,
		onEvent: c.onEvent,
	});
}
