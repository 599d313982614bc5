import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { KEYWORD_DATA_TYPES, type DataType, type FilterKeyword } from '../../../client';
import { DATE_PRESETS, type DatePreset } from './filtersDates';

/**
 * The Filters builders, shared by the action node's lists and the trigger: `filterBuilder`
 * (property first, node version 3 and trigger version 2) and `filtersCollection` (type first,
 * the earlier versions, kept as saved workflows know it).
 */

export const KEYWORD_LABELS: Record<FilterKeyword, string> = {
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

/**
 * The action node's Text values: one left empty on purpose differs from one an expression left
 * empty for an item (`emptyFromExpression`). The trigger has no items: nothing is added there.
 */
export const EMPTY_VALUE_NOTE = '. An expression that gives an empty value is refused (it would match every record); to match on an empty value on purpose, leave Value empty in the form.';
const emptyValueNote = (dependsOn: string) => (dependsOn === 'resource' ? EMPTY_VALUE_NOTE : '');

function conditionValue(dataType: DataType, dependsOn: string): INodeProperties {
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
	return { displayName: 'Value', name: 'value', type: 'string', default: '', description: `The text to compare with${emptyValueNote(dependsOn)}` };
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
						conditionValue(dataType, dependsOn),
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


// ---- property first -----------------------------------------------------------------------------

/** How a key from the list carries its type: `<key>|<type>` (e.g. `12|Date`, `status|Text`). */
export const KEY_TYPE_SEPARATOR = '|';

/**
 * The hidden `type` of a filter: the type after the key's separator; `Any` when the key has none
 * (no key yet, or a plain ID or field name from an expression, which the editor may not be able to
 * resolve without input data): the form then offers every keyword, and the type is looked up
 * when the node runs.
 */
const TYPE_OF_KEY = `={{ String($parameter["&key"] ?? "").split("${KEY_TYPE_SEPARATOR}")[1] || "Any" }}`;

const PRESET_DESCRIPTIONS: Record<DatePreset, string> = {
	withinNext: 'From today to N days ahead, both included (e.g. due in the next 30 days)',
	withinLast: 'From N days ago to today, both included (e.g. tested in the last 7 days)',
};

function presetOptions(): INodePropertyOptions[] {
	return (Object.keys(DATE_PRESETS) as DatePreset[]).map((p) => ({ name: DATE_PRESETS[p], value: p, description: PRESET_DESCRIPTIONS[p] }));
}

const byName = (a: INodePropertyOptions, b: INodePropertyOptions) => a.name.localeCompare(b.name);

const DATE_KEYWORDS = ['sameDate', 'notSameDate', 'newer', 'newerOrSame', 'olderThan', 'olderOrSame'];
const ALL_KEYWORDS = Object.keys(KEYWORD_DATA_TYPES) as FilterKeyword[];

const show = (type: string, more: Record<string, string[]> = {}): INodeProperties['displayOptions'] => ({ show: { type: [type], ...more } });

/** The N of a "Within the …" range (shown for a Date key, and for a key from an expression). */
function rangeDays(displayOptions: INodeProperties['displayOptions']): INodeProperties {
	return {
		displayName: 'Number of Days',
		name: 'days',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 30,
		description: 'How many days the range reaches from today (today is the day in the workflow’s timezone)',
		displayOptions,
	};
}

/** One filter: property, then the condition and value its type takes. */
function builderValues(dependsOn: string): INodeProperties[] {
	return [
		{
			displayName: 'Property or Field Name or ID',
			name: 'key',
			type: 'options',
			typeOptions: { loadOptionsMethod: 'getFilterKeys', loadOptionsDependsOn: [dependsOn] },
			// A key from an expression is a plain ID or field name, not one of the listed `<key>|<type>`.
			allowArbitraryValues: true,
			default: '',
			description: 'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
		},
		{ displayName: 'Type', name: 'type', type: 'hidden', default: TYPE_OF_KEY },
		// Date
		{
			displayName: 'Condition',
			name: 'dateCondition',
			type: 'options',
			options: [...keywordOptions('Date'), ...presetOptions()].sort(byName),
			default: 'sameDate',
			displayOptions: show('Date'),
		},
		rangeDays(show('Date', { dateCondition: Object.keys(DATE_PRESETS) })),
		{
			displayName: 'Date Value',
			name: 'dateValueMode',
			type: 'options',
			options: [
				{ name: 'Days From Today', value: 'relative', description: 'A day counted from the day the workflow runs' },
				{ name: 'Fixed Date', value: 'fixed', description: 'A day picked in the calendar' },
			],
			default: 'fixed',
			displayOptions: show('Date', { dateCondition: DATE_KEYWORDS }),
		},
		{
			displayName: 'Date',
			name: 'dateValue',
			type: 'dateTime',
			default: '',
			description: 'The day to compare with (the time of day is ignored)',
			displayOptions: show('Date', { dateCondition: DATE_KEYWORDS, dateValueMode: ['fixed'] }),
		},
		{
			displayName: 'Days From Today',
			name: 'daysFromToday',
			type: 'number',
			default: 0,
			description:
				'0 is today, 30 is 30 days ahead, -7 is a week ago (today is the day in the workflow’s timezone). E.g. Older Than with 0: before today.',
			displayOptions: show('Date', { dateCondition: DATE_KEYWORDS, dateValueMode: ['relative'] }),
		},
		// Number
		{
			displayName: 'Condition',
			name: 'numberCondition',
			type: 'options',
			options: keywordOptions('Number'),
			default: 'equals',
			displayOptions: show('Number'),
		},
		{
			displayName: 'Value',
			name: 'numberValue',
			type: 'number',
			default: 0,
			description: 'The number to compare with',
			displayOptions: show('Number'),
		},
		// Text
		{
			displayName: 'Condition',
			name: 'textCondition',
			type: 'options',
			options: keywordOptions('Text'),
			default: 'contains',
			displayOptions: show('Text'),
		},
		{
			displayName: 'Value',
			name: 'textValue',
			type: 'string',
			default: '',
			description: `The text to compare with${emptyValueNote(dependsOn)}`,
			displayOptions: show('Text'),
		},
		// A key from an expression: every keyword, checked against the key's type when the node runs.
		{
			displayName: 'Condition',
			name: 'condition',
			type: 'options',
			options: [...ALL_KEYWORDS.map((k) => ({ name: KEYWORD_LABELS[k], value: k })), ...presetOptions()].sort(byName),
			default: 'equals',
			description: 'How to compare; it must suit the type of the property or field (checked when the node runs)',
			displayOptions: show('Any'),
		},
		rangeDays(show('Any', { condition: Object.keys(DATE_PRESETS) })),
		{
			displayName: 'Value',
			name: 'value',
			type: 'string',
			default: '',
			placeholder: 'e.g. Workshop, 12 or 2026-03-20',
			description: `The text, number or day (YYYY-MM-DD) to compare with${emptyValueNote(dependsOn)}`,
			displayOptions: { show: { type: ['Any'] }, hide: { condition: Object.keys(DATE_PRESETS) } },
		},
	];
}

/**
 * The property-first Filters (node version 3, trigger version 2) and how conditions on one
 * property combine. `dependsOn` names the parameter that decides the list, as for
 * `filtersCollection`; `displayOptions` says which versions show them.
 */
export function filterBuilder(dependsOn: string, displayOptions: INodeProperties['displayOptions']): INodeProperties[] {
	return [
		{
			displayName: 'Filters',
			name: 'filters',
			type: 'fixedCollection',
			placeholder: 'Add Filter',
			typeOptions: { multipleValues: true },
			default: {},
			description:
				'Only records that match. Choose a property (customers, devices, overdue devices) or field (other lists): its type decides the conditions. A key given by an expression (a property key ID or field name) gets its type from the account when the node runs. Filters on different properties must all match; several on one property combine as set in Conditions on One Property.',
			options: [{ displayName: 'Filter', name: 'filter', values: builderValues(dependsOn) }],
			displayOptions,
		},
		{
			displayName: 'Conditions on One Property',
			name: 'filterJoin',
			type: 'options',
			options: [
				{ name: 'All Must Match (AND)', value: 'AND', description: 'For example Next Test Date after 2026-01-01 and before 2026-07-01' },
				{
					name: 'Any May Match (OR)',
					value: 'OR',
					description: 'For example Department equals Workshop or equals Lab. A "Within the …" range needs AND: it cannot share its property with other conditions here.',
				},
			],
			default: 'AND',
			description: 'How several filters on the same property combine (the service joins them with one operator per property)',
			displayOptions,
		},
	];
}
