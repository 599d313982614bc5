import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { COMPLIANCE_GROUP_BY, FORECAST_OVERDUE_RULE, ValidationError, forecast, readForecastInput, type ComplianceGroupBy } from '../../../../client';
import { requestOptions } from '../common/list.description';
import { clock } from '../../transport';
import { clientFor } from '../common/utils';

/** The rule of the figures, in every item. */
const FORECAST_NOTE = `Each device is assumed to be tested on its due date and falls due again one test interval later. ${FORECAST_OVERDUE_RULE} A device without a usable interval falls due once, on its next test date.`;

const properties: INodeProperties[] = [
	{
		displayName: 'Group By',
		name: 'groupBy',
		type: 'options',
		default: 'all',
		options: [
			{ name: 'All Devices', value: 'all', description: 'Twelve items for the whole account' },
			{ name: 'Customer', value: 'customer', description: 'Twelve items per customer (ID and name)' },
			{ name: 'Department', value: 'department', description: 'Twelve items per department (its name is its ID)' },
		],
		description: 'How to group the devices; devices without a customer or department form a group with ID null',
	},
	...requestOptions(),
];

export const description = updateDisplayOptions({ show: { resource: ['compliance'], operation: ['getForecast'] } }, properties);

/**
 * The due dates of each of the next 12 months per group, with the devices overdue now: every
 * device and customer read from the service's lists, counted by the client's `forecast`. One item
 * per group and month (a row of a spreadsheet, a point of a chart), as Get Summary's months.
 */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const groupBy = this.getNodeParameter('groupBy', i, 'all') as ComplianceGroupBy;
	if (!COMPLIANCE_GROUP_BY.includes(groupBy)) {
		throw new ValidationError('Group By', `must be one of ${COMPLIANCE_GROUP_BY.join(', ')}, got ${JSON.stringify(groupBy)}`);
	}
	const client = await clientFor(this, i);
	const input = await readForecastInput(client, clock.now, this.getTimezone());
	const f = forecast(input.devices, input.today, groupBy);
	const basis = { today: f.today, from: f.from, to: f.to, skippedRecords: input.skippedRecords, note: FORECAST_NOTE };
	return f.groups.flatMap(({ months, ...group }) =>
		months.map((m) => ({
			json: { group: group.group, id: group.id, name: group.name, month: m.month, due: m.due, overdueNow: group.overdue, devices: group.devices, withoutDueDate: group.withoutDueDate, withoutInterval: group.withoutInterval, dueInHorizon: group.dueInHorizon, ...basis } as IDataObject,
			pairedItem: { item: i },
		})),
	);
}
