import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
	DATA_TYPES,
	FILTER_KEYWORDS,
	ValidationError,
	encodeFilter,
	parseFilter,
	queryString,
	validateFilter,
	validateFilterKey,
	type DataType,
	type FilterInput,
	type FilterKeyType,
} from '../../client';
import { thrown } from './helpers';

/** The spec's keyword table, written out independently of the implementation. */
const SPEC_TABLE: Record<string, DataType[]> = {
	equals: ['Number', 'Text'],
	notEquals: ['Number', 'Text'],
	sameDate: ['Date'],
	notSameDate: ['Date'],
	startsWith: ['Text'],
	notStartsWith: ['Text'],
	endsWith: ['Text'],
	notEndsWith: ['Text'],
	contains: ['Text'],
	notContains: ['Text'],
	greaterThan: ['Number'],
	greaterThanOrEquals: ['Number'],
	lessThan: ['Number'],
	lessThanOrEquals: ['Number'],
	newer: ['Date'],
	newerOrSame: ['Date'],
	olderThan: ['Date'],
	olderOrSame: ['Date'],
};
const ALL_TYPES: DataType[] = ['Number', 'Text', 'Date'];
const keywordsOf = (dt: DataType) => Object.keys(SPEC_TABLE).filter((k) => SPEC_TABLE[k].includes(dt));
const VALID_VALUE: Record<DataType, string> = { Number: '-3.5', Text: 'pump A', Date: '2026-02-28' };

function one(keyword: string, value: string | number, dataType?: DataType, key: number | string = 5): FilterInput {
	return { key, conditions: [{ keyword, value }], dataType };
}

describe('filter keywords and data types', () => {
	it('knows exactly the 18 keywords of the spec', () => {
		expect([...FILTER_KEYWORDS].sort()).toEqual(Object.keys(SPEC_TABLE).sort());
		expect(FILTER_KEYWORDS).toHaveLength(18);
		expect([...DATA_TYPES].sort()).toEqual([...ALL_TYPES].sort());
	});

	for (const keyword of Object.keys(SPEC_TABLE)) {
		for (const dataType of ALL_TYPES) {
			if (SPEC_TABLE[keyword].includes(dataType)) {
				it(`accepts ${keyword} on ${dataType}`, () => {
					const value = VALID_VALUE[dataType];
					expect(validateFilter(one(keyword, value, dataType), 'propertyKeyId')).toEqual({
						key: 5,
						conditions: [{ keyword, value }],
					});
					// also for field-name lists, and without the data type given
					expect(validateFilter(one(keyword, value, dataType, 'updated_time'), 'fieldName')).toEqual({
						key: 'updated_time',
						conditions: [{ keyword, value }],
					});
					expect(validateFilter(one(keyword, value), 'propertyKeyId').conditions[0]).toEqual({ keyword, value });
				});
			} else {
				it(`rejects ${keyword} on ${dataType}, listing the ${dataType} keywords`, () => {
					const err = thrown(() => validateFilter(one(keyword, VALID_VALUE[dataType], dataType), 'propertyKeyId', 'myFilter'));
					expect(err).toBeInstanceOf(ValidationError);
					expect((err as ValidationError).parameter).toContain('myFilter');
					expect(err.message).toContain('myFilter');
					expect(err.message).toContain(keyword);
					for (const k of keywordsOf(dataType)) expect(err.message).toContain(k);
					// and the keywords of the other types are not offered as valid
					const foreign = Object.keys(SPEC_TABLE).filter((k) => !SPEC_TABLE[k].includes(dataType) && k !== keyword);
					const validPart = err.message.slice(err.message.indexOf('use one of'));
					expect(validPart.length).toBeGreaterThan('use one of'.length);
					for (const k of foreign) expect(validPart.split(/[ ,]+/)).not.toContain(k);
				});
			}
		}
	}

	it('rejects an unknown keyword listing the valid ones', () => {
		const err = thrown(() => validateFilter(one('between', '1'), 'propertyKeyId'));
		expect(err).toBeInstanceOf(ValidationError);
		for (const k of Object.keys(SPEC_TABLE)) expect(err.message).toContain(k);
	});

	it('rejects an unknown data type', () => {
		expect(() => validateFilter(one('equals', '1', 'Boolean' as DataType), 'propertyKeyId')).toThrow(ValidationError);
	});

	it('rejects a filter without conditions', () => {
		expect(() => validateFilter({ key: 5, conditions: [] }, 'propertyKeyId')).toThrow(ValidationError);
	});
});

