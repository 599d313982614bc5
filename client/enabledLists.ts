import type { ServiceClient } from './client';
import { wholeList } from './complianceSnapshot';
import { ServiceError } from './errors';
import type { PropertyRole } from './profile';
import { enabledFor, type PropertyKeyRow } from './roles';

/**
 * Asking a whole-list read only for the properties its reader looks at (`enabled`): a device page
 * of the largest size holds about half its bytes when 5 of the sandbox's 10 properties are asked
 * for, and the bytes are most of what a large account's read costs in CPU (parsing, garbage
 * collection). One read of the account's property keys serves every list of a run.
 */

/** The roles a reader looks up (client/roles.ts, roleValues) in each list's records. */
export type ListRoles = Partial<Record<'customer' | 'device', readonly PropertyRole[]>>;

/** Each list's `enabled`; a list without one reads every property. */
export type EnabledLists = Partial<Record<'customer' | 'device', number[]>>;

/**
 * Each list's `enabled` for `roles`, from one read of the account's property keys; a list whose
 * roles the keys do not all name (see enabledFor), an account without the key list (its path is
 * ASSUMED: not found) or a token that may not read it (413), reads every property.
 */
export async function enabledLists(client: ServiceClient, roles: ListRoles): Promise<EnabledLists> {
	const keys: PropertyKeyRow[] = [];
	try {
		for await (const raw of client.items('propertyKey.list', {}, wholeList(client))) if (raw && typeof raw === 'object') keys.push(raw as PropertyKeyRow);
	} catch (error) {
		// Not there, or the token may not read it (413): the key list only makes the reads smaller.
		if (error instanceof ServiceError && (error.status === 404 || error.status === 413)) return {};
		throw error;
	}
	const out: EnabledLists = {};
	for (const resource of ['customer', 'device'] as const) {
		const wanted = roles[resource];
		if (wanted !== undefined) out[resource] = enabledFor(keys, resource, wanted, client.profile);
	}
	return out;
}
