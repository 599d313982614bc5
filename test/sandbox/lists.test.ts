import { beforeAll, describe, expect, it } from 'vitest';
import { useSandbox, type Item } from '../support/sandbox';
import { PATHS, expectError, ids, listPath, matchesFilter, props } from './helpers';

/** Spec, Query parameters (lists): envelope, limit/offset, next/previous, enabled, ordering, search. */

const api = useSandbox();

beforeAll(async () => {
	// A few deleted items so the recycle bin has something to list and page through.
	for (const id of [5, 6, 7, 8, 9]) expect((await api.call('DELETE', `/data/devices/delete/${id}/`)).status).toBe(200);
	for (const id of [3, 4]) expect((await api.call('DELETE', `/data/customers/delete/${id}/`)).status).toBe(200);
	// A sparse device: its missing values must sort last in both directions.
	const created = await api.call('POST', '/data/devices/create/', { body: { properties: { 1: 'Sparse lamp' } } });
	expect(created.status).toBe(201);
	sparseId = (created.body as unknown as Item).id;
});
let sparseId = 0;

const LISTS = [
	{ name: 'customers', path: PATHS.customers, page: 5 },
	{ name: 'devices', path: PATHS.devices, page: 50 },
	{ name: 'overdue devices', path: PATHS.overdue, page: 10 },
	{ name: 'test results', path: PATHS.testResults, page: 100 },
	{ name: 'projects', path: PATHS.projects, page: 3 },
	{ name: 'sub-users', path: PATHS.users, page: 4 },
	{ name: 'recycle bin', path: PATHS.bin, page: 3 },
	{ name: 'property keys', path: PATHS.propertyKeys, page: 4 },
] as const;

describe.each(LISTS)('list $name', ({ path, page }) => {
	it('answers the envelope {count, next, previous, results}', async () => {
		const a = await api.get(path);
		expect(a.status).toBe(200);
		expect(Object.keys(a.body).sort()).toEqual(['count', 'next', 'previous', 'results']);
		expect(Number.isInteger(a.body.count)).toBe(true);
		expect(a.body.count).toBeGreaterThan(0);
		expect(Array.isArray(a.body.results)).toBe(true);
		expect(a.body.previous).toBeNull();
		for (const item of a.body.results) expect(Number.isInteger(item.id)).toBe(true);
	});

	it('limit bounds the page; following next returns every item exactly once; previous goes back', async () => {
		const all = await api.all(path);
		expect(all.length).toBeGreaterThan(page);
		const seen: number[] = [];
		let body = await api.ok(`${path}?limit=${page}`);
		expect(body.results).toHaveLength(page);
		let pages = 1;
		seen.push(...body.results.map((r) => r.id));
		while (body.next) {
			const next = new URL(body.next);
			expect(next.searchParams.get('limit')).toBe(String(page));
			body = await api.ok(body.next);
			pages++;
			expect(body.results.length).toBeLessThanOrEqual(page);
			expect(body.previous).not.toBeNull();
			expect(new URL(body.previous!).searchParams.get('offset')).toBe(String((pages - 2) * page));
			seen.push(...body.results.map((r) => r.id));
		}
		expect(pages).toBe(Math.ceil(all.length / page));
		expect(new Set(seen).size).toBe(seen.length);
		expect([...seen].sort((a, b) => a - b)).toEqual(ids(all));
	});

	it('offset: the page starting at an index; past the end an empty page', async () => {
		const all = await api.all(path);
		const body = await api.ok(`${path}?limit=2&offset=1`);
		expect(body.results.map((r) => r.id)).toEqual(all.slice(1, 3).map((r) => r.id));
		const end = await api.ok(`${path}?limit=5&offset=${all.length}`);
		expect(end.count).toBe(all.length);
		expect(end.results).toEqual([]);
		expect(end.next).toBeNull();
	});

	it('a bad limit or offset is refused with a description naming it', async () => {
		expectError(await api.get(`${path}?limit=0`), 400, 'limit');
		expectError(await api.get(`${path}?limit=ten`), 400, 'limit');
		expectError(await api.get(`${path}?limit=-5`), 400, 'limit');
		expectError(await api.get(`${path}?offset=-1`), 400, 'offset');
	});
});

