/**
 * The e-mails' HTML checked with axe-core in Chromium: every kind (digest, failed-test e-mail,
 * compliance report, re-test notice) in every language, no violation of impact serious or critical.
 *
 * Why here and not in test/email: this needs Debian's chromium, and CI (.ci/run) installs it only
 * after `npm test` and before `npm run test:n8n`, which runs test/n8n-app/**\/*.e2e.ts. The page is
 * the e-mail alone (set as content, every request refused), so it needs nothing of n8n.
 */
import type { AxeResults } from 'axe-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCALES } from '../../email/texts';
import { EMAIL_KINDS, previewOf } from '../support/languagePreview';
import { launchBrowser, type Browser } from './browser';

declare const axe: { run(context?: unknown, options?: unknown): Promise<AxeResults> };
/** The page's document, as far as used here (the project's types have no DOM). */
declare const document: { documentElement: { lang: string } };

let browser: Browser;
beforeAll(async () => {
	browser = await launchBrowser();
	// A mail app loads nothing for the e-mail: neither does this page.
	await browser.page.route('**/*', (route) => route.abort());
}, 120_000);
afterAll(async () => {
	await browser?.close();
});

describe.each(LOCALES)('the e-mails in %s, checked by axe-core', (locale) => {
	it.each(EMAIL_KINDS)('%s: no serious or critical violation', async (kind) => {
		const { html } = previewOf(kind, locale);
		const { page } = browser;
		await page.setContent(html, { waitUntil: 'load' });
		expect(await page.evaluate(() => document.documentElement.lang)).toBe(locale);
		await page.addScriptTag({ path: require.resolve('axe-core') });
		const results = await page.evaluate(() => axe.run(document, { resultTypes: ['violations'] }));
		const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
		// Named with the elements, so a failure says where to fix the HTML.
		expect(bad.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join('; ')}`)).toEqual([]);
		// axe did look: it ran its rules on this page.
		expect(results.passes.length + results.incomplete.length + results.violations.length).toBeGreaterThan(5);
	});
});
