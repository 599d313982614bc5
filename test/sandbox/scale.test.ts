import { describe, expect, it } from 'vitest';
import { Api, start, useSandbox } from '../support/sandbox';
import { PATHS, props } from './helpers';

/** Issue 3, Scale: deterministic data from the seed; 100k devices generate and answer lists. */

async function snapshot(seed: number): Promise<unknown> {
	const sandbox = await start({ seed, size: { devices: 300, customers: 15, testResults: 400 } });
	try {
		const api = new Api(sandbox);
		const out: Record<string, unknown> = {};
		for (const [name, path] of Object.entries(PATHS)) out[name] = await api.all(path);
		out.detail = (await api.get('/tests_performed/detailed/7/')).body;
		return out;
	} finally {
		await sandbox.stop();
	}
}

describe('determinism', () => {
	it('the same seed gives the same data on every list; another seed gives other data', async () => {
		const [a, b, c] = await Promise.all([snapshot(7), snapshot(7), snapshot(8)]);
		expect(b).toEqual(a);
		expect(c).not.toEqual(a);
		expect((a as { devices: unknown[] }).devices).toHaveLength(300);
	});

	it('reset returns to the same demo data', async () => {
		const sandbox = await start({ seed: 11 });
		try {
			const api = new Api(sandbox);
			const before = await api.all(PATHS.devices);
			const binBefore = await api.all(PATHS.bin);
			await api.call('PUT', '/data/devices/multiple_edit/', { body: { ids: [1, 2], properties: { 4: 'IT' } } });
			await api.call('DELETE', '/data/devices/delete/3/?direct_delete');
			await api.call('POST', '/data/devices/create/', { body: { properties: { 1: 'New' } } });
			expect(await api.all(PATHS.devices)).not.toEqual(before);
			await api.admin.reset();
			expect(await api.all(PATHS.devices)).toEqual(before);
			// The demo's own recycle bin (its scrapped devices), nothing the changes put there.
			expect(await api.all(PATHS.bin)).toEqual(binBefore);
			await api.call('DELETE', '/data/devices/delete/4/');
			await api.admin.reset();
			expect(await api.all(PATHS.bin)).toEqual(binBefore);
		} finally {
			await sandbox.stop();
		}
	});
});

describe('100k devices', () => {
	const api = useSandbox({ seed: 3, size: { devices: 100_000, customers: 200, testResults: 1000 } });

	it('generates 100k devices and lists them', async () => {
		const body = await api.ok(`${PATHS.devices}?limit=1`);
		expect(body.count).toBe(100_000);
		expect(body.results).toHaveLength(1);
	});

	it('limit is clamped to its maximum of 1000', async () => {
		const body = await api.ok(`${PATHS.devices}?limit=5000`);
		expect(body.results).toHaveLength(1000);
		const next = new URL(body.next!);
		expect(next.searchParams.get('limit')).toBe('1000');
		expect(next.searchParams.get('offset')).toBe('1000');
		expect((await api.ok(`${PATHS.devices}?limit=1000`)).results).toHaveLength(1000);
	});

	it('two filters and ordering over 100k devices give the independently computed result', async () => {
		const qs = '4=equals%22laboratory%22&5=greaterThan%2212%22&ordering=-3&limit=1000';
		const expected = [...api.sandbox.account.data.devices.values()]
			.filter((d) => String(d.values[4]).toLowerCase() === 'laboratory' && Number(d.values[5]) > 12)
			.map((d) => ({ id: d.id, last: typeof d.values[3] === 'string' ? d.values[3] : null }));
		// Newest first; devices never tested (no Last tested) last, as the sandbox orders missing values.
		expected.sort((x, y) => (x.last === y.last ? x.id - y.id : x.last === null ? 1 : y.last === null ? -1 : x.last < y.last ? 1 : -1));
		expect(expected.length).toBeGreaterThan(1000);
		const first = await api.ok(`${PATHS.devices}?${qs}`);
		expect(first.count).toBe(expected.length);
		expect(first.results.map((d) => d.id)).toEqual(expected.slice(0, 1000).map((e) => e.id));
		for (const d of first.results) expect(props(d)[4]).toBe('Laboratory');
	});

	it('the last page of the whole list is reachable by offset', async () => {
		const body = await api.ok(`${PATHS.devices}?limit=1000&offset=99000`);
		expect(body.results).toHaveLength(1000);
		expect(body.next).toBeNull();
		expect(body.results[999].id).toBe(100_000);
	});
});
