import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import {
	INTERVAL_GROUP_BY,
	INTERVAL_WINDOW,
	ValidationError,
	addDays,
	addMonths,
	intervalRecommendations,
	readRateInputSince,
	intervalSettingsProblem,
	longestInterval,
	previousTestsFrom,
	type DepartmentIntervalLimits,
	type DguvEnvironment,
	type IntervalGroupBy,
	type IntervalSettings,
} from '../../../../client';
import { requestOptions } from '../common/list.description';
import { clientFor } from '../common/utils';
import { hintSkipped, invalidTestDates, unknownDeviceResults, unreadableRecords } from '../common/skipped';
import { clock } from '../../transport';

const PERIODS = [24, 36, 48, 60];

const DISPLAY_NAMES: Record<string, string> = {
	reliabilityTarget: 'Reliability Target',
	confidence: 'Change Confidence',
	defaultEnvironment: 'Environment',
	minMonths: 'Minimum Interval (Months)',
};

const environmentOptions = [
	{ name: 'Construction Site (DGUV V3: at Most 12 Months)', value: 'constructionSite' },
	{ name: 'Office or Similar (DGUV V3: at Most 24 Months)', value: 'office' },
	{ name: 'Workshop, Production or Similar (DGUV V3: at Most 12 Months)', value: 'workshop' },
];

const properties: INodeProperties[] = [
	{
		displayName: 'Group By',
		name: 'groupBy',
		type: 'options',
		default: 'designation',
		options: [
			{ name: 'Device Type', value: 'designation', description: 'One item per designation and current interval' },
			{ name: 'Device Type Within Department', value: 'designationDepartment', description: 'One item per designation, department and current interval' },
		],
		description: 'How to group the devices; the interval test judges one interval, so each current interval of a group is an item of its own',
	},
	{
		displayName: 'Period',
		name: 'months',
		type: 'options',
		default: 36,
		options: PERIODS.map((m) => ({ name: `Last ${m} Months`, value: m })),
		description: "The results read: those dated after the same day this many months before today (in the workflow's time zone); results before them (up to 1.25 of the longest interval) are read only as the previous tests of the first ones",
	},
	{
		displayName: 'Reliability Target',
		name: 'reliabilityTarget',
		type: 'number',
		default: 0.98,
		typeOptions: { minValue: 0.5, maxValue: 0.999, numberPrecision: 3 },
		description: 'The share of tests that should pass at the end of an interval: 0.98 is DGUV V3’s 2 % failures',
	},
	{
		displayName: 'Change Confidence',
		name: 'confidence',
		type: 'number',
		default: 0.5,
		typeOptions: { minValue: 0, maxValue: 0.99, numberPrecision: 2 },
		description: 'The two-sided confidence of the limits the target is compared with: an interval is changed only when the target lies outside them',
	},
	{
		displayName: 'Environment',
		name: 'defaultEnvironment',
		type: 'options',
		default: 'workshop',
		options: environmentOptions,
		description: 'The environment of a department without limits of its own below; it sets the longest interval recommended (DGUV V3 Table 1B)',
	},
	{
		displayName: 'Minimum Interval (Months)',
		name: 'minMonths',
		type: 'number',
		default: 1,
		typeOptions: { minValue: 1, maxValue: 120, numberPrecision: 0 },
		description: 'The shortest interval recommended, where a department does not set its own; at most the Environment’s maximum (12 or 24 months)',
	},
	{
		displayName: 'Department Limits',
		name: 'departmentLimits',
		type: 'fixedCollection',
		placeholder: 'Add Department',
		typeOptions: { multipleValues: true },
		default: {},
		options: [
			{
				displayName: 'Department',
				name: 'department',
				values: [
					{ displayName: 'Department', name: 'name', type: 'string', default: '', description: 'The department, as the devices name it' },
					{ displayName: 'Environment', name: 'environment', type: 'options', default: 'workshop', options: environmentOptions },
					{ displayName: 'Minimum Interval (Months)', name: 'minMonths', type: 'number', default: 0, description: '0 for the minimum above' },
					{ displayName: 'Maximum Interval (Months)', name: 'maxMonths', type: 'number', default: 0, description: '0 for the environment’s DGUV V3 maximum' },
				],
			},
		],
	},
	{
		displayName: 'Only Changes',
		name: 'onlyChanges',
		type: 'boolean',
		default: false,
		description: 'Whether to return only the groups whose recommended interval differs from the current one',
	},
	...requestOptions(),
];

export const description = updateDisplayOptions({ show: { resource: ['compliance'], operation: ['getIntervalRecommendations'] } }, properties);

