import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { COMPLIANCE_GROUP_BY, ValidationError, readComplianceSnapshot, snapshotFigures, type ComplianceGroupBy } from '../../../../client';
import { requestOptions } from '../common/list.description';
import { clientFor } from '../common/utils';

const properties: INodeProperties[] = [
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
 * The compliance snapshot now: every device read from the service's lists (largest pages, at the
 * token's rate ceiling), counted per group by the client's compliance figures.
 */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const groupBy = this.getNodeParameter('groupBy', i, 'all') as ComplianceGroupBy;
	if (!COMPLIANCE_GROUP_BY.includes(groupBy)) {
		throw new ValidationError('Group By', `must be one of ${COMPLIANCE_GROUP_BY.join(', ')}, got ${JSON.stringify(groupBy)}`);
	}
	const client = await clientFor(this, i);
	const { today, devices } = await readComplianceSnapshot(client);
	return snapshotFigures(devices, today, groupBy).map((figures) => ({ json: { ...figures, today } as IDataObject, pairedItem: { item: i } }));
}
