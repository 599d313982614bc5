import { StringDecoder } from 'node:string_decoder';
import { request as undiciRequest, type Dispatcher } from 'undici';
import {
	ServiceClient,
	noAnswerWithin,
	parseBaseUrl,
	redactResponse,
	redactSecret,
	sharedPacers,
	tokenPacingKey,
	type BaseUrl,
	type ClientEvent,
	type Clock,
	type HttpResponse,
	type RequestFn,
	type ServiceProfile,
} from '../../client';

export const MAX_RESPONSE_BYTES = 20 * 1024 * 1024;

export const systemClock: Clock = {
	now: () => Date.now(),
	sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * The request function over undici. The token lives only in this closure: it is added to
 * requests, never logged, never kept on an object that could be serialised, and removed from
 * every answer and error before the client reads them. Undici follows no redirect: a 3xx goes
 * back to the client, which follows same-origin ones only.
 */
export function undiciRequestFn(token: string | undefined, maxBytes = MAX_RESPONSE_BYTES): RequestFn {
	return async (req) => {
		// Text is decoded chunk by chunk (a split UTF-8 character waits for the next one): no copy of
		// the whole answer as bytes next to its text. Files keep their bytes.
		const decoder = req.responseType === 'text' ? new StringDecoder('utf8') : undefined;
		const parts: string[] = [];
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
				if (decoder) parts.push(decoder.write(chunk as Buffer));
				else chunks.push(chunk as Buffer);
			}
			if (decoder) parts.push(decoder.end());
		} catch (error) {
			const code = (error as { code?: unknown } | null)?.code;
			if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
				throw new Error(`${noAnswerWithin(req.timeoutMs)} (${(error as Error).message})`, { cause: error });
			}
			if (token !== undefined && error instanceof Error && error.message.includes(token)) throw new Error(redactSecret(error.message, token));
			throw error;
		}
		const headers: HttpResponse['headers'] = {};
		for (const [name, value] of Object.entries(response.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
		const answer = { status: response.statusCode, headers, body: decoder ? parts.join('') : new Uint8Array(Buffer.concat(chunks)) };
		return redactResponse(answer, token);
	};
}

export interface ServiceConnection {
	/** Parsed once (lambdas/config.ts); a string is parsed here. */
	baseUrl: BaseUrl | string;
	token: string;
	environment: 'sandbox' | 'production';
	onEvent?: (event: ClientEvent) => void;
	clock?: Clock;
	timeoutMs?: number;
	/** The service's layout (lambdas/config.ts reads it); default: today's choices. */
	profile?: ServiceProfile;
}

/** A client paced per token: every caller in this process shares the token's budget. */
export function connectService(c: ServiceConnection): ServiceClient {
	const clock = c.clock ?? systemClock;
	const base = typeof c.baseUrl === 'string' ? parseBaseUrl(c.baseUrl, 'TEC_BASE_URL') : c.baseUrl;
	return new ServiceClient({
		baseUrl: base,
		request: undiciRequestFn(c.token),
		requestAnonymous: undiciRequestFn(undefined),
		clock,
		pacer: sharedPacers.forKey(tokenPacingKey(c.token, c.environment, base), clock),
		timeoutMs: c.timeoutMs,
		onEvent: c.onEvent,
		profile: c.profile,
	});
}