function number(value: unknown, name: string): number {
	const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
	if (!Number.isFinite(n)) throw new ValidationError(name, `must be a number, got ${JSON.stringify(value)}`);
	return n;
}

function settingsOf(ctx: IExecuteFunctions, i: number): IntervalSettings {
	const departments: Record<string, DepartmentIntervalLimits> = {};
	const rows = ((ctx.getNodeParameter('departmentLimits', i, {}) as IDataObject).department ?? []) as IDataObject[];
	for (const row of rows) {
		const name = typeof row.name === 'string' ? row.name.trim() : '';
		if (name === '') throw new ValidationError('Department Limits', 'each row needs the department’s name');
		const min = number(row.minMonths ?? 0, `Department Limits (${name}): Minimum Interval`);
		const max = number(row.maxMonths ?? 0, `Department Limits (${name}): Maximum Interval`);
		departments[name] = { environment: (row.environment ?? 'workshop') as DguvEnvironment, ...(min === 0 ? {} : { minMonths: min }), ...(max === 0 ? {} : { maxMonths: max }) };
	}
	return {
		reliabilityTarget: number(ctx.getNodeParameter('reliabilityTarget', i, 0.98), 'Reliability Target'),
		confidence: number(ctx.getNodeParameter('confidence', i, 0.5), 'Change Confidence'),
		defaultEnvironment: ctx.getNodeParameter('defaultEnvironment', i, 'workshop') as DguvEnvironment,
		minMonths: number(ctx.getNodeParameter('minMonths', i, 1), 'Minimum Interval'),
		departments,
	};
}

/**
 * Interval recommendations per device type (or type within department) and current interval by
 * NCSLI RP-1 method A3, the interval test (client/intervals.ts): every device and the results of
 * the period, read at the token's rate ceiling. Nothing is written to the service: each item's
 * reason says that setting the interval is the employer's decision.
 */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const groupBy = this.getNodeParameter('groupBy', i, 'designation') as IntervalGroupBy;
	if (!INTERVAL_GROUP_BY.includes(groupBy)) {
		throw new ValidationError('Group By', `must be one of ${INTERVAL_GROUP_BY.join(', ')} (designation = Device Type), got ${JSON.stringify(groupBy)}`);
	}
	const months = Number(this.getNodeParameter('months', i, 36));
	if (!PERIODS.includes(months)) throw new ValidationError('Period', `must be ${PERIODS.join(', ')} months, got ${JSON.stringify(months)}`);
	const settings = settingsOf(this, i);
	const problem = intervalSettingsProblem(settings);
	// The client names its settings; the user sees the parameters' names.
	if (problem) throw new ValidationError(DISPLAY_NAMES[problem.setting] ?? problem.setting.replace(/^departments\[(.*?)\]/, 'Department Limits ($1)'), problem.message);
	const onlyChanges = this.getNodeParameter('onlyChanges', i, false) === true;
	const client = await clientFor(this, i);
	const fromOf = (today: string) => addDays(addMonths(today, -months), 1);
	const input = await readRateInputSince(client, (today, devices) => previousTestsFrom(fromOf(today), longestInterval(devices)), clock.now, this.getTimezone());
	const r = intervalRecommendations(input.results, input.devices, input.today, fromOf(input.today), groupBy, settings);
	const t = r.totals;
	hintSkipped(
		this,
		[
			t.devicesWithoutInterval > 0 &&
				`${t.devicesWithoutInterval} ${t.devicesWithoutInterval === 1 ? 'device' : 'devices'} without a usable test interval skipped (${t.devicesWithoutInterval === 1 ? 'its' : 'their'} ${t.resultsOfDevicesWithoutInterval} ${t.resultsOfDevicesWithoutInterval === 1 ? 'result' : 'results'} of the period not used)`,
			t.unknownDevices > 0 && unknownDeviceResults(t.unknownDevices),
			t.futureTests > 0 && `${t.futureTests} ${t.futureTests === 1 ? 'result' : 'results'} dated after today skipped`,
			t.invalidTestDate > 0 && invalidTestDates(t.invalidTestDate),
			input.skippedRecords > 0 && unreadableRecords(input.skippedRecords),
		].filter((p): p is string => p !== false),
		'Interval recommendations',
	);
	const common = { months, from: r.from, to: r.today, today: r.today, window: { ...INTERVAL_WINDOW }, ...r.totals, skippedRecords: input.skippedRecords };
	return r.groups
		.filter((g) => !onlyChanges || g.change !== 'keep')
		.map((g) => ({ json: { ...g, ...common } as unknown as IDataObject, pairedItem: { item: i } }));
}
