import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import {
	FAILURE_RATE_GROUP_BY,
	FAILURE_RATE_MONTHS,
	INTERVAL_DECISION_NOTE,
	ValidationError,
	failureRates,
	isMarked,
	readFailureRateInput,
	type FailureRateGroupBy,
	type FailureRateMonths,
} from '../../../../client';
import { requestOptions } from '../common/list.description';
import { clock } from '../../transport';
import { clientFor } from '../common/utils';
import { hintSkipped, invalidTestDates, unknownDeviceResults, unreadableRecords } from '../common/skipped';

const properties: INodeProperties[] = [
	{
		displayName: 'Group By',
		name: 'groupBy',
		type: 'options',
		default: 'designation',
		options: [
			{ name: 'Customer', value: 'customer', description: 'One item per customer (ID and name)' },
			{ name: 'Department', value: 'department', description: 'One item per department (its name is its ID)' },
			{ name: 'Device Type', value: 'designation', description: 'One item per designation (its text is its ID)' },
		],
		description: 'How to group the devices; devices without a designation, customer or department form a group with ID null',
	},
	{
		displayName: 'Period',
		name: 'months',
		type: 'options',
		default: 12,
		options: [
			{ name: 'Last 12 Months', value: 12 },
			{ name: 'Last 24 Months', value: 24 },
		],
		description: "The tests counted: those dated after the same day 12 or 24 months before today (in the workflow's time zone), up to today",
	},
	{
		displayName: 'Only Marked Groups',
		name: 'onlyMarked',
		type: 'boolean',
		default: false,
		description: 'Whether to return only the groups marked below 2 % (95 % upper bound under 2 %) or above 2 % (95 % lower bound over 2 %)',
	},
	...requestOptions(),
];

export const description = updateDisplayOptions({ show: { resource: ['compliance'], operation: ['getFailureRates'] } }, properties);

/**
 * Failure rates per group over the period, with their exact one-sided 95 % bounds (Clopper–Pearson),
 * the 2 % marks of DGUV V3 Table 1B read from them and the tests a group still needs: every device
 * and customer, and the test results of the period (filtered by test date, every page), read at
 * the token's rate ceiling and counted by the client's `failureRates`. Each item says that setting
 * the interval is the employer's decision; the figures are its evidence.
 */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const groupBy = this.getNodeParameter('groupBy', i, 'designation') as FailureRateGroupBy;
	if (!FAILURE_RATE_GROUP_BY.includes(groupBy)) {
		throw new ValidationError('Group By', `must be one of ${FAILURE_RATE_GROUP_BY.join(', ')} (designation = Device Type), got ${JSON.stringify(groupBy)}`);
	}
	const months = Number(this.getNodeParameter('months', i, 12)) as FailureRateMonths;
	if (!FAILURE_RATE_MONTHS.includes(months)) throw new ValidationError('Period', `must be ${FAILURE_RATE_MONTHS.join(' or ')} months, got ${JSON.stringify(months)}`);
	const onlyMarked = this.getNodeParameter('onlyMarked', i, false) === true;
	const client = await clientFor(this, i);
	const input = await readFailureRateInput(client, months, clock.now, this.getTimezone());
	const rates = failureRates(input.results, input.devices, input.today, months, groupBy, input.scrapped ?? []);
	const { unknownDevices, invalidTestDate, scrappedNotGrouped } = rates.totals;
	const unknownStatus = rates.totals.unknownStatus;
	hintSkipped(
		this,
		[
			unknownDevices > 0 && unknownDeviceResults(unknownDevices),
			unknownStatus > 0 && `${unknownStatus} ${unknownStatus === 1 ? 'result' : 'results'} neither passed nor failed skipped`,
			invalidTestDate > 0 && invalidTestDates(invalidTestDate),
			scrappedNotGrouped > 0 && `${scrappedNotGrouped} scrapped ${scrappedNotGrouped === 1 ? 'device' : 'devices'} in no group skipped (the recycle bin keeps no department or customer)`,
			input.skippedRecords > 0 && unreadableRecords(input.skippedRecords),
		].filter((p): p is string => p !== false),
		'Failure rates that justify test intervals',
	);
	const scrappedCounted = input.scrapped !== null && input.scrapped !== undefined;
	const period = { months, from: rates.from, to: rates.to, today: rates.today, limit: rates.limit, confidence: rates.confidence };
	return rates.groups
		.filter((g) => !onlyMarked || isMarked(g.verdict))
		.map((g) => ({
			json: { ...g, ...period, unknownDevices, invalidTestDate, scrappedNotGrouped, scrappedCounted, skippedRecords: input.skippedRecords, note: INTERVAL_DECISION_NOTE } as IDataObject,
			pairedItem: { item: i },
		}));
}
