/**
 * `npm run screenshots`: the pictures in docs/images/, taken by a real browser (Debian's
 * chromium driven by playwright-core, headless, background networking off) from the real n8n
 * app with this package installed from its tarball, pointed at the local sandbox:
 *   n8n-canvas.png        the canvas with an example workflow (examples/failed-tests-download-reports.json)
 *   n8n-node-filters.png  the node's parameter panel with the Filters open
 *   n8n-credential.png    the credential form
 *   n8n-mapper.png        Device → Create (version 2): the account's properties in the resource mapper
 *   n8n-barcode.png       Device → Get with the device picker in By Barcode mode
 *   n8n-error-output.png  a run whose failed item went down the node's error output
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { ROOT, ensureN8nApp } from './install';
import { CREDENTIAL_ID, N8n, OWNER, newUserFolder, packPackage, readWorkflow, removeDir, startSandbox } from './harness';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const OUT = join(ROOT, 'docs', 'images');
const WORKFLOW_ID = 'tec-failed-tests-reports';
const EXAMPLE = join(ROOT, 'examples', 'failed-tests-download-reports.json');
const NODE_WITH_FILTERS = 'Get failed test results';

const TRIGGER = { id: 'c0ffee00-0000-4000-8000-000000000001', name: 'When clicking ‘Execute workflow’', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} };
const credentials = { testEquipmentCloudApi: { id: CREDENTIAL_ID, name: 'Test Equipment Cloud sandbox' } };
const ours = (name: string, parameters: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
	id: 'c0ffee00-0000-4000-8000-000000000002',
	name,
	type: 'n8n-nodes-test-equipment-cloud.testEquipmentCloud',
	typeVersion: 2,
	position: [240, 0],
	parameters,
	credentials,
	...extra,
});
const chain = (name: string, node: ReturnType<typeof ours>) => ({
	name,
	nodes: [TRIGGER, node],
	connections: { [TRIGGER.name]: { main: [[{ node: node.name, type: 'main', index: 0 }]] } },
	settings: { executionOrder: 'v1' },
});
const SHOTS = {
	'tec-shot-mapper': chain(
		'Register a device',
		ours('Create a device', {
			resource: 'device',
			operation: 'create',
			fields: { mappingMode: 'defineBelow', value: { '1': 'Earth tester', '3': '2026-03-01T00:00:00', '5': 12 } },
		}),
	),
	'tec-shot-barcode': chain('Look up a scanned device', ours('Get a device', { resource: 'device', operation: 'get', deviceId: { __rl: true, mode: 'barcode', value: 'TEC-000042' } })),
	'tec-shot-error': (() => {
		const get = ours(
			'Get a device',
			{ resource: 'device', operation: 'get', deviceId: { __rl: true, mode: 'id', value: '999999' } },
			{ onError: 'continueErrorOutput' },
		);
		const noOp = (id: string, name: string, y: number) => ({ id, name, type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [520, y], parameters: {} });
		return {
			name: 'Device lookup with an error branch',
			nodes: [TRIGGER, get, noOp('c0ffee00-0000-4000-8000-000000000003', 'Device found', -120), noOp('c0ffee00-0000-4000-8000-000000000004', 'Device not found', 120)],
			connections: {
				[TRIGGER.name]: { main: [[{ node: get.name, type: 'main', index: 0 }]] },
				[get.name]: { main: [[{ node: 'Device found', type: 'main', index: 0 }], [{ node: 'Device not found', type: 'main', index: 0 }]] },
			},
			settings: { executionOrder: 'v1' },
		};
	})(),
};

function portIsFree(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const probe = createServer();
		probe.once('error', () => resolve(false));
		probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
	});
}

function say(message: string): void {
	process.stderr.write(`[screenshots] ${message}\n`);
}

function ensureChromium(): void {
	if (existsSync(CHROMIUM)) return;
	if (process.getuid?.() === 0 && CHROMIUM === '/usr/bin/chromium') {
		say('installing Debian chromium (apt-get install -y chromium)');
		const r = spawnSync('sh', ['-c', 'apt-get install -y chromium || (apt-get update && apt-get install -y chromium)'], { stdio: 'inherit' });
		if (r.status === 0 && existsSync(CHROMIUM)) return;
	}
	throw new Error(`${CHROMIUM} not found. Install Debian's chromium: sudo apt-get install -y chromium (or set CHROMIUM_PATH).`);
}

async function dismissPopups(page: Page): Promise<void> {
	for (let i = 0; i < 3; i++) await page.keyboard.press('Escape');
}

async function main(): Promise<void> {
	ensureChromium();
	mkdirSync(OUT, { recursive: true });
	const app = await ensureN8nApp();
	const work = mkdtempSync(join(tmpdir(), 'tec-screenshots-'));
	const tarball = await packPackage(work);
	const userFolder = await newUserFolder(tarball, app);
	// The sandbox's usual port when free, so the credential form shows http://127.0.0.1:8787.
	const sandbox = await startSandbox([], (await portIsFree(8787)) ? 8787 : 0);
	const n8n = new N8n(app, userFolder);
	await n8n.importCredential(sandbox);
	await n8n.importWorkflows({ [WORKFLOW_ID]: readWorkflow(EXAMPLE), ...(SHOTS as Record<string, ReturnType<typeof readWorkflow>>) });
	const server = await n8n.start();
	const profile = mkdtempSync(join(tmpdir(), 'tec-chromium-'));
	try {
		await server.signIn();
		say(`n8n at ${server.url}; starting ${CHROMIUM}`);
		const context = await chromium.launchPersistentContext(profile, {
			executablePath: CHROMIUM,
			headless: true,
			args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
			viewport: { width: 1440, height: 900 },
			deviceScaleFactor: 1,
		});
		const page = context.pages()[0] ?? (await context.newPage());
		page.setDefaultTimeout(60_000);

		// Sign in through the form, as a user does.
		await page.goto(`${server.url}/signin`);
		await page.locator('input[type="email"], input[name="emailOrLdapLoginId"]').first().fill(OWNER.email);
		await page.locator('input[type="password"]').first().fill(OWNER.password);
		await page.getByRole('button', { name: /sign in/i }).click();
		await page.waitForURL((u) => !u.pathname.startsWith('/signin'));

		// 1. The canvas with the example workflow.
		await page.goto(`${server.url}/workflow/${WORKFLOW_ID}`);
		await page.locator('.vue-flow__node', { hasText: NODE_WITH_FILTERS }).waitFor();
		await dismissPopups(page);
		await page.waitForTimeout(1500);
		await page.screenshot({ path: join(OUT, 'n8n-canvas.png') });
		say('docs/images/n8n-canvas.png');

		// 2. Our node's parameters, with the Filters (a text and a date filter) open.
		await page.locator('.vue-flow__node', { hasText: NODE_WITH_FILTERS }).dblclick();
		const ndv = page.locator('[data-test-id="ndv"]');
		await ndv.waitFor();
		await ndv.getByText('Filters', { exact: true }).first().scrollIntoViewIfNeeded();
		await page.waitForTimeout(1500);
		await page.screenshot({ path: join(OUT, 'n8n-node-filters.png') });
		say('docs/images/n8n-node-filters.png');
		await page.keyboard.press('Escape');

		// 3. The credential form.
		await page.goto(`${server.url}/home/credentials/${CREDENTIAL_ID}`);
		const modal = page.locator('[data-test-id="editCredential-modal"], .el-dialog').first();
		await modal.waitFor();
		await modal.getByText('Access Token').first().waitFor();
		await page.waitForTimeout(1500);
		await page.screenshot({ path: join(OUT, 'n8n-credential.png') });
		say('docs/images/n8n-credential.png');
		await page.keyboard.press('Escape');

		// 4. The resource mapper of Device → Create, its fields loaded from the sandbox account.
		await page.goto(`${server.url}/workflow/tec-shot-mapper`);
		await page.locator('.vue-flow__node', { hasText: 'Create a device' }).dblclick();
		await page.locator('[data-test-id="ndv"]').getByText('Last tested').first().waitFor();
		await page.waitForTimeout(1500);
		await page.screenshot({ path: join(OUT, 'n8n-mapper.png') });
		say('docs/images/n8n-mapper.png');
		await page.keyboard.press('Escape');

		// 5. The device picker in By Barcode mode.
		await page.goto(`${server.url}/workflow/tec-shot-barcode`);
		await page.locator('.vue-flow__node', { hasText: 'Get a device' }).dblclick();
		await page.locator('[data-test-id="ndv"]').getByText('Device', { exact: true }).first().waitFor();
		await page.waitForTimeout(2500);
		await page.screenshot({ path: join(OUT, 'n8n-barcode.png') });
		say('docs/images/n8n-barcode.png');
		await page.keyboard.press('Escape');

		// 6. A run whose failed item went down the error output.
		await page.goto(`${server.url}/workflow/tec-shot-error`);
		await page.locator('.vue-flow__node', { hasText: 'Device not found' }).waitFor();
		await dismissPopups(page);
		await page.getByRole('button', { name: /execute workflow/i }).first().click({ force: true });
		// The run takes a moment (one request answered 404); then the canvas shows the item on the error branch.
		await page.waitForTimeout(8000);
		await page.screenshot({ path: join(OUT, 'n8n-error-output.png') });
		say('docs/images/n8n-error-output.png');
		await context.close();
	} finally {
		await server.stop();
		await sandbox.stop();
		rmSync(profile, { recursive: true, force: true });
		removeDir(userFolder);
		removeDir(work);
	}
}

main().catch((error) => {
	process.stderr.write(`\nnpm run screenshots failed: ${(error as Error).stack ?? error}\n`);
	process.exit(1);
});
