/**
 * `npm run screenshots`: the pictures in docs/images/, taken by a real browser (Debian's
 * chromium driven by playwright-core, headless, background networking off) from the real n8n
 * app with this package installed from its tarball, pointed at the local sandbox:
 *   n8n-canvas.png        the canvas with an example workflow (examples/failed-tests-download-reports.json)
 *   n8n-node-filters.png  the node's parameter panel with the Filters open
 *   n8n-credential.png    the credential form
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
	await n8n.importWorkflows({ [WORKFLOW_ID]: readWorkflow(EXAMPLE) });
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
