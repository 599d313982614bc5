/**
 * Every example workflow in examples/ is importable and valid for the node: its nodes' parameters
 * resolve against the node description without issues, and the whole workflow runs in n8n's
 * engine against the sandbox, each node giving items. The e-mail templates (email-*.json) also
 * hold n8n's own Schedule Trigger, Remove Duplicates and Send Email, which n8n-core alone does not
 * have: here their nodes of this package run (from the harness trigger, or from what this
 * package's trigger fetches), and test/n8n-app/email.e2e.ts runs them whole in the n8n app.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NodeHelpers } from 'n8n-workflow';
import type { INode, INodeParameters } from 'n8n-workflow';
import { CREDENTIAL_TYPE, PACKAGE_DIR, loadPackage, runPoll, runWorkflow, type WorkflowJson } from '../support/n8n';
import { credentialsFor, useSandbox } from './helpers';

const EXAMPLES_DIR = join(PACKAGE_DIR, 'examples');
// Workflows started by the polling trigger (*-trigger.json) are run by test/trigger/description.test.ts.
const files = readdirSync(EXAMPLES_DIR).filter((f) => f.endsWith('.json') && !f.endsWith('-trigger.json')).sort();

// At a raised rate: these tests are of what the node reads and builds, not of pacing.
const sandbox = useSandbox({ ratePerSecond: 200 });

/**
 * n8n's own nodes the examples may hold, at the typeVersion a new node has in the n8n the app
 * tests install (test/n8n-app/install.ts, N8N_VERSION 2.41.1).
 */
const N8N_NODES: Record<string, number> = {
	'n8n-nodes-base.manualTrigger': 1,
	'n8n-nodes-base.scheduleTrigger': 1.4,
	'n8n-nodes-base.removeDuplicates': 2,
	'n8n-nodes-base.emailSend': 2.1,
};
const START_TYPES = ['n8n-nodes-base.manualTrigger', 'n8n-nodes-base.scheduleTrigger', 'n8n-nodes-test-equipment-cloud.testEquipmentCloudTrigger'];
const emailTemplates = files.filter((f) => f.startsWith('email-'));

function connectionsFrom(json: WorkflowJson, name: string): string[] {
	const out = (json.connections[name] as { main?: Array<Array<{ node: string }>> } | undefined)?.main ?? [];
	return out.flat().map((c) => c.node);
}

/**
 * What n8n-core alone can run: the start node as the harness trigger, then the nodes of this
 * package it leads to, cut before any node of n8n's own.
 */
function runnablePart(json: WorkflowJson, packageName: string): WorkflowJson {
	const start = json.nodes.find((n) => START_TYPES.includes(n.type))!;
	const { credentials: _none, ...startNode } = start;
	const kept: INode[] = [{ ...startNode, type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} }];
	const queue = connectionsFrom(json, start.name);
	while (queue.length > 0) {
		const name = queue.shift();
		const node = json.nodes.find((n) => n.name === name)!;
		if (!node.type.startsWith(`${packageName}.`) || kept.some((k) => k.name === node.name)) continue;
		kept.push(node);
		queue.push(...connectionsFrom(json, node.name));
	}
	const names = new Set(kept.map((n) => n.name));
	const connections = Object.fromEntries(
		Object.entries(json.connections as Record<string, { main: Array<Array<{ node: string }>> }>)
			.filter(([from]) => names.has(from))
			.map(([from, { main }]) => [from, { main: main.map((output) => output.filter((c) => names.has(c.node))) }]),
	);
	return { ...json, nodes: kept, connections };
}

