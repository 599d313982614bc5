import type { ServiceClient } from './client';
import { ValidationError } from './errors';
import { DEFAULT_PROFILE, type PropertyRole, type ServiceProfile } from './profile';
import { forEachProperty } from './records';
import { holdsRole, roleIndex, roleNames } from './wire';

/**
 * Finding the properties that hold a role of the service profile (designation, ID barcode, next
 * test date, customer name, …): by key id when the profile names one, else by name.
 */

/** The value of the property holding `role` in a device or customer record (the first found), or undefined. */
export function roleValue(record: unknown, role: PropertyRole, profile: ServiceProfile = DEFAULT_PROFILE): unknown {
	let found: unknown;
	let seen = false;
	forEachProperty(record, (key, value, keyId) => {
		if (!seen && holdsRole(role, key, keyId, profile)) {
			seen = true;
			found = value;
		}
	});
	return found;
}

/**
 * The value of each role's property in a record (the first property found per role, as `roleValue`
 * finds it), in one walk over its properties: a whole-list read of 100,000 devices looking for five
 * roles walked each record five times.
 */
export function roleValues(record: unknown, profile: ServiceProfile = DEFAULT_PROFILE): Partial<Record<PropertyRole, unknown>> {
	const index = roleIndex(profile);
	const found: Partial<Record<PropertyRole, unknown>> = {};
	const take = (role: PropertyRole | undefined, value: unknown) => {
		if (role !== undefined && !(role in found)) found[role] = value;
	};
	const named = namedRoles(profile);
	forEachProperty(record, (key, value, keyId) => {
		const id = typeof keyId === 'number' ? keyId : typeof keyId === 'string' && /^\d+$/.test(keyId) ? Number(keyId) : undefined;
		take(id === undefined ? undefined : index.byKeyId.get(id), value);
		let role = named.get(key);
		if (role === undefined) {
			if (named.size >= NAMES_KEPT) named.clear();
			named.set(key, (role = index.byName.get(key.trim().toLowerCase())?.role ?? null));
		}
		take(role ?? undefined, value);
	});
	return found;
}

/**
 * The role of a property name as the records write it (null: none): an account's records repeat
 * a few names, so each is trimmed and lower-cased once, not once per property of every record
 * (a million times on a list of 100,000 devices). Bounded: cleared when full.
 */
const NAMES_KEPT = 1000;
const namedCache = new WeakMap<ServiceProfile, Map<string, PropertyRole | null>>();
function namedRoles(profile: ServiceProfile): Map<string, PropertyRole | null> {
	let named = namedCache.get(profile);
	if (named === undefined) namedCache.set(profile, (named = new Map()));
	return named;
}

type Wanted = { resource: 'device' | 'customer'; dataType: 'Number' | 'Text' | 'Date' };

/** The key id of the property holding `role` in the account (from the profile, else one read of the property-key list), or undefined. */
export async function findPropertyKey(client: ServiceClient, role: PropertyRole, want: Wanted): Promise<number | undefined> {
	const { keyId } = client.profile.properties[role];
	if (keyId !== null) return keyId;
	const lower = roleNames(role, client.profile);
	for await (const raw of client.items('propertyKey.list', {}, { pageSize: client.maxPageSize })) {
		const k = raw as { id?: unknown; name?: unknown; data_type?: unknown; resource?: unknown };
		if (typeof k.id !== 'number' || typeof k.name !== 'string') continue;
		if (k.resource !== undefined && k.resource !== want.resource) continue;
		if (k.data_type !== undefined && k.data_type !== want.dataType) continue;
		if (lower.includes(k.name.trim().toLowerCase())) return k.id;
	}
	return undefined;
}

/** Why no property holds `role`: what was looked for, and the profile key to set. */
export function missingRole(profile: ServiceProfile, role: PropertyRole, want: Wanted): string {
	const names = profile.properties[role].names.map((n) => `"${n}"`).join(' or ');
	return `the account has no ${want.dataType} property of ${want.resource}s named ${names}; set the service profile's properties.${role}.names (or .keyId) to the account's property`;
}

/** As `findPropertyKey`; refused naming the profile key when the account has none. */
export async function propertyKeyOf(client: ServiceClient, role: PropertyRole, want: Wanted): Promise<number> {
	const key = await findPropertyKey(client, role, want);
	if (key === undefined) throw new ValidationError(`service profile: properties.${role}`, missingRole(client.profile, role, want));
	return key;
}

/** One row of the account's property-key list (`propertyKey.list`), as far as `enabledFor` reads it. */
export interface PropertyKeyRow {
	id?: unknown;
	name?: unknown;
	resource?: unknown;
}

/**
 * The property key ids a list of `resource` must ask for (`enabled`) so that `roleValues` finds in
 * its records what it finds reading every property: for each role, every key that may hold it (the
 * profile's key id, and every property named as the role; the first in a record wins, so all of
 * them). Undefined, to read every property, when a role has no such key in the account (a profile
 * name the account does not have) or a key that may hold one does not say whose it is.
 */
export function enabledFor(keys: Iterable<PropertyKeyRow>, resource: 'device' | 'customer', roles: readonly PropertyRole[], profile: ServiceProfile = DEFAULT_PROFILE): number[] | undefined {
	const index = roleIndex(profile);
	const wanted = new Set(roles);
	const ids = new Set<number>();
	const found = new Set<PropertyRole>();
	for (const k of keys) {
		if (typeof k.id !== 'number' || !Number.isSafeInteger(k.id)) continue;
		const byId = index.byKeyId.get(k.id);
		const byName = typeof k.name === 'string' ? index.byName.get(k.name.trim().toLowerCase())?.role : undefined;
		const holds = [byId, byName].filter((r): r is PropertyRole => r !== undefined && wanted.has(r));
		if (holds.length === 0) continue;
		if (k.resource === undefined) return undefined;
		if (k.resource !== resource) continue;
		ids.add(k.id);
		for (const r of holds) found.add(r);
	}
	return found.size === wanted.size ? [...ids].sort((a, b) => a - b) : undefined;
}