describe('date values', () => {
	const bad = ['2026-02-30', '2025-02-29', '2026-13-01', '2026-1-5', '2026-00-10', '2026-04-31', '2026-01-00', '1900-02-29', '2100-02-29', '26-01-05', '2026/01/05', '2026-01-05T00:00:00Z', ' 2026-01-05x', 'today', ''];
	for (const value of bad) {
		it(`rejects ${JSON.stringify(value)}`, () => {
			for (const keyword of keywordsOf('Date')) {
				const err = thrown(() => validateFilter(one(keyword, value), 'propertyKeyId', 'since'));
				expect(err).toBeInstanceOf(ValidationError);
				expect((err as ValidationError).parameter).toContain('since');
				expect(err.message).toMatch(/YYYY-MM-DD/);
			}
		});
	}
	for (const value of ['2024-02-29', '2000-02-29', '2026-12-31', '2026-01-01', '2026-04-30']) {
		it(`accepts ${value}`, () => {
			expect(validateFilter(one('sameDate', value, 'Date'), 'propertyKeyId').conditions[0].value).toBe(value);
		});
	}
	it('rejects a number for a date keyword', () => {
		expect(() => validateFilter(one('newer', 20260105), 'propertyKeyId')).toThrow(ValidationError);
	});
});

describe('number values', () => {
	const badNumbers: Array<string | number> = [NaN, Infinity, -Infinity, 'NaN', 'Infinity', '-Infinity', '1e400', '-1e400', 'abc', '0x10', '', ' ', '1,5', '+5', '.5', '5.', '1e', '--1'];
	for (const value of badNumbers) {
		it(`rejects ${typeof value} ${String(value) || '(empty)'} for every Number keyword`, () => {
			for (const keyword of keywordsOf('Number')) {
				const err = thrown(() => validateFilter(one(keyword, value, 'Number'), 'propertyKeyId', 'price'));
				expect(err).toBeInstanceOf(ValidationError);
				expect((err as ValidationError).parameter).toContain('price');
			}
			// The keywords that only apply to numbers check the value without a data type too.
			for (const keyword of ['greaterThan', 'greaterThanOrEquals', 'lessThan', 'lessThanOrEquals']) {
				expect(() => validateFilter(one(keyword, value), 'propertyKeyId')).toThrow(ValidationError);
			}
		});
	}
	it('accepts decimal numbers as numbers and text', () => {
		const cases: Array<[string | number, string]> = [
			[42, '42'],
			['42', '42'],
			[-3.5, '-3.5'],
			['-3.5', '-3.5'],
			['1e3', '1e3'],
			[1e21, '1e+21'],
			[0.1, '0.1'],
		];
		for (const [input, wire] of cases) {
			expect(validateFilter(one('greaterThan', input), 'propertyKeyId').conditions[0].value).toBe(wire);
			expect(validateFilter(one('equals', input, 'Number'), 'propertyKeyId').conditions[0].value).toBe(wire);
		}
	});
	it('normalises -0 to 0', () => {
		const f = validateFilter(one('lessThan', -0), 'propertyKeyId');
		expect(f.conditions[0].value).toBe('0');
		expect(encodeFilter(f)).toEqual(['5', 'lessThan"0"']);
	});
});

