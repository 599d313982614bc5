/**
 * Load (issue 8): the sandbox (its own process) under 50 concurrent clients with separate tokens,
 * on loopback; 47 paced by the client core, 3 deliberately unpaced (bursts of 8, five times a
 * second). 5 s in `npm test`, 60 s under `npm run soak`. The run happens in
 * a child process started with --expose-gc, so heap figures are after a forced collection.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support';
import { soaked } from '../support/soak';

const run = promisify(execFile);
const SECONDS = soaked(5, 60);

describe(`load: 50 clients for ${SECONDS} s`, () => {
	it('answers only 200s and 429s; 429s go to the clients above their rate; memory stays flat', async () => {
		const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', join(__dirname, 'load.run.ts')], {
			cwd: ROOT,
			env: { ...process.env, TEC_LOAD_SECONDS: String(SECONDS) },
			timeout: (SECONDS + 60) * 1000,
		});
		const r = JSON.parse(stdout.trim().split('\n').pop()!);
		console.info(`load (${SECONDS} s): ${JSON.stringify(r)}`);
		// The service's answers: nothing but successes and rate limiting.
		expect(Object.keys(r.byStatus).filter((s) => r.byStatus[s] > 0 && s !== '200' && s !== '429')).toEqual([]);
		// No client saw any other error.
		expect(r.paced.other).toEqual([]);
		for (const u of r.unpaced) expect(u.other).toEqual([]);
		// The unpaced clients exceed their rate and are refused most of the time.
		for (const u of r.unpaced) {
			expect(u.rateLimited).toBeGreaterThan(u.ok);
			expect(u.ok / r.seconds).toBeLessThanOrEqual(5.5);
		}
		// Paced clients stay within 5 per second and are (almost) never refused: a 429 here means a
		// request left later than its slot (event-loop lag above the pacer's 25 ms margin); it is
		// waited out by the client's retries in real use. Bound: 5 % (0 in quiet runs, 2.2 % in a
		// 60 s soak on a busy machine; without pacing it is over 80 %; see docs/reliability.md).
		expect(r.paced.maxPerClientPerSecond).toBeLessThanOrEqual(5.2);
		expect(r.paced.rateLimited).toBeLessThanOrEqual(Math.ceil(r.paced.ok * 0.05));
		expect(r.paced.minPerClientPerSecond).toBeGreaterThan(2);
		// Memory flat: clients' heap after GC within 10 MB of before; the sandbox's RSS within 64 MB.
		expect(r.memory.heapGrowthMB).toBeLessThan(10);
		expect(r.memory.sandboxRssAfterMB - r.memory.sandboxRssBeforeMB).toBeLessThan(64);
	}, (SECONDS + 90) * 1000);
});
