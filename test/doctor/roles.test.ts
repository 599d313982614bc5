/**
 * The doctor's property roles in records: the status and evidence of a role's record check, and
 * the conservative discovery of a renamed property (a table of cases, then properties over random
 * accounts: a suggestion is unclaimed, of the role's type and words, and never for two roles).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE, PROPERTY_ROLES, resolveProfile, type PropertyRole } from '../../client';
import { ROLE_HINTS, recordProperties, roleInRecords, suggestRoles, type RecordSource, type SeenProperty } from '../../doctor/roles';

const device = (name: string, value: unknown, dataType?: string) => ({ properties: [{ key_id: 1, name, value, ...(dataType ? { data_type: dataType } : {}) }] });
const source = (label: string, resource: 'device' | 'customer', records: unknown[], answered = true): RecordSource => ({ label, resource, answered, records: recordProperties(records) });

describe('a role in records', () => {
	const cases: Array<{ name: string; sources: RecordSource[]; inKeyList: boolean | undefined; status: string; evidence: RegExp }> = [
		{ name: 'every record carries it', sources: [source('device list', 'device', [device('Next test', '2026-01-01'), device('next test', '2026-02-01')])], inKeyList: true, status: 'holds', evidence: /^found in 2 of 2 device list records as 'Next test', 'next test'$/ },
		{ name: 'some records carry it', sources: [source('device list', 'device', [device('Next test', '2026-01-01'), device('Location', 'Hall 1')])], inKeyList: true, status: 'holds', evidence: /^found in 1 of 2 device list records/ },
		{ name: 'the key list has it, no record carries it', sources: [source('device list', 'device', [device('Calibration due', '2026-01-01')])], inKeyList: true, status: 'differs', evidence: /^in no device list record \(1 read\); properties seen: 'Calibration due'; the property-key list has it$/ },
		{ name: 'records carry it, the key list has not', sources: [source('device list', 'device', [device('Next test', '2026-01-01')])], inKeyList: false, status: 'differs', evidence: /but the property-key list has no such key$/ },
		{ name: 'records carry it, the key list did not answer', sources: [source('device list', 'device', [device('Next test', '2026-01-01')])], inKeyList: undefined, status: 'holds', evidence: /^found in 1 of 1/ },
		{ name: 'neither has it', sources: [source('device list', 'device', [device('Location', 'Hall 1')])], inKeyList: false, status: 'differs', evidence: /^in no device list record/ },
		{ name: 'no records: an empty list', sources: [source('device list', 'device', [])], inKeyList: true, status: 'unknown', evidence: /^no device records to look in \(device list is empty\)$/ },
		{ name: 'no records: a list that did not answer', sources: [source('device list', 'device', [], false), source('customer list', 'customer', [device('Next test', '2026-01-01')])], inKeyList: true, status: 'unknown', evidence: /device list did not answer/ },
		{ name: 'two lists, each with its evidence', sources: [source('device list', 'device', [device('Next test', '2026-01-01')]), source('overdue list', 'device', [device('Location', 'x')])], inKeyList: true, status: 'holds', evidence: /^found in 1 of 1 device list records as 'Next test'; in no overdue list record \(1 read\); properties seen: 'Location'$/ },
	];
	for (const c of cases) {
		it(c.name, () => {
			const r = roleInRecords('nextTestDate', c.sources, c.inKeyList, DEFAULT_PROFILE);
			expect(r.status).toBe(c.status);
			expect(r.evidence).toMatch(c.evidence);
		});
	}

	it('by key id when the profile names one, whatever the name', () => {
		const profile = resolveProfile({ properties: { nextTestDate: { names: ['Due'], keyId: 9 } } });
		const records = [{ properties: [{ key_id: 9, name: 'Something else', value: '2026-01-01' }] }];
		expect(roleInRecords('nextTestDate', [source('device list', 'device', records)], true, profile)).toMatchObject({ status: 'holds' });
	});
});

describe('suggesting a renamed property', () => {
	const p = (name: string, dataType: string, resource = 'device'): SeenProperty => ({ name, dataType, resource });
	const table: Array<{ name: string; missing: PropertyRole[]; seen: SeenProperty[]; want: Partial<Record<PropertyRole, string>> }> = [
		{ name: 'one fitting date property', missing: ['nextTestDate'], seen: [p('Next test', 'Text'), p('Calibration due', 'Date'), p('Location', 'Text')], want: { nextTestDate: 'Calibration due' } },
		{ name: 'the key list and the records show the same property once', missing: ['nextTestDate'], seen: [p('Calibration due', 'Date'), { name: 'Calibration due', dataType: 'Date' }, p('calibration due', 'Date')], want: { nextTestDate: 'Calibration due' } },
		{ name: 'two fitting properties: none', missing: ['nextTestDate'], seen: [p('Calibration due', 'Date'), p('Next inspection', 'Date')], want: {} },
		{ name: 'the wrong data type: none', missing: ['nextTestDate'], seen: [p('Calibration due', 'Text')], want: {} },
		{ name: 'the wrong resource: none', missing: ['nextTestDate'], seen: [p('Calibration due', 'Date', 'customer')], want: {} },
		{ name: 'a property holding another role is claimed', missing: ['nextTestDate'], seen: [p('Last tested', 'Date')], want: {} },
		{ name: 'one property fitting two missing roles: for neither', missing: ['lastTested', 'nextTestDate'], seen: [p('Next tested', 'Date')], want: {} },
		{ name: 'two roles, each its own property', missing: ['idBarcode', 'department'], seen: [p('Asset tag', 'Text'), p('Cost centre', 'Text'), p('Manufacturer', 'Text')], want: { idBarcode: 'Asset tag', department: 'Cost centre' } },
		{ name: 'customer name among customer properties', missing: ['customerName'], seen: [p('Company', 'Text', 'customer'), p('City', 'Text', 'customer'), p('Designation', 'Text')], want: { customerName: 'Company' } },
		{ name: 'a role not missing gets no suggestion', missing: [], seen: [p('Calibration due', 'Date')], want: {} },
	];
	for (const c of table) it(c.name, () => expect(suggestRoles(c.missing, c.seen, DEFAULT_PROFILE)).toEqual(c.want));

	it('any account: a suggestion is an unclaimed property of the role, of its resource, type and words, never for two roles', () => {
		const words = ['Next', 'due', 'Last', 'tested', 'Asset', 'tag', 'Cost centre', 'Name', 'Company', 'Designation', 'Location', 'Serial', 'calibration', 'area', 'x'];
		const seenArb = fc.array(
			fc.record({
				name: fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 3 }).map((w) => w.join(' ')),
				dataType: fc.constantFrom('Text', 'Date', 'Number'),
				resource: fc.constantFrom('device', 'customer', undefined),
			}),
			{ maxLength: 12 },
		);
		let suggestions = 0;
		fc.assert(
			fc.property(fc.subarray([...PROPERTY_ROLES]), seenArb, (missing, seen) => {
				const out = suggestRoles(missing, seen, DEFAULT_PROFILE);
				suggestions += Object.keys(out).length;
				const names = Object.values(out).map((n) => n.toLowerCase());
				expect(new Set(names).size).toBe(names.length);
				for (const [role, name] of Object.entries(out) as Array<[PropertyRole, string]>) {
					expect(missing).toContain(role);
					const hint = ROLE_HINTS[role];
					expect(hint.words.test(name)).toBe(true);
					expect(seen.some((s) => s.name.trim() === name && s.dataType === hint.dataType && (s.resource === undefined || s.resource === hint.resource))).toBe(true);
					// Unclaimed: no role of the profile already names it.
					expect(PROPERTY_ROLES.some((r) => DEFAULT_PROFILE.properties[r].names.some((n) => n.toLowerCase() === name.toLowerCase()))).toBe(false);
				}
				// The suggestion is a profile every face accepts (one property, one role).
				resolveProfile({ properties: Object.fromEntries(Object.entries(out).map(([r, n]) => [r, { names: [n] }])) });
			}),
			{ numRuns: 500 },
		);
		// The accounts drawn do lead to suggestions (the properties above were checked on some).
		expect(suggestions).toBeGreaterThan(20);
	});
});
