import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { KEYWORD_DATA_TYPES, type DataType, type FilterKeyword } from '../../../../client';

/** Small building blocks the operation descriptions are composed from. */

export type ListResource = 'customer' | 'device' | 'overdueDevice' | 'testResult' | 'project' | 'subUser' | 'recycleBin';
export type PropertyResource = 'customer' | 'device' | 'overdueDevice';

export const PROPERTY_RESOURCES: readonly string[] = ['customer', 'device', 'overdueDevice'];

export function isPropertyResource(resource: string): resource is PropertyResource {
	return PROPERTY_RESOURCES.includes(resource);
}

const KEYWORD_LABELS: Record<FilterKeyword, string> = {
	equals: 'Equals',
	notEquals: 'Not Equals',
	sameDate: 'Same Date',
	notSameDate: 'Not Same Date',
	startsWith: 'Starts With',
	notStartsWith: 'Not Starts With',
	endsWith: 'Ends With',
	notEndsWith: 'Not Ends With',
	contains: 'Contains',
	notContains: 'Not Contains',
	greaterThan: 'Greater Than',
	greaterThanOrEquals: 'Greater Than or Equals',
	lessThan: 'Less Than',
	lessThanOrEquals: 'Less Than or Equals',
	newer: 'Newer Than',
	newerOrSame: 'Newer or Same',
	olderThan: 'Older Than',
	olderOrSame: 'Older or Same',
};

/** The keyword a new condition starts with. */
const DEFAULT_KEYWORD: Record<DataType, FilterKeyword> = { Date: 'sameDate', Number: 'equals', Text: 'contains' };

function keywordOptions(dataType: DataType): INodePropertyOptions[] {
	return (Object.keys(KEYWORD_DATA_TYPES) as FilterKeyword[])
		.filter((k) => (KEYWORD_DATA_TYPES[k] as readonly DataType[]).includes(dataType))
		.map((k) => ({ name: KEYWORD_LABELS[k], value: k }))
		.sort((a, b) => a.name.localeCompare(b.name));
}

const KEY_DESCRIPTION =
	'The property (customers, devices, overdue devices) or field (other lists) to filter on. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.';

function conditionValue(dataType: DataType): INodeProperties {
	if (dataType === 'Number') {
		return { displayName: 'Value', name: 'value', type: 'number', default: 0, description: 'The number to compare with' };
	}
	if (dataType === 'Date') {
		return {
			displayName: 'Value',
			name: 'value',
			type: 'string',
			default: '',
			placeholder: 'YYYY-MM-DD',
			description: 'The day to compare with, written YYYY-MM-DD (a full ISO timestamp is cut to its day)',
		};
	}
	return { displayName: 'Value', name: 'value', type: 'string', default: '', description: 'The text to compare with' };
}

function filterValues(dataType: DataType, dependsOn: string): INodeProperties[] {
	const keywords = keywordOptions(dataType);
	const defaultKeyword = DEFAULT_KEYWORD[dataType];
	return [
		{
			displayName: `${dataType} Property or Field Name or ID`,
			name: 'key',
			type: 'options',
			typeOptions: { loadOptionsMethod: `get${dataType}Keys`, loadOptionsDependsOn: [dependsOn] },
			default: '',
			description: KEY_DESCRIPTION,
		},
		{
			displayName: 'Conditions',
			name: 'conditions',
			type: 'fixedCollection',
			placeholder: 'Add Condition',
			typeOptions: { multipleValues: true },
			default: {},
			options: [
				{
					displayName: 'Condition',
					name: 'condition',
					values: [
						{
							displayName: 'Keyword',
							name: 'keyword',
							type: 'options',
							options: keywords,
							default: defaultKeyword,
							description: `How to compare (the keywords that apply to ${dataType} values)`,
						},
						conditionValue(dataType),
					],
				},
			],
		},
		{
			displayName: 'Combine Conditions With',
			name: 'join',
			type: 'options',
			options: [
				{ name: 'AND', value: 'AND', description: 'Every condition must hold' },
				{ name: 'OR', value: 'OR', description: 'At least one condition must hold' },
			],
			default: 'AND',
			description: 'Used when the filter has more than one condition',
		},
	];
}

