import type { INodeProperties } from 'n8n-workflow';
import { recordLocator } from './locators';

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
						displayOptions: { show: { inputMode: ['fields'], '@version': [1] } },
					} satisfies INodeProperties,
					{
						...recordLocator({
							name: 'customer',
							displayName: 'Customer',
							searchListMethod: 'searchCustomers',
							placeholder: 'e.g. 1042',
							url: true,
							required: false,
						}),
						description: args.update
							? 'Move the device to this customer (leave empty to keep the current one)'
							: 'The customer that owns the device (optional)',
						displayOptions: { show: { inputMode: ['fields'], '@version': [{ _cnd: { gte: 2 } }] } },
					} satisfies INodeProperties,
				]
			: []),
		propertyValuesProperty({ show: { inputMode: ['fields'], '@version': [1] } }),
		propertyMapperProperty(args.update ? 'map' : 'add', { show: { inputMode: ['fields'], '@version': [{ _cnd: { gte: 2 } }] } }),
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

/**
 * Version 2's property form: n8n's resource mapper with the account's properties and their
 * types (date picker, numbers, choices), mapped by hand or automatically from input fields
 * named like the properties.
 */
export function propertyMapperProperty(mode: 'add' | 'map', displayOptions?: INodeProperties['displayOptions']): INodeProperties {
	return {
		displayName: 'Properties',
		name: 'fields',
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null },
		required: true,
		typeOptions: {
			loadOptionsDependsOn: ['resource'],
			resourceMapper: {
				resourceMapperMethod: 'getPropertyFields',
				mode,
				fieldWords: { singular: 'property', plural: 'properties' },
				addAllFields: mode === 'add',
				multiKeyMatch: false,
				supportAutoMap: true,
				noFieldsError: 'The account has no properties for this resource',
			},
		},
		...(displayOptions ? { displayOptions } : {}),
	};
}
