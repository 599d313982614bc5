import { ValidationError } from './errors';

export const API_PREFIX = '/api/v1';

export interface BaseUrl {
	/** scheme://host[:port], used to decide which URLs may carry the token. */
	origin: string;
	/** The base address followed by /api/v1, without a trailing slash. */
	apiRoot: string;
}

/**
 * The ports fetch refuses whatever the host (the WHATWG Fetch standard's "bad ports", which
 * Node.js's fetch, and so the Lambdas' request, answers with "bad port"): a base URL on one would
 * pass every check and then fail each request.
 */
export const FETCH_BAD_PORTS: readonly number[] = [
	1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143,
	161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190,
	5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
];

/** Why fetch would refuse the URL's port (every request failing with "bad port"), or undefined. */
export function refusedPort(url: URL): string | undefined {
	if (url.port === '' || !FETCH_BAD_PORTS.includes(Number(url.port))) return undefined;
	return `port ${url.port} is one fetch refuses (the Fetch standard's "bad ports"): every request from the Lambda functions would fail with "bad port"; use the service's own port (443 for https)`;
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
	const refused = refusedPort(url);
	if (refused) throw new ValidationError(parameter, refused);
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
