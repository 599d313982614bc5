import type { INodeProperties } from 'n8n-workflow';

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

