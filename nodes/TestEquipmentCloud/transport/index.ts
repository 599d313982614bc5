/**
 * The one n8n adapter over the client core: n8n's authenticated request helper as the request
 * function (so proxies and n8n's credential handling apply), n8n's sleep as the clock, the
 * token's shared pacer, and one mapping of client errors to n8n errors.
 */
import type {
	ICredentialTestFunctions,
	IExecuteFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	INode,
	IPollFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';
import {
	ServiceClient,
	ServiceError,
	ValidationError,
	budgetRetry,
	noAnswerWithin,
	parseBaseUrl,
	pagingParams,
	redactResponse,
	resolveProfile,
	redactSecret,
	ruleForStatus,
	sharedPacers,
	tokenPacingKey,
	type Clock,
	type HttpRequest,
	type HttpResponse,
	type RequestFn,
	type RetryOptions,
} from '../../../client';

export const CREDENTIAL_TYPE = 'testEquipmentCloudApi';

export interface TestEquipmentCloudCredentials {
	accessToken: string;
	environment: 'sandbox' | 'production';
	sandboxBaseUrl: string;
	productionBaseUrl: string;
	/** Optional service profile (JSON text, or the object n8n parsed from it). */
	serviceProfile?: unknown;
}

type Context = IExecuteFunctions | ILoadOptionsFunctions | IPollFunctions;

/** What n8n's helper resolves with when `returnFullResponse` is set. */
interface FullResponse {
	body: unknown;
	headers: Record<string, unknown>;
	statusCode: number;
}

export const clock: Clock = {
	now: () => Date.now(),
	sleep: async (ms: number) => await sleep(ms),
};

function toHeaders(raw: Record<string, unknown> | undefined): HttpResponse['headers'] {
	const headers: HttpResponse['headers'] = {};
	for (const [name, value] of Object.entries(raw ?? {})) {
		if (value === undefined || value === null) continue;
		headers[name.toLowerCase()] = Array.isArray(value) ? value.map(String).join(', ') : String(value);
	}
	return headers;
}

function toBody(body: unknown, responseType: HttpRequest['responseType']): HttpResponse['body'] {
	if (body === undefined || body === null) return responseType === 'binary' ? new Uint8Array(0) : '';
	if (body instanceof Uint8Array) return responseType === 'binary' ? body : new TextDecoder().decode(body);
	if (body instanceof ArrayBuffer) {
		const bytes = new Uint8Array(body);
		return responseType === 'binary' ? bytes : new TextDecoder().decode(bytes);
	}
	const text = typeof body === 'string' ? body : JSON.stringify(body);
	return responseType === 'binary' ? new TextEncoder().encode(text) : text;
}

/** n8n's HTTP error around axios's own: `ECONNABORTED` with "timeout of N ms exceeded". */
function timedOut(error: unknown): boolean {
	const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
	return cause?.code === 'ECONNABORTED' && /timeout/i.test(String(cause.message));
}

/**
 * A failure of n8n's helper as an error that carries no token: n8n's and axios's errors keep the
 * request's configuration (headers included), so only the redacted message and code go on.
 */
function cleanError(error: unknown, token: string | undefined): Error {
	const message = redactSecret(error instanceof Error ? error.message : String(error), token);
	const clean = new Error(message);
	const code = (error as { code?: unknown; cause?: { code?: unknown } } | null)?.cause?.code ?? (error as { code?: unknown } | null)?.code;
	if (typeof code === 'string') Object.assign(clean, { code });
	return clean;
}

/**
 * The request function over n8n's helper. Redirects are never followed by n8n (it would send the
 * credential to wherever the answer points): the 3xx comes back to the client, which follows
 * same-origin ones itself. Every answer loses the token before the client reads it.
 */
function requestFn(ctx: Context, token: string | undefined): RequestFn {
	return async (request) => {
		const options: IHttpRequestOptions = {
			method: request.method,
			url: request.url,
			headers: request.headers,
			body: request.body,
			// The client reads every status itself and parses the text: n8n must neither throw
			// on 4xx/5xx (and so never re-sends a refused request) nor parse the body.
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			sendCredentialsOnCrossOriginRedirect: false,
			json: false,
			encoding: request.responseType === 'binary' ? 'arraybuffer' : 'text',
			timeout: request.timeoutMs,
		};
		const pending =
			token !== undefined
				? ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL_TYPE, options)
				: ctx.helpers.httpRequest(options);
		// n8n reports its own timeout as "The connection was aborted, perhaps the server is offline";
		// the client turns either error into one "No response from the service" error.
		const response = (await pending.catch(async (error: unknown) => {
			if (!timedOut(error)) return await Promise.reject(cleanError(error, token));
			const message = noAnswerWithin(request.timeoutMs);
			return await Promise.reject(new NodeApiError(ctx.getNode(), { message }, { message }));
		})) as FullResponse;
		return redactResponse(
			{ status: response.statusCode, headers: toHeaders(response.headers), body: toBody(response.body, request.responseType) },
			token,
		);
	};
}

