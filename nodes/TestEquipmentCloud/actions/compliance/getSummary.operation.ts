import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import {
	COMPLIANCE_GROUP_BY,
	ValidationError,
	historyMonthFigures,
	laterDay,
	monthsUpTo,
	parseMonth,
	readComplianceHistory,
	readComplianceSnapshot,
	readServiceDay,
	snapshotFigures,
	todayOf,
	type ComplianceGroupBy,
} from '../../../../client';
import { requestOptions } from '../common/list.description';
import { clock } from '../../transport';
import { clientFor } from '../common/utils';

const PERIODS = ['now', 'month', 'last12Months'] as const;
type Period = (typeof PERIODS)[number];

/** What a month item says about where its figures come from (the rules of client/rebuild.ts). */
const HISTORY_NOTE =
	'Rebuilt from the test results: after a test the device is next due one test interval later; that due date ends with its next test (on time when on or before it). The current interval, customer and department are used throughout (an approximation where they changed); results of devices no longer listed are not used.';

const properties: INodeProperties[] = [
	{
		displayName: 'Period',
		name: 'period',
		type: 'options',
		default: 'now',
		options: [
			{ name: 'Now', value: 'now', description: 'Devices, overdue and due within 30 days today' },
			{ name: 'Month', value: 'month', description: 'One month’s due dates and how they ended, rebuilt from the test results' },
			{ name: 'Last 12 Months', value: 'last12Months', description: 'The same figures for each of the last 12 months, the current one included' },
		],
		description: 'Today’s snapshot, or the monthly figures of the compliance report (rebuilt from the test results)',
	},
	{
		displayName: 'Month',
		name: 'month',
		type: 'string',
		default: '',
		required: true,
		placeholder: '2026-10',
		description: 'The month (YYYY-MM), not after the current one. A past month is counted as of the first of the next month, the current one as of today.',
		displayOptions: { show: { period: ['month'] } },
	},
	{
		displayName: 'Group By',
		name: 'groupBy',
		type: 'options',
		default: 'all',
		options: [
			{ name: 'All Devices', value: 'all', description: 'One item for the whole account' },
			{ name: 'Customer', value: 'customer', description: 'One item per customer (ID and name)' },
			{ name: 'Department', value: 'department', description: 'One item per department (its name is its ID)' },
		],
		description: 'How to group the devices; devices without a customer or department form a group with ID null',
	},
	...requestOptions(),
];

export const description = updateDisplayOptions({ show: { resource: ['compliance'], operation: ['getSummary'] } }, properties);

/**
 * Now: the compliance snapshot, every device read from the service's lists (largest pages, at the
 * token's rate ceiling), counted per group by the client's compliance figures. A month: the
 * due-date history rebuilt from the test results (the node keeps no history), counted as the
 * monthly report counts it; one item per month and group.
 */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const groupBy = this.getNodeParameter('groupBy', i, 'all') as ComplianceGroupBy;
	if (!COMPLIANCE_GROUP_BY.includes(groupBy)) {
		throw new ValidationError('Group By', `must be one of ${COMPLIANCE_GROUP_BY.join(', ')}, got ${JSON.stringify(groupBy)}`);
	}
	const period = this.getNodeParameter('period', i, 'now') as Period;
	if (!PERIODS.includes(period)) throw new ValidationError('Period', `must be one of ${PERIODS.join(', ')}, got ${JSON.stringify(period)}`);
	const paired = (json: IDataObject): INodeExecutionData => ({ json, pairedItem: { item: i } });
	// The month's form is checked before any request; whether it is past, against today (todayOf).
	const asked = period === 'month' ? parseMonth(this.getNodeParameter('month', i, '')) : undefined;
	const client = await clientFor(this, i);
	if (period === 'now') {
		const { today, devices } = await readComplianceSnapshot(client, clock.now, this.getTimezone());
		return snapshotFigures(devices, today, groupBy).map((figures) => paired({ ...figures, today } as IDataObject));
	}
	// Today by the one rule (client/dates.ts, todayOf): the workflow's day, as its filters and $today.
	const today = todayOf(clock.now(), this.getTimezone());
	const months = asked === undefined ? monthsUpTo(today, 12) : [parseMonth(asked, today)];
	// A result is "future" only after the service's today too: where its day runs ahead, one it dated today counts.
	const history = await readComplianceHistory(client, months[0], laterDay(today, await readServiceDay(client))!);
	const basis = { today, history: 'rebuilt', historySince: history.since, resultsRead: history.resultsRead, skipped: { ...history.skips }, note: HISTORY_NOTE };
	return months.flatMap((month) => historyMonthFigures(history.entries, month, today, groupBy).map((figures) => paired({ ...figures, ...basis } as IDataObject)));
}