describe('example workflows', () => {
	it('there is one per main use', () => {
		expect(files.length).toBeGreaterThanOrEqual(5);
		expect(emailTemplates).toEqual(['email-customer-notices.json', 'email-daily-digest.json', 'email-failed-test-alert.json', 'email-monthly-compliance-report.json']);
	});

	it.each(files)('%s is valid for the node and runs against the sandbox', async (file) => {
		const json = JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8')) as WorkflowJson;
		const pkg = await loadPackage();
		const starts = json.nodes.filter((n) => START_TYPES.includes(n.type));
		expect(starts).toHaveLength(1);
		if (!file.startsWith('email-')) expect(starts[0].type).toBe('n8n-nodes-base.manualTrigger');
		for (const node of json.nodes.filter((n) => n.type.startsWith('n8n-nodes-base.'))) expect(node.typeVersion, node.name).toBe(N8N_NODES[node.type]);
		const ours = json.nodes.filter((n) => n.type.startsWith(`${pkg.packageName}.`));
		expect(ours.length).toBeGreaterThan(0);
		for (const node of ours) {
			expect([`${pkg.packageName}.testEquipmentCloud`, `${pkg.packageName}.testEquipmentCloudTrigger`]).toContain(node.type);
			// An imported example gets the form new nodes have.
			expect(node.typeVersion, node.name).toBe(pkg.nodeTypes.getByName(node.type).description.defaultVersion);
			const type = pkg.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
			expect(node.credentials).toEqual({ [CREDENTIAL_TYPE]: { id: expect.any(String), name: 'Test Equipment Cloud sandbox' } });
			// Resolved against the description (as the editor does on import): every parameter of
			// the file is known and shown for its resource/operation, so none is dropped.
			const resolved = NodeHelpers.getNodeParameters(type.description.properties, node.parameters, true, false, node as INode, type.description);
			expect(resolved, node.name).toMatchObject(node.parameters);
			const issues = NodeHelpers.getNodeParametersIssues(type.description.properties, { ...node, parameters: resolved as INodeParameters }, type.description);
			expect(issues, node.name).toBeNull();
		}

		const runnable = runnablePart(json, pkg.packageName);
		// This package's trigger as the start: what its manual fetch ("Fetch Test Event") gives.
		const trigger = starts[0].type === `${pkg.packageName}.testEquipmentCloudTrigger` ? starts[0] : undefined;
		const fetched = trigger ? await runPoll({ mode: 'manual', parameters: trigger.parameters, typeVersion: trigger.typeVersion, credentials: credentialsFor(sandbox) }) : undefined;
		if (fetched) expect(fetched.items?.length, fetched.error?.message).toBeGreaterThan(0);
		const { run, error } = await runWorkflow(runnable, credentialsFor(sandbox), fetched?.items ?? undefined);
		expect(error).toBeUndefined();
		expect(run.status).toBe('success');
		for (const node of ours.filter((n) => n !== trigger)) {
			const items = run.data.resultData.runData[node.name]?.[0]?.data?.main?.[0] ?? [];
			expect(items.length, node.name).toBeGreaterThan(0);
			for (const item of items) expect(item.pairedItem, node.name).toBeDefined();
		}
	});

	it.each(emailTemplates)('%s: one e-mail per item into Remove Duplicates (by dedupeKey) and Send Email, wired without a Code node', (file) => {
		const json = JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8')) as WorkflowJson;
		const send = json.nodes.find((n) => n.type === 'n8n-nodes-base.emailSend')!;
		expect(send.parameters).toMatchObject({
			toEmail: '={{ $json.to }}',
			subject: '={{ $json.subject }}',
			emailFormat: 'both',
			html: '={{ $json.html }}',
			text: '={{ $json.text }}',
			options: expect.objectContaining({ attachments: '={{ $json.attachmentFields }}', appendAttribution: false }),
		});
		expect(send.credentials).toEqual({ smtp: { id: expect.any(String), name: 'SMTP account' } });
		const build = json.nodes.find((n) => n.type.endsWith('.testEquipmentCloud'))!;
		expect(build.parameters.resource).toBe('email');
		// Every template, the monthly report too: a rerun (by hand, or after a failed send) sends nothing twice.
		const dedupe = json.nodes.find((n) => n.type === 'n8n-nodes-base.removeDuplicates');
		expect(dedupe, 'Remove Duplicates').toBeDefined();
		expect(dedupe!.parameters).toEqual({ operation: 'removeItemsSeenInPreviousExecutions', dedupeValue: '={{ $json.dedupeKey }}', options: {} });
		expect(connectionsFrom(json, build.name)).toEqual([dedupe!.name]);
		expect(connectionsFrom(json, dedupe!.name)).toEqual([send.name]);
	});
});