/**
 * The Filters collection. `dependsOn` names the parameter that decides which list the keys come
 * from: `resource` in the action node, `event` in the trigger.
 */
export function filtersCollection(dependsOn = 'resource'): INodeProperties {
	return {
		displayName: 'Filters',
		name: 'filters',
		type: 'fixedCollection',
		placeholder: 'Add Filter',
		typeOptions: { multipleValues: true },
		default: {},
		description: 'Filters on properties or fields; all filters must match. Each filter has one or more conditions.',
		options: [
			{ displayName: 'Date Filter', name: 'date', values: filterValues('Date', dependsOn) },
			{ displayName: 'Number Filter', name: 'number', values: filterValues('Number', dependsOn) },
			{ displayName: 'Text Filter', name: 'text', values: filterValues('Text', dependsOn) },
		],
	};
}

export const filtersProperty: INodeProperties = filtersCollection('resource');

export const returnAllProperty: INodeProperties = {
	displayName: 'Return All',
	name: 'returnAll',
	type: 'boolean',
	default: false,
	description: 'Whether to return all results or only up to a given limit',
};

export const limitProperty: INodeProperties = {
	displayName: 'Limit',
	name: 'limit',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: 50,
	description: 'Max number of results to return',
	displayOptions: { show: { returnAll: [false] } },
};

export const maxRetryWaitOption: INodeProperties = {
	displayName: 'Max Retry Wait (Seconds)',
	name: 'maxRetryWait',
	type: 'number',
	typeOptions: { minValue: 0 },
	default: 90,
	description:
		'How long one request may wait in all for the rate limit (HTTP 429), maintenance (HTTP 451) or temporary server errors before the node fails. 0 fails at the first such answer.',
};

export const timeoutOption: INodeProperties = {
	displayName: 'Timeout (Seconds)',
	name: 'timeout',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: 30,
	description:
		'How long to wait for the service to answer one request. A request that times out is repeated within Max Retry Wait, except a create, which is never sent twice.',
};

export const simplifyOption: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: false,
	description: 'Whether to return the properties as one object of name → value instead of the list the service sends',
};

function listOptions(resource: ListResource): INodeProperties {
	const properties = isPropertyResource(resource);
	const options: INodeProperties[] = [
		maxRetryWaitOption,
		timeoutOption,
		...(properties
			? [
					{
						displayName: 'Properties to Return Names or IDs',
						name: 'enabled',
						type: 'multiOptions',
						typeOptions: { loadOptionsMethod: 'getPropertyKeys', loadOptionsDependsOn: ['resource'] },
						default: [],
						description:
							'Which properties each record carries (default: all). Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
					} satisfies INodeProperties,
				]
			: []),
		{
			displayName: 'Search',
			name: 'search',
			type: 'string',
			default: '',
			description: 'Only records that contain this text',
		},
		...(properties ? [simplifyOption] : []),
		{
			displayName: 'Sort',
			name: 'sort',
			type: 'fixedCollection',
			placeholder: 'Add Sort Rule',
			default: {},
			options: [
				{
					displayName: 'Sort Rule',
					name: 'rule',
					values: [
						{
							displayName: properties ? 'Property Name or ID' : 'Field Name or ID',
							name: 'key',
							type: 'options',
							typeOptions: { loadOptionsMethod: 'getSortKeys', loadOptionsDependsOn: ['resource'] },
							default: '',
							description:
								'What to sort by. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
						},
						{
							displayName: 'Direction',
							name: 'direction',
							type: 'options',
							options: [
								{ name: 'Ascending', value: 'asc' },
								{ name: 'Descending', value: 'desc' },
							],
							default: 'asc',
						},
					],
				},
			],
		},
	];
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options,
	};
}

