/**
 * What the Lambda bundles take from undici: `request` on undici's global Agent, built from
 * undici's own modules so the rest of undici (fetch, WebSocket, cache, mocks) stays out of the
 * bundle. infra/bundling.ts resolves `undici` to this module in Lambda bundles only; tests and
 * `npm start` use undici itself. An import of anything else from `undici` in Lambda code fails the
 * bundle (esbuild: no matching export), so nothing is silently missing.
 */
import type { Dispatcher } from 'undici';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const api = require('undici/lib/api/index.js') as { request: (this: Dispatcher, opts: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData> };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { getGlobalDispatcher } = require('undici/lib/global.js') as { getGlobalDispatcher: () => Dispatcher };

type RequestOptions = Omit<Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & { method?: Dispatcher.HttpMethod; dispatcher?: Dispatcher };

export async function request(url: string | URL, options: RequestOptions = {}): Promise<Dispatcher.ResponseData> {
	const target = new URL(url);
	const { dispatcher = getGlobalDispatcher(), ...rest } = options;
	return api.request.call(dispatcher, {
		...rest,
		origin: target.origin,
		path: `${target.pathname}${target.search}`,
		method: options.method ?? 'GET',
	} as Dispatcher.RequestOptions);
}
