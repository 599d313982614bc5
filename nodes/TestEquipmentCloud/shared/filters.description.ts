import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { KEYWORD_DATA_TYPES, type DataType, type FilterKeyword } from '../../../client';

/** The Filters builder, shared by the action node's lists and the trigger. */

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

