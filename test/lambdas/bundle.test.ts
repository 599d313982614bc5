import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleHandler } from '../../infra/bundling';
import { captureOutput, useHandlerWorld } from '../support/handlers';

/**
 * The deployed artefact itself: the poller bundle as the stack builds it (AWS SDK from the
 * runtime's NODE_PATH, zod without locales, undici's request only), loaded from a folder with
 * nothing beside it and run end to end against the sandbox and local AWS endpoints.
 */
const world = useHandlerWorld({ devices: 30, customers: 3, testResults: 10 });
const dir = mkdtempSync(join(tmpdir(), 'tec-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Loads a bundle with the repository's node_modules on NODE_PATH, as Lambda has its AWS SDK. */
function loadWithRuntimePath(file: string): { handler: (event: unknown, context: Context) => Promise<{ complete: boolean }> } {
	const before = process.env.NODE_PATH;
	process.env.NODE_PATH = join(__dirname, '../../node_modules');
	(Module as unknown as { _initPaths(): void })._initPaths();
	try {
		return createRequire(file)(file);
	} finally {
		if (before === undefined) delete process.env.NODE_PATH;
		else process.env.NODE_PATH = before;
		(Module as unknown as { _initPaths(): void })._initPaths();
	}
}

describe('the poller bundle', () => {
	it('is at most 600 KiB and polls end to end: service over undici, state in DynamoDB, events to EventBridge', async () => {
		const bytes = await bundleHandler(join(__dirname, '../../lambdas/handlers/overdueDevices.ts'), join(dir, 'overdue'));
		expect(bytes).toBeLessThanOrEqual(600 * 1024);
		const { handler } = loadWithRuntimePath(join(dir, 'overdue', 'index.js'));
		const { result: report, lines: out } = await captureOutput(() =>
			handler({}, { awsRequestId: 'req-bundle-1', functionName: 'OverdueDevicesPoller', getRemainingTimeInMillis: () => 120_000 } as unknown as Context),
		);
		expect(report.complete).toBe(true);
		expect(world.aws.events().filter((e) => e['detail-type'] === 'Device Overdue').length).toBeGreaterThan(0);
		const finished = out.find((l) => /"message":\s*"Poll run finished"/.test(l));
		expect(finished).toMatch(/"function_request_id":\s*"req-bundle-1"/);
		expect(out.join('')).not.toContain(world.sandbox.sandboxToken);
	});

	it('fails the bundle, not the Lambda, when Lambda code imports from undici more than request', async () => {
		const entry = join(dir, 'uses-agent.ts');
		writeFileSync(entry, "import { Agent } from 'undici';\nexport const handler = async () => new Agent();\n");
		await expect(bundleHandler(entry, join(dir, 'agent'))).rejects.toThrow(/No matching export.*Agent|"Agent" is not exported/);
	});
});
