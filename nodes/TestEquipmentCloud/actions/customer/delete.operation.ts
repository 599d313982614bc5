import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { requestOptions } from '../common/list.description';
import { recordLocator } from '../common/locators';
import { clientFor, hintUnknownBinEntry, idParameter, toItems } from '../common/utils';
import type { WriteCheck } from '../../transport';

const properties: INodeProperties[] = [
	{
		...recordLocator({ name: 'customerId', displayName: 'Customer', searchListMethod: 'searchCustomers', placeholder: 'e.g. 1042' }),
		description: 'The customer to delete',
	},
	{
		displayName: 'Delete Permanently',
		name: 'deletePermanently',
		type: 'boolean',
		default: false,
		description:
			'Whether to remove the customer completely (direct_delete). Off: it moves to the recycle bin and can be restored.',
	},
	...requestOptions(),
];

export const description = updateDisplayOptions({ show: { resource: ['customer'], operation: ['delete'] } }, properties);

/** What to look for when the answer was lost: the write may have been applied. */
export const write: WriteCheck = {
	operation: 'Customer Delete',
	check: 'find the customer in the recycle bin (Recycle Bin › Get Many with a filter item_id = its ID)',
};

export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const id = idParameter(this, 'customerId', i);
	const permanently = this.getNodeParameter('deletePermanently', i, false) as boolean;
	const client = await clientFor(this, i);
	const result = await client.delete('customer.delete', id, permanently, 'Customer');
	hintUnknownBinEntry(this, result, 'Customer');
	return toItems(result ?? { id, deleted: true }, i);
}
