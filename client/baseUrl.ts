import { ValidationError } from './errors';

export const API_PREFIX = '/api/v1';

export interface BaseUrl {
	/** scheme://host[:port], used to decide which URLs may carry the token. */
	origin: string;
	/** The base address followed by /api/v1, without a trailing slash. */
	apiRoot: string;
}

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]']);

export function isLoopbackHost(hostname: string): boolean {
	return LOOPBACK_HOSTS.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * Normalises a base address (the spec does not publish them, so they are inputs):
 * https is required except on loopback, and /api/v1 is appended exactly once.
 */
export function parseBaseUrl(input: string, parameter = 'baseUrl'): BaseUrl {
	const raw = (input ?? '').trim();
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		throw new ValidationError(parameter, `"${raw}" is not a URL; expected e.g. https://tec.example.com`);
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:') {
		throw new ValidationError(parameter, `must use https (got ${url.protocol.replace(':', '')})`);
	}
	if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
		throw new ValidationError(
			parameter,
			`must use https; plain http is only allowed for loopback addresses such as http://127.0.0.1 (got host ${url.hostname})`,
		);
	}
	if (url.username || url.password) {
		throw new ValidationError(parameter, 'must not contain a user name or password');
	}
	if (url.search || url.hash) {
		throw new ValidationError(parameter, 'must not contain a query string or fragment');
	}
	let path = url.pathname.replace(/\/+$/, '');
	if (path.endsWith(API_PREFIX)) path = path.slice(0, -API_PREFIX.length);
	return { origin: url.origin, apiRoot: `${url.origin}${path}${API_PREFIX}` };
}

export function sameOrigin(url: string, base: BaseUrl): boolean {
	try {
		return new URL(url).origin === base.origin;
	} catch {
		return false;
	}
}
