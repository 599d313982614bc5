import { z } from 'zod/v4';
import { DEFAULT_PROFILE, ENDPOINTS, FILTER_KEYWORDS, KEYWORD_DATA_TYPES, SUPPORTS_ENABLED, endpoint as endpointOf, fieldsOf, type OperationId, type ServiceProfile } from '../client';
import * as R from './resources';

/**
 * The OpenAPI 3.1 document, generated from the endpoint catalogue (client/catalogue.ts) and the
 * zod schemas (contract/resources.ts). Served by the sandbox and committed as docs/openapi.json.
 */

interface OperationContract {
	summary: string;
	/** Component ids (contract/resources.ts `.meta({ id })`). */
	response: string;
	list?: boolean;
	request?: string;
	status?: number;
}

const CONTRACT: Record<OperationId, OperationContract> = {
	'customer.list': { summary: 'List customers', response: 'CustomerPage', list: true },
	'customer.create': { summary: 'Create customers (one object or an array)', response: 'CustomerWritten', request: 'CustomerWrite', status: 201 },
	'customer.update': { summary: 'Edit customers (one object or an array, each with its id)', response: 'CustomerWritten', request: 'CustomerWrite' },
	'customer.delete': { summary: 'Delete a customer (to the recycle bin unless direct_delete)', response: 'DeleteResult' },
	'device.list': { summary: 'List devices', response: 'DevicePage', list: true },
	'device.get': { summary: 'Details of one device', response: 'Device' },
	'device.create': { summary: 'Create devices (one object or an array)', response: 'DeviceWritten', request: 'DeviceWrite', status: 201 },
	'device.update': { summary: 'Edit devices (one object or an array, each with its id)', response: 'DeviceWritten', request: 'DeviceWrite' },
	'device.updateMany': { summary: 'Edit several devices in one request (enabled not required)', response: 'MultipleEditResult', request: 'MultipleEditInput' },
	'device.delete': { summary: 'Delete a device (to the recycle bin unless direct_delete)', response: 'DeleteResult' },
	'overdueDevice.list': { summary: 'List overdue devices (next test date before today)', response: 'OverdueDevicePage', list: true },
	'testResult.list': { summary: 'List test results', response: 'TestResultPage', list: true },
	'testResult.get': { summary: 'Details of one test result: performed steps and measured limits', response: 'TestResultDetail' },
	'project.list': { summary: 'List projects', response: 'ProjectPage', list: true },
	'subUser.list': { summary: 'List sub-users', response: 'SubUserPage', list: true },
	'recycleBin.list': { summary: 'List the recycle bin', response: 'RecycleBinPage', list: true },
	'recycleBin.restore': { summary: 'Restore an item from the recycle bin', response: 'RestoreResult' },
	'file.downloadLink': { summary: 'Generate a download link for a file (valid 5 minutes)', response: 'DownloadLink' },
	'propertyKey.list': { summary: 'List property key ids with their data types', response: 'PropertyKeyPage', list: true },
};

const ERROR_STATUSES: Record<string, string> = {
	'400': 'Bad request: incorrect or missing parameters',
	'401': 'Authorization error (invalid, expired or other-environment token)',
	'412': 'Precondition failed',
	'413': 'Permissions error (the token lacks a scope)',
	'426': 'License expired',
	'427': 'License expired',
	'429': 'Too many requests: more than 5 per second per token',
	'451': 'Under maintenance',
	'500': 'Unexpected server error',
};

/** Every schema with an id, as JSON Schema 2020-12 components referencing each other. */
function componentSchemas(): Record<string, unknown> {
	const { schemas } = z.toJSONSchema(R.serviceSchemas, {
		target: 'draft-2020-12',
		unrepresentable: 'any',
		io: 'output',
		uri: (id) => `#/components/schemas/${id}`,
	}) as { schemas: Record<string, Record<string, unknown>> };
	const out: Record<string, unknown> = {};
	for (const [id, schema] of Object.entries(schemas)) {
		const { $schema: _schema, $id: _id, id: _metaId, ...rest } = schema;
		// The spec shows no bodies except the error's `description`: every other shape is assumed.
		out[id] = id === 'Error' ? rest : { ...rest, 'x-assumed': true };
	}
	return out;
}

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

