/**
 * A client of the sandbox whose every request is written down (method and URL), and what a list's
 * requests asked for (`enabled`): for the tests of reads that ask only for the properties they read.
 */
import { Pacer, SERVICE_RATE, ServiceClient, parseBaseUrl, type HttpRequest, type HttpResponse, type ServiceProfile } from '../../client';
import { systemClock, undiciRequestFn } from '../../lambdas/adapters/undiciService';
import type { Sandbox } from '../../sandbox/server';

/**
 * `rate`: the sandbox's requests per second (the tests raise it: they are not of pacing);
 * `answer`: changes an answer before the client reads it.
 */
export function recordingClient(sandbox: Sandbox, rate: number, profile?: ServiceProfile, answer?: (request: HttpRequest, response: HttpResponse) => HttpResponse): { client: ServiceClient; seen: HttpRequest[] } {
	const seen: HttpRequest[] = [];
	const send = undiciRequestFn(sandbox.sandboxToken);
	const client = new ServiceClient({
		baseUrl: parseBaseUrl(sandbox.url),
		request: async (request) => {
			seen.push(request);
			const response = await send(request);
			return answer ? answer(request, response) : response;
		},
		clock: systemClock,
		pacer: new Pacer(systemClock, { ...SERVICE_RATE, maxRequests: rate }),
		profile,
	});
	return { client, seen };
}

/** The `enabled` of each request to a path: its key ids, or null when the request has none. */
export function enabledOf(seen: HttpRequest[], path: string): Array<number[] | null> {
	return seen
		.filter((r) => new URL(r.url).pathname.endsWith(path))
		.map((r) => {
			const raw = new URL(r.url).searchParams.get('enabled');
			return raw === null ? null : (JSON.parse(raw) as number[]);
		});
}
