/**
 * The full loop in the real n8n app: a workflow with a Webhook node (examples/alerts/) is
 * published and served by `n8n start`; `npm start -- --once --webhook <its production URL>`
 * polls the same sandbox and POSTs its events; the workflow keeps the `Device Overdue` ones and
 * asks our node for each device's detail. The test reads what n8n recorded through its REST API.
 */
import { createRequire } from 'node:module';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ROOT } from './install';
import { N8n, exec, readWorkflow, startSandbox, type N8nServer, type NodeRun, type SandboxProcess, type WorkflowJson } from './harness';

const WORKFLOW_ID = 'tec-device-overdue-webhook';

interface ExecutionSummary {
	id: string;
	status: string;
	mode: string;
}
interface EventLine {
	source: string;
	'detail-type': string;
	detail: { metadata: { dedupeKey: string }; data: { device?: { id: number } } };
}

let sandbox: SandboxProcess;
let n8n: N8n;
let server: N8nServer | undefined;
let workflow: WorkflowJson;

beforeAll(async () => {
	sandbox = await startSandbox();
	n8n = new N8n(inject('n8nApp'), inject('userFolder'));
	// One token per integration, as the service advises: n8n's requests and the pollers' each
	// have their own 5 requests per second. (With one shared token, the 47 device lookups n8n
	// makes at once starve the pollers' test-results run, which gives up after its retries.)
	const { token } = (await sandbox.admin('POST', '/tokens', { environment: 'sandbox', label: 'n8n' })) as { token: string };
	await n8n.importCredential(sandbox, token);
	workflow = readWorkflow(join(ROOT, 'examples', 'alerts', 'device-overdue-webhook.json'));
	await n8n.importWorkflows({ [WORKFLOW_ID]: workflow });
	// Activation before start, with the CLI (update:workflow --active is deprecated in n8n 2).
	await n8n.cliOk(['publish:workflow', `--id=${WORKFLOW_ID}`]);
	server = await n8n.start();
	await server.signIn();
});

afterAll(async () => {
	await server?.stop();
	await sandbox?.stop();
});

/** The workflow's executions from n8n's REST API (pages of at most 100, newest first). */
async function executions(): Promise<ExecutionSummary[]> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId: WORKFLOW_ID }));
	const all: ExecutionSummary[] = [];
	for (;;) {
		const last = all.length ? `&lastId=${all[all.length - 1].id}` : '';
		const r = await server!.rest<{ data: { results: ExecutionSummary[]; count: number } }>('GET', `/executions?filter=${filter}&limit=100${last}`);
		expect(r.status, JSON.stringify(r.body)).toBe(200);
		all.push(...r.body.data.results);
		if (r.body.data.results.length < 100) return all;
	}
}

describe('the full loop: pollers → webhook → n8n → our node', () => {
	it('every Device Overdue event runs the workflow, whose last node outputs that device', async () => {
		const webhook = workflow.nodes.find((n) => n.type === 'n8n-nodes-base.webhook')!;
		const url = `${server!.url}/webhook/${webhook.parameters.path as string}`;
		const state = join(mkdtempSync(join(inject('userFolder'), 'runner-')), 'state.json');
		const run = await exec('npm', ['start', '--silent', '--', '--once', '--webhook', url, '--state', state], {
			env: { ...process.env, TEC_BASE_URL: sandbox.url, TEC_TOKEN: sandbox.sandboxToken },
			timeoutMs: 180_000,
		});
		expect(run.code, run.stderr).toBe(0);
		const events = run.stdout
			.trim()
			.split('\n')
			.filter((l) => l.startsWith('{'))
			.map((l) => JSON.parse(l) as EventLine);
		const overdue = events.filter((e) => e['detail-type'] === 'Device Overdue');
		expect(overdue.length).toBeGreaterThan(10);
		const expectedIds = overdue.map((e) => e.detail.data.device!.id).sort((a, b) => a - b);
		// The runner logs a failed delivery on stderr; none may have failed.
		expect(run.stderr).not.toMatch(/"level":"error"/);

		// One execution per delivered event; wait until n8n has finished them all.
		let list: ExecutionSummary[] = [];
		const deadline = Date.now() + 120_000;
		while (Date.now() < deadline) {
			list = await executions();
			if (list.length >= events.length && list.every((e) => !['new', 'running', 'waiting'].includes(e.status))) break;
			await new Promise((r) => setTimeout(r, 1000));
		}
		expect(list).toHaveLength(events.length);
		expect(list.filter((e) => e.status !== 'success').map((e) => `${e.id}: ${e.status}`)).toEqual([]);
		for (const e of list) expect(e.mode).toBe('webhook');

		// The recorded run data (flatted, as n8n stores it) of each execution.
		const { parse } = createRequire(join(inject('n8nApp').n8nDir, 'package.json'))('flatted') as { parse: (s: string) => unknown };
		const seen: number[] = [];
		for (const summary of list) {
			const r = await server!.rest<{ data: { data: string; status: string } }>('GET', `/executions/${summary.id}`);
			expect(r.status).toBe(200);
			const data = parse(r.body.data.data) as { resultData: { runData: Record<string, NodeRun[]>; lastNodeExecuted: string } };
			const body = data.resultData.runData['Test Equipment Cloud events'][0].data!.main[0]![0].json.body as EventLine;
			if (body['detail-type'] !== 'Device Overdue') {
				// Stopped by the Filter node: our node did not run.
				expect(data.resultData.runData['Get device detail']).toBeUndefined();
				continue;
			}
			expect(data.resultData.lastNodeExecuted).toBe('Get device detail');
			const items = data.resultData.runData['Get device detail'][0].data!.main[0]!;
			expect(items).toHaveLength(1);
			const device = items[0].json as { id: number; customer_id: number; properties: Record<string, unknown> };
			expect(device.id).toBe(body.detail.data.device!.id);
			// The detail the service holds (simplified: property name → value).
			const stored = await sandbox.api<{ id: number; customer_id: number; properties: Array<{ name: string; value: unknown }> }>(`/device/detail/${device.id}/`);
			expect(device.customer_id).toBe(stored.customer_id);
			expect(device.properties).toEqual(Object.fromEntries(stored.properties.map((p) => [p.name, p.value])));
			seen.push(device.id);
		}
		expect(seen.sort((a, b) => a - b)).toEqual(expectedIds);
		process.stderr.write(`[n8n-app] full loop: ${events.length} events delivered, ${list.length} executions, ${seen.length} devices fetched by the node\n`);
	});
});
