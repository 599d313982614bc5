/**
 * `npx tsx test/email/screenshots.ts`: the compliance report as a mail app shows it, taken by
 * Debian's chromium (playwright-core, headless, background networking off) from the HTML the
 * real renderer makes of the preview history (test/support/compliancePreview.ts):
 *   email-compliance.png        at desktop width
 *   email-compliance-phone.png  at phone width (390 px)
 *   email-compliance-first-day.png  the first report of a fresh install: `npm start -- --once
 *     --report-now` on the embedded sandbox's demo account, its history rebuilt from the results
 *   email-forecast.png          that report's forecast: the next 12 months (its heading and chart)
 *   email-notice-de.png         a customer's re-test notice in German: `npm start -- --once
 *     --notices-now` on the embedded sandbox's demo account, locale de
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderComplianceReport } from '../../email/complianceRender';
import { textsFor } from '../../email/texts';
import { launchBrowser } from '../n8n-app/browser';
import { previewReport } from '../support/compliancePreview';

const OUT = join(__dirname, '..', '..', 'docs', 'images');

/** The HTML of the report a fresh install writes first (a new state file, the embedded sandbox). */
function firstDayReport(): string {
	const dir = mkdtempSync(join(tmpdir(), 'tec-first-report-'));
	writeFileSync(join(dir, 'email.json'), JSON.stringify({ mailFrom: 'alerts@lab.example.com', timeZone: 'Europe/Berlin', recipients: { default: ['quality@example.com'] } }));
	const start = join(__dirname, '..', '..', 'bin', 'start.ts');
	execFileSync(process.execPath, ['--import', 'tsx', start, '--once', '--report-now', '--state', join(dir, 'state.json'), '--outbox', join(dir, 'outbox'), '--email-config', join(dir, 'email.json')], { env: { ...process.env, TEC_BASE_URL: '', TEC_TOKEN: '' }, stdio: ['ignore', 'ignore', 'inherit'] });
	const folder = readdirSync(join(dir, 'outbox')).find((f) => f.startsWith('compliance_'))!;
	return readFileSync(join(dir, 'outbox', folder, 'quality@example.com.html'), 'utf8');
}

/** The HTML of the demo account's first German re-test notice (a new state file, the embedded sandbox). */
function germanNotice(): string {
	const dir = mkdtempSync(join(tmpdir(), 'tec-notice-'));
	const customerNotices = { enabled: true, companyName: 'Prüfservice Lindner GmbH', replyTo: 'termine@pruefservice.example', senderName: 'Prüfservice Lindner', closing: 'Mit freundlichen Grüßen', signature: 'Ihr Prüfservice Lindner\nTel. 0711 123456' };
	writeFileSync(join(dir, 'email.json'), JSON.stringify({ mailFrom: 'alerts@lab.example.com', timeZone: 'Europe/Berlin', locale: 'de', recipients: { default: ['quality@example.com'] }, customerNotices }));
	const start = join(__dirname, '..', '..', 'bin', 'start.ts');
	execFileSync(process.execPath, ['--import', 'tsx', start, '--once', '--notices-now', '--state', join(dir, 'state.json'), '--outbox', join(dir, 'outbox'), '--email-config', join(dir, 'email.json')], { env: { ...process.env, TEC_BASE_URL: '', TEC_TOKEN: '' }, stdio: ['ignore', 'ignore', 'inherit'] });
	const folder = readdirSync(join(dir, 'outbox')).find((f) => f.startsWith('notices_'))!;
	const file = readdirSync(join(dir, 'outbox', folder)).filter((f) => f.endsWith('.html')).sort()[0];
	return readFileSync(join(dir, 'outbox', folder, file), 'utf8');
}

async function main(): Promise<void> {
	const { html } = renderComplianceReport(previewReport());
	const firstDay = firstDayReport();
	const notice = germanNotice();
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
		await page.setViewportSize({ width: 900, height: 900 });
		await page.setContent(firstDay, { waitUntil: 'load' });
		await page.screenshot({ path: join(OUT, 'email-compliance-first-day.png'), fullPage: true });
		process.stdout.write('wrote docs/images/email-compliance-first-day.png\n');
		// The forecast alone: from its heading to the end of its chart.
		const heading = page.locator('h2', { hasText: textsFor('en').forecast.heading });
		const chart = heading.locator('xpath=following-sibling::table[1]');
		const [top, bottom] = [await heading.boundingBox(), await chart.boundingBox()];
		if (!top || !bottom) throw new Error('the first-day report has no forecast section');
		await page.screenshot({ path: join(OUT, 'email-forecast.png'), fullPage: true, clip: { x: bottom.x - 8, y: top.y - 8, width: bottom.width + 16, height: bottom.y + bottom.height - top.y + 16 } });
		process.stdout.write('wrote docs/images/email-forecast.png\n');
		await page.setContent(notice, { waitUntil: 'load' });
		await page.screenshot({ path: join(OUT, 'email-notice-de.png'), fullPage: true });
		process.stdout.write('wrote docs/images/email-notice-de.png\n');
	} finally {
		await browser.close();
	}
}

main().catch((error: unknown) => {
	process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
	process.exit(1);
});
