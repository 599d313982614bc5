/**
 * The example workflows in the real n8n app: this package installed from its `npm pack` tarball
 * into the n8n user folder's `.n8n/nodes`, a credential and the workflows imported with n8n's
 * CLI, each workflow run with `n8n execute --id <id> --rawOutput` against the sandbox, and the
 * items n8n printed compared with what the sandbox holds.
 */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import {
	CREDENTIAL_NAME,
	N8n,
	NODE_TYPE,
	exampleFiles,
	itemsOf,
	readWorkflow,
	startSandbox,
	storedBinary,
	type ExecuteOutcome,
	type SandboxProcess,
	type WorkflowJson,
} from './harness';

interface Property {
	key_id: number;
	name: string;
	value: unknown;
}
interface Record_ {
	id: number;
	customer_id?: number;
	properties: Property[];
}
interface Page<T> {
	count: number;
	results: T[];
}

const TRIGGER = 'When clicking ‘Execute workflow’';
/** Workflow ids: the example's file name, padded (n8n ids are strings). */
const idFor = (file: string) => `tec-${basename(file, '.json')}`.slice(0, 36);

let sandbox: SandboxProcess;
let n8n: N8n;
const examples: Record<string, WorkflowJson> = {};
const notExecutable: string[] = [];

function prop(record: Record_, key: number): unknown {
	return record.properties.find((p) => p.key_id === key)?.value;
}

async function all<T>(path: string): Promise<T[]> {
	const page = await sandbox.api<Page<T>>(`${path}${path.includes('?') ? '&' : '?'}limit=1000`);
	expect(page.count).toBe(page.results.length);
	return page.results;
}

function expectSuccess(outcome: ExecuteOutcome): void {
	expect(outcome.failure, outcome.failure).toBeUndefined();
	expect(outcome.run?.status, JSON.stringify(outcome.run?.data.resultData.error)).toBe('success');
	expect(outcome.run?.data.resultData.error).toBeUndefined();
}

async function execute(file: string): Promise<ExecuteOutcome> {
	const outcome = await n8n.execute(idFor(file));
	return outcome;
}

beforeAll(async () => {
	sandbox = await startSandbox();
	n8n = new N8n(inject('n8nApp'), inject('userFolder'));
	await n8n.importCredential(sandbox);
	const workflows: Record<string, WorkflowJson> = {};
	for (const path of exampleFiles()) {
		const file = basename(path);
		const json = readWorkflow(path);
		examples[file] = json;
		workflows[idFor(file)] = json;
		if (!json.nodes.some((n) => n.type === 'n8n-nodes-base.manualTrigger')) notExecutable.push(file);
	}
	workflows['tec-test-fails'] = failingWorkflow();
	workflows['tec-test-recycle-bin'] = recycleBinWorkflow();
	workflows['tec-test-error-output'] = errorOutputWorkflow();
	// continue-on-fail.json as saved with version 1 (Simplify under Options, the old error item).
	workflows['tec-test-continue-v1'] = manualWorkflow('Test: Continue On Fail (version 1)', [
		ours('Get latest test results', 1, { resource: 'testResult', operation: 'getAll', limit: 3, options: { sort: { rule: { key: 'test_date', direction: 'desc' } } } }),
		{
			...ours('Get each tested device', 2, { resource: 'device', operation: 'get', deviceId: { __rl: true, mode: 'id', value: '={{ $json.device_id }}' }, options: { simplify: true } }),
			onError: 'continueRegularOutput',
		},
	]);
	workflows['tec-test-get-v2'] = manualWorkflow('Test: Get (version 2)', [
		{ ...ours('Get device 7', 1, { resource: 'device', operation: 'get', deviceId: { __rl: true, mode: 'id', value: '7' } }), typeVersion: 2 },
	]);
	workflows['tec-test-create-mapper'] = manualWorkflow('Test: Create Device through the resource mapper', [
		{ ...ours('Create a device', 1, { resource: 'device', operation: 'create', fields: mapperFields({ '1': 'Hand lamp', '3': '2026-03-01T00:00:00', '10': 'III' }) }), typeVersion: 2 },
	]);
	// The dropdown offers only the listed values (and n8n does not start a run whose fixed value is
	// not one of them); an expression can still produce another, which the service refuses.
	workflows['tec-test-create-mapper-refused'] = manualWorkflow('Test: a value outside the list', [
		{ ...ours('Create a device', 1, { resource: 'device', operation: 'create', fields: mapperFields({ '1': 'Hand lamp', '10': "={{ 'I' + 'V' }}" }) }), typeVersion: 2 },
	]);
	await n8n.importWorkflows(workflows);
});