function pagingParameters(profile: ServiceProfile): unknown[] {
	const p = profile.paging;
	const size = { type: 'integer', minimum: 1, maximum: p.maxPageSize };
	const sizeText = `Page size (ASSUMED default ${p.defaultPageSize}, maximum ${p.maxPageSize})`;
	if (p.style === 'pageNumber') {
		return [
			{ name: p.pageSizeParam, in: 'query', schema: size, description: sizeText },
			{ name: p.pageParam, in: 'query', schema: { type: 'integer', minimum: p.firstPage }, description: `ASSUMED: the page's number, the first is ${p.firstPage} (page-number paging)`, 'x-assumed': true },
		];
	}
	return [
		{ name: p.limitParam, in: 'query', schema: size, description: sizeText },
		{ name: p.offsetParam, in: 'query', schema: { type: 'integer', minimum: 0 }, description: 'ASSUMED: index of the first item (limit/offset paging)', 'x-assumed': true },
	];
}

function listParameters(operation: OperationId, profile: ServiceProfile): unknown[] {
	const { resource } = ENDPOINTS[operation];
	const byField = fieldsOf(resource, profile)?.map((f) => ({ ...f, name: profile.fields[resource as keyof ServiceProfile['fields']][f.name].name }));
	const keywords = FILTER_KEYWORDS.map((k) => `${k} (${(KEYWORD_DATA_TYPES[k] as readonly string[]).join(', ')})`).join('; ');
	const params: unknown[] = [
		...pagingParameters(profile),
		{ name: 'search', in: 'query', schema: { type: 'string' }, description: 'Case-insensitive text search' },
		{
			name: 'ordering',
			in: 'query',
			schema: { type: 'string' },
			description: `<field> ascending, -<field> descending; field = ${byField ? 'a field name' : 'a property key id'}`,
		},
	];
	if (SUPPORTS_ENABLED.has(resource)) {
		params.push({ name: 'enabled', in: 'query', schema: { type: 'string', pattern: '^\\[\\d+(,\\d+)*\\]$' }, description: 'Property key ids to return, written like [1,2]' });
	}
	params.push({
		name: byField ? '<field name>' : '<property key id>',
		in: 'query',
		schema: { type: 'string' },
		description: `Filter: <keyword>"<value>", several conditions as <keyword>AND"<v>"\\<keyword>AND"<v>" (OR likewise). Keywords: ${keywords}.${
			byField ? ` Fields (ASSUMED): ${byField.map((f) => `${f.name} (${f.dataType})`).join(', ')}.` : ''
		}`,
		'x-filter-parameter': true,
	});
	return params;
}

/** The contract of the service laid out as `profile` says (the sandbox serves its own). */
export function buildOpenApi(profile: ServiceProfile = DEFAULT_PROFILE): Record<string, unknown> {
	const components = componentSchemas();
	const errorRef = ref('Error');
	const paths: Record<string, Record<string, unknown>> = {};
	for (const operation of Object.keys(ENDPOINTS) as OperationId[]) {
		const endpoint = endpointOf(operation, profile);
		const c = CONTRACT[operation];
		const body = ref(c.response);
		const parameters: unknown[] = [];
		if (endpoint.path.includes('{id}')) parameters.push({ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_-]*$' } });
		if (c.list) parameters.push(...listParameters(operation, profile));
		if (endpoint.method === 'DELETE') parameters.push({ name: 'direct_delete', in: 'query', schema: { type: 'string' }, description: 'Present: remove completely; absent: to the recycle bin' });
		const responses: Record<string, unknown> = {
			[String(c.status ?? 200)]: { description: c.summary, content: { 'application/json': { schema: body } } },
		};
		for (const [status, description] of Object.entries(ERROR_STATUSES)) {
			responses[status] = { description, content: { 'application/json': { schema: errorRef } } };
		}
		(paths[endpoint.path] ??= {})[endpoint.method.toLowerCase()] = {
			operationId: operation,
			summary: c.summary,
			tags: [endpoint.resource],
			...(endpoint.assumed ? { description: 'ASSUMED: the spec describes this operation without its path or payload.', 'x-assumed': true } : {}),
			parameters,
			...(c.request ? { requestBody: { required: true, content: { 'application/json': { schema: ref(c.request) } } } } : {}),
			responses,
		};
	}
	return {
		openapi: '3.1.0',
		info: {
			title: 'Test Equipment Cloud REST interface',
			version: 'v1',
			description:
				'Generated from the client core and the contract schemas of n8n-nodes-test-equipment-cloud. Parts marked x-assumed are not shown by the published specification. Objects may carry fields not listed here, and enumerations may gain values.',
		},
		servers: [{ url: '{baseUrl}/api/v1', variables: { baseUrl: { default: 'http://127.0.0.1:8787' } } }],
		security: [{ token: [] }],
		paths,
		components: {
			schemas: components,
			securitySchemes: { token: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Token <access token>' } },
		},
	};
}