describe('limit maximum (1000)', () => {
	it('limit above the maximum is clamped to 1000', async () => {
		// The demo account holds more than 1000 test results: one page of 1000, the rest behind next.
		const body = await api.ok(`${PATHS.testResults}?limit=5000`);
		expect(body.count).toBeGreaterThan(1000);
		expect(body.results).toHaveLength(1000);
		expect(new URL(body.next!).searchParams.get('limit')).toBe('1000');
		// Devices (100k) are checked the same way in scale.test.ts.
	});
});

describe('enabled selects returned properties (customers, devices, overdue devices)', () => {
	const cases = [
		{ op: 'customer.list' as const, path: PATHS.customers, enabled: [101, 103] },
		{ op: 'device.list' as const, path: PATHS.devices, enabled: [1, 2, 9] },
		{ op: 'overdueDevice.list' as const, path: PATHS.overdue, enabled: [3] },
	];
	for (const c of cases) {
		it(`${c.path} enabled=[${c.enabled.join(',')}]`, async () => {
			const full = await api.ok(c.path);
			expect(full.results[0].properties.length).toBeGreaterThan(c.enabled.length);
			const body = await api.ok(listPath(c.op, c.path, { enabled: c.enabled }, { limit: 20 }));
			expect(body.results.length).toBeGreaterThan(0);
			for (const item of body.results) expect(item.properties.map((p) => p.key_id).sort((a, b) => a - b)).toEqual(c.enabled);
			// Values are those of the full item.
			const byId = new Map(full.results.map((r) => [r.id, props(r)]));
			for (const item of body.results) {
				const all = byId.get(item.id);
				if (all) for (const p of item.properties) expect(p.value).toEqual(all[p.key_id]);
			}
		});
	}

	it('hand-written enabled with spaces, and an unknown property key id is refused', async () => {
		const body = await api.ok(`${PATHS.devices}?enabled=${encodeURIComponent('[ 4 , 1 ]')}&limit=3`);
		for (const item of body.results) expect(item.properties.map((p) => p.key_id).sort()).toEqual([1, 4]);
		expectError(await api.get(`${PATHS.devices}?enabled=[1,999]`), 400, 'enabled');
		expectError(await api.get(`${PATHS.devices}?enabled=1,2`), 400, 'enabled');
		// A customer property key is not a device property.
		expectError(await api.get(`${PATHS.devices}?enabled=[101]`), 400, 'enabled');
	});

	for (const path of [PATHS.testResults, PATHS.projects, PATHS.users, PATHS.bin, PATHS.propertyKeys]) {
		it(`enabled is refused on ${path}`, async () => {
			expectError(await api.get(`${path}?enabled=[1]`), 400, 'enabled');
		});
	}
});

function valueOf(item: Item, key: number | string): unknown {
	return typeof key === 'number' ? props(item)[key] : item[key];
}

const isMissing = (v: unknown) => v === null || v === undefined || v === '';

/** Checks order: present values sorted (Text case-insensitively, Number numerically), missing last. */
function expectOrdered(values: unknown[], type: 'Text' | 'Number' | 'Date', desc: boolean): void {
	const firstMissing = values.findIndex(isMissing);
	if (firstMissing >= 0) for (const v of values.slice(firstMissing)) expect(isMissing(v), 'missing values come last').toBe(true);
	const present = firstMissing >= 0 ? values.slice(0, firstMissing) : values;
	for (let i = 1; i < present.length; i++) {
		const [a, b] = desc ? [present[i], present[i - 1]] : [present[i - 1], present[i]];
		if (type === 'Number') expect(Number(a) <= Number(b), `${String(a)} before ${String(b)}`).toBe(true);
		else {
			const x = type === 'Text' ? String(a).toLowerCase() : String(a);
			const y = type === 'Text' ? String(b).toLowerCase() : String(b);
			expect(x <= y, `${x} before ${y}`).toBe(true);
		}
	}
}

