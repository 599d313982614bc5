import { beforeAll, describe, expect, it } from 'vitest';
import { FILTER_KEYWORDS, KEYWORD_DATA_TYPES, type DataType, type FilterInput, type FilterKeyType } from '../../client';
import { useSandbox, type Item } from '../support/sandbox';
import { PATHS, expectError, filterQuery, ids, matchesFilter, props } from './helpers';

/**
 * Spec, Filter expressions: every keyword on every data type it applies to, checked against an
 * independent computation over the full unfiltered list; AND/OR chains; refusals.
 */

const api = useSandbox();
const full = new Map<string, Item[]>();

interface Target {
	name: string;
	path: string;
	keyType: FilterKeyType;
	/** Keys (property key ids or field names) by data type. */
	keys: Partial<Record<DataType, Array<number | string>>>;
}

const TARGETS: Target[] = [
	{ name: 'devices', path: PATHS.devices, keyType: 'propertyKeyId', keys: { Text: [4, 1], Number: [5], Date: [3] } },
	{ name: 'customers', path: PATHS.customers, keyType: 'propertyKeyId', keys: { Text: [103, 101], Date: [104] } },
	{ name: 'overdue devices', path: PATHS.overdue, keyType: 'propertyKeyId', keys: { Text: [4], Number: [5], Date: [9] } },
	{ name: 'test results', path: PATHS.testResults, keyType: 'fieldName', keys: { Text: ['tester', 'status'], Number: ['device_id'], Date: ['test_date', 'synced_time'] } },
	{ name: 'projects', path: PATHS.projects, keyType: 'fieldName', keys: { Text: ['status', 'name'], Number: ['id'], Date: ['updated_time'] } },
	{ name: 'sub-users', path: PATHS.users, keyType: 'fieldName', keys: { Text: ['role', 'username'], Number: ['id'], Date: ['date_joined'] } },
	{ name: 'recycle bin', path: PATHS.bin, keyType: 'fieldName', keys: { Text: ['resource'], Number: ['item_id'], Date: ['deleted_time'] } },
];

beforeAll(async () => {
	// Recycle bin content: devices and a customer, deleted on three different days.
	for (const id of [10, 11, 12]) expect((await api.call('DELETE', `/data/devices/delete/${id}/`)).status).toBe(200);
	await api.admin.advance({ advance_days: 1 });
	for (const id of [13, 14]) expect((await api.call('DELETE', `/data/devices/delete/${id}/`)).status).toBe(200);
	expect((await api.call('DELETE', '/data/customers/delete/5/')).status).toBe(200);
	await api.admin.advance({ advance_days: 1 });
	expect((await api.call('DELETE', '/data/devices/delete/15/')).status).toBe(200);
	await api.admin.advance({ advance_days: -2 });
	// A device with missing values (Number, Date and Text missing).
	expect((await api.call('POST', '/data/devices/create/', { body: { properties: { 1: 'Sparse lamp' } } })).status).toBe(201);
	for (const t of TARGETS) full.set(t.path, await api.all(t.path));
});

function valueOf(item: Item, key: number | string): unknown {
	return typeof key === 'number' ? props(item)[key] : item[key];
}

/** Values to compare against, taken from the data so that results are neither empty nor everything. */
function sampleValues(items: Item[], key: number | string, type: DataType): string[] {
	const present = items.map((i) => valueOf(i, key)).filter((v) => v !== null && v !== undefined && v !== '');
	if (type === 'Number') {
		const sorted = [...new Set(present.map(Number))].sort((a, b) => a - b);
		return [String(sorted[Math.floor(sorted.length / 2)]), String(sorted[0])];
	}
	if (type === 'Date') {
		const days = [...new Set(present.map((v) => String(v).slice(0, 10)))].sort();
		return [days[Math.floor(days.length / 2)], days[0]];
	}
	const texts = present.map(String);
	return [texts[0], texts[Math.floor(texts.length / 2)]];
}

/** The operand of a keyword for a sample value: part of the text for startsWith/endsWith/contains, mixed case. */
function operand(keyword: string, sample: string, type: DataType): string {
	if (type !== 'Text') return sample;
	const flip = (s: string) => [...s].map((ch, i) => (i % 2 === 0 ? ch.toUpperCase() : ch.toLowerCase())).join('');
	const n = Math.max(1, Math.min(3, sample.length - 1));
	if (/startsWith/i.test(keyword)) return flip(sample.slice(0, n));
	if (/endsWith/i.test(keyword)) return flip(sample.slice(-n));
	if (/contains/i.test(keyword)) return flip(sample.slice(1, 1 + n));
	return flip(sample);
}

