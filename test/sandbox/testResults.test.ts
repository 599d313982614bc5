import { describe, expect, it } from 'vitest';
import { FIELDS } from '../../client';
import { useSandbox, type Item } from '../support/sandbox';
import { PATHS, expectError } from './helpers';

/** Spec: test results, performed test detail (steps, measured values, limits), file download links. */

const api = useSandbox({ resetEach: true });

interface Measurement {
	name: string;
	value: number;
	unit: string;
	low_limit: number | null;
	high_limit: number | null;
	passed: boolean;
}
interface Step {
	step: number;
	name: string;
	status: string;
	measurements: Measurement[];
}
interface Detail extends Item {
	status: string;
	device_id: number;
	test_date: string;
	synced_time: string;
	device: { id: number; designation: string; id_barcode: string } | null;
	steps: Step[];
	files: Array<{ id: number; file_name: string; mime_type: string }>;
}

describe('test results list', () => {
	it('items carry every documented field with its data type', async () => {
		const all = await api.all(PATHS.testResults);
		expect(all.length).toBe(1500); // the default demo's whole histories on the tests' clock, its scrapped devices' included (docs/sandbox.md, Demo data)
		for (const r of all) {
			for (const f of FIELDS.testResult!) {
				const v = r[f.name];
				if (v === null) continue;
				if (f.dataType === 'Number') expect(typeof v, f.name).toBe('number');
				if (f.dataType === 'Text') expect(typeof v, f.name).toBe('string');
				if (f.dataType === 'Date') expect(String(v), f.name).toMatch(/^\d{4}-\d{2}-\d{2}/);
			}
			expect(['passed', 'failed']).toContain(r.status);
			// The upload (sync) never precedes the test, and is a timestamp distinct from the test date.
			expect(String(r.synced_time).slice(0, 10) >= String(r.test_date)).toBe(true);
			expect(String(r.synced_time)).toMatch(/T\d{2}:\d{2}:\d{2}/);
		}
		expect(all.some((r) => String(r.synced_time).slice(0, 10) > String(r.test_date))).toBe(true);
		expect(all.some((r) => r.status === 'failed')).toBe(true);
	});
});

