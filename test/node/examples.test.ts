/**
 * Every example workflow in examples/ is importable and valid for the node: its nodes' parameters
 * resolve against the node description without issues, and the whole workflow runs in n8n's
 * engine against the sandbox, each node giving items.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NodeHelpers } from 'n8n-workflow';
import type { INode, INodeParameters } from 'n8n-workflow';
import { CREDENTIAL_TYPE, PACKAGE_DIR, loadPackage, runWorkflow, type WorkflowJson } from '../support/n8n';
import { credentialsFor, useSandbox } from './helpers';

const EXAMPLES_DIR = join(PACKAGE_DIR, 'examples');
// Workflows started by the polling trigger (*-trigger.json) are run by test/trigger/description.test.ts.
const files = readdirSync(EXAMPLES_DIR).filter((f) => f.endsWith('.json') && !f.endsWith('-trigger.json')).sort();

const sandbox = useSandbox();

describe('example workflows', () => {
	it('there is one per main use', () => {
		expect(files.length).toBeGreaterThanOrEqual(5);
	});

	it.each(files)('%s is valid for the node and runs against the sandbox', async (file) => {
		const json = JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8')) as WorkflowJson;
		const pkg = await loadPackage();
		expect(json.nodes.filter((n) => n.type === 'n8n-nodes-base.manualTrigger')).toHaveLength(1);
		const ours = json.nodes.filter((n) => n.type !== 'n8n-nodes-base.manualTrigger');
		expect(ours.length).toBeGreaterThan(0);
		for (const node of ours) {
			expect(node.type).toBe(`${pkg.packageName}.testEquipmentCloud`);
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

		const { run, error } = await runWorkflow(json, credentialsFor(sandbox));
		expect(error).toBeUndefined();
		expect(run.status).toBe('success');
		for (const node of ours) {
			const items = run.data.resultData.runData[node.name]?.[0]?.data?.main?.[0] ?? [];
			expect(items.length, node.name).toBeGreaterThan(0);
			for (const item of items) expect(item.pairedItem, node.name).toBeDefined();
		}
	});
});
