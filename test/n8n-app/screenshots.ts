/**
 * `npm run screenshots`: the pictures in docs/images/, taken by a real browser (Debian's
 * chromium driven by playwright-core, headless, background networking off) from the real n8n
 * app with this package installed from its tarball, pointed at the local sandbox:
 *   n8n-canvas.png        the canvas with an example workflow (examples/failed-tests-download-reports.json)
 *   n8n-node-filters.png  the node's parameter panel with the Filters open (version 3: a Text field
 *                         and a Date field with a relative range)
 *   n8n-credential.png    the credential form
 *   n8n-mapper.png        Device → Create (version 2): properties in the resource mapper, a date and
 *                         Protection class with its dropdown of allowed values open
 *   n8n-barcode.png       Device → Get with the device picker in By Barcode mode
 *   n8n-error-output.png  a run whose failed item went down the node's error output
 *   n8n-search.png        the nodes panel of an empty workflow, searched for "calibration"
 *   n8n-email-notices-workflow.png  the canvas of the notices template (examples/email-customer-notices.json)
 *   n8n-email-notice-received.png   a German notice that template sent through n8n's Send Email to a
 *                         local SMTP server, as a mail client shows it: a header strip (From, To,
 *                         Subject, attachments, read back by postal-mime) over its HTML
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selectors } from 'playwright-core';
import { DEVICE, DEVICE_KEYS } from '../../sandbox/properties';
import { ROOT, ensureN8nApp } from './install';
import { CREDENTIAL_ID, N8n, newUserFolder, packPackage, readWorkflow, removeDir, startSandbox, type WorkflowJson } from './harness';
import { startSmtp } from '../support/localSmtp';
import { CHROMIUM, dismissPopups, ensureChromium, launchBrowser, signInThroughForm, type Browser } from './browser';

const OUT = join(ROOT, 'docs', 'images');
const WORKFLOW_ID = 'tec-failed-tests-reports';
const EXAMPLE = join(ROOT, 'examples', 'failed-tests-download-reports.json');
const NODE_WITH_FILTERS = 'Get failed test results';
const NOTICES_ID = 'tec-email-notices';
const NOTICES = join(ROOT, 'examples', 'email-customer-notices.json');
/** The notices template as a German test service runs it: every notice in German. */
function germanNotices(): WorkflowJson {
	const workflow = readWorkflow(NOTICES);
	const build = workflow.nodes.find((n) => n.name === 'Build re-test notices')!;
	build.parameters = { ...build.parameters, language: 'de', options: { companyName: 'Prüfservice Lindner GmbH', replyTo: 'termine@pruefservice.example', signature: 'Ihr Prüfservice Lindner\nTel. 0711 123456' } };
	const send = workflow.nodes.find((n) => n.name === 'Send e-mail')!;
	send.parameters = { ...send.parameters, fromEmail: 'Prüfservice Lindner <termine@pruefservice.example>' };
	return workflow;
}

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
/** The mapper's value as the editor saves it after the person removed the properties left empty. */
function mapped(value: Record<number, unknown>) {
	const type = (k: (typeof DEVICE_KEYS)[number]) => (k.choices ? 'options' : k.data_type === 'Date' ? 'dateTime' : k.data_type === 'Number' ? 'number' : 'string');
	const schema = DEVICE_KEYS.map((k) => ({
		id: String(k.id),
		displayName: k.name,
		required: false,
		defaultMatch: false,
		display: true,
		canBeUsedToMatch: false,
		type: type(k),
		removed: !(k.id in value),
		...(k.choices ? { options: k.choices.map((c) => ({ name: c, value: c })) } : {}),
	}));
	return { mappingMode: 'defineBelow', value, matchingColumns: [], schema, attemptToConvertTypes: false, convertFieldsToString: false };
}
const SHOTS = {
	'tec-shot-mapper': chain(
		'Register a device',
		ours('Create a device', {
			resource: 'device',
			operation: 'create',
			fields: mapped({ [DEVICE.designation]: 'Hand lamp', [DEVICE.lastTested]: '2026-03-01T00:00:00', [DEVICE.protectionClass]: 'III' }),
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
	const smtp = await startSmtp();
	await n8n.importCredentials([{ id: '2', name: 'SMTP account', type: 'smtp', data: { host: '127.0.0.1', port: smtp.port, secure: false, disableStartTls: true } }]);
	await n8n.importWorkflows({
		[WORKFLOW_ID]: readWorkflow(EXAMPLE),
		...(SHOTS as Record<string, ReturnType<typeof readWorkflow>>),
		[NOTICES_ID]: readWorkflow(NOTICES),
		'tec-shot-notices-de': germanNotices(),
	});
	const server = await n8n.start();
	selectors.setTestIdAttribute('data-test-id');
	let browser: Browser | undefined;
	try {
		await server.signIn();
		say(`n8n at ${server.url}; ${CHROMIUM}`);
		browser = await launchBrowser();
		const { page } = browser;
		await signInThroughForm(page, server.url);

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
		// Both filters in view: the panel scrolled to the button below them.
		const addFilter = ndv.getByRole('button', { name: 'Add Filter' });
		await addFilter.waitFor();
		await addFilter.evaluate((button) => button.scrollIntoView({ block: 'end' }));
		await ndv.getByTestId('parameter-input-days').waitFor();
		// The pointer off the form, so that no field shows its hover controls.
		await page.mouse.move(5, 890);
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

		// 4. The resource mapper of Device → Create: a date, and Protection class's dropdown of allowed values open.
		await page.goto(`${server.url}/workflow/tec-shot-mapper`);
		await page.locator('.vue-flow__node', { hasText: 'Create a device' }).dblclick();
		const choice = page.getByTestId('ndv').getByTestId(`parameter-input-${DEVICE.protectionClass}`);
		await choice.waitFor();
		await choice.scrollIntoViewIfNeeded();
		await choice.locator('input').click();
		await page.locator('.el-select-dropdown__item:visible').first().waitFor();
		await page.waitForTimeout(1000);
		await page.screenshot({ path: join(OUT, 'n8n-mapper.png') });
		say('docs/images/n8n-mapper.png');
		await page.keyboard.press('Escape');
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

		// 7. The nodes panel ("+" on an empty canvas) searched for what the node is about.
		await page.goto(`${server.url}/workflow/new`);
		await page.getByTestId('node-creator-plus-button').click();
		await page.getByTestId('node-creator-search-bar').fill('calibration');
		await page.getByTestId('node-creator').getByText('Test Equipment Cloud', { exact: true }).waitFor();
		await page.waitForTimeout(1000);
		await page.screenshot({ path: join(OUT, 'n8n-search.png') });
		say('docs/images/n8n-search.png');

		// 8. The canvas of the notices template, at the README's width.
		await page.setViewportSize({ width: 1200, height: 520 });
		await page.goto(`${server.url}/workflow/${NOTICES_ID}`);
		await page.locator('.vue-flow__node', { hasText: 'Send e-mail' }).waitFor();
		await dismissPopups(page);
		await page.waitForTimeout(1500);
		await page.screenshot({ path: join(OUT, 'n8n-email-notices-workflow.png') });
		say('docs/images/n8n-email-notices-workflow.png');

		// 9. A German notice that template sent, as received: run as the editor's "Execute workflow" does.
		const run = await server.runFromTrigger('tec-shot-notices-de', 'On the 1st of each month', app.n8nDir);
		if (run.status !== 'success') throw new Error(`the notices template did not run: ${JSON.stringify(run.data.resultData.error)}`);
		const [message] = await smtp.parsed();
		if (!message?.html) throw new Error('the notices template sent no message with HTML');
		await page.setViewportSize({ width: 1200, height: 900 });
		await page.route('**/*', (route) => route.abort());
		await page.setContent(mailClientPage(message), { waitUntil: 'load' });
		// The frame as tall as the message, as a reading pane scrolls it; the picture ends with the message or at 1,400 px.
		const height = await page.evaluate(() => {
			const frame = document.querySelector('iframe')!;
			frame.style.height = `${frame.contentDocument!.documentElement.scrollHeight}px`;
			return document.documentElement.scrollHeight;
		});
		await page.screenshot({ path: join(OUT, 'n8n-email-notice-received.png'), fullPage: true, clip: { x: 0, y: 0, width: 1200, height: Math.min(height, 1400) } });
		say('docs/images/n8n-email-notice-received.png');
	} finally {
		await browser?.close();
		await smtp.stop();
		await server.stop();
		await sandbox.stop();
		removeDir(userFolder);
		removeDir(work);
	}
}

/** The page's document, as far as used here (the project's types have no DOM). */
declare const document: {
	documentElement: { scrollHeight: number };
	querySelector(selector: 'iframe'): { style: { height: string }; contentDocument: { documentElement: { scrollHeight: number } } | null } | null;
};

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A mail client's reading pane: the message's header strip over its HTML (in a frame of its own, as mail clients isolate it). */
function mailClientPage(message: Awaited<ReturnType<Awaited<ReturnType<typeof startSmtp>>['parsed']>>[number]): string {
	const address = (a: { name?: string; address?: string } | undefined) => (a ? (a.name ? `${a.name} <${a.address}>` : (a.address ?? '')) : '');
	const rows: Array<[string, string]> = [
		['From', address(message.from)],
		['To', (message.to ?? []).map((a) => address(a as { name?: string; address?: string })).join(', ')],
		['Reply-To', (message.replyTo ?? []).map((a) => address(a as { name?: string; address?: string })).join(', ')],
		['Subject', message.subject ?? ''],
	];
	const attachments = message.attachments.map((a) => `<span class="file">${escapeHtml(a.filename ?? 'unnamed')} <small>${escapeHtml(a.mimeType)}, ${Math.max(1, Math.round((a.content as ArrayBuffer).byteLength / 1024))} KB</small></span>`).join('');
	const frame = escapeHtml(message.html ?? '');
	return `<!doctype html><html><head><meta charset="utf-8"><style>
body{margin:0;font:14px/1.4 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;background:#f3f4f6;color:#111827}
.head{background:#fff;border-bottom:1px solid #d1d5db;padding:14px 24px}
.head table{border-collapse:collapse}.head th{text-align:right;color:#6b7280;font-weight:500;padding:2px 12px 2px 0;vertical-align:top}
.head td{padding:2px 0}.subject td{font-weight:600;font-size:16px}
.files{padding-top:6px}.file{display:inline-block;border:1px solid #d1d5db;border-radius:6px;padding:4px 10px;margin-right:8px;background:#f9fafb}.file small{color:#6b7280}
iframe{display:block;width:100%;border:0;background:#fff}
</style></head><body><div class="head"><table>${rows
		.filter(([, v]) => v)
		.map(([k, v]) => `<tr${k === 'Subject' ? ' class="subject"' : ''}><th>${k}</th><td>${escapeHtml(v)}</td></tr>`)
		.join('')}${attachments ? `<tr><th>Attachments</th><td class="files">${attachments}</td></tr>` : ''}</table></div>
<iframe srcdoc="${frame}"></iframe></body></html>`;
}

main().catch((error) => {
	process.stderr.write(`\nnpm run screenshots failed: ${(error as Error).stack ?? error}\n`);
	process.exit(1);
});