describe('values the syntax cannot express', () => {
	for (const value of ['say "hi"', '"', 'C:\\temp', '\\', 'a"\\b']) {
		it(`rejects ${JSON.stringify(value)}`, () => {
			for (const keyword of keywordsOf('Text')) {
				const err = thrown(() => validateFilter(one(keyword, value), 'propertyKeyId', 'name'));
				expect(err).toBeInstanceOf(ValidationError);
				expect((err as ValidationError).parameter).toContain('name');
				expect(err.message).toMatch(/cannot express/);
			}
		});
	}
	it('rejects text with an unpaired surrogate (it would reach the service as U+FFFD)', () => {
		for (const value of ['\uD800', 'ab\uDC00', '\uDBFFx']) {
			expect(() => validateFilter(one('contains', value), 'propertyKeyId')).toThrow(ValidationError);
		}
		expect(validateFilter(one('contains', '\uD83D\uDE00'), 'propertyKeyId').conditions[0].value).toBe('😀');
	});
});

describe('encoded shapes', () => {
	it('one condition', () => {
		expect(encodeFilter(validateFilter(one('contains', 'abc'), 'propertyKeyId'))).toEqual(['5', 'contains"abc"']);
		expect(encodeFilter(validateFilter(one('sameDate', '2026-01-05', 'Date', 'updated_time'), 'fieldName'))).toEqual([
			'updated_time',
			'sameDate"2026-01-05"',
		]);
	});
	it('several conditions with AND (also the default) and OR', () => {
		const conditions = [
			{ keyword: 'greaterThan', value: 1 },
			{ keyword: 'lessThan', value: '9' },
		];
		expect(encodeFilter(validateFilter({ key: 5, conditions, join: 'AND' }, 'propertyKeyId'))).toEqual(['5', 'greaterThanAND"1"\\lessThanAND"9"']);
		expect(encodeFilter(validateFilter({ key: 5, conditions }, 'propertyKeyId'))).toEqual(['5', 'greaterThanAND"1"\\lessThanAND"9"']);
		expect(encodeFilter(validateFilter({ key: 5, conditions, join: 'OR' }, 'propertyKeyId'))).toEqual(['5', 'greaterThanOR"1"\\lessThanOR"9"']);
		expect(
			encodeFilter(
				validateFilter(
					{ key: 'tester', conditions: [{ keyword: 'startsWith', value: 'a' }, { keyword: 'endsWith', value: 'b' }, { keyword: 'notContains', value: 'c' }], join: 'OR' },
					'fieldName',
				),
			),
		).toEqual(['tester', 'startsWithOR"a"\\endsWithOR"b"\\notContainsOR"c"']);
	});
	it('a join is dropped with a single condition, and an invalid join is rejected', () => {
		expect(validateFilter({ ...one('contains', 'x'), join: 'OR' }, 'propertyKeyId')).toEqual({ key: 5, conditions: [{ keyword: 'contains', value: 'x' }] });
		for (const join of ['and', 'XOR', '', '&&']) {
			expect(() =>
				validateFilter({ key: 5, conditions: [{ keyword: 'contains', value: 'a' }, { keyword: 'contains', value: 'b' }], join }, 'propertyKeyId'),
			).toThrow(ValidationError);
		}
	});
	it('is URL-encoded in a query string', () => {
		expect(queryString([encodeFilter(validateFilter(one('contains', 'a b&c'), 'propertyKeyId'))])).toBe('?5=contains%22a+b%26c%22');
	});
});