async function check(t: Target, filter: FilterInput, type: DataType, nonTrivial = true): Promise<void> {
	const all = full.get(t.path)!;
	const expected = all.filter((i) => matchesFilter(valueOf(i, filter.key), filter, type));
	if (nonTrivial) {
		expect(expected.length, `${JSON.stringify(filter)} matches something`).toBeGreaterThan(0);
		expect(expected.length, `${JSON.stringify(filter)} leaves something out`).toBeLessThan(all.length);
	}
	const got = await api.all(`${t.path}?${filterQuery({ ...filter, dataType: type }, t.keyType)}`);
	expect(ids(got), `${t.path} ${JSON.stringify(filter)}`).toEqual(ids(expected));
}

const covered = new Set<string>();

describe.each(TARGETS)('every keyword × data type on $name', (t) => {
	for (const [type, keys] of Object.entries(t.keys) as Array<[DataType, Array<number | string>]>) {
		for (const keyword of FILTER_KEYWORDS.filter((k) => (KEYWORD_DATA_TYPES[k] as readonly DataType[]).includes(type))) {
			it(`${keyword} on ${type} (${keys.join(', ')})`, async () => {
				for (const [k, key] of keys.entries()) {
					const all = full.get(t.path)!;
					for (const [i, sample] of sampleValues(all, key, type).entries()) {
						// The first key's median sample must split the list; the other samples (the smallest
						// value, texts shared by every item) may match everything or nothing.
						await check(t, { key, conditions: [{ keyword, value: operand(keyword, sample, type) }] }, type, k === 0 && i === 0);
					}
				}
				covered.add(`${keyword}/${type}`);
			});
		}
	}
});

describe('data type semantics', () => {
	const devices = TARGETS[0];
	const results = TARGETS[3];

	it('the sweep above covered all 18 keywords with each data type they apply to', () => {
		const all = FILTER_KEYWORDS.flatMap((k) => (KEYWORD_DATA_TYPES[k] as readonly DataType[]).map((type) => `${k}/${type}`));
		expect([...covered].sort()).toEqual(all.sort());
		expect(new Set(FILTER_KEYWORDS).size).toBe(18);
	});

	it('Number compares numerically: greaterThan "9" includes 12 and 24 (text order would not)', async () => {
		await check(devices, { key: 5, conditions: [{ keyword: 'greaterThan', value: '9' }] }, 'Number');
		const got = await api.all(`${PATHS.devices}?5=greaterThan%229%22`);
		expect(new Set(got.map((d) => props(d)[5]))).toEqual(new Set([12, 24]));
		const small = await api.all(`${PATHS.devices}?5=lessThan%2210%22`);
		expect(new Set(small.map((d) => props(d)[5]))).toEqual(new Set([6]));
		// Decimals and negative numbers are numbers too.
		await check(devices, { key: 5, conditions: [{ keyword: 'greaterThanOrEquals', value: '11.5' }] }, 'Number');
		await check(devices, { key: 5, conditions: [{ keyword: 'greaterThan', value: '-1' }] }, 'Number', false);
		await check(results, { key: 'device_id', conditions: [{ keyword: 'lessThan', value: '100' }] }, 'Number');
	});

	it('Text is case-insensitive for every Text keyword', async () => {
		const upper = await api.all(`${PATHS.devices}?4=equals%22WORKSHOP%22`);
		const lower = await api.all(`${PATHS.devices}?4=equals%22workshop%22`);
		expect(upper.length).toBeGreaterThan(0);
		expect(ids(upper)).toEqual(ids(lower));
		for (const d of upper) expect(props(d)[4]).toBe('Workshop');
		const starts = await api.all(`${PATHS.devices}?1=startsWith%22dRiLl%22`);
		expect(starts.length).toBeGreaterThan(0);
		for (const d of starts) expect(String(props(d)[1])).toMatch(/^Drill/);
	});

	it('Date compares calendar days, also on timestamps (synced_time)', async () => {
		const all = full.get(PATHS.testResults)!;
		// An upload day in the middle of the history (ids follow uploads), so the filters split the list.
		const middle = all[Math.floor(all.length / 2)];
		const day = String(middle.synced_time).slice(0, 10);
		expect(String(middle.synced_time).length).toBeGreaterThan(10);
		const same = await api.all(`${PATHS.testResults}?synced_time=sameDate%22${day}%22`);
		expect(same.length).toBeGreaterThan(0);
		for (const r of same) expect(String(r.synced_time).startsWith(day)).toBe(true);
		// Later on the same day is not "newer" than that day.
		const newer = await api.all(`${PATHS.testResults}?synced_time=newer%22${day}%22`);
		for (const r of newer) expect(String(r.synced_time).slice(0, 10) > day).toBe(true);
		await check(results, { key: 'synced_time', conditions: [{ keyword: 'newerOrSame', value: day }] }, 'Date');
	});

	it('missing values: Text counts as empty, Number/Date match only notEquals/notSameDate', async () => {
		const sparse = full.get(PATHS.devices)!.find((d) => props(d)[1] === 'Sparse lamp')!;
		const has = async (qs: string) => (await api.all(`${PATHS.devices}?${qs}`)).some((d) => d.id === sparse.id);
		expect(await has('5=notEquals%2212%22')).toBe(true);
		expect(await has('5=lessThan%22100%22')).toBe(false);
		expect(await has('3=notSameDate%222025-01-01%22')).toBe(true);
		expect(await has('3=olderThan%222100-01-01%22')).toBe(false);
		expect(await has('4=notContains%22o%22')).toBe(true);
		expect(await has('4=contains%22o%22')).toBe(false);
	});
});

