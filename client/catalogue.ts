import { ValidationError } from './errors';
import type { HttpMethod } from './http';

import { DEFAULT_PROFILE, type ServiceProfile } from './profile';

/**
 * Every operation the product uses, in one table: what it reads or writes. Its method and path
 * come from the service profile (`client/profile.ts`); `assumed: true` marks the operations whose
 * path the spec does not show.
 */

export type Resource =
	| 'customer'
	| 'device'
	| 'overdueDevice'
	| 'testResult'
	| 'project'
	| 'subUser'
	| 'recycleBin'
	| 'file'
	| 'propertyKey';

/** `link`: a request that hands out a download link (a PUT that changes nothing a user sees: ASSUMED). */
export type EndpointKind = 'list' | 'detail' | 'write' | 'link';

export interface Operation {
	resource: Resource;
	kind: EndpointKind;
	assumed: boolean;
}

export interface Endpoint extends Operation {
	method: HttpMethod;
	/** Path template under /api/v1; `{id}` is a path parameter. */
	path: string;
}

export const ENDPOINTS = {
	'customer.list': { resource: 'customer', kind: 'list', assumed: false },
	'customer.create': { resource: 'customer', kind: 'write', assumed: true },
	'customer.update': { resource: 'customer', kind: 'write', assumed: true },
	'customer.delete': { resource: 'customer', kind: 'write', assumed: true },
	'device.list': { resource: 'device', kind: 'list', assumed: false },
	'device.get': { resource: 'device', kind: 'detail', assumed: false },
	'device.create': { resource: 'device', kind: 'write', assumed: true },
	'device.update': { resource: 'device', kind: 'write', assumed: true },
	'device.updateMany': { resource: 'device', kind: 'write', assumed: false },
	'device.delete': { resource: 'device', kind: 'write', assumed: true },
	'overdueDevice.list': { resource: 'overdueDevice', kind: 'list', assumed: true },
	'testResult.list': { resource: 'testResult', kind: 'list', assumed: true },
	'testResult.get': { resource: 'testResult', kind: 'detail', assumed: false },
	'project.list': { resource: 'project', kind: 'list', assumed: false },
	'subUser.list': { resource: 'subUser', kind: 'list', assumed: true },
	'recycleBin.list': { resource: 'recycleBin', kind: 'list', assumed: true },
	'recycleBin.restore': { resource: 'recycleBin', kind: 'write', assumed: true },
	'file.downloadLink': { resource: 'file', kind: 'link', assumed: true },
	'propertyKey.list': { resource: 'propertyKey', kind: 'list', assumed: true },
} as const satisfies Record<keyof ServiceProfile['operations'], Operation>;

export type OperationId = keyof typeof ENDPOINTS;

/** One operation with the method and path the profile gives it. */
export function endpoint(operation: OperationId, profile: ServiceProfile = DEFAULT_PROFILE): Endpoint {
	return { ...ENDPOINTS[operation], ...profile.operations[operation] };
}

/** How a list's filters and `ordering` name what they apply to (spec, Query parameters). */
export type FilterKeyType = 'propertyKeyId' | 'fieldName';

export const FILTER_KEY_TYPE: Record<Resource, FilterKeyType> = {
	customer: 'propertyKeyId',
	device: 'propertyKeyId',
	overdueDevice: 'propertyKeyId',
	testResult: 'fieldName',
	project: 'fieldName',
	subUser: 'fieldName',
	recycleBin: 'fieldName',
	file: 'fieldName',
	propertyKey: 'fieldName',
};

/** `enabled` applies to these lists only (spec). */
export const SUPPORTS_ENABLED: ReadonlySet<Resource> = new Set(['customer', 'device', 'overdueDevice']);

const PATH_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** Validates and encodes one path parameter: `../x`, `a/b`, `%2F` or an empty id never reach the wire. */
export function encodePathId(id: unknown, parameter = 'id'): string {
	const text = typeof id === 'number' ? (Number.isSafeInteger(id) && id >= 0 ? String(id) : '') : typeof id === 'string' ? id.trim() : '';
	if (!PATH_ID.test(text)) {
		const shown = typeof id === 'string' ? `"${id.length > 40 ? `${id.slice(0, 40)}…` : id}"` : String(id);
		throw new ValidationError(
			parameter,
			`must be an identifier of letters, digits, "-" or "_" (for example 1042), got ${text === '' ? 'an empty value' : shown}`,
		);
	}
	return encodeURIComponent(text);
}

export function resolvePath(operation: OperationId, pathParams: Record<string, unknown> = {}, parameter?: string, profile: ServiceProfile = DEFAULT_PROFILE): string {
	return profile.operations[operation].path.replace(/\{(\w+)\}/g, (_, name: string) => {
		if (!(name in pathParams)) throw new ValidationError(parameter ?? name, 'is required');
		return encodePathId(pathParams[name], parameter ?? name);
	});
}
