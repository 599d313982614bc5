import { createRequire } from 'node:module';
import path from 'node:path';
import type { Clock } from '../../client';
import { PACKAGE_DIR } from './n8n';

/**
 * The built node's clock (dist/…/transport, the module n8n's loader required), its waits made to
 * pass at once: each moves the test's time on by what it asked (`advance`: the sandbox's clock and
 * the process's `Date.now`), so a node or trigger that waits out a 30 s outage does so in
 * milliseconds. Returns the waits asked for.
 */
export async function withInstantWaits<T>(advance: (ms: number) => void, body: () => Promise<T>): Promise<{ result: T; waits: number[] }> {
	return await withNodeSleep(async () => await new Promise((resolve) => setImmediate(resolve)), advance, body);
}

/** The built node's waits, recorded as asked and waited out in real time (what the node asked, not how long it took). */
export async function withRecordedWaits<T>(body: () => Promise<T>): Promise<{ result: T; waits: number[] }> {
	return await withNodeSleep(undefined, () => undefined, body);
}

/** The built node's clock object (its `now` and `sleep` are what the node's operations and pacing use). */
export function builtNodeClock(): Clock {
	return (createRequire(__filename)(path.join(PACKAGE_DIR, 'dist', 'nodes', 'TestEquipmentCloud', 'transport', 'index.js')) as { clock: Clock }).clock;
}

/** Runs `body` with the built node's clock sleeping through `sleep` (its own when undefined), each wait recorded. */
async function withNodeSleep<T>(sleep: ((ms: number) => Promise<void>) | undefined, advance: (ms: number) => void, body: () => Promise<T>): Promise<{ result: T; waits: number[] }> {
	const transport = { clock: builtNodeClock() };
	const original = transport.clock.sleep;
	const waits: number[] = [];
	transport.clock.sleep = async (ms: number) => {
		waits.push(ms);
		advance(Math.max(0, ms));
		await (sleep ?? original)(ms);
	};
	try {
		return { result: await body(), waits };
	} finally {
		transport.clock.sleep = original;
	}
}
