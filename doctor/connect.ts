import { sharedPacers, tokenPacingKey, type BaseUrl, type ServiceProfile } from '../client';
import { connectService, systemClock, undiciRequestFn } from '../lambdas/adapters/undiciService';
import type { DoctorDeps } from './checks';

/**
 * The doctor's wiring: the client as the pollers connect it (undici, the token's shared pacer),
 * and OPTIONS requests through the same pacer (the client itself sends only the catalogue's
 * methods), so all of its requests stay within 5 per second.
 */
export function connectDoctor(c: { baseUrl: BaseUrl; token: string; environment: 'sandbox' | 'production'; profile: ServiceProfile }): DoctorDeps {
	const client = connectService(c);
	const pacer = sharedPacers.forKey(tokenPacingKey(c.token, c.environment, c.baseUrl), systemClock);
	const request = undiciRequestFn(c.token);
	return {
		client,
		options: async (url) => {
			await pacer.acquire();
			// undici sends any method; the client's HttpMethod lists the catalogue's only.
			const r = await request({ method: 'OPTIONS' as never, url, headers: { accept: 'application/json' }, responseType: 'text', timeoutMs: 30_000 });
			if (r.status === 429) pacer.rateLimited(Date.now() + 1000);
			return { status: r.status, allow: r.headers.allow };
		},
	};
}