/** Get Many: Return All / Limit, Filters, and the list options of the resource. */
export function listProperties(resource: ListResource): INodeProperties[] {
	return [returnAllProperty, limitProperty, filtersProperty, listOptions(resource)];
}

/** The options collection of operations that are not lists. */
export function requestOptions(withSimplify = false): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: withSimplify ? [maxRetryWaitOption, timeoutOption, simplifyOption] : [maxRetryWaitOption, timeoutOption],
	};
}

/** A resource locator for one record: pick from a searchable list, or give the ID. */
export function recordLocator(args: {
	name: string;
	displayName: string;
	searchListMethod: string;
	placeholder: string;
}): INodeProperties {
	return {
		displayName: args.displayName,
		name: args.name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: args.searchListMethod, searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: args.placeholder,
				validation: [
					{
						type: 'regex',
						properties: {
							regex: '^[A-Za-z0-9][A-Za-z0-9_-]*$',
							errorMessage: 'An ID is letters, digits, "-" or "_" (for example 1042)',
						},
					},
				],
			},
		],
	};
}

/** Create / Update input: form fields or JSON. */
export function writeProperties(args: { resource: 'customer' | 'device'; update: boolean }): INodeProperties[] {
	const example =
		args.resource === 'device'
			? args.update
				? '{\n  "id": 1,\n  "properties": { "4": "Workshop" }\n}'
				: '{\n  "customer_id": 1,\n  "properties": { "1": "Drill", "4": "Workshop" }\n}'
			: args.update
				? '{\n  "id": 1,\n  "properties": { "103": "Berlin" }\n}'
				: '{\n  "properties": { "101": "ACME GmbH" }\n}';
	return [
		{
			displayName: 'Input',
			name: 'inputMode',
			type: 'options',
			noDataExpression: true,
			options: [
				{ name: 'Form Fields', value: 'fields', description: 'Set properties one by one' },
				{
					name: 'JSON',
					value: 'json',
					description: 'One object or an array of objects, as the service accepts them',
				},
			],
			default: 'fields',
		},
		{
			displayName: 'JSON',
			name: 'json',
			type: 'json',
			default: example,
			required: true,
			description: args.update
				? 'One object or an array; each has the "id" of the record and "properties" (property key ID → value)'
				: 'One object or an array; each has "properties" (property key ID → value)',
			displayOptions: { show: { inputMode: ['json'] } },
		},
		...(args.resource === 'device'
			? [
					{
						displayName: 'Customer ID',
						name: 'customerId',
						type: 'string',
						default: '',
						description: args.update
							? 'Move the device to this customer (leave empty to keep the current one)'
							: 'The customer that owns the device (optional)',
						displayOptions: { show: { inputMode: ['fields'] } },
					} satisfies INodeProperties,
				]
			: []),
		propertyValuesProperty({ show: { inputMode: ['fields'] } }),
	];
}

export function propertyValuesProperty(displayOptions?: INodeProperties['displayOptions']): INodeProperties {
	return {
		displayName: 'Properties',
		name: 'propertyValues',
		type: 'fixedCollection',
		placeholder: 'Add Property',
		typeOptions: { multipleValues: true },
		default: {},
		...(displayOptions ? { displayOptions } : {}),
		options: [
			{
				displayName: 'Property',
				name: 'property',
				values: [
					{
						displayName: 'Property Name or ID',
						name: 'key',
						type: 'options',
						typeOptions: { loadOptionsMethod: 'getPropertyKeys', loadOptionsDependsOn: ['resource'] },
						default: '',
						description:
							'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
					},
					{
						displayName: 'Value',
						name: 'value',
						type: 'string',
						default: '',
						description: 'Numbers as digits, dates as YYYY-MM-DD; empty clears the property',
					},
				],
			},
		],
	};
}
