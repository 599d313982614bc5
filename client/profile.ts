import { ValidationError } from './errors';

/**
 * The service profile: every assumption about the service the specification leaves open, in one
 * versioned JSON document. `DEFAULT_PROFILE` holds today's choices (each marked ASSUMED here and
 * nowhere else); a user's profile is a partial document merged over it (`resolveProfile`).
 *
 * Code speaks the canonical names (the default profile's); the profile maps them to what the
 * service calls them (`fields.testResult.test_date.name = "tested_on"`). The client translates at
 * the wire, so every face reads paths, parameters and names through it and nowhere else.
 *
 * The validator is written here in plain TypeScript (the n8n node ships without runtime
 * dependencies); `client/node/profileSchema.ts` builds the zod schema from the same `PROFILE_SPEC`.
 */

export const PROFILE_VERSION = 1;

export type ProfileMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type PagingStyle = 'limitOffset' | 'pageNumber';
export type ProfileDataType = 'Number' | 'Text' | 'Date';
export type TextCase = 'ignore' | 'respect';
/** Where a record without a value goes: last or first whichever the direction, or as the lowest or highest value. */
export type MissingPlace = 'last' | 'first' | 'lowest' | 'highest';

export interface OperationProfile {
	method: ProfileMethod;
	path: string;
}

export interface FieldProfile {
	name: string;
	dataType: ProfileDataType;
}

export interface PropertyRoleProfile {
	/** Property names that hold the role (compared in lower case); the first is preferred. */
	names: string[];
	/** The property key id that holds the role (matched before the names), when known. */
	keyId: number | null;
}

export const PROPERTY_ROLES = ['designation', 'idBarcode', 'lastTested', 'nextTestDate', 'department', 'customerName', 'testInterval', 'customerEmail', 'location'] as const;
export type PropertyRole = (typeof PROPERTY_ROLES)[number];

export const OPERATION_IDS = [
	'customer.list',
	'customer.create',
	'customer.update',
	'customer.delete',
	'device.list',
	'device.get',
	'device.create',
	'device.update',
	'device.updateMany',
	'device.delete',
	'overdueDevice.list',
	'testResult.list',
	'testResult.get',
	'project.list',
	'subUser.list',
	'recycleBin.list',
	'recycleBin.restore',
	'file.downloadLink',
	'propertyKey.list',
] as const;
export type ProfileOperationId = (typeof OPERATION_IDS)[number];

export const FIELD_RESOURCES = ['testResult', 'project', 'subUser', 'recycleBin', 'propertyKey'] as const;
export type FieldResource = (typeof FIELD_RESOURCES)[number];

export interface ServiceProfile {
	version: typeof PROFILE_VERSION;
	operations: Record<ProfileOperationId, OperationProfile>;
	paging: {
		style: PagingStyle;
		/** limitOffset: the page size and the index of the first item. */
		limitParam: string;
		offsetParam: string;
		/** pageNumber: the page's number (the first is `firstPage`) and its size. */
		pageParam: string;
		pageSizeParam: string;
		firstPage: number;
		/** The page size asked for when the caller does not choose one. */
		defaultPageSize: number;
		/** The largest page the service answers; asking more gets this. */
		maxPageSize: number;
		/** The answer's keys; `itemsKey: null` means the answer is a bare array. */
		itemsKey: string | null;
		countKey: string | null;
		nextKey: string | null;
	};
	/** Lists filtered and ordered by field name: canonical field → the service's name and type. */
	fields: Record<FieldResource, Record<string, FieldProfile>>;
	/** Device and customer properties found by role. */
	properties: Record<PropertyRole, PropertyRoleProfile>;
	/**
	 * How the service orders a sorted list, so a sort done on this side (a sorted read of more than
	 * one page, client/ordering.ts) gives the order the service gives.
	 */
	ordering: { textCase: TextCase; missing: MissingPlace };
	/** How an overdue-list record shows its due date and days overdue. */
	overdue: { nextTestDate: string; daysOverdue: string };
	/** The shape of performed steps in the detailed test result. */
	testSteps: {
		steps: string;
		step: string;
		name: string;
		status: string;
		measurements: string;
		measurement: { name: string; value: string; unit: string; lowLimit: string; highLimit: string; passed: string };
		device: string;
		deviceFields: { designation: string; idBarcode: string };
	};
}

