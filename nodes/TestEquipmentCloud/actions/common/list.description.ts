import type { INodeProperties } from 'n8n-workflow';
import { filterBuilder, filtersCollection } from '../../shared/filters.description';
import { FROM_VERSION_2, FROM_VERSION_3, UP_TO_VERSION_2, VERSION_1, maxRetryWaitOption, simplifyOption, simplifyParameter, timeoutOption } from '../../shared/options';
import { isPropertyResource, type ListResource } from '../../shared/resources';

/** Get Many's Return All / Limit and list options; the options of single-record operations. */

/** Versions 1 and 2: a filter type first, then the property (saved workflows keep it). */
export const filtersProperty: INodeProperties = { ...filtersCollection('resource'), displayOptions: UP_TO_VERSION_2 };

/** From version 3: the property first, its type inferred. */
export const filterBuilderProperties: INodeProperties[] = filterBuilder('resource', FROM_VERSION_3);

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

/** How many records Get Many returns when Return All is off and no Limit is set (written once, above). */
export const DEFAULT_LIMIT = limitProperty.default as number;

function listOptions(resource: ListResource, version: 1 | 2): INodeProperties {
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
		...(properties && version === 1 ? [simplifyOption] : []),
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
		displayOptions: version === 1 ? VERSION_1 : FROM_VERSION_2,
	};
}

/** Get Many: Return All / Limit, Filters, and the list options of the resource. */
export function listProperties(resource: ListResource): INodeProperties[] {
	return [
		returnAllProperty,
		limitProperty,
		filtersProperty,
		...filterBuilderProperties,
		...(isPropertyResource(resource) ? [simplifyParameter] : []),
		listOptions(resource, 1),
		listOptions(resource, 2),
	];
}

/**
 * The options of operations that are not lists; with Simplify for records with properties
 * (version 1: under Options, off; from version 2: on the form, on).
 */
export function requestOptions(withSimplify = false): INodeProperties[] {
	const options = (version: 1 | 2): INodeProperties => ({
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: withSimplify && version === 1 ? [maxRetryWaitOption, timeoutOption, simplifyOption] : [maxRetryWaitOption, timeoutOption],
		displayOptions: version === 1 ? VERSION_1 : FROM_VERSION_2,
	});
	if (withSimplify) return [simplifyParameter, options(1), options(2)];
	// Without Simplify the options are the same in every version: shown without a version filter.
	const plain = options(1);
	delete plain.displayOptions;
	return [plain];
}

