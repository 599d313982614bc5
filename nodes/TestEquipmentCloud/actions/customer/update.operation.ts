import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { requestOptions } from '../common/list.description';
import { recordLocator } from '../common/locators';
import { writeProperties } from '../common/write.description';
import { bodyId, clientFor, idParameter, readJsonInput, readPropertyValues, toItems, wantsSimplify } from '../common/utils';

const properties: INodeProperties[] = [
	{
		...recordLocator({ name: 'customerId', displayName: 'Customer', searchListMethod: 'searchCustomers', placeholder: 'e.g. 1042' }),
		description: 'The customer to update',
		displayOptions: { show: { inputMode: ['fields'] } },
	},
	...writeProperties({ resource: 'customer', update: true }),
	...requestOptions(true),
];

export const description = updateDisplayOptions({ show: { resource: ['customer'], operation: ['update'] } }, properties);

export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	let body: IDataObject | IDataObject[];
	if (this.getNodeParameter('inputMode', i) === 'json') {
		body = readJsonInput(this, i);
	} else {
		body = { id: bodyId(idParameter(this, 'customerId', i), 'Customer'), properties: readPropertyValues(this, i, true) };
	}
	const client = await clientFor(this, i);
	const updated = await client.call('customer.update', { body });
	return toItems(updated, i, wantsSimplify(this, i));
}