/** A partial profile, as a user writes it. */
export type ServiceProfileInput = DeepPartial<ServiceProfile>;
type DeepPartial<T> = T extends Array<unknown> ? T : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;

const op = (method: ProfileMethod, path: string): OperationProfile => ({ method, path });
const f = (dataType: ProfileDataType, name: string): FieldProfile => ({ name, dataType });
const role = (...names: string[]): PropertyRoleProfile => ({ names, keyId: null });

/**
 * Today's choices. ASSUMED wherever the spec is silent (see docs/service-profile.md for the table):
 * - paths the spec does not name follow the style of those it does;
 * - lists page like Django REST framework's limit/offset pagination (`/project/viewset/` suggests
 *   it): `limit` 100 by default, at most 1000, answers `{count, next, previous, results}`;
 * - the field lists of the lists filtered by field name (the spec shows only `updated_time`);
 * - a sorted list compares Text without regard to case, Numbers as numbers, Dates as their text,
 *   and puts a record without a value last in both directions; equal values come in id order
 *   (ascending in both directions), not in the unsorted order, which a restore changes; so test
 *   results with equal `synced_time` are listed by upload time in id order, and the reads of
 *   measured values take (synced_time, id) as the order of upload (the results poller's
 *   `uploadsAfter`, lambdas/pollers/testResults.ts; `readResultWarnings`, client/measurementsRead.ts);
 * - `search` finds text without regard to case (the spec says only that it is a string): a
 *   barcode scanned in lower case is looked up By Barcode with the service's search;
 * - the device property of the `nextTestDate` role is computed by the service (from Last tested and
 *   the test interval) and cannot be written: an update from a record read before leaves it out;
 * - the overdue list's records carry `next_test_date` and `days_overdue`;
 * - the detailed test result's `steps` are `{step, name, status, measurements: [...]}`; a failed
 *   visual inspection is a step of status failed in a result of status `failed` (the result's
 *   status says the test failed, whichever step failed);
 * - a device moved to the recycle bin (a `device` entry, not restored) was taken out of service,
 *   scrapped: the failure rates count it as failed (DGUV Information 203-071); the entry's `name` is
 *   the device's designation, and it holds neither department nor customer;
 * - the device list's unsorted order keeps the devices' order among themselves and lists a new (or
 *   restored) device after those there before it: the first run's backfill of measured values
 *   resumes by it (lambdas/pollers/measurementBackfill.ts);
 * - the test results list filters by `device_id` equals (the measured values' reads, per device).
 */
