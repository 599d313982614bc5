/**
 * Reading a record's roles in one walk (`roleValues`, what the whole-list reads of the e-mails use)
 * finds for every role what `roleValue` finds walking the record for that role alone: by key id
 * or name, the first property in the record's order, whatever the case and spaces of the name.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE, PROPERTY_ROLES, type ServiceProfile } from '../../client/profile';
import { roleValue, roleValues } from '../../client/roles';

/** The default profile with some roles found by key id as well (one key id per role). */
const WITH_KEY_IDS: ServiceProfile = {
	...DEFAULT_PROFILE,
	properties: { ...DEFAULT_PROFILE.properties, department: { ...DEFAULT_PROFILE.properties.department, keyId: 7 }, nextTestDate: { ...DEFAULT_PROFILE.properties.nextTestDate, keyId: 9 } },
};

const names = [...PROPERTY_ROLES.flatMap((r) => DEFAULT_PROFILE.properties[r].names), 'Colour', 'Weight'];
const name = fc.oneof(
	fc.constantFrom(...names),
	fc.constantFrom(...names).map((n) => ` ${n.toUpperCase()} `),
	fc.string({ maxLength: 6 }),
);
const property = fc.record({ name: fc.option(name, { nil: undefined }), key_id: fc.option(fc.oneof(fc.constantFrom(7, 9, 3), fc.constantFrom('7', '9')), { nil: undefined }), value: fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.constant(null)) }, { requiredKeys: [] });
const record = fc.oneof(
	fc.record({ id: fc.nat(), properties: fc.array(property, { maxLength: 12 }) }),
	fc.record({ id: fc.nat(), properties: fc.dictionary(name, fc.oneof(fc.string({ maxLength: 4 }), fc.integer()), { maxKeys: 8 }) }),
	fc.constantFrom(null, {}, { properties: 'none' }),
);

describe('roleValues', () => {
	it.each([
		['the default profile', DEFAULT_PROFILE],
		['a profile with key ids', WITH_KEY_IDS],
	])('gives every role what roleValue gives (%s)', (_, profile) => {
		fc.assert(
			fc.property(record, (r) => {
				const values = roleValues(r, profile);
				for (const role of PROPERTY_ROLES) expect([role, values[role]]).toEqual([role, roleValue(r, role, profile)]);
			}),
			{ numRuns: 500 },
		);
	});
});