describe('performed test detail /tests_performed/detailed/{id}/', () => {
	it('steps with measured values, limits (low/high), unit and pass/fail, consistent with the result', async () => {
		const all = await api.all(PATHS.testResults);
		const failed = all.filter((r) => r.status === 'failed').slice(0, 3);
		const passed = all.filter((r) => r.status === 'passed').slice(0, 3);
		for (const r of [...failed, ...passed]) {
			const a = await api.get(`/tests_performed/detailed/${r.id}/`);
			expect(a.status).toBe(200);
			const d = a.body as unknown as Detail;
			// The detail repeats the list item's fields.
			for (const f of FIELDS.testResult!) expect(d[f.name], f.name).toEqual(r[f.name]);
			expect(d.device?.id).toBe(r.device_id);
			expect(d.steps.length).toBeGreaterThan(0);
			const measured = d.steps.flatMap((s) => s.measurements);
			expect(measured.length).toBeGreaterThan(0);
			for (const s of d.steps) {
				expect(['passed', 'failed']).toContain(s.status);
				for (const m of s.measurements) {
					expect(typeof m.value).toBe('number');
					expect(m.unit.length).toBeGreaterThan(0);
					expect(m.low_limit !== null || m.high_limit !== null).toBe(true);
					const within = (m.low_limit === null || m.value >= m.low_limit) && (m.high_limit === null || m.value <= m.high_limit);
					expect(m.passed, `${m.name} ${m.value} ${m.unit} in [${m.low_limit}, ${m.high_limit}]`).toBe(within);
					if (!m.passed) expect(s.status).toBe('failed');
				}
			}
			const failedSteps = d.steps.filter((s) => s.status === 'failed');
			if (d.status === 'failed') expect(failedSteps.length).toBeGreaterThanOrEqual(1);
			else expect(failedSteps).toEqual([]);
			expect(d.files.length).toBeGreaterThan(0);
			for (const f of d.files) {
				expect(Number.isInteger(f.id)).toBe(true);
				expect(f.file_name.length).toBeGreaterThan(0);
				expect(f.mime_type).toMatch(/\//);
			}
		}
	});

	it('the admin upload takes the statuses the service lists (passed, failed) and answers 400 for any other, naming the status; nothing is stored', async () => {
		const count = async () => (await api.all(`${PATHS.testResults}?device_id=equals%223%22`)).length;
		const before = await count();
		for (const status of ['Failed', 'FAILED', 'broken', '', 7]) expectError(await api.admin.call('POST', '/test-results', { device_id: 3, status, test_date: '2026-03-10' }), 400, 'status');
		expect(await count()).toBe(before);
		for (const status of ['passed', 'failed']) expect((await api.admin.call('POST', '/test-results', { device_id: 3, status, test_date: '2026-03-10' })).status).toBe(201);
		// Without a status the upload is a pass, as before.
		expect((await api.admin.call('POST', '/test-results', { device_id: 3, test_date: '2026-03-11' })).status).toBe(201);
		expect(await count()).toBe(before + 3);
	});

	it('the admin upload takes measured values: served as given, one step each between the visual inspection and the function test; a step without a name is 400', async () => {
		const measurements = [
			{ step: 'Insulation resistance', value: 3.2, unit: 'MΩ', low_limit: 1, high_limit: null },
			{ step: 'Protective conductor resistance', value: 'n/a', unit: 'Ω', high_limit: 0.3 },
		];
		const up = await api.admin.call('POST', '/test-results', { device_id: 3, test_date: '2026-03-10', measurements });
		expect(up.status).toBe(201);
		const d = (await api.get(`/tests_performed/detailed/${(up.body as unknown as Item).id}/`)).body as unknown as Detail;
		expect(d.steps.map((s) => [s.step, s.name, s.status])).toEqual([
			[1, 'Visual inspection', 'passed'],
			[2, 'Insulation resistance', 'passed'],
			[3, 'Protective conductor resistance', 'passed'],
			[4, 'Function test', 'passed'],
		]);
		expect(d.steps[1].measurements).toEqual([{ name: 'Insulation resistance', value: 3.2, unit: 'MΩ', low_limit: 1, high_limit: null, passed: true }]);
		expect(d.steps[2].measurements[0]).toMatchObject({ value: 'n/a', low_limit: null, high_limit: 0.3 });
		expectError(await api.admin.call('POST', '/test-results', { device_id: 3, measurements: [{ value: 1 }] }), 400, 'measurements[0].step');
		expectError(await api.admin.call('POST', '/test-results', { device_id: 3, measurements: 'many' }), 400, 'measurements');
	});

	it('an unknown test result is 404 with a description', async () => {
		expectError(await api.get('/tests_performed/detailed/999999/'), 404);
	});

	it('a result synced by the equipment appears in the list with its own test date and sync time', async () => {
		const synced = await api.admin.call('POST', '/test-results', { device_id: 3, status: 'failed', test_date: '2026-03-10' });
		expect(synced.status).toBe(201);
		const list = await api.all(`${PATHS.testResults}?device_id=equals%223%22&test_date=sameDate%222026-03-10%22`);
		expect(list.map((r) => r.status)).toContain('failed');
		const d = (await api.get(`/tests_performed/detailed/${(synced.body as unknown as Item).id}/`)).body as unknown as Detail;
		expect(d.steps.some((s) => s.status === 'failed')).toBe(true);
		expect(d.synced_time.slice(0, 10)).toBe('2026-03-16');
	});
});

describe('file download links (valid 5 minutes)', () => {
	async function firstFiles(): Promise<Detail['files']> {
		const d = (await api.get('/tests_performed/detailed/1/')).body as unknown as Detail;
		return d.files;
	}

	it('PUT /files/download_link/{id}/ gives a URL that answers the bytes with content type and disposition', async () => {
		for (const file of await firstFiles()) {
			const link = await api.call('PUT', `/files/download_link/${file.id}/`);
			expect(link.status, link.text).toBe(200);
			const { url, expires_at } = link.body as unknown as { url: string; expires_at: string };
			expect(new URL(url).origin).toBe(api.sandbox.url);
			const { now } = await api.admin.state();
			expect(Date.parse(expires_at) - Date.parse(now)).toBe(5 * 60_000);
			const res = await fetch(url);
			expect(res.status).toBe(200);
			expect(res.headers.get('content-type')).toContain(file.mime_type);
			expect(res.headers.get('content-disposition')).toMatch(new RegExp(`attachment; filename="${file.file_name.replace('.', '\\.')}"`));
			const bytes = Buffer.from(await res.arrayBuffer());
			expect(bytes.length).toBeGreaterThan(20);
			if (file.mime_type === 'application/pdf') expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
			else expect(bytes.toString()).toMatch(/^step,name,value,unit,low_limit,high_limit,result\n/);
		}
	});

	it('the link still works just before 5 minutes and answers an error (JSON description) after', async () => {
		const [file] = await firstFiles();
		const link = await api.call('PUT', `/files/download_link/${file.id}/`);
		const { url } = link.body as unknown as { url: string };
		await api.admin.advance({ advance_ms: 5 * 60_000 - 1000 });
		try {
			expect((await fetch(url)).status).toBe(200);
			await api.admin.advance({ advance_ms: 2000 });
			const res = await fetch(url);
			expect(res.status).toBeGreaterThanOrEqual(400);
			const body = (await res.json()) as { description: string };
			expect(body.description).toMatch(/expired/);
			// A fresh link works again.
			const again = await api.call('PUT', `/files/download_link/${file.id}/`);
			expect((await fetch((again.body as unknown as { url: string }).url)).status).toBe(200);
		} finally {
			await api.admin.advance({ advance_ms: -(5 * 60_000 + 1000) });
		}
	});

	it('an unknown file id, or an unknown link key, is an error with a description', async () => {
		expectError(await api.call('PUT', '/files/download_link/5/'), 404);
		const res = await fetch(`${api.base}/files/download/0123456789abcdef/`);
		expect(res.status).toBe(404);
		expect(((await res.json()) as { description: string }).description.length).toBeGreaterThan(0);
	});
});