describe('ordering: property key id (customers, devices, overdue) or field name (other lists)', () => {
	const cases: Array<{ path: string; key: number | string; type: 'Text' | 'Number' | 'Date' }> = [
		{ path: PATHS.customers, key: 101, type: 'Text' },
		{ path: PATHS.customers, key: 104, type: 'Date' },
		{ path: PATHS.devices, key: 5, type: 'Number' },
		{ path: PATHS.devices, key: 1, type: 'Text' },
		{ path: PATHS.devices, key: 4, type: 'Text' },
		{ path: PATHS.devices, key: 3, type: 'Date' },
		{ path: PATHS.overdue, key: 9, type: 'Date' },
		{ path: PATHS.overdue, key: 6, type: 'Text' },
		{ path: PATHS.testResults, key: 'test_date', type: 'Date' },
		{ path: PATHS.testResults, key: 'device_id', type: 'Number' },
		{ path: PATHS.testResults, key: 'tester', type: 'Text' },
		{ path: PATHS.projects, key: 'updated_time', type: 'Date' },
		{ path: PATHS.projects, key: 'name', type: 'Text' },
		{ path: PATHS.users, key: 'username', type: 'Text' },
		{ path: PATHS.users, key: 'date_joined', type: 'Date' },
		{ path: PATHS.bin, key: 'item_id', type: 'Number' },
	];
	for (const c of cases) {
		for (const desc of [false, true]) {
			it(`${c.path} ordering=${desc ? '-' : ''}${c.key}`, async () => {
				const all = await api.all(c.path);
				const ordered = await api.all(`${c.path}?ordering=${desc ? '-' : ''}${c.key}`);
				expect(ids(ordered)).toEqual(ids(all));
				expectOrdered(ordered.map((i) => valueOf(i, c.key)), c.type, desc);
			});
		}
	}

	it('numeric order for Number properties: 6 < 12 < 24, not text order', async () => {
		const asc = await api.all(`${PATHS.devices}?ordering=5`);
		const values = [...new Set(asc.map((d) => props(d)[5]).filter((v) => !isMissing(v)))];
		expect(values).toEqual([6, 12, 24]);
	});

	it('missing values come last in both directions (a device without a department)', async () => {
		for (const o of ['4', '-4', '3', '-3', '5', '-5']) {
			const list = await api.all(`${PATHS.devices}?ordering=${o}`);
			expect(list[list.length - 1].id, `ordering=${o}`).toBe(sparseId);
		}
	});

	it('ordering is stable across pages: following next in order gives every item once, in order', async () => {
		const whole = (await api.all(`${PATHS.devices}?ordering=-4`)).map((d) => d.id);
		const paged: number[] = [];
		let body = await api.ok(`${PATHS.devices}?ordering=-4&limit=70`);
		paged.push(...body.results.map((r) => r.id));
		while (body.next) {
			body = await api.ok(body.next);
			paged.push(...body.results.map((r) => r.id));
		}
		expect(paged).toEqual(whole);
	});

	it('a field name on a property list, a property id on a field list, or an unknown key is refused', async () => {
		expectError(await api.get(`${PATHS.devices}?ordering=designation`), 400, 'ordering');
		expectError(await api.get(`${PATHS.devices}?ordering=-777`), 400, 'ordering');
		expectError(await api.get(`${PATHS.testResults}?ordering=3`), 400, 'ordering');
		expectError(await api.get(`${PATHS.projects}?ordering=-nope`), 400, 'ordering');
		expectError(await api.get(`${PATHS.users}?ordering=password`), 400, 'ordering');
	});
});