describe('AND and OR chains of 2-3 conditions', () => {
	const cases: Array<{ t: number; filter: FilterInput; type: DataType }> = [
		{ t: 0, type: 'Number', filter: { key: 5, join: 'AND', conditions: [{ keyword: 'greaterThan', value: 6 }, { keyword: 'lessThan', value: 24 }] } },
		{ t: 0, type: 'Number', filter: { key: 5, join: 'OR', conditions: [{ keyword: 'equals', value: 6 }, { keyword: 'equals', value: 24 }] } },
		{ t: 0, type: 'Text', filter: { key: 4, join: 'OR', conditions: [{ keyword: 'equals', value: 'office' }, { keyword: 'startsWith', value: 'LAB' }, { keyword: 'endsWith', value: 'house' }] } },
		{ t: 0, type: 'Text', filter: { key: 1, join: 'AND', conditions: [{ keyword: 'contains', value: 'e' }, { keyword: 'notContains', value: 'cable' }, { keyword: 'notStartsWith', value: 'k' }] } },
		{ t: 0, type: 'Date', filter: { key: 3, join: 'AND', conditions: [{ keyword: 'newerOrSame', value: '2025-06-01' }, { keyword: 'olderThan', value: '2025-12-01' }] } },
		{ t: 0, type: 'Date', filter: { key: 9, join: 'OR', conditions: [{ keyword: 'olderThan', value: '2026-01-01' }, { keyword: 'newer', value: '2027-01-01' }] } },
		{ t: 3, type: 'Date', filter: { key: 'test_date', join: 'AND', conditions: [{ keyword: 'newer', value: '2025-01-01' }, { keyword: 'olderOrSame', value: '2025-06-30' }, { keyword: 'notSameDate', value: '2025-03-03' }] } },
		{ t: 3, type: 'Text', filter: { key: 'tester', join: 'OR', conditions: [{ keyword: 'equals', value: 'a. weber' }, { keyword: 'contains', value: 'ROSSI' }] } },
		{ t: 3, type: 'Number', filter: { key: 'device_id', join: 'OR', conditions: [{ keyword: 'lessThanOrEquals', value: 10 }, { keyword: 'greaterThanOrEquals', value: 230 }, { keyword: 'equals', value: 100 }] } },
		{ t: 1, type: 'Text', filter: { key: 103, join: 'OR', conditions: [{ keyword: 'equals', value: 'berlin' }, { keyword: 'equals', value: 'LEEDS' }, { keyword: 'endsWith', value: 'ich' }] } },
	];
	for (const c of cases) {
		it(`${TARGETS[c.t].name}: ${filterQuery({ ...c.filter, dataType: c.type }, TARGETS[c.t].keyType)}`, async () => {
			await check(TARGETS[c.t], c.filter, c.type);
		});
	}

	it('a hand-written chain with a raw backslash separator', async () => {
		const raw = '5=greaterThanAND"6"\\lessThanOrEqualsAND"12"';
		const got = await api.all(`${PATHS.devices}?${raw.replace(/"/g, '%22').replace(/\\/g, '%5C')}`);
		const expected = full.get(PATHS.devices)!.filter((d) => Number(props(d)[5]) > 6 && Number(props(d)[5]) <= 12);
		expect(ids(got)).toEqual(ids(expected));
	});

	it('several filters on different keys are ANDed', async () => {
		const got = await api.all(`${PATHS.devices}?4=equals%22office%22&5=equals%2212%22&6=notEquals%22bosch%22`);
		const expected = full.get(PATHS.devices)!.filter((d) => {
			const p = props(d);
			return p[4] === 'Office' && p[5] === 12 && p[6] !== 'Bosch';
		});
		expect(expected.length).toBeGreaterThan(0);
		expect(ids(got)).toEqual(ids(expected));
	});
});

