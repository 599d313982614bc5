import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { DEFAULT_PROFILE, FIELD_RESOURCES, OPERATION_IDS, PROPERTY_ROLES, resolveProfile, type ServiceProfile, type ServiceProfileInput } from '../../client';
import { readProfileFile } from '../../client/node/profileSchema';

/** The variant layouts the sandbox serves (sandbox/profiles/*.json), by file name without `.json`. */
export const VARIANT_DIR = join(__dirname, '../../sandbox/profiles');
export const VARIANTS: Record<string, ServiceProfile> = Object.fromEntries(
	readdirSync(VARIANT_DIR)
		.filter((f) => f.endsWith('.json'))
		.sort()
		.map((f) => [f.slice(0, -'.json'.length), readProfileFile(join(VARIANT_DIR, f))]),
);
export const variantFile = (name: string): string => join(VARIANT_DIR, `${name}.json`);

const segment = fc.stringMatching(/^[a-z][a-z0-9_-]{0,11}$/);
const wireName = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,15}$/).filter((n) => !['enabled', 'ordering', 'search', 'direct_delete', 'id'].includes(n));

/**
 * A random profile the schema accepts: random paths (one distinct prefix per operation), paging
 * style and parameter names, renamed fields, answer keys and property names; `input` is what a
 * user would write, `profile` its resolved form.
 */
export function profileArbitrary(): fc.Arbitrary<{ input: ServiceProfileInput; profile: ServiceProfile }> {
	const fieldNames = fc.record(
		Object.fromEntries(FIELD_RESOURCES.map((r) => [r, fc.uniqueArray(wireName, { minLength: Object.keys(DEFAULT_PROFILE.fields[r]).length, maxLength: Object.keys(DEFAULT_PROFILE.fields[r]).length })])) as Record<
			(typeof FIELD_RESOURCES)[number],
			fc.Arbitrary<string[]>
		>,
	);
	return fc
		.record({
			root: segment,
			renamePaths: fc.boolean(),
			style: fc.constantFrom('limitOffset' as const, 'pageNumber' as const),
			params: fc.uniqueArray(wireName.map((n) => `p_${n}`), { minLength: 4, maxLength: 4 }),
			firstPage: fc.constantFrom(0, 1),
			maxPageSize: fc.integer({ min: 5, max: 2000 }),
			answerKeys: fc.uniqueArray(wireName.map((n) => `k_${n}`), { minLength: 3, maxLength: 3 }),
			renameFields: fc.boolean(),
			fieldNames,
			renameProperties: fc.boolean(),
			propertyNames: fc.uniqueArray(fc.stringMatching(/^[A-Z][a-z]{2,10} [a-z]{2,8}$/), { minLength: PROPERTY_ROLES.length, maxLength: PROPERTY_ROLES.length }),
			overdueKeys: fc.uniqueArray(wireName.map((n) => `o_${n}`), { minLength: 2, maxLength: 2 }),
		})
		.map((r) => {
			const input: ServiceProfileInput = {
				version: 1,
				paging: {
					style: r.style,
					limitParam: r.params[0],
					offsetParam: r.params[1],
					pageParam: r.params[2],
					pageSizeParam: r.params[3],
					firstPage: r.firstPage,
					maxPageSize: r.maxPageSize,
					defaultPageSize: Math.min(100, r.maxPageSize),
					itemsKey: r.answerKeys[0],
					countKey: r.answerKeys[1],
					nextKey: r.answerKeys[2],
				},
				overdue: { nextTestDate: r.overdueKeys[0], daysOverdue: r.overdueKeys[1] },
			};
			if (r.renamePaths) {
				input.operations = Object.fromEntries(
					OPERATION_IDS.map((op, i) => [op, { path: `/${r.root}/${i}/${DEFAULT_PROFILE.operations[op].path.includes('{id}') ? '{id}/' : ''}` }]),
				);
			}
			if (r.renameFields) {
				input.fields = Object.fromEntries(
					FIELD_RESOURCES.map((resource) => [resource, Object.fromEntries(Object.keys(DEFAULT_PROFILE.fields[resource]).map((f, i) => [f, { name: f === 'id' ? 'id' : `f_${r.fieldNames[resource][i]}` }]))]),
				);
			}
			if (r.renameProperties) input.properties = Object.fromEntries(PROPERTY_ROLES.map((role, i) => [role, { names: [r.propertyNames[i]] }]));
			return { input, profile: resolveProfile(input) };
		});
}