export const DEFAULT_PROFILE: ServiceProfile = {
	version: PROFILE_VERSION,
	operations: {
		'customer.list': op('GET', '/data/customers/all/'),
		'customer.create': op('POST', '/data/customers/create/'),
		'customer.update': op('PUT', '/data/customers/edit/'),
		'customer.delete': op('DELETE', '/data/customers/delete/{id}/'),
		'device.list': op('GET', '/data/devices/all/'),
		'device.get': op('GET', '/device/detail/{id}/'),
		'device.create': op('POST', '/data/devices/create/'),
		'device.update': op('PUT', '/data/devices/edit/'),
		'device.updateMany': op('PUT', '/data/devices/multiple_edit/'),
		'device.delete': op('DELETE', '/data/devices/delete/{id}/'),
		'overdueDevice.list': op('GET', '/data/devices/overdue/'),
		'testResult.list': op('GET', '/tests_performed/all/'),
		'testResult.get': op('GET', '/tests_performed/detailed/{id}/'),
		'project.list': op('GET', '/project/viewset/'),
		'subUser.list': op('GET', '/users/all/'),
		'recycleBin.list': op('GET', '/recycle_bin/all/'),
		'recycleBin.restore': op('POST', '/recycle_bin/restore/{id}/'),
		// PUT "generates files or reports" (spec, Methods); answers { url, expires_at }.
		'file.downloadLink': op('PUT', '/files/download_link/{id}/'),
		// The table of property key ids and data types; the spec says it exists but not where.
		'propertyKey.list': op('GET', '/data/properties/all/'),
	},
	paging: {
		style: 'limitOffset',
		limitParam: 'limit',
		offsetParam: 'offset',
		pageParam: 'page',
		pageSizeParam: 'page_size',
		firstPage: 1,
		defaultPageSize: 100,
		maxPageSize: 1000,
		itemsKey: 'results',
		countKey: 'count',
		nextKey: 'next',
	},
	fields: {
		testResult: {
			id: f('Number', 'id'),
			device_id: f('Number', 'device_id'),
			customer_id: f('Number', 'customer_id'),
			project_id: f('Number', 'project_id'),
			test_date: f('Date', 'test_date'),
			synced_time: f('Date', 'synced_time'),
			status: f('Text', 'status'),
			tester: f('Text', 'tester'),
			test_sequence: f('Text', 'test_sequence'),
		},
		project: {
			id: f('Number', 'id'),
			name: f('Text', 'name'),
			customer_id: f('Number', 'customer_id'),
			status: f('Text', 'status'),
			created_time: f('Date', 'created_time'),
			updated_time: f('Date', 'updated_time'),
		},
		subUser: {
			id: f('Number', 'id'),
			username: f('Text', 'username'),
			email: f('Text', 'email'),
			first_name: f('Text', 'first_name'),
			last_name: f('Text', 'last_name'),
			role: f('Text', 'role'),
			date_joined: f('Date', 'date_joined'),
		},
		recycleBin: {
			id: f('Number', 'id'),
			resource: f('Text', 'resource'),
			item_id: f('Number', 'item_id'),
			name: f('Text', 'name'),
			deleted_time: f('Date', 'deleted_time'),
		},
		propertyKey: {
			id: f('Number', 'id'),
			name: f('Text', 'name'),
			data_type: f('Text', 'data_type'),
			resource: f('Text', 'resource'),
		},
	},
	properties: {
		designation: role('Designation'),
		idBarcode: role('ID Barcode', 'Barcode', 'ID-Barcode'),
		lastTested: role('Last tested', 'Last tested date', 'Last test', 'Last test date'),
		nextTestDate: role('Next test', 'Next test date'),
		department: role('Department'),
		customerName: role('Name'),
		// Months between tests; the rebuilt due-date history (client/rebuild.ts) and the failure rates read it.
		testInterval: role('Test interval (months)', 'Test interval', 'Interval (months)'),
		// The customer's own contact address: the re-test notices go to it (lambdas/email/notices.ts).
		customerEmail: role('Contact e-mail', 'Contact email', 'E-mail', 'Email'),
		// Where a device stands at the customer's site: listed in the re-test notices.
		location: role('Location'),
	},
	ordering: { textCase: 'ignore', missing: 'last' },
	overdue: { nextTestDate: 'next_test_date', daysOverdue: 'days_overdue' },
	testSteps: {
		steps: 'steps',
		step: 'step',
		name: 'name',
		status: 'status',
		measurements: 'measurements',
		measurement: { name: 'name', value: 'value', unit: 'unit', lowLimit: 'low_limit', highLimit: 'high_limit', passed: 'passed' },
		device: 'device',
		deviceFields: { designation: 'designation', idBarcode: 'id_barcode' },
	},
};

// ---- The shape, as data: one walker validates, merges and builds the zod and JSON schemas. ----