export interface ClientSettings {
	/** Upper bound (seconds) of the waits of one request for 429, 451 and temporary errors. */
	maxRetryWaitSeconds?: number;
	/** How long one request may wait for the service's answer (seconds). */
	timeoutSeconds?: number;
}

const shown = (value: unknown): string => (typeof value === 'number' ? String(value) : JSON.stringify(value));

/** The node's options as client settings; values an expression may produce are checked here. */
function clientOptions(settings: ClientSettings): { retry: Partial<RetryOptions>; timeoutMs?: number } {
	const { maxRetryWaitSeconds: wait, timeoutSeconds: timeout } = settings;
	if (wait !== undefined && (typeof wait !== 'number' || !Number.isFinite(wait) || wait < 0)) {
		throw new ValidationError('Max Retry Wait (Seconds)', `must be a number of seconds, 0 or more, got ${shown(wait)}`);
	}
	if (timeout !== undefined && (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout < 1)) {
		throw new ValidationError('Timeout (Seconds)', `must be a number of seconds, at least 1, got ${shown(timeout)}`);
	}
	return {
		// Max Retry Wait is the bound, not a count of attempts.
		retry: budgetRetry(wait === undefined ? undefined : Math.round(wait * 1000)),
		timeoutMs: timeout === undefined ? undefined : Math.round(timeout * 1000),
	};
}

/** The base address of the credential's environment, and the token's shared pacer. */
function connection(credentials: TestEquipmentCloudCredentials) {
	const production = credentials.environment === 'production';
	const base = parseBaseUrl(
		String((production ? credentials.productionBaseUrl : credentials.sandboxBaseUrl) ?? ''),
		production ? 'Production Base URL (credential)' : 'Sandbox Base URL (credential)',
	);
	const token = String(credentials.accessToken ?? '');
	// Checked before any request: nothing is sent with half a profile.
	const profile = resolveProfile(credentials.serviceProfile ?? '');
	const pacer = sharedPacers.forKey(tokenPacingKey(token, production ? 'production' : 'sandbox', base), clock);
	return { base, pacer, token, profile };
}

/** A client for the credential's environment, sharing the token's pacer with every caller. */
export async function getClient(ctx: Context, settings: ClientSettings = {}): Promise<ServiceClient> {
	const { retry, timeoutMs } = clientOptions(settings);
	const credentials = await ctx.getCredentials<TestEquipmentCloudCredentials>(CREDENTIAL_TYPE);
	const { base, pacer, token, profile } = connection(credentials);
	return new ServiceClient({
		baseUrl: base,
		request: requestFn(ctx, token),
		requestAnonymous: requestFn(ctx, undefined),
		clock,
		pacer,
		retry,
		timeoutMs,
		profile,
	});
}

/**
 * The credential test's client. n8n gives a credential test only its request helper, so this
 * one adds the header itself; answers are read by the client core like everywhere else.
 */
export function getCredentialTestClient(ctx: ICredentialTestFunctions, credentials: TestEquipmentCloudCredentials): ServiceClient {
	const { base, pacer, token, profile } = connection(credentials);
	const request: RequestFn = async (req) => {
		const response = (await ctx.helpers
			.request({
				method: req.method,
				uri: req.url,
				headers: { ...req.headers, authorization: `Token ${token}` },
				body: req.body,
				resolveWithFullResponse: true,
				simple: false,
				json: false,
				timeout: req.timeoutMs,
				// Redirects come back to the client, which follows same-origin ones only.
				followRedirect: false,
				followAllRedirects: false,
				sendCredentialsOnCrossOriginRedirect: false,
			})
			.catch(async (error: unknown) => await Promise.reject(cleanError(error, token)))) as FullResponse;
		return redactResponse({ status: response.statusCode, headers: toHeaders(response.headers), body: toBody(response.body, req.responseType) }, token);
	};
	// A credential test answers quickly: one retry at most, a few seconds of waiting.
	return new ServiceClient({ baseUrl: base, request, clock, pacer, retry: { maxAttempts: 2, maxTotalWaitMs: 5000 }, profile });
}

/** The paging parameters of a one-item page, in the profile's style. */
export function onePage(client: ServiceClient): Array<[string, string]> {
	return pagingParams({ limit: 1 }, client.profile);
}

/**
 * A write the node names (e.g. "Device Create") and how to look for it before it runs again, in
 * the words of the node's operations ("find the device by its ID Barcode (Device › Get, By Barcode)").
 */
export interface WriteCheck {
	operation: string;
	check: string;
}

/** Set on an error's context when the write it reports may have been applied (read by the error items). */
export const MAY_HAVE_BEEN_APPLIED = 'mayHaveBeenApplied';