afterAll(async () => {
	await sandbox?.stop();
});

beforeEach(async () => {
	await sandbox.admin('POST', '/reset', {});
});

describe('the package in the n8n app (CLI)', () => {
	it('n8n lists every imported example workflow, and the credential', async () => {
		const list = await n8n.cliOk(['list:workflow']);
		for (const file of Object.keys(examples)) expect(list.stdout).toContain(`${idFor(file)}|${examples[file].name}`);
		const file = join(inject('userFolder'), 'credentials-export.json');
		await n8n.cliOk(['export:credentials', '--all', '--decrypted', `--output=${file}`]);
		const exported = JSON.parse(readFileSync(file, 'utf8')) as Array<{ name: string; type: string; data: Record<string, string> }>;
		expect(exported).toContainEqual(
			expect.objectContaining({ name: CREDENTIAL_NAME, type: 'testEquipmentCloudApi', data: expect.objectContaining({ sandboxBaseUrl: sandbox.url, environment: 'sandbox' }) }),
		);
	});

	it('overdue-devices-report.json: Overdue Device → Get Many, Return All, simplified, sorted by next test', async () => {
		const outcome = await execute('overdue-devices-report.json');
		expectSuccess(outcome);
		const items = itemsOf(outcome, 'Get overdue devices');
		const expected = await all<Record_>('/data/devices/overdue/');
		expect(expected.length).toBeGreaterThan(10);
		expect(items.map((i) => i.json.id).sort()).toEqual(expected.map((d) => d.id).sort());
		const next = items.map((i) => (i.json.properties as Record<string, string>)['Next test']);
		expect(next).toEqual([...next].sort());
		for (const i of items) expect(i.json.days_overdue).toBeGreaterThan(0);
	});

	it('export-all-devices.json: Device → Get Many with Return All reads every page', async () => {
		const outcome = await execute('export-all-devices.json');
		expectSuccess(outcome);
		const items = itemsOf(outcome, 'Get all devices');
		const expected = await all<Record_>('/data/devices/all/');
		expect(expected.length).toBeGreaterThan(100); // more than one page of the node's requests
		expect(items).toHaveLength(expected.length);
		expect(new Set(items.map((i) => i.json.id))).toEqual(new Set(expected.map((d) => d.id)));
		const designations = items.map((i) => String((i.json.properties as Record<string, string>).Designation).toLowerCase());
		expect(designations).toEqual([...designations].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
	});

	it('find-and-update-devices.json: text and date filters, Return All, Update Many', async () => {
		const before = await all<Record_>('/data/devices/all/');
		const outcome = await execute('find-and-update-devices.json');
		expectSuccess(outcome);
		const found = itemsOf(outcome, 'Get workshop devices tested long ago');
		// Last tested Older Than 182 days before today (Days From Today −182).
		const day = (offsetDays: number) => new Date(Date.now() + (offsetDays - 182) * 86_400_000).toISOString().slice(0, 10);
		// Today is the day in the instance's time zone: devices within a day of the cut-off may go either way.
		const workshop = before.filter((d) => String(prop(d, 4)).toLowerCase() === 'workshop');
		const surely = workshop.filter((d) => String(prop(d, 3)) < day(-1)).map((d) => d.id);
		const possibly = workshop.filter((d) => String(prop(d, 3)) < day(1)).map((d) => d.id);
		const ids = found.map((i) => i.json.id as number);
		expect(surely.length).toBeGreaterThan(0);
		expect(ids).toEqual(expect.arrayContaining(surely));
		for (const id of ids) expect(possibly).toContain(id);
		// Options → Properties to Return: only keys 1 to 4, named (Simplify, version 3's default).
		const names = (await all<{ id: number; name: string }>('/data/properties/all/')).filter((k) => k.id <= 4).map((k) => k.name);
		expect(names).toHaveLength(4);
		for (const item of found) {
			expect(Object.keys(item.json.properties as object).length).toBeGreaterThan(0);
			for (const name of Object.keys(item.json.properties as object)) expect(names).toContain(name);
		}

		const moved = itemsOf(outcome, 'Move them to Hall 1');
		expect(moved.map((i) => i.json.id).sort()).toEqual([...ids].sort());
		const after = await all<Record_>('/data/devices/all/');
		for (const d of after) {
			if (ids.includes(d.id)) expect(prop(d, 8)).toBe('Hall 1');
			else expect(prop(d, 8)).toBe(prop(before.find((b) => b.id === d.id)!, 8));
		}
	});

	it('register-customer-and-device.json: Customer → Create, Device → Create and Update', async () => {
		const outcome = await execute('register-customer-and-device.json');
		expectSuccess(outcome);
		const [customer] = itemsOf(outcome, 'Create customer');
		const [device] = itemsOf(outcome, 'Create device');
		const [updated] = itemsOf(outcome, 'Set department');
		expect(customer.json.id).toEqual(expect.any(Number));
		expect(device.json.customer_id).toBe(customer.json.id);
		expect(updated.json.id).toBe(device.json.id);
		const stored = await sandbox.api<Record_>(`/device/detail/${device.json.id}/`);
		expect(stored.customer_id).toBe(customer.json.id);
		expect(prop(stored, 1)).toBe('Soldering station');
		expect(prop(stored, 4)).toBe('Laboratory');
		const customers = await all<Record_>('/data/customers/all/');
		expect(prop(customers.find((c) => c.id === customer.json.id)!, 101)).toBe('Example Lab GmbH');
	});

	it('delete-and-restore-device.json: Device → Delete to the recycle bin, Recycle Bin → Restore', async () => {
		const outcome = await execute('delete-and-restore-device.json');
		expectSuccess(outcome);
		const [deleted] = itemsOf(outcome, 'Delete device (to recycle bin)');
		expect(deleted.json.recycle_bin_id).toEqual(expect.any(Number));
		expect(itemsOf(outcome, 'Restore from recycle bin')).toHaveLength(1);
		const device = await sandbox.api<Record_>('/device/detail/1/');
		expect(device.id).toBe(1);
		// The restored entry left the bin (the demo's own scrapped devices stay in it).
		const bin = await sandbox.api<Page<{ id: number; resource: string; item_id: number }>>('/recycle_bin/all/');
		expect(bin.results).toHaveLength(bin.count);
		expect(bin.results.filter((e) => e.id === deleted.json.recycle_bin_id || (e.resource === 'device' && e.item_id === 1))).toEqual([]);
	});

	it('a test workflow: Device → Delete, then Recycle Bin → Get Many lists the entry', async () => {
		const outcome = await n8n.execute('tec-test-recycle-bin');
		expectSuccess(outcome);
		const entries = itemsOf(outcome, 'Get recycle bin');
		// Device 2's entry, once, beside the demo's own scrapped devices.
		expect(entries.filter((e) => e.json.resource === 'device' && e.json.item_id === 2)).toHaveLength(1);
	});

	it('failed-tests-download-reports.json: Test Result → Get Many (filters, limit) and Get, File → Download (binary)', async () => {
		const outcome = await execute('failed-tests-download-reports.json');
		expectSuccess(outcome);
		const results = itemsOf(outcome, 'Get failed test results');
		expect(results).toHaveLength(3);
		for (const r of results) expect(r.json.status).toBe('failed');
		const dates = results.map((r) => String(r.json.test_date));
		expect(dates).toEqual([...dates].sort().reverse());
		const details = itemsOf(outcome, 'Get test details');
		expect(details.map((d) => d.json.id)).toEqual(results.map((r) => r.json.id));
		for (const d of details) expect((d.json.files as unknown[]).length).toBeGreaterThan(0);
		const downloads = itemsOf(outcome, 'Download test report');
		expect(downloads).toHaveLength(3);
		for (const [i, d] of downloads.entries()) {
			const report = d.binary?.report;
			expect(report, JSON.stringify(d).slice(0, 500)).toBeDefined();
			const file = (details[i].json.files as Array<{ id: number; file_name?: string; name?: string }>)[0];
			expect(report!.mimeType).toMatch(/\//);
			expect(report!.fileName).toBeTruthy();
			expect(Number.parseFloat(String(report!.fileSize))).toBeGreaterThan(0);
			// The bytes n8n stored are the service's file (n8n 2 keeps binary data on disk).
			const link = await sandbox.api<{ url: string }>(`/files/download_link/${file.id}/`, 'PUT');
			const original = Buffer.from(await (await fetch(link.url)).arrayBuffer());
			expect(report!.fileName).toBe(file.file_name);
			expect(storedBinary(inject('userFolder'), report!)).toEqual(original);
		}
	});

	it('customers-projects-users.json: Customer, Project and Sub-User → Get Many with filters', async () => {
		const outcome = await execute('customers-projects-users.json');
		expectSuccess(outcome);
		const customers = itemsOf(outcome, 'Get customers in Berlin');
		const expectedCustomers = (await all<Record_>('/data/customers/all/')).filter((c) => prop(c, 103) === 'Berlin');
		expect(expectedCustomers.length).toBeGreaterThan(0);
		expect(customers.map((c) => c.json.id).sort()).toEqual(expectedCustomers.map((c) => c.id).sort());
		for (const c of customers) expect((c.json.properties as Record<string, string>).City).toBe('Berlin');

		const projects = itemsOf(outcome, 'Get open projects');
		const open = (await all<{ id: number; status: string; updated_time: string }>('/project/viewset/')).filter((p) => p.status === 'open');
		expect(projects).toHaveLength(Math.min(5, open.length));
		for (const p of projects) expect(p.json.status).toBe('open');
		const updated = projects.map((p) => String(p.json.updated_time));
		expect(updated).toEqual([...updated].sort().reverse());

		const testers = itemsOf(outcome, 'Get testers');
		const expectedTesters = (await all<{ id: number; role: string }>('/users/all/')).filter((u) => u.role === 'tester');
		expect(testers.map((t) => t.json.id).sort()).toEqual(expectedTesters.map((u) => u.id).sort());
	});

	it('continue-on-fail.json: a deleted device gives an error item (HTTP 404) and the run goes on', async () => {
		const { gone, latest, devices } = await runDeletingOneDevice(idFor('continue-on-fail.json'));
		// Version 3: the item in the error output's shape, on the regular output.
		expect(devices[1].json).toEqual({ error: expect.stringContaining('(HTTP 404)'), details: { description: `Device ${gone} does not exist.`, httpCode: 404 } });
		expect(devices[2].json.id).toBe(latest[2].device_id);
	});

	it('a saved version 1 workflow with Continue On Fail keeps its error item: { error, description, httpCode }', async () => {
		const { gone, latest, devices } = await runDeletingOneDevice('tec-test-continue-v1');
		expect(devices[1].json).toEqual({ error: expect.stringContaining('(HTTP 404)'), description: `Device ${gone} does not exist.`, httpCode: '404' });
		expect(devices[2].json.id).toBe(latest[2].device_id);
	});

	/** Deletes the device of the second latest test result, runs the workflow (Get latest test results → Get each tested device). */
	async function runDeletingOneDevice(id: string) {
		const latest = (await sandbox.api<Page<{ id: number; device_id: number }>>('/tests_performed/all/?limit=3&ordering=-test_date')).results;
		expect(latest).toHaveLength(3);
		// Delete the device of the second result permanently, one the first and third do not share.
		const gone = latest[1].device_id;
		expect([latest[0].device_id, latest[2].device_id]).not.toContain(gone);
		await sandbox.api(`/data/devices/delete/${gone}/?direct_delete=true`, 'DELETE');

		const outcome = await n8n.execute(id);
		expectSuccess(outcome);
		const results = itemsOf(outcome, 'Get latest test results');
		expect(results.map((r) => r.json.id)).toEqual(latest.map((r) => r.id));
		const devices = itemsOf(outcome, 'Get each tested device');
		expect(devices).toHaveLength(3);
		expect(devices[0].json.id).toBe(latest[0].device_id);
		expect(devices.map((d) => d.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		return { gone, latest, devices };
	}

	it('a failing node without Continue On Fail: the execution is an error with the service message', async () => {
		const outcome = await n8n.execute('tec-test-fails');
		expect(outcome.run?.status).toBe('error');
		const error = outcome.run!.data.resultData.error!;
		expect(error).toMatchObject({ httpCode: '404', description: 'Device 999999 does not exist.' });
		expect(outcome.run!.data.resultData.lastNodeExecuted).toBe('Get a device that does not exist');
		expect(outcome.run!.data.resultData.runData['Get a device that does not exist'][0].executionStatus).toBe('error');
	});

	it('Continue (using error output): the failed item arrives on the error output, with the service’s description and HTTP code', async () => {
		const outcome = await n8n.execute('tec-test-error-output');
		expectSuccess(outcome);
		const run = outcome.run!.data.resultData.runData['Get a device that does not exist'][0];
		expect(run.data?.main[0] ?? []).toEqual([]);
		expect(run.data?.main[1]).toHaveLength(1);
		expect(run.data!.main[1]![0].json).toMatchObject({
			error: expect.stringContaining('(HTTP 404)'),
			details: { httpCode: 404, description: 'Device 999999 does not exist.' },
		});
		// The branch behind the error output ran with that item; the success branch did not run.
		expect(itemsOf(outcome, 'On error')).toHaveLength(1);
		expect(outcome.run!.data.resultData.runData['On success']).toBeUndefined();
	});

	it('a new node (version 2): Get’s default output names the properties', async () => {
		const outcome = await n8n.execute('tec-test-get-v2');
		expectSuccess(outcome);
		const [device] = itemsOf(outcome, 'Get device 7');
		expect(device.json.id).toBe(7);
		expect(device.json.properties).toEqual(expect.objectContaining({ Designation: expect.any(String), 'Next test': expect.anything() }));
	});

	it('Create Device (version 2) filled through the resource mapper: a date and a value from a fixed list are stored', async () => {
		const outcome = await n8n.execute('tec-test-create-mapper');
		expectSuccess(outcome);
		const [device] = itemsOf(outcome, 'Create a device');
		expect(device.json.id).toEqual(expect.any(Number));
		const stored = await sandbox.api<Record_>(`/device/detail/${device.json.id}/`);
		expect(prop(stored, 1)).toBe('Hand lamp');
		expect(prop(stored, 3)).toBe('2026-03-01');
		expect(prop(stored, 10)).toBe('III');
	});

	it('a value outside the property’s list (from an expression): the execution fails with the service’s description, naming the allowed values', async () => {
		const before = (await sandbox.api<Page<Record_>>('/data/devices/all/?limit=1')).count;
		const outcome = await n8n.execute('tec-test-create-mapper-refused');
		expect(outcome.run?.status, outcome.failure).toBe('error');
		expect(outcome.run!.data.resultData.error).toMatchObject({ httpCode: '400', description: expect.stringContaining('Protection class takes one of "I", "II", "III"; got "IV"') });
		expect((await sandbox.api<Page<Record_>>('/data/devices/all/?limit=1')).count).toBe(before);
	});

	it('example workflows that start with another trigger are imported but not run by `n8n execute`', () => {
		// `n8n execute` needs a Manual Trigger start node; these are listed in the test above.
		for (const file of notExecutable) expect(examples[file].nodes.some((n) => n.type.startsWith('n8n-nodes-test-equipment-cloud.'))).toBe(true);
	});
});

function manualWorkflow(name: string, nodes: WorkflowJson['nodes']): WorkflowJson {
	const all = [{ id: 'b1f1a0de-0000-4000-8000-000000000001', name: TRIGGER, type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} }, ...nodes];
	const connections: Record<string, unknown> = {};
	for (let i = 0; i < all.length - 1; i++) connections[all[i].name] = { main: [[{ node: all[i + 1].name, type: 'main', index: 0 }]] };
	return { name, nodes: all, connections, settings: { executionOrder: 'v1' } };
}

function ours(name: string, index: number, parameters: Record<string, unknown>) {
	return {
		id: `b1f1a0de-0000-4000-8000-00000000001${index}`,
		name,
		type: NODE_TYPE,
		typeVersion: 1,
		position: [220 * index, 0],
		parameters,
		credentials: { testEquipmentCloudApi: { id: '1', name: CREDENTIAL_NAME } },
	};
}

/**
 * The `fields` parameter as the editor saves it from the resource mapper ("Map Each Column
 * Manually"): the values by property key id, and the schema the mapper loaded from the account
 * (Last tested a date picker, Protection class a dropdown of its values).
 */
function mapperFields(value: Record<string, unknown>) {
	const field = (id: string, displayName: string, type: string, extra: Record<string, unknown> = {}) => ({
		id,
		displayName,
		required: false,
		defaultMatch: false,
		display: true,
		type,
		canBeUsedToMatch: false,
		removed: !(id in value),
		...extra,
	});
	return {
		mappingMode: 'defineBelow',
		value,
		matchingColumns: [],
		schema: [
			field('1', 'Designation', 'string'),
			field('3', 'Last tested', 'dateTime'),
			field('5', 'Test interval (months)', 'number'),
			field('10', 'Protection class', 'options', { options: ['I', 'II', 'III'].map((c) => ({ name: c, value: c })) }),
		],
		attemptToConvertTypes: false,
		convertFieldsToString: false,
	};
}

function failingWorkflow(): WorkflowJson {
	return manualWorkflow('Test: a node that fails', [
		ours('Get a device that does not exist', 1, { resource: 'device', operation: 'get', deviceId: { __rl: true, mode: 'id', value: '999999' } }),
	]);
}

/** Version 2 of the node with "On Error: Continue (using error output)", each output into a No-Op. */
function errorOutputWorkflow(): WorkflowJson {
	const get = {
		...ours('Get a device that does not exist', 1, { resource: 'device', operation: 'get', deviceId: { __rl: true, mode: 'id', value: '999999' } }),
		typeVersion: 2,
		onError: 'continueErrorOutput',
	};
	const noOp = (name: string, index: number, y: number) => ({
		id: `b1f1a0de-0000-4000-8000-00000000002${index}`,
		name,
		type: 'n8n-nodes-base.noOp',
		typeVersion: 1,
		position: [440, y],
		parameters: {},
	});
	const workflow = manualWorkflow('Test: error output', [get]);
	workflow.nodes.push(noOp('On success', 1, -100), noOp('On error', 2, 100));
	(workflow.connections as Record<string, unknown>)[get.name] = {
		main: [[{ node: 'On success', type: 'main', index: 0 }], [{ node: 'On error', type: 'main', index: 0 }]],
	};
	return workflow;
}

function recycleBinWorkflow(): WorkflowJson {
	return manualWorkflow('Test: recycle bin list', [
		ours('Delete device 2', 1, { resource: 'device', operation: 'delete', deviceId: { __rl: true, mode: 'id', value: '2' }, deletePermanently: false }),
		ours('Get recycle bin', 2, { resource: 'recycleBin', operation: 'getAll', returnAll: true }),
	]);
}