export type LeafKind = 'version' | 'method' | 'path' | 'name' | 'nameOrNull' | 'labels' | 'keyId' | 'pageSize' | 'firstPage' | 'style' | 'dataType' | 'textCase' | 'missing';
export type SpecNode = LeafKind | { [key: string]: SpecNode };

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
const METHODS: readonly ProfileMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const STYLES: readonly PagingStyle[] = ['limitOffset', 'pageNumber'];
const DATA_TYPES: readonly ProfileDataType[] = ['Number', 'Text', 'Date'];
export const TEXT_CASES: readonly TextCase[] = ['ignore', 'respect'];
export const MISSING_PLACES: readonly MissingPlace[] = ['last', 'first', 'lowest', 'highest'];
/** The largest page size a profile may name (a page is held in memory whole). */
export const PROFILE_MAX_PAGE_SIZE = 10_000;

function specOf(value: unknown, key: string): SpecNode {
	if (value && typeof value === 'object' && !Array.isArray(value)) {
		if ('method' in value && 'path' in value) return { method: 'method', path: 'path' };
		if ('names' in value && 'keyId' in value) return { names: 'labels', keyId: 'keyId' };
		if ('dataType' in value) return { name: 'name', dataType: 'dataType' };
		const out: Record<string, SpecNode> = {};
		for (const [k, v] of Object.entries(value)) out[k] = specOf(v, key === '' ? k : `${key}.${k}`);
		return out;
	}
	if (key === 'version') return 'version';
	if (key === 'paging.style') return 'style';
	if (key === 'paging.firstPage') return 'firstPage';
	if (key === 'ordering.textCase') return 'textCase';
	if (key === 'ordering.missing') return 'missing';
	if (key === 'paging.defaultPageSize' || key === 'paging.maxPageSize') return 'pageSize';
	if (/^paging\.(itemsKey|countKey|nextKey)$/.test(key)) return 'nameOrNull';
	return 'name';
}

/** The profile's shape, derived from the default profile so the two can never disagree. */
export const PROFILE_SPEC = specOf(DEFAULT_PROFILE, '') as { [key: string]: SpecNode };

/** What a leaf allows, in the words of the error messages. */
export function allowedText(kind: LeafKind): string {
	switch (kind) {
		case 'version':
			return `${PROFILE_VERSION}`;
		case 'method':
			return METHODS.join(', ');
		case 'path':
			return 'a path under /api/v1 starting with "/", without "..", a scheme, "?" or "#" (for example /data/devices/overdue/)';
		case 'name':
			return 'a name of letters, digits, "_", "-" or "." starting with a letter or "_" (at most 64 characters)';
		case 'nameOrNull':
			return 'a name of letters, digits, "_", "-" or "." starting with a letter or "_", or null';
		case 'labels':
			return 'a list of one or more property names (non-empty texts of at most 100 characters)';
		case 'keyId':
			return 'a property key id (a whole number of 1 or more) or null';
		case 'pageSize':
			return `a whole number from 1 to ${PROFILE_MAX_PAGE_SIZE}`;
		case 'firstPage':
			return '0 or 1';
		case 'style':
			return STYLES.join(' or ');
		case 'dataType':
			return DATA_TYPES.join(', ');
		case 'textCase':
			return TEXT_CASES.join(' or ');
		case 'missing':
			return MISSING_PLACES.join(', ');
	}
}

function validPath(v: string): boolean {
	return v.startsWith('/') && !v.startsWith('//') && !v.split('/').some((s) => s === '..' || s === '.') && !/[?#\s\\%]|:\/\/|^[A-Za-z][A-Za-z0-9+.-]*:/.test(v) && !/\{(?!id\})/.test(v) && v.length <= 300;
}

function label(v: unknown): boolean {
	return typeof v === 'string' && v.trim() !== '' && v.length <= 100;
}

export function leafAccepts(kind: LeafKind, v: unknown): boolean {
	switch (kind) {
		case 'version':
			return v === PROFILE_VERSION;
		case 'method':
			return METHODS.includes(v as ProfileMethod);
		case 'path':
			return typeof v === 'string' && validPath(v);
		case 'name':
			return typeof v === 'string' && NAME.test(v);
		case 'nameOrNull':
			return v === null || (typeof v === 'string' && NAME.test(v));
		case 'labels':
			return Array.isArray(v) && v.length >= 1 && v.length <= 20 && v.every(label);
		case 'keyId':
			return v === null || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 1);
		case 'pageSize':
			return typeof v === 'number' && Number.isSafeInteger(v) && v >= 1 && v <= PROFILE_MAX_PAGE_SIZE;
		case 'firstPage':
			return v === 0 || v === 1;
		case 'style':
			return STYLES.includes(v as PagingStyle);
		case 'dataType':
			return DATA_TYPES.includes(v as ProfileDataType);
		case 'textCase':
			return TEXT_CASES.includes(v as TextCase);
		case 'missing':
			return MISSING_PLACES.includes(v as MissingPlace);
	}
}

