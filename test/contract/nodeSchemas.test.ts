import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import Ajv from 'ajv';
import { loadOutputSchema } from 'n8n-core';
import type { INodeProperties } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_SCHEMA_DIR, nodeOutputSchemas } from '../../contract/nodeSchemas';
import { TestEquipmentCloud } from '../../nodes/TestEquipmentCloud/TestEquipmentCloud.node';
import { startSandbox, type Sandbox } from '../../sandbox/server';

const ROOT = join(__dirname, '..', '..');
const NODE_DIR = join(ROOT, 'nodes', 'TestEquipmentCloud');
const committed = (dir = join(ROOT, NODE_SCHEMA_DIR)): string[] =>
	readdirSync(dir, { withFileTypes: true, recursive: true })
		.filter((e) => e.isFile())
		.map((e) => relative(ROOT, join(e.parentPath, e.name)))
		.sort();

/** Every resource/operation pair the action node offers, read from its description. */
function nodeOperations(): Array<[string, string]> {
	const props = new TestEquipmentCloud().description.properties as INodeProperties[];
	const resources = (props.find((p) => p.name === 'resource')?.options ?? []).map((o) => (o as { value: string }).value);
	return resources.flatMap((resource) =>
		props
			.filter((p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(resource))
			.flatMap((p) => (p.options ?? []).map((o) => [resource, (o as { value: string }).value] as [string, string])),
	);
}

describe('the action node’s output schemas (__schema__)', () => {
	it('are the ones generated from the contract (regenerate with npm run contract), one per resource/operation', () => {
		const generated = nodeOutputSchemas();
		expect(committed()).toEqual(Object.keys(generated).sort());
		for (const [path, schema] of Object.entries(generated)) expect(JSON.parse(readFileSync(join(ROOT, path), 'utf8')), path).toEqual(JSON.parse(JSON.stringify(schema)));
		const pairs = nodeOperations();
		expect(pairs.length).toBeGreaterThan(15);
		expect(pairs.map(([r, o]) => `${NODE_SCHEMA_DIR}/v1.0.0/${r}/${o}.json`).sort()).toEqual(committed());
	});

	it('are where n8n looks for them: n8n-core’s loader finds each one for node version 1', () => {
		for (const [resource, operation] of nodeOperations()) {
			const schema = loadOutputSchema({ nodeDir: NODE_DIR, version: 1, resource, operation });
			expect(schema, `${resource}/${operation}`).toMatchObject({ type: 'object' });
		}
	});

	describe('describe what the service answers', () => {
		let sandbox: Sandbox;
		beforeAll(async () => {
			sandbox = await startSandbox({ port: 0, size: { devices: 20, customers: 3, testResults: 10 } });
		});
		afterAll(() => sandbox.stop());

		it.each([
			['/device/detail/3/', 'device/get'],
			['/tests_performed/detailed/3/', 'testResult/get'],
		])('%s validates against %s', async (path, schema) => {
			const res = await fetch(`${sandbox.url}/api/v1${path}`, { headers: { authorization: `Token ${sandbox.account.createToken().token}` } });
			expect(res.status).toBe(200);
			const validate = new Ajv({ strict: false, allErrors: true }).compile(JSON.parse(readFileSync(join(ROOT, NODE_SCHEMA_DIR, 'v1.0.0', `${schema}.json`), 'utf8')));
			expect(validate(await res.json()), JSON.stringify(validate.errors)).toBe(true);
		});
	});
});