/**
 * A write whose answer was cut off or unreadable (a 2xx), or never came (a timeout, a connection
 * dropped after the request went out), or whose earlier attempt's answer was (the repeats failing
 * otherwise): it may have been applied. Its message says so, and its
 * description what to check before the item runs again (an error-output branch that retries
 * blindly would do the write twice).
 */
function writeMayHaveHappened(error: ServiceError, write: WriteCheck | undefined): { message: string; description: string } | undefined {
	const { status, method } = error;
	// Only an operation that writes names what to check (its WriteCheck): a download link's PUT, or
	// an e-mail operation's reads, make nothing twice.
	if (method === undefined || method === 'GET' || write === undefined) return undefined;
	const what = write.operation;
	const check = `Before running this item again, or retrying it from the error output, look for it: ${write.check}; sending it again may make it twice.`;
	// A connection never made (refused, an unknown host) carried nothing to the service.
	if (error.kind === 'network' && !/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|getaddrinfo/i.test(error.message)) {
		return {
			message: `${what} may have been accepted: ${error.message}`,
			description: `The service did not answer ${method} ${error.path ?? ''}, but the request may have reached it: the change may have been made. ${check}`,
		};
	}
	if (error.kind === 'invalidResponse' && status !== undefined && status >= 200 && status < 300) {
		const answer = error.bodyExcerpt === undefined ? '' : ` The answer began: ${error.bodyExcerpt}`;
		return {
			message: `${what} may have been accepted: the service answered ${method} ${error.path ?? ''} with HTTP ${status} (success), but the answer was cut off or unreadable`,
			description: `The change may have been made. ${check}${answer}`,
		};
	}
	// The last attempt failed, but an earlier one went unanswered or was cut off: that one may have
	// made the change (a repeat answered 503 until the retries end says nothing about it). A repeat
	// the service refused (4xx) was the same request: refused now, it was not applied then, but for
	// a DELETE's 404 (the earlier attempt may have deleted it) and a 408 or 429 (not looked at).
	const refused = status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429 && !(status === 404 && method === 'DELETE');
	if (!error.afterLostAnswer || refused) return undefined;
	const found = status === 404 ? ' The last attempt found no such record: the earlier attempt may have deleted it, or the ID does not exist.' : '';
	return {
		message: `${what} may have been accepted: an earlier attempt's answer was lost or cut off, and the last attempt failed (${error.message})`,
		description: `An earlier attempt of ${method} ${error.path ?? ''} may have reached the service: the change may have been made.${found} ${check}`,
	};
}

/**
 * Every failure becomes exactly one n8n error: NodeOperationError (with the item index) for bad
 * parameters caught before any request, NodeApiError (HTTP code and the service's description)
 * for what the service answered. n8n errors pass through unchanged.
 */
export function toNodeError(node: INode, error: unknown, itemIndex?: number, write?: WriteCheck): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	if (error instanceof ValidationError) {
		return new NodeOperationError(node, error.message, {
			itemIndex,
			description: `Check the parameter "${error.parameter}". Nothing was sent to the service.`,
		});
	}
	if (error instanceof ServiceError) {
		// Only an error status is a refusal: an unreadable 2xx answer keeps the client's own message
		// (the service accepted the request; its answer could not be read).
		const status = error.status !== undefined && error.status >= 400 ? error.status : undefined;
		const rule = status !== undefined ? ruleForStatus(status).message : undefined;
		const shown = rule === undefined ? error.message : rule.includes(`(HTTP ${status})`) ? rule : `${rule} (HTTP ${status})`;
		const applied = writeMayHaveHappened(error, write);
		// A redirect refused, or a wait beyond the budget: the client's own words say what happened.
		const message = applied?.message ?? (error.kind === 'redirect' ? error.message : error.advice !== undefined && rule !== undefined ? `${shown}: ${error.advice}` : shown);
		const description = applied?.description ?? error.description ?? error.bodyExcerpt ?? (status !== undefined ? error.message : undefined);
		// A success answer cut off keeps its status: it says the service took the request.
		const httpCode = status !== undefined ? String(status) : applied !== undefined && error.status !== undefined ? String(error.status) : undefined;
		const response: JsonObject = {
			message,
			kind: error.kind,
			...(httpCode !== undefined ? { httpCode } : {}),
			...(description !== undefined ? { description } : {}),
			...(error.method !== undefined ? { method: error.method } : {}),
			...(error.path !== undefined ? { path: error.path } : {}),
		};
		const nodeError = new NodeApiError(node, response, { message, description, httpCode, itemIndex });
		if (applied !== undefined) nodeError.context[MAY_HAVE_BEEN_APPLIED] = true;
		return nodeError;
	}
	return new NodeOperationError(node, error instanceof Error ? error : String(error), { itemIndex });
}