describe('search', () => {
	const textOf = (v: unknown) => (v === null || v === undefined ? '' : String(v).toLowerCase());
	const cases: Array<{ path: string; term: string; fields: (i: Item) => unknown[] }> = [
		{ path: PATHS.devices, term: 'BOSCH', fields: (i) => i.properties.map((p) => p.value) },
		{ path: PATHS.devices, term: 'tec-00001', fields: (i) => i.properties.map((p) => p.value) },
		{ path: PATHS.customers, term: 'gmbh', fields: (i) => i.properties.map((p) => p.value) },
		{ path: PATHS.overdue, term: 'Hall', fields: (i) => i.properties.map((p) => p.value) },
		{ path: PATHS.testResults, term: 'weber', fields: (i) => [i.status, i.tester, i.test_sequence] },
		{ path: PATHS.projects, term: 'SITE 1', fields: (i) => [i.name, i.status] },
		{ path: PATHS.users, term: 'example.com', fields: (i) => [i.username, i.email, i.first_name, i.last_name, i.role] },
		{ path: PATHS.users, term: 'TESTER', fields: (i) => [i.username, i.email, i.first_name, i.last_name, i.role] },
	];
	for (const c of cases) {
		it(`${c.path}?search=${c.term} (case-insensitive, in the item's texts)`, async () => {
			const all = await api.all(c.path);
			const expected = all.filter((i) => c.fields(i).some((v) => textOf(v).includes(c.term.toLowerCase())));
			expect(expected.length).toBeGreaterThan(0);
			const got = await api.all(`${c.path}?search=${encodeURIComponent(c.term)}`);
			expect(ids(got)).toEqual(ids(expected));
		});
	}

	it('search that matches nothing gives an empty list; an empty search returns everything', async () => {
		const none = await api.ok(`${PATHS.devices}?search=zzqqxx`);
		expect(none).toEqual({ count: 0, next: null, previous: null, results: [] });
		const all = await api.ok(`${PATHS.devices}?search=`);
		expect(all.count).toBe((await api.ok(PATHS.devices)).count);
	});
});

describe('filters, enabled, ordering, search and paging combined', () => {
	it('devices: three filters on different properties + enabled + ordering + search + limit', async () => {
		const all = await api.all(PATHS.devices);
		const filters = [
			{ key: 4, conditions: [{ keyword: 'notEquals', value: 'office' }] },
			{ key: 5, conditions: [{ keyword: 'greaterThan', value: 9 }] },
			{ key: 3, conditions: [{ keyword: 'newerOrSame', value: '2025-01-01' }] },
		];
		const types = { 4: 'Text', 5: 'Number', 3: 'Date' } as const;
		const expected = all
			.filter((d) => filters.every((f) => matchesFilter(props(d)[f.key], f, types[f.key as 3 | 4 | 5])))
			.filter((d) => d.properties.some((p) => String(p.value ?? '').toLowerCase().includes('a')));
		expect(expected.length).toBeGreaterThan(10);
		const path = listPath('device.list', PATHS.devices, { enabled: [1, 2], ordering: { key: 1, direction: 'desc' }, search: 'a', filters });
		const got: Item[] = [];
		let body = await api.ok(`${path}&limit=7`);
		got.push(...body.results);
		while (body.next) {
			body = await api.ok(body.next);
			got.push(...body.results);
		}
		expect(ids(got)).toEqual(ids(expected));
		for (const d of got) expect(d.properties.map((p) => p.key_id)).toEqual([1, 2]);
		expectOrdered(got.map((d) => props(d)[1]), 'Text', true);
	});

	it('test results: field filters on three fields + ordering + search, hand-written query string', async () => {
		const all = await api.all(PATHS.testResults);
		const qs = 'status=equals"PASSED"&device_id=lessThanOrEquals"120"&test_date=olderThan"2026-01-01"&ordering=-test_date&search=iec';
		const got = await api.all(`${PATHS.testResults}?${qs}`);
		const expected = all.filter(
			(r) =>
				r.status === 'passed' &&
				Number(r.device_id) <= 120 &&
				String(r.test_date) < '2026-01-01' &&
				[r.status, r.tester, r.test_sequence].some((v) => String(v).toLowerCase().includes('iec')),
		);
		expect(expected.length).toBeGreaterThan(0);
		expect(ids(got)).toEqual(ids(expected));
		expectOrdered(got.map((r) => r.test_date), 'Date', true);
	});

	it('customers: filter + enabled + ordering via the client encoder', async () => {
		const all = await api.all(PATHS.customers);
		const path = listPath('customer.list', PATHS.customers, {
			enabled: [101],
			ordering: { key: 104, direction: 'asc' },
			filters: [{ key: 101, conditions: [{ keyword: 'notContains', value: 'ltd' }] }],
		});
		const got = await api.all(path);
		const expected = all.filter((c) => !String(props(c)[101]).toLowerCase().includes('ltd'));
		expect(ids(got)).toEqual(ids(expected));
		const contract = new Map(all.map((c) => [c.id, String(props(c)[104])]));
		expectOrdered(got.map((c) => contract.get(c.id)), 'Date', false);
	});
});