describe('parseFilter errors', () => {
	const malformed = ['contains"abc', 'contains abc', '"abc"', 'contains"a"b"', '', 'contains', 'contains"a"x', '5=contains"a"', 'contains"a"\\', 'contains""""'];
	for (const raw of malformed) {
		it(`rejects malformed ${JSON.stringify(raw)}`, () => {
			const err = thrown(() => parseFilter('5', raw, 'propertyKeyId'));
			expect(err).toBeInstanceOf(ValidationError);
			expect((err as ValidationError).parameter.startsWith('5')).toBe(true);
		});
	}
	it('rejects an unknown keyword', () => {
		const err = thrown(() => parseFilter('5', 'between"1"', 'propertyKeyId'));
		expect(err).toBeInstanceOf(ValidationError);
		expect(err.message).toMatch(/unknown keyword/);
	});
	it('rejects mixed AND and OR', () => {
		const err = thrown(() => parseFilter('5', 'greaterThanAND"1"\\lessThanOR"9"', 'propertyKeyId'));
		expect(err).toBeInstanceOf(ValidationError);
		expect(err.message).toMatch(/AND and OR/);
	});
	it('rejects several conditions without an operator', () => {
		for (const raw of ['greaterThan"1"\\lessThan"9"', 'greaterThanAND"1"\\lessThan"9"', 'greaterThan"1"\\lessThanAND"9"']) {
			const err = thrown(() => parseFilter('5', raw, 'propertyKeyId'));
			expect(err).toBeInstanceOf(ValidationError);
			expect(err.message).toMatch(/AND or OR/);
		}
	});
	it('rejects a keyword that does not apply to the given data type', () => {
		const err = thrown(() => parseFilter('5', 'contains"1"', 'propertyKeyId', 'Number'));
		expect(err).toBeInstanceOf(ValidationError);
		for (const k of keywordsOf('Number')) expect(err.message).toContain(k);
		expect(() => parseFilter('updated_time', 'greaterThan"1"', 'fieldName', 'Date')).toThrow(ValidationError);
		expect(() => parseFilter('5', 'equals"abc"', 'propertyKeyId', 'Number')).toThrow(ValidationError);
		expect(parseFilter('5', 'equals"abc"', 'propertyKeyId', 'Text')).toEqual({ key: 5, conditions: [{ keyword: 'equals', value: 'abc' }] });
	});
	it('rejects a bad key for the list', () => {
		expect(() => parseFilter('updated_time', 'contains"a"', 'propertyKeyId')).toThrow(ValidationError);
		expect(() => parseFilter('12', 'contains"a"', 'fieldName')).toThrow(ValidationError);
		expect(() => parseFilter('limit', 'contains"a"', 'fieldName')).toThrow(ValidationError);
	});
	it('parses the shapes of the spec', () => {
		expect(parseFilter('5', 'greaterThanAND"1"\\lessThanAND"9"', 'propertyKeyId')).toEqual({
			key: 5,
			join: 'AND',
			conditions: [
				{ keyword: 'greaterThan', value: '1' },
				{ keyword: 'lessThan', value: '9' },
			],
		});
		expect(parseFilter('updated_time', 'newerOR"2026-01-01"\\olderThanOR"2025-01-01"', 'fieldName', 'Date').join).toBe('OR');
	});
});

describe('filter keys', () => {
	it('property key ids are positive whole numbers', () => {
		expect(validateFilterKey(12, 'propertyKeyId')).toBe(12);
		expect(validateFilterKey('12', 'propertyKeyId')).toBe(12);
		for (const bad of [0, -1, 1.5, NaN, Infinity, '0', '-1', '1.5', 'abc', '1e3', '', ' ', 'updated_time', null, undefined, {}, 2 ** 60, '99999999999999999999']) {
			const err = thrown(() => validateFilterKey(bad, 'propertyKeyId', 'filters[0]'));
			expect(err).toBeInstanceOf(ValidationError);
			expect((err as ValidationError).parameter).toBe('filters[0]');
		}
	});
	it('field names are identifiers and not reserved query parameters', () => {
		expect(validateFilterKey('updated_time', 'fieldName')).toBe('updated_time');
		expect(validateFilterKey('Field2', 'fieldName')).toBe('Field2');
		for (const bad of ['limit', 'offset', 'enabled', 'ordering', 'search', 'direct_delete', '', '1abc', '_x', 'a-b', 'a b', 'a.b', 'a=b', 12, null, 'x'.repeat(65)]) {
			const err = thrown(() => validateFilterKey(bad, 'fieldName', 'f'));
			expect(err).toBeInstanceOf(ValidationError);
			expect((err as ValidationError).parameter).toBe('f');
		}
		expect(thrown(() => validateFilterKey('limit', 'fieldName')).message).toMatch(/limit/);
	});
});

