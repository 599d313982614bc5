/**
 * `npx tsx test/email/screenshots.ts`: the compliance report as a mail app shows it, taken by
 * Debian's chromium (playwright-core, headless, background networking off) from the HTML the
 * real renderer makes of the preview history (test/support/compliancePreview.ts):
 *   email-compliance.png        at desktop width
 *   email-compliance-phone.png  at phone width (390 px)
 */
import { join } from 'node:path';
import { renderComplianceReport } from '../../lambdas/email/complianceRender';
import { launchBrowser } from '../n8n-app/browser';
import { previewReport } from '../support/compliancePreview';

const OUT = join(__dirname, '..', '..', 'docs', 'images');

async function main(): Promise<void> {
	const { html } = renderComplianceReport(previewReport());
	const browser = await launchBrowser();
	try {
		const { page } = browser;
		// No request leaves the page: the report must render from its own HTML alone.
		await page.route('**/*', (route) => (route.request().url().startsWith('data:') ? route.continue() : route.abort()));
		for (const [name, width] of [
			['email-compliance.png', 900],
			['email-compliance-phone.png', 390],
		] as const) {
			await page.setViewportSize({ width, height: 900 });
			await page.setContent(html, { waitUntil: 'load' });
			await page.screenshot({ path: join(OUT, name), fullPage: true });
			process.stdout.write(`wrote docs/images/${name}\n`);
		}
	} finally {
		await browser.close();
	}
}

main().catch((error: unknown) => {
	process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
	process.exit(1);
});
