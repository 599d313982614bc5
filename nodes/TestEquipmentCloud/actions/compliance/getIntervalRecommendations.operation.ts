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
	longestInterval,
	previousTestsFrom,
	type IntervalGroupBy,
} from '../../../../client';
import { requestOptions } from '../common/list.description';
import { clientFor } from '../common/utils';
import { hintUnmatchedDepartments, intervalSettingsOf, intervalSettingProperties } from '../common/intervalSettings';
import { hintSkipped, invalidTestDates, unknownDeviceResults, unreadableRecords } from '../common/skipped';
import { clock } from '../../transport';

const PERIODS = [24, 36, 48, 60];

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
	...intervalSettingProperties,
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
	const settings = intervalSettingsOf((name, fallback) => this.getNodeParameter(name, i, fallback));
	const onlyChanges = this.getNodeParameter('onlyChanges', i, false) === true;
	const client = await clientFor(this, i);
	const fromOf = (today: string) => addDays(addMonths(today, -months), 1);
	const input = await readRateInputSince(client, (today, devices) => previousTestsFrom(fromOf(today), longestInterval(devices)), clock.now, this.getTimezone());
	const r = intervalRecommendations(input.results, input.devices, input.today, fromOf(input.today), groupBy, settings);
	const t = r.totals;
	hintUnmatchedDepartments(this, settings, input.devices);
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
