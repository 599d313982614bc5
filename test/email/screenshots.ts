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
 *   email-interval-recommendation.png  the May 2026 report's interval recommendations: their
 *     rule and the first group, its reason whole
 *   email-measurement-warnings.png     that report's "Measured values near their limit"
 * The May 2026 report is the demo account's (sandbox/series.ts: measured values with a past) on a
 * fixed clock, read and composed as n8n's Build Monthly Compliance Report does it, so the
 * pictures stay the same from run to run; that month has near-limit values and a "test earlier" row.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { checkThreshold, monthDays, readComplianceReportInput, readResultWarnings, ServiceClient, warningRows } from '../../client';
import { composeComplianceReport, type ReportDevice } from '../../email/compliance';
import { renderComplianceReport } from '../../email/complianceRender';
import { textsFor } from '../../email/texts';
import { systemClock, undiciRequestFn } from '../../lambdas/adapters/undiciService';
import { parseEmailSettings } from '../../lambdas/email/settings';
import { startSandbox } from '../../sandbox/server';
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

/** The demo account's clock for the May 2026 report (sent on 2 June). */
const EVIDENCE_NOW = Date.parse('2026-06-02T08:00:00Z');
const EVIDENCE_MONTH = '2026-05';

/**
 * The HTML of the demo account's May 2026 report with its measured-value warnings: the records
 * read as n8n's Build Monthly Compliance Report reads them (client/complianceReportRead.ts), the
 * month's passed results' warnings as the results poller would have recorded them (readResultWarnings, the
 * default threshold 0.8), composed and rendered by the real code.
 */
async function evidenceReport(): Promise<string> {
	const sandbox = await startSandbox({ now: () => EVIDENCE_NOW, ratePerSecond: 10_000 });
	try {
		const client = new ServiceClient({ baseUrl: sandbox.url, request: undiciRequestFn(sandbox.sandboxToken), clock: systemClock });
		const input = await readComplianceReportInput(client, EVIDENCE_MONTH, new Date(EVIDENCE_NOW).toISOString().slice(0, 10));
		const devices = new Map<number, ReportDevice>(input.devices.map((d) => [d.id, d]));
		const { first, last } = monthDays(EVIDENCE_MONTH);
		const passed = input.tests.filter((t) => t.failed === false && t.testDate >= first && t.testDate <= last);
		const byId = new Map(input.devices.map((d) => [d.id, d]));
		const read = await readResultWarnings(client, passed, checkThreshold(0.8, 'threshold'), (id) => byId.get(id)?.nextTestDate);
		const warnings = read.alerts.flatMap((a) => {
			const d = byId.get(a.deviceId)!;
			return warningRows({ id: d.id, customerId: d.customerId, designation: d.designation, idBarcode: d.idBarcode, customerName: d.customerName, department: d.department }, a.nearLimit, a.drift);
		});
		if (!warnings.some((w) => w.testEarlier) || !warnings.some((w) => !w.testEarlier)) throw new Error(`the demo's ${EVIDENCE_MONTH} has no near-limit and "test earlier" warnings to show`);
		const { recipients } = parseEmailSettings({ mailFrom: 'alerts@lab.example.com', recipients: { default: ['quality@example.com'] } }, 'screenshots');
		const context = { settings: { recipients }, timeZone: 'Europe/Berlin', environment: 'sandbox' as const };
		const content = composeComplianceReport(context, 'quality@example.com', EVIDENCE_MONTH, { entries: input.entries, devices }, undefined, input.tests, warnings);
		if (!content) throw new Error(`the demo account has no due dates in ${EVIDENCE_MONTH}`);
		return renderComplianceReport(content).html;
	} finally {
		await sandbox.stop();
	}
}

async function main(): Promise<void> {
	const { html } = renderComplianceReport(previewReport());
	const firstDay = firstDayReport();
	const notice = germanNotice();
	const evidence = await evidenceReport();
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
		await page.setContent(evidence, { waitUntil: 'load' });
		// The whole report in the viewport: a full-page screenshot would drop the scroll bar and rewrap the rows measured with it.
		await page.setViewportSize({ width: 900, height: Number(await page.evaluate('document.documentElement.scrollHeight')) });
		const t = textsFor('en');
		// The interval recommendations: their heading, rule and decision, and the first group with its reason.
		const intervals = page.locator('h2', { hasText: t.intervals.title });
		const firstGroup = intervals.locator('xpath=following-sibling::table[1]//tr[2]');
		await clipShot(page, intervals, firstGroup, 'email-interval-recommendation.png');
		// The measured-value warnings: their heading, rule, the rows the e-mail's size leaves room for
		// and the line saying the CSV has the rest (the report's last section: to the end of its cell).
		const warnings = page.locator('h2', { hasText: t.warnings.title });
		await clipShot(page, warnings, warnings.locator('xpath=..'), 'email-measurement-warnings.png');
	} finally {
		await browser.close();
	}
}

/** The page from the top of `from` to the bottom of `to`, the width of `from` (the report's body). */
async function clipShot(page: Page, from: Locator, to: Locator, name: string): Promise<void> {
	const [top, bottom] = [await from.boundingBox(), await to.boundingBox()];
	if (!top || !bottom) throw new Error(`${name}: the report has no such section`);
	await page.screenshot({ path: join(OUT, name), clip: { x: top.x - 8, y: top.y - 8, width: top.width + 16, height: bottom.y + bottom.height - top.y + 16 } });
	process.stdout.write(`wrote docs/images/${name}\n`);
}

main().catch((error: unknown) => {
	process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
	process.exit(1);
});
