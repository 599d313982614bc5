/**
 * Test result: get with steps and limits; file download.
 * Run by n8n's real engine (n8n-core, the node loaded from dist/) against the sandbox over HTTP.
 */
import { describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import { fileContent } from '../../sandbox/render';
import { getBinaryBuffer } from '../support/n8n';
import { byId, jsonOf, run, useSandbox } from './helpers';

const sandbox = useSandbox();

describe('test results and files', () => {
	it('get one test result with its performed steps and measured limits', async () => {
		const { items, error } = await run(sandbox, { resource: 'testResult', operation: 'get', testResultId: byId(12) });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		const detail = items[0].json as IDataObject & { steps: IDataObject[]; files: IDataObject[] };
		expect(detail.id).toBe(12);
		expect(detail.steps.length).toBeGreaterThan(0);
		expect(detail.steps.some((s) => (s.measurements as IDataObject[]).some((m) => 'high_limit' in m || 'low_limit' in m))).toBe(true);
		expect(detail.files).toHaveLength(2);
	});

	it('downloads a file as n8n binary data with file name and MIME type', async () => {
		for (const [fileId, name, mime] of [
			[121, 'test-report-12.pdf', 'application/pdf'],
			[122, 'measurements-12.csv', 'text/csv'],
		] as const) {
			const { items, error } = await run(sandbox, {
				resource: 'file',
				operation: 'download',
				fileId: String(fileId),
				binaryPropertyName: 'report',
			});
			expect(error).toBeUndefined();
			expect(items).toHaveLength(1);
			const binary = items[0].binary!.report;
			expect(binary).toMatchObject({ fileName: name, mimeType: mime });
			const bytes = await getBinaryBuffer(binary);
			expect(bytes.equals(fileContent(sandbox.account, fileId))).toBe(true);
			expect(items[0].json).toMatchObject({ fileId: String(fileId), fileName: name, mimeType: mime, fileSize: bytes.length });
			expect(items[0].pairedItem).toEqual({ item: 0 });
		}
	});

	it('projects and sub-users: Get Many', async () => {
		const projects = await run(sandbox, { resource: 'project', operation: 'getAll', returnAll: true });
		expect(projects.items).toHaveLength(sandbox.account.data.projects.length);
		const users = await run(sandbox, { resource: 'subUser', operation: 'getAll', returnAll: true });
		expect(jsonOf(users.items).map((u) => u.username)).toEqual(sandbox.account.data.users.map((u) => u.username));
	});
});