const show = (v: unknown): string => {
	const s = JSON.stringify(v) ?? String(v);
	return s.length > 60 ? `${s.slice(0, 60)}…` : s;
};

/** The error of a profile: `parameter` is the key path (`paging.maxPageSize`), the message what is allowed. */
export class ProfileError extends ValidationError {}

function refuse(path: string, message: string): never {
	throw new ProfileError(path === '' ? 'service profile' : `service profile: ${path}`, message);
}

function mergeNode(spec: SpecNode, base: unknown, input: unknown, path: string): unknown {
	if (typeof spec === 'string') {
		if (!leafAccepts(spec, input)) refuse(path, `must be ${allowedText(spec)}, got ${show(input)}`);
		if (spec === 'path') {
			const wanted = /\{id\}/.test(base as string);
			if (wanted !== /\{id\}/.test(input as string)) refuse(path, wanted ? 'must contain {id} where the item id goes' : 'takes no {id}');
		}
		return spec === 'labels' ? [...(input as string[])] : input;
	}
	if (!input || typeof input !== 'object' || Array.isArray(input)) refuse(path, `must be an object with the keys ${Object.keys(spec).join(', ')}, got ${show(input)}`);
	const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
	for (const [key, value] of Object.entries(input)) {
		// Own keys only: "valueOf" or "constructor" are an object's by inheritance, never the profile's.
		const child = Object.prototype.hasOwnProperty.call(spec, key) ? spec[key] : undefined;
		const at = path === '' ? key : `${path}.${key}`;
		if (child === undefined) refuse(at, `is not a key of the service profile; allowed here: ${Object.keys(spec).join(', ')}`);
		out[key] = mergeNode(child, (base as Record<string, unknown>)[key], value, at);
	}
	return out;
}

