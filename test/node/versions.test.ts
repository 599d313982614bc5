/**
 * Node versions: a workflow saved with version 1 runs unchanged (raw properties unless Options ›
 * Simplify, the download's camelCase json with a string fileId); a new node (version 2) gives
 * named properties by default, raw one switch away, and downloads that keep their item.
 */
import { describe, expect, it } from 'vitest';
import type { IDataObject, INodeTypeDescription } from 'n8n-workflow';
import { DEVICE } from '../../sandbox/properties';
import { loadPackage, NODE_TYPE } from '../support/n8n';
import { byId, run, useSandbox } from './helpers';

const sandbox = useSandbox();

const getDevice = { resource: 'device', operation: 'get', deviceId: byId(1) };

describe('version 1 (saved workflows) runs unchanged', () => {
	it('Get returns properties as the service sends them; Options › Simplify still names them', async () => {
		const raw = await run(sandbox, getDevice, { typeVersion: 1 });
		expect(Array.isArray(raw.items[0].json.properties)).toBe(true);
		expect((raw.items[0].json.properties as IDataObject[])[0]).toHaveProperty('key_id');
		const simplified = await run(sandbox, { ...getDevice, options: { simplify: true } }, { typeVersion: 1 });
		expect(simplified.items[0].json.properties).toHaveProperty('Designation');
		// A top-level "simplify" (version 2's parameter) means nothing to version 1.
		const ignored = await run(sandbox, { ...getDevice, simplify: true }, { typeVersion: 1 });
		expect(Array.isArray(ignored.items[0].json.properties)).toBe(true);
	});

	it('Get Many and Download keep their version 1 shapes', async () => {
		const list = await run(sandbox, { resource: 'device', operation: 'getAll', limit: 2 }, { typeVersion: 1 });
		expect(list.items.every((i) => Array.isArray(i.json.properties))).toBe(true);
		const file = await run(sandbox, { resource: 'file', operation: 'download', fileId: '121' }, { typeVersion: 1, inputItems: [{ json: { from: 'result 12' } }] });
		expect(file.items[0].json).toEqual({ fileId: '121', fileName: 'test-report-12.pdf', mimeType: 'application/pdf', fileSize: expect.any(Number) });
	});
});

describe('version 2 (saved workflows) and version 3 (new nodes, property-first Filters)', () => {
	it('version 3 is what the node panel adds', async () => {
		const pkg = await loadPackage();
		const description = pkg.nodeTypes.getByName(`${pkg.packageName}.${NODE_TYPE}`).description as INodeTypeDescription;
		expect(description.version).toEqual([1, 2, 3]);
		expect(description.defaultVersion).toBe(3);
	});

	// Version 3 changes only the Filters: everything else behaves as in version 2.
	for (const typeVersion of [2, 3]) {
		it(`v${typeVersion}: Get and Get Many name the properties by default; Simplify off gives the raw list`, async () => {
			const named = await run(sandbox, getDevice, { typeVersion });
			const properties = named.items[0].json.properties as IDataObject;
			expect(properties).toHaveProperty('Designation');
			expect(properties).toHaveProperty('Next test');
			expect(named.items[0].json.id).toBe(1);
			const list = await run(sandbox, { resource: 'device', operation: 'getAll', limit: 3 }, { typeVersion });
			expect(list.items.every((i) => !Array.isArray(i.json.properties) && 'Designation' in (i.json.properties as IDataObject))).toBe(true);
			const raw = await run(sandbox, { ...getDevice, simplify: false }, { typeVersion });
			expect(Array.isArray(raw.items[0].json.properties)).toBe(true);
		});

		it(`v${typeVersion}: Update answers with named properties too`, async () => {
			const { items, error } = await run(
				sandbox,
				{ resource: 'device', operation: 'update', deviceId: byId(2), fields: { mappingMode: 'defineBelow', value: { [DEVICE.location]: 'Shelf 9' } } },
				{ typeVersion },
			);
			expect(error).toBeUndefined();
			expect((items[0].json.properties as IDataObject).Location).toBe('Shelf 9');
		});

		it(`v${typeVersion}: Download keeps the item it came from, names fields like the service, and the file ID is a number`, async () => {
			const { items, error } = await run(
				sandbox,
				{ resource: 'file', operation: 'download', fileId: '={{ $json.files[0].id }}' },
				{ typeVersion, inputItems: [{ json: { id: 12, status: 'failed', files: [{ id: 121 }] } }] },
			);
			expect(error).toBeUndefined();
			expect(items[0].json).toEqual({
				id: 12,
				status: 'failed',
				files: [{ id: 121 }],
				file_id: 121,
				file_name: 'test-report-12.pdf',
				mime_type: 'application/pdf',
				file_size: expect.any(Number),
			});
			expect(items[0].binary?.data).toMatchObject({ fileName: 'test-report-12.pdf' });
		});
	}
});