describe('refusals: 400 with a description naming the parameter', () => {
	const enc = (s: string) => s.replace(/"/g, '%22').replace(/\\/g, '%5C');

	describe.each(TARGETS)('a keyword on a data type it does not apply to ($name)', (t) => {
		for (const [type, keys] of Object.entries(t.keys) as Array<[DataType, Array<number | string>]>) {
			const wrong = FILTER_KEYWORDS.filter((k) => !(KEYWORD_DATA_TYPES[k] as readonly DataType[]).includes(type));
			it(`${wrong.length} keywords refused on ${type} key ${keys[0]}`, async () => {
				for (const keyword of wrong) {
					// A value valid for the keyword's own type, so only the type mismatch is wrong.
					const own = (KEYWORD_DATA_TYPES[keyword] as readonly DataType[])[0];
					const value = own === 'Date' ? '2025-05-05' : own === 'Number' ? '5' : 'abc';
					const a = await api.get(`${t.path}?${keys[0]}=${enc(`${keyword}"${value}"`)}`);
					expectError(a, 400, String(keys[0]));
					expect(a.body.description).toContain(keyword);
				}
			});
		}
	});

	const bad: Array<{ what: string; path: string; query: string; names: string }> = [
		{ what: 'malformed: no quotes', path: PATHS.devices, query: '4=equals(office)', names: '4' },
		{ what: 'malformed: unclosed quote', path: PATHS.devices, query: '4=equals"office', names: '4' },
		{ what: 'malformed: no keyword', path: PATHS.devices, query: '4="office"', names: '4' },
		{ what: 'malformed: several conditions without AND/OR', path: PATHS.devices, query: '5=greaterThan"6"\\lessThan"24"', names: '5' },
		{ what: 'malformed: AND mixed with OR', path: PATHS.devices, query: '5=greaterThanAND"6"\\lessThanOR"24"', names: '5' },
		{ what: 'malformed: empty filter', path: PATHS.testResults, query: 'status=', names: 'status' },
		{ what: 'unknown keyword', path: PATHS.devices, query: '4=like"office"', names: '4' },
		{ what: 'unknown keyword (wrong case)', path: PATHS.testResults, query: 'status=EQUALS"passed"', names: 'status' },
		{ what: 'bad date 2026-02-30', path: PATHS.devices, query: '3=sameDate"2026-02-30"', names: '3' },
		{ what: 'bad date format', path: PATHS.testResults, query: 'test_date=newer"01.02.2026"', names: 'test_date' },
		{ what: 'bad date in the 2nd condition', path: PATHS.projects, query: 'updated_time=newerAND"2025-01-01"\\olderThanAND"2025-13-01"', names: 'updated_time' },
		{ what: 'non-numeric number', path: PATHS.devices, query: '5=greaterThan"ten"', names: '5' },
		{ what: 'non-numeric number (field)', path: PATHS.users, query: 'id=equals"1a"', names: 'id' },
		{ what: 'unknown property key id', path: PATHS.devices, query: '999=equals"x"', names: '999' },
		{ what: 'customer property key on devices', path: PATHS.devices, query: '101=equals"x"', names: '101' },
		{ what: 'device property key on customers', path: PATHS.customers, query: '4=equals"x"', names: '4' },
		{ what: 'field name on a property list', path: PATHS.overdue, query: 'designation=equals"x"', names: 'designation' },
		{ what: 'unknown field', path: PATHS.testResults, query: 'colour=equals"red"', names: 'colour' },
		{ what: 'unknown field (projects)', path: PATHS.projects, query: 'owner=equals"x"', names: 'owner' },
		{ what: 'unknown field (sub-users)', path: PATHS.users, query: 'password=equals"x"', names: 'password' },
		{ what: 'the same key twice', path: PATHS.devices, query: '4=equals"office"&4=equals"it"', names: '4' },
	];
	for (const b of bad) {
		it(`${b.what}: ${b.query}`, async () => {
			expectError(await api.get(`${b.path}?${enc(b.query)}`), 400, b.names);
		});
	}
});
