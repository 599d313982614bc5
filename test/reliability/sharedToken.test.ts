import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSharedToken } from '../../bench/sharedToken';
import { startSandbox, type Sandbox } from '../../sandbox/server';

/**
 * Separate OS processes on one token against the sandbox over HTTP (the mechanism; the bench
 * holds the goals): every read completes, and the 429s stay a bounded share of the answers.
 */
describe('processes sharing one token', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, size: { devices: 3000, customers: 5, testResults: 5 } });
	});
	afterAll(() => sandbox?.stop());

	it('3 processes each reading 3,000 devices twice: 0 failed reads, every device read, 429s under a third of the answers', async () => {
		const r = await runSharedToken(sandbox, 3, 2);
		for (const p of r.processes) {
			expect(p.failed).toBe(0);
			expect(p.items).toBe(2 * 3000);
		}
		expect(r.accepted).toBeGreaterThanOrEqual(3 * 2 * 3);
		expect(r.refused / (r.accepted + r.refused)).toBeLessThan(1 / 3);
	}, 120_000);
});