/** Cross-key rules the shape alone cannot say. */
function checkWhole(p: ServiceProfile): void {
	const { paging } = p;
	if (paging.defaultPageSize > paging.maxPageSize) refuse('paging.defaultPageSize', `must be at most paging.maxPageSize (${paging.maxPageSize}), got ${paging.defaultPageSize}`);
	const params = paging.style === 'limitOffset' ? (['limitParam', 'offsetParam'] as const) : (['pageParam', 'pageSizeParam'] as const);
	if (paging[params[0]] === paging[params[1]]) refuse(`paging.${params[1]}`, `must differ from paging.${params[0]} ("${paging[params[0]]}")`);
	for (const reserved of ['enabled', 'ordering', 'search', 'direct_delete']) {
		for (const k of params) if (paging[k] === reserved) refuse(`paging.${k}`, `must not be "${reserved}", a parameter of the service's lists`);
	}
	const keys = (['itemsKey', 'countKey', 'nextKey'] as const).filter((k) => paging[k] !== null);
	for (const [i, a] of keys.entries()) for (const b of keys.slice(i + 1)) if (paging[a] === paging[b]) refuse(`paging.${b}`, `must differ from paging.${a} ("${paging[a]}")`);
	for (const resource of FIELD_RESOURCES) {
		const seen = new Map<string, string>();
		for (const [canonical, field] of Object.entries(p.fields[resource])) {
			const other = seen.get(field.name);
			if (other !== undefined) refuse(`fields.${resource}.${canonical}.name`, `"${field.name}" already names fields.${resource}.${other}; each field needs its own name`);
			seen.set(field.name, canonical);
		}
	}
	const byName = new Map<string, PropertyRole>();
	const byKey = new Map<number, PropertyRole>();
	for (const r of PROPERTY_ROLES) {
		for (const name of p.properties[r].names) {
			const other = byName.get(name.trim().toLowerCase());
			if (other !== undefined && other !== r) refuse(`properties.${r}.names`, `"${name}" already names the role properties.${other}; one property holds one role`);
			byName.set(name.trim().toLowerCase(), r);
		}
		const keyId = p.properties[r].keyId;
		if (keyId !== null) {
			const other = byKey.get(keyId);
			if (other !== undefined) refuse(`properties.${r}.keyId`, `${keyId} already holds the role properties.${other}; one property holds one role`);
			byKey.set(keyId, r);
		}
	}
	const routes = new Map<string, string>();
	for (const [operation, o] of Object.entries(p.operations)) {
		const route = `${o.method} ${o.path.replace(/\/+$/, '')}`;
		const other = routes.get(route);
		if (other !== undefined) refuse(`operations.${operation}.path`, `${o.method} ${o.path} is already the path of operations.${other}; each operation needs its own method and path`);
		routes.set(route, operation);
	}
	for (const k of params) {
		for (const resource of FIELD_RESOURCES) {
			const field = Object.entries(p.fields[resource]).find(([, f]) => f.name === paging[k]);
			if (field) refuse(`paging.${k}`, `must not be "${paging[k]}", the name of fields.${resource}.${field[0]} (a filter on it would read as paging)`);
		}
	}
	if (p.overdue.nextTestDate === p.overdue.daysOverdue) refuse('overdue.daysOverdue', `must differ from overdue.nextTestDate ("${p.overdue.nextTestDate}")`);
}

/**
 * A profile from what a user wrote (JSON text or a parsed value; empty = the defaults), merged
 * over the defaults. Throws a ProfileError naming the key path and what is allowed; nothing is
 * ever used with half a profile.
 */
export function resolveProfile(input: unknown = {}): ServiceProfile {
	let value = input;
	if (typeof input === 'string') {
		if (input.trim() === '') return DEFAULT_PROFILE;
		try {
			value = JSON.parse(input);
		} catch (error) {
			refuse('', `is not JSON (${error instanceof Error ? error.message : String(error)}); write one JSON object such as {"version": 1, "paging": {"style": "pageNumber"}}`);
		}
	}
	if (value === undefined) return DEFAULT_PROFILE;
	if (!value || typeof value !== 'object' || Array.isArray(value)) refuse('', `must be one JSON object, got ${show(value)}`);
	const version = (value as { version?: unknown }).version;
	if (version !== undefined && version !== PROFILE_VERSION) refuse('version', `must be ${PROFILE_VERSION} (the profile version this release reads), got ${show(version)}`);
	const merged = mergeNode(PROFILE_SPEC, DEFAULT_PROFILE, value, '') as ServiceProfile;
	checkWhole(merged);
	return merged;
}

/** The keys of `profile` that differ from the defaults, as a partial profile (what a user writes). */
export function profileDifferences(profile: ServiceProfile, base: unknown = DEFAULT_PROFILE): ServiceProfileInput {
	const diff = (a: unknown, b: unknown): unknown => {
		if (a && typeof a === 'object' && !Array.isArray(a) && b && typeof b === 'object' && !Array.isArray(b)) {
			const out: Record<string, unknown> = {};
			for (const [k, v] of Object.entries(a)) {
				const d = diff(v, (b as Record<string, unknown>)[k]);
				if (d !== undefined) out[k] = d;
			}
			return Object.keys(out).length > 0 ? out : undefined;
		}
		return JSON.stringify(a) === JSON.stringify(b) ? undefined : a;
	};
	return { version: PROFILE_VERSION, ...((diff(profile, base) as object | undefined) ?? {}) } as ServiceProfileInput;
}