// ---------------------------------------------------------------------------------------------
// Property-based tests

const RESERVED = new Set(['enabled', 'ordering', 'search', 'limit', 'offset', 'direct_delete']);

const textValue = fc.oneof(
	fc.string({ unit: 'binary', maxLength: 40 }),
	fc.string({ unit: 'grapheme', maxLength: 40 }),
	fc.array(fc.constantFrom(' ', '&', '=', '\n', '\r\n', '+', '%', '#', '?', '/', "'", 'AND', 'OR', 'é', '漢', '🙂', '%22', '%5C', '\t', 'a'), { maxLength: 20 }).map((a) => a.join('')),
	fc.string({ minLength: 500, maxLength: 3000 }),
	fc.integer().map((n) => n as string | number),
).filter((v) => typeof v !== 'string' || (!v.includes('"') && !v.includes('\\')));

const numberValue = fc.oneof(
	fc.integer({ min: -1e9, max: 1e9 }),
	fc.double({ noNaN: true, noDefaultInfinity: true }),
	fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
	fc.integer().map(String),
	fc.tuple(fc.integer({ min: -999, max: 999 }), fc.nat(9999), fc.integer({ min: -300, max: 300 })).map(([i, f, e]) => `${i}.${f}e${e}`),
);

const dateValue = fc
	.date({ min: new Date('1000-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true })
	.map((d) => d.toISOString().slice(0, 10));

const valueFor = (dt: DataType) => (dt === 'Number' ? numberValue : dt === 'Text' ? textValue : dateValue);

const fieldName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,30}$/).filter((s) => !RESERVED.has(s));

const validFilter = fc
	.record({
		keyType: fc.constantFrom<FilterKeyType>('propertyKeyId', 'fieldName'),
		dataType: fc.constantFrom<DataType>('Number', 'Text', 'Date'),
		giveType: fc.boolean(),
		join: fc.option(fc.constantFrom('AND', 'OR'), { nil: undefined }),
		id: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
		idAsText: fc.boolean(),
		name: fieldName,
	})
	.chain(({ keyType, dataType, giveType, join, id, idAsText, name }) =>
		fc
			.array(fc.tuple(fc.constantFrom(...keywordsOf(dataType)), valueFor(dataType)), { minLength: 1, maxLength: 5 })
			.map((conds) => ({
				keyType,
				dataType: giveType ? dataType : undefined,
				input: {
					key: keyType === 'propertyKeyId' ? (idAsText ? String(id) : id) : name,
					conditions: conds.map(([keyword, value]) => ({ keyword, value })),
					join,
					dataType: giveType ? dataType : undefined,
				} as FilterInput,
			})),
	);

describe('filter properties', () => {
	it('parseFilter(encodeFilter(validateFilter(f))) is validateFilter(f)', () => {
		fc.assert(
			fc.property(validFilter, ({ keyType, dataType, input }) => {
				const v = validateFilter(input, keyType);
				expect(v.conditions).toHaveLength(input.conditions.length);
				const [name, raw] = encodeFilter(v);
				expect(parseFilter(name, raw, keyType, dataType)).toEqual(v);
				expect(parseFilter(name, raw, keyType)).toEqual(v);
			}),
			{ numRuns: 500 },
		);
	});

	it('the round trip also holds through a URL query string', () => {
		fc.assert(
			fc.property(validFilter, ({ keyType, dataType, input }) => {
				const v = validateFilter(input, keyType);
				const qs = queryString([['limit', '10'], encodeFilter(v), ['offset', '20']]);
				const url = new URL(`https://tec.example.com/api/v1/data/devices/all/${qs}`);
				const entries = [...url.searchParams.entries()];
				expect(entries).toHaveLength(3);
				const [name, raw] = entries[1];
				expect(parseFilter(name, raw, keyType, dataType)).toEqual(v);
			}),
			{ numRuns: 500 },
		);
	});

	it('text values survive unchanged, numbers as their decimal text', () => {
		fc.assert(
			fc.property(validFilter, ({ keyType, input }) => {
				const v = validateFilter(input, keyType);
				input.conditions.forEach((c, i) => {
					if (typeof c.value === 'string') expect(v.conditions[i].value).toBe(c.value);
					else expect(Number(v.conditions[i].value)).toBe(c.value === 0 ? 0 : c.value);
				});
			}),
		);
	});

	it('any text value is either rejected or reaches the service unchanged (UTF-16 code units of any kind)', () => {
		const codeUnits = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 30 });
		fc.assert(
			fc.property(codeUnits, fc.constantFrom(...keywordsOf('Text')), (value, keyword) => {
				let v;
				try {
					v = validateFilter(one(keyword, value, 'Text'), 'propertyKeyId');
				} catch (e) {
					expect(e).toBeInstanceOf(ValidationError);
					return;
				}
				const url = new URL(`https://h/x${queryString([encodeFilter(v)])}`);
				expect(url.searchParams.get('5')).toBe(`${keyword}"${value}"`);
			}),
			{ numRuns: 1000 },
		);
	});

	const piece = fc.oneof(
		fc.constantFrom(...Object.keys(SPEC_TABLE)),
		fc.constantFrom('AND', 'OR', '"', '\\', '""', 'and', '2026-02-30', '2024-02-29', '1e400', '-0', 'NaN'),
		fc.string({ maxLength: 6 }),
		fc.string({ unit: 'binary', maxLength: 6 }),
	);
	const rawFilter = fc.oneof(fc.string({ unit: 'binary', maxLength: 80 }), fc.array(piece, { maxLength: 12 }).map((a) => a.join('')));
	const keyName = fc.oneof(fc.string({ maxLength: 10 }), fc.nat().map(String), fieldName, fc.constantFrom('limit', '0', '-1', '__proto__', 'constructor'));

	it('parseFilter on arbitrary text returns a filter or throws a ValidationError, nothing else', () => {
		fc.assert(
			fc.property(keyName, rawFilter, fc.constantFrom<FilterKeyType>('propertyKeyId', 'fieldName'), fc.option(fc.constantFrom<DataType>('Number', 'Text', 'Date'), { nil: undefined }), (name, raw, keyType, dataType) => {
				let parsed;
				try {
					parsed = parseFilter(name, raw, keyType, dataType);
				} catch (e) {
					expect(e).toBeInstanceOf(ValidationError);
					expect(name === '' || (e as ValidationError).parameter.length > 0).toBe(true);
					return;
				}
				// whatever parses is canonical: it encodes and parses back to itself
				const [n, r] = encodeFilter(parsed);
				expect(parseFilter(n, r, keyType, dataType)).toEqual(parsed);
			}),
			{ numRuns: 2000 },
		);
	});

	it('structured near-miss filters never throw anything but a ValidationError', () => {
		const condition = fc.tuple(fc.constantFrom(...Object.keys(SPEC_TABLE), 'foo', ''), fc.constantFrom('', 'AND', 'OR', 'Or'), fc.oneof(fc.string({ maxLength: 8 }), dateValue, fc.double().map(String)));
		fc.assert(
			fc.property(fc.array(condition, { minLength: 1, maxLength: 5 }), fc.option(fc.constantFrom<DataType>('Number', 'Text', 'Date'), { nil: undefined }), (conds, dataType) => {
				const raw = conds.map(([k, op, v]) => `${k}${op}"${v}"`).join('\\');
				try {
					const f = parseFilter('7', raw, 'propertyKeyId', dataType);
					expect(f.conditions.length).toBe(conds.length);
					if (conds.length > 1) expect(['AND', 'OR']).toContain(f.join);
				} catch (e) {
					expect(e).toBeInstanceOf(ValidationError);
				}
			}),
			{ numRuns: 1000 },
		);
	});
});
