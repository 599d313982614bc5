/**
 * The package in the real editor, in a real browser (Debian's chromium driven by playwright-core):
 * `n8n start` with this package installed from its tarball, the owner signed in through the form,
 * and the editor used as a person uses it: the node panel's search ("+" on the canvas) and the
 * resource mapper of Device → Create, its fields loaded from the sandbox account; the Filters of a
 * version 3 Get Many (property first, the form following the property's type).
 */
import { selectors, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CREDENTIAL_ID, CREDENTIAL_NAME, N8n, NODE_TYPE, startSandbox, type N8nServer, type SandboxProcess, type WorkflowJson } from './harness';
import { dismissPopups, launchBrowser, signInThroughForm, type Browser } from './browser';

const TRIGGER = { id: 'e0e0e0e0-0000-4000-8000-000000000001', name: 'When clicking ‘Execute workflow’', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} };
const WORKFLOWS: Record<string, WorkflowJson> = {
	'tec-editor-start': { name: 'Editor: a trigger and nothing else', nodes: [TRIGGER], connections: {}, settings: { executionOrder: 'v1' } },
	'tec-editor-mapper': {
		name: 'Editor: Create Device through the resource mapper',
		nodes: [
			TRIGGER,
			{
				id: 'e0e0e0e0-0000-4000-8000-000000000002',
				name: 'Create a device',
				type: NODE_TYPE,
				typeVersion: 2,
				position: [240, 0],
				// No saved schema: the editor loads the fields from the account through the node.
				parameters: { resource: 'device', operation: 'create', fields: { mappingMode: 'defineBelow', value: { '1': 'Hand lamp', '10': 'II' } } },
				credentials: { testEquipmentCloudApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
			},
		],
		connections: { [TRIGGER.name]: { main: [[{ node: 'Create a device', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	},
	'tec-editor-filters': {
		name: 'Editor: Get Many Devices with Filters (version 3)',
		nodes: [
			TRIGGER,
			{
				id: 'e0e0e0e0-0000-4000-8000-000000000003',
				name: 'Get devices',
				type: NODE_TYPE,
				typeVersion: 3,
				position: [240, 0],
				parameters: { resource: 'device', operation: 'getAll' },
				credentials: { testEquipmentCloudApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
			},
		],
		connections: { [TRIGGER.name]: { main: [[{ node: 'Get devices', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	},
};

let sandbox: SandboxProcess;
let server: N8nServer | undefined;
let browser: Browser | undefined;
let page: Page;

beforeAll(async () => {
	sandbox = await startSandbox();
	const n8n = new N8n(inject('n8nApp'), inject('userFolder'));
	await n8n.importCredential(sandbox);
	await n8n.importWorkflows(WORKFLOWS);
	server = await n8n.start();
	await server.signIn();
	// n8n's editor marks its elements with data-test-id (Playwright's default is data-testid).
	selectors.setTestIdAttribute('data-test-id');
	browser = await launchBrowser();
	page = browser.page;
	await signInThroughForm(page, server.url);
});

afterAll(async () => {
	await browser?.close();
	await server?.stop();
	await sandbox?.stop();
});

/** Opens a workflow and the node panel with the canvas's "+" button (what the N key does). */
async function openNodePanel(workflow: string): Promise<Locator> {
	await page.goto(`${server!.url}/workflow/${workflow}`);
	// The canvas is ready once its controls are drawn; on an empty workflow there is no node.
	const plus = page.getByTestId('node-creator-plus-button');
	await plus.waitFor();
	if (workflow !== 'new') await page.getByTestId('canvas-node').first().waitFor();
	const panel = page.getByTestId('node-creator');
	const searchBar = panel.getByTestId('node-creator-search-bar');
	await plus.click();
	// A tip the editor shows on a first visit can swallow the click: close it and click again.
	await searchBar.waitFor({ timeout: 15_000 }).catch(async () => {
		await dismissPopups(page);
		await plus.click();
		await searchBar.waitFor();
	});
	return panel;
}

/** The panel's results for a search: each entry's node type (from its keyboard id) and name. */
async function search(panel: Locator, text: string): Promise<Array<{ type: string; name: string }>> {
	await panel.getByTestId('node-creator-search-bar').fill(text);
	const ours = panel.locator(`[data-test-id="item-iterator-item"][data-keyboard-nav-id^="${NODE_TYPE}"]`);
	// The list is filtered as one types: wait for our entry rather than for a fixed time.
	await ours.first().waitFor({ timeout: 20_000 }).catch(() => undefined);
	const entries = await panel.getByTestId('item-iterator-item').evaluateAll((items) =>
		items.map((item) => ({
			id: item.getAttribute('data-keyboard-nav-id') ?? '',
			name: item.querySelector('[data-test-id="node-creator-item-name"]')?.textContent?.trim() ?? '',
		})),
	);
	return entries.map(({ id, name }) => ({ type: id.replace(/-[0-9a-f-]{36}$/, ''), name }));
}

describe('the node panel’s search (a real browser on the real editor)', () => {
	for (const term of ['overdue', 'calibration']) {
		it(`"${term}" on a workflow with a trigger: finds Test Equipment Cloud, whose actions are ours`, async () => {
			const panel = await openNodePanel('tec-editor-start');
			const found = await search(panel, term);
			expect(found).toContainEqual({ type: NODE_TYPE, name: 'Test Equipment Cloud' });
			await panel.locator(`[data-test-id="item-iterator-item"][data-keyboard-nav-id^="${NODE_TYPE}"]`).first().click();
			await expect.poll(() => panel.innerText()).toContain('Get many overdue devices');
			expect(await panel.innerText()).toContain('Create a device');
			await page.keyboard.press('Escape');
		});

		it(`"${term}" on an empty workflow (what triggers it?): finds Test Equipment Cloud, and picking "On device overdue" adds the Test Equipment Cloud Trigger`, async () => {
			const panel = await openNodePanel('new');
			const found = await search(panel, term);
			expect(found.map((f) => f.name)).toContain('Test Equipment Cloud');
			await panel.locator(`[data-test-id="item-iterator-item"][data-keyboard-nav-id^="${NODE_TYPE}"]`).first().click();
			await expect.poll(() => panel.innerText()).toContain('On device overdue');
			const text = await panel.innerText();
			for (const event of ['On device due soon', 'On new test result', 'On project updated']) expect(text).toContain(event);
			await panel.getByText('On device overdue', { exact: true }).click();
			const added = page.locator(`[data-test-id="canvas-node"][data-node-type="${NODE_TYPE}Trigger"]`);
			await added.waitFor();
			expect(await added.getAttribute('data-node-name')).toBe('Test Equipment Cloud Trigger');
			// The node opens on the event that was picked.
			const event = page.getByTestId('ndv').getByTestId('parameter-input-event').locator('input');
			await expect.poll(() => event.inputValue()).toBe('Device Overdue');
		});
	}
});

describe('the node panel finds the one entry by the trigger’s words too', () => {
	// The panel merges the action node and the trigger into one entry that searches the action
	// node's aliases only; these words are the trigger's.
	for (const term of ['failed test', 'new test result', 'coming due', 'due soon']) {
		it(`"${term}" on an empty workflow: finds Test Equipment Cloud, with its trigger events`, async () => {
			const panel = await openNodePanel('new');
			const found = await search(panel, term);
			expect(found.map((f) => f.name)).toContain('Test Equipment Cloud');
			await panel.locator(`[data-test-id="item-iterator-item"][data-keyboard-nav-id^="${NODE_TYPE}"]`).first().click();
			await expect.poll(() => panel.innerText()).toContain('On new test result');
			await page.keyboard.press('Escape');
		});
	}
});

describe('the resource mapper in the editor', () => {
	it('Device → Create: the account’s properties, Protection class a dropdown of I, II and III with the saved value', async () => {
		await page.goto(`${server!.url}/workflow/tec-editor-mapper`);
		const node = page.locator(`[data-test-id="canvas-node"][data-node-name="Create a device"]`);
		await node.waitFor();
		await dismissPopups(page);
		await node.dblclick();
		const ndv = page.getByTestId('ndv');
		const fields = ndv.getByTestId('mapping-fields-container');
		await fields.getByText('Protection class').first().waitFor();
		for (const name of ['Designation', 'Last tested', 'Test interval (months)', 'Next test']) expect(await fields.innerText()).toContain(name);
		const choice = fields.getByTestId('parameter-input-10');
		await choice.scrollIntoViewIfNeeded();
		expect(await choice.locator('input').inputValue()).toBe('II');
		await choice.locator('input').click();
		const options = page.locator('.el-select-dropdown__item:visible');
		await options.first().waitFor();
		expect(await options.allInnerTexts()).toEqual(['I', 'II', 'III']);
		await page.keyboard.press('Escape');
	});
});

/** An option of a dropdown by its name (its accessible name goes on with its description, if any). */
function option(name: string): Locator {
	const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	return page.getByRole('option', { name: new RegExp(`^${escaped}`) }).first();
}

/** The names in the open dropdowns (an option's first line; the second is its description). */
async function dropdownNames(): Promise<string[]> {
	return (await page.locator('.el-select-dropdown__item:visible').allInnerTexts()).map((t) => t.split('\n')[0].trim());
}

/** Opens a parameter's dropdown and reads its options once `shown` is among them (the one before has closed). */
async function openOptions(input: Locator, shown: string): Promise<string[]> {
	await input.scrollIntoViewIfNeeded();
	await input.locator('input').click();
	await option(shown).waitFor();
	return await dropdownNames();
}

/** Closes the open dropdown and waits until `shown` (one of its options) is gone. */
async function closeOptions(shown: string): Promise<void> {
	await page.keyboard.press('Escape');
	await option(shown).waitFor({ state: 'hidden' });
}

/** Opens a parameter's dropdown and picks an option by its name; returns once the dropdown closed. */
async function pick(input: Locator, name: string): Promise<void> {
	await input.scrollIntoViewIfNeeded();
	await input.locator('input').click();
	await option(name).click();
	await option(name).waitFor({ state: 'hidden' });
}

describe('the Filters of a new Get Many in the editor (version 3, property first)', () => {
	it('Add Filter, a Date property from the account’s list: the date conditions, then Date or Days From Today; a Text property: the Text keywords', async () => {
		await page.goto(`${server!.url}/workflow/tec-editor-filters`);
		const node = page.locator(`[data-test-id="canvas-node"][data-node-name="Get devices"]`);
		await node.waitFor();
		await dismissPopups(page);
		await node.dblclick();
		const ndv = page.getByTestId('ndv');
		// No filter yet: no condition of any type on the form.
		await ndv.getByRole('button', { name: 'Add Filter' }).click();
		const keys = ndv.getByTestId('parameter-input-key');
		await keys.first().waitFor();
		expect(await ndv.getByTestId('parameter-input-dateCondition').count()).toBe(0);

		// The list is the account's properties, each with its type.
		const listed = await openOptions(keys.first(), 'Next test (Date)');
		for (const name of ['Designation (Text)', 'Test interval (months) (Number)']) expect(listed).toContain(name);
		await closeOptions('Next test (Date)');
		await pick(keys.first(), 'Next test (Date)');

		const dateCondition = ndv.getByTestId('parameter-input-dateCondition');
		await dateCondition.waitFor();
		expect(await dateCondition.locator('input').inputValue()).toBe('Same Date');
		expect(await ndv.getByTestId('parameter-input-textCondition').count()).toBe(0);
		const dateConditions = await openOptions(dateCondition, 'Within the Next N Days');
		expect(dateConditions).toEqual(expect.arrayContaining(['Older Than', 'Newer or Same', 'Within the Next N Days', 'Within the Last N Days']));
		expect(dateConditions).not.toContain('Contains');
		await closeOptions('Within the Next N Days');

		// A fixed day by default (n8n's date picker), or days counted from today.
		const mode = ndv.getByTestId('parameter-input-dateValueMode');
		expect(await mode.locator('input').inputValue()).toBe('Fixed Date');
		await ndv.getByTestId('parameter-input-dateValue').waitFor();
		await pick(mode, 'Days From Today');
		await ndv.getByTestId('parameter-input-daysFromToday').waitFor();
		expect(await ndv.getByTestId('parameter-input-dateValue').count()).toBe(0);

		// A second filter on a Text property: the Text keywords, no date fields.
		await ndv.getByRole('button', { name: 'Add Filter' }).click();
		await expect.poll(() => keys.count()).toBe(2);
		await pick(keys.nth(1), 'Designation (Text)');
		const textCondition = ndv.getByTestId('parameter-input-textCondition');
		await textCondition.waitFor();
		expect(await textCondition.locator('input').inputValue()).toBe('Contains');
		await ndv.getByTestId('parameter-input-textValue').waitFor();
		const textConditions = await openOptions(textCondition, 'Starts With');
		expect(textConditions).toEqual(expect.arrayContaining(['Contains', 'Equals', 'Starts With', 'Ends With', 'Not Contains']));
		for (const dateOnly of ['Older Than', 'Within the Next N Days', 'Greater Than']) expect(textConditions).not.toContain(dateOnly);
		await closeOptions('Starts With');
		// The first filter kept its date form.
		expect(await ndv.getByTestId('parameter-input-dateCondition').count()).toBe(1);
	});
});
