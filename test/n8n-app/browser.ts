/**
 * A real browser on the real editor: Debian's chromium driven by playwright-core, headless, with
 * background networking off (no calls anywhere but the local n8n). Shared by the editor e2e
 * tests and `npm run screenshots`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { OWNER } from './harness';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Debian's chromium, installed with apt-get when missing and running as root (CI). */
export function ensureChromium(): void {
	if (existsSync(CHROMIUM)) return;
	if (process.getuid?.() === 0 && CHROMIUM === '/usr/bin/chromium') {
		process.stderr.write('[browser] installing Debian chromium (apt-get install -y chromium)\n');
		const r = spawnSync('sh', ['-c', 'apt-get install -y chromium || (apt-get update && apt-get install -y chromium)'], { stdio: 'inherit' });
		if (r.status === 0 && existsSync(CHROMIUM)) return;
	}
	throw new Error(`${CHROMIUM} not found. Install Debian's chromium: sudo apt-get install -y chromium (or set CHROMIUM_PATH).`);
}

export interface Browser {
	context: BrowserContext;
	page: Page;
	close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
	ensureChromium();
	const profile = mkdtempSync(join(tmpdir(), 'tec-chromium-'));
	const context = await chromium.launchPersistentContext(profile, {
		executablePath: CHROMIUM,
		headless: true,
		args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
		viewport: { width: 1440, height: 900 },
		deviceScaleFactor: 1,
	});
	const page = context.pages()[0] ?? (await context.newPage());
	page.setDefaultTimeout(60_000);
	return {
		context,
		page,
		async close() {
			await context.close();
			rmSync(profile, { recursive: true, force: true });
		},
	};
}

/** Signs the owner in through the form, as a user does. */
export async function signInThroughForm(page: Page, n8nUrl: string): Promise<void> {
	await page.goto(`${n8nUrl}/signin`);
	await page.locator('input[type="email"], input[name="emailOrLdapLoginId"]').first().fill(OWNER.email);
	await page.locator('input[type="password"]').first().fill(OWNER.password);
	await page.getByRole('button', { name: /sign in/i }).click();
	await page.waitForURL((u) => !u.pathname.startsWith('/signin'));
}

/** Closes whatever the editor pops up on first visit (tips, callouts). */
export async function dismissPopups(page: Page): Promise<void> {
	for (let i = 0; i < 3; i++) await page.keyboard.press('Escape');
}
