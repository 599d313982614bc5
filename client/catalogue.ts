import { ValidationError } from './errors';
import type { HttpMethod } from './http';

/**
 * Every operation the product uses, in one table. Paths are under /api/v1.
 * `assumed: true` marks what the spec does not show (it names only a few paths); those entries
 * follow the style of the paths it does name. This table is the one place these choices live.
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

export type EndpointKind = 'list' | 'detail' | 'write';

export interface Endpoint {
	method: HttpMethod;
	/** Path template under /api/v1; `{id}` is a path parameter. */
	path: string;
	resource: Resource;
	kind: EndpointKind;
	assumed: boolean;
}

export const ENDPOINTS = {
	'customer.list': { method: 'GET', path: '/data/customers/all/', resource: 'customer', kind: 'list', assumed: false },
	'customer.create': { method: 'POST', path: '/data/customers/create/', resource: 'customer', kind: 'write', assumed: true },
	'customer.update': { method: 'PUT', path: '/data/customers/edit/', resource: 'customer', kind: 'write', assumed: true },
	'customer.delete': { method: 'DELETE', path: '/data/customers/delete/{id}/', resource: 'customer', kind: 'write', assumed: true },
	'device.list': { method: 'GET', path: '/data/devices/all/', resource: 'device', kind: 'list', assumed: false },
	'device.get': { method: 'GET', path: '/device/detail/{id}/', resource: 'device', kind: 'detail', assumed: false },
	'device.create': { method: 'POST', path: '/data/devices/create/', resource: 'device', kind: 'write', assumed: true },
	'device.update': { method: 'PUT', path: '/data/devices/edit/', resource: 'device', kind: 'write', assumed: true },
	'device.updateMany': { method: 'PUT', path: '/data/devices/multiple_edit/', resource: 'device', kind: 'write', assumed: false },
	'device.delete': { method: 'DELETE', path: '/data/devices/delete/{id}/', resource: 'device', kind: 'write', assumed: true },
	'overdueDevice.list': { method: 'GET', path: '/data/devices/overdue/', resource: 'overdueDevice', kind: 'list', assumed: true },
	'testResult.list': { method: 'GET', path: '/tests_performed/all/', resource: 'testResult', kind: 'list', assumed: true },
	'testResult.get': { method: 'GET', path: '/tests_performed/detailed/{id}/', resource: 'testResult', kind: 'detail', assumed: false },
	'project.list': { method: 'GET', path: '/project/viewset/', resource: 'project', kind: 'list', assumed: false },
	'subUser.list': { method: 'GET', path: '/users/all/', resource: 'subUser', kind: 'list', assumed: true },
	'recycleBin.list': { method: 'GET', path: '/recycle_bin/all/', resource: 'recycleBin', kind: 'list', assumed: true },
	'recycleBin.restore': { method: 'POST', path: '/recycle_bin/restore/{id}/', resource: 'recycleBin', kind: 'write', assumed: true },
	// PUT "generates files or reports" (spec, Methods); answers { url, expires_at }.
	'file.downloadLink': { method: 'PUT', path: '/files/download_link/{id}/', resource: 'file', kind: 'write', assumed: true },
	// The table of property key ids and data types; the spec says it exists but not where.
	'propertyKey.list': { method: 'GET', path: '/data/properties/all/', resource: 'propertyKey', kind: 'list', assumed: true },
} as const satisfies Record<string, Endpoint>;

export type OperationId = keyof typeof ENDPOINTS;

export function endpoint(operation: OperationId): Endpoint {
	return ENDPOINTS[operation];
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

export function resolvePath(operation: OperationId, pathParams: Record<string, unknown> = {}, parameter?: string): string {
	return ENDPOINTS[operation].path.replace(/\{(\w+)\}/g, (_, name: string) => {
		if (!(name in pathParams)) throw new ValidationError(parameter ?? name, 'is required');
		return encodePathId(pathParams[name], parameter ?? name);
	});
}
