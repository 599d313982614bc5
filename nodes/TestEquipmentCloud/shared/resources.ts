import { ENDPOINTS, SUPPORTS_ENABLED, type OperationId, type Resource } from '../../../client';

/** Everything here is derived from the client's catalogue (`client/catalogue.ts`). */

/** The resources the catalogue can list, except the property key table (an editor aid). */
export type ListResource = Exclude<
	{ [K in OperationId]: (typeof ENDPOINTS)[K]['kind'] extends 'list' ? (typeof ENDPOINTS)[K]['resource'] : never }[OperationId],
	'propertyKey'
>;

/** Resources whose records carry account-defined properties (filters by property key ID). */
export type PropertyResource = 'customer' | 'device' | 'overdueDevice';

/**
 * The resources the action node offers: every resource of the catalogue but the property key
 * table, Compliance (figures the node computes from the device and customer lists) and E-mail
 * (the e-mails of email/, built from the service's lists).
 */
export type NodeResource = Exclude<Resource, 'propertyKey'> | 'compliance' | 'email';

export function isPropertyResource(resource: string): resource is PropertyResource {
	return SUPPORTS_ENABLED.has(resource as Resource);
}

/** A list operation of the catalogue by resource, e.g. `device` → `device.list`. */
export function listOperation(resource: ListResource): OperationId {
	return `${resource}.list`;
}
