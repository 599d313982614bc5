import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { requestOptions } from '../common/list.description';
import { recordLocator } from '../common/locators';
import { writeProperties } from '../common/write.description';
import { bodyId, clientFor, idParameter, nestedMappedValues, nothingToChange, readJsonInput, readPropertyValues, toItems, wantsSimplify } from '../common/utils';
import type { WriteCheck } from '../../transport';

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

/** What to look for when the answer was lost: the write may have been applied. */
export const write: WriteCheck = {
	operation: 'Customer Update',
	check: 'get the customer (Customer › Get Many with a filter on it) and compare its values with the ones sent',
};

export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	let body: IDataObject | IDataObject[];
	if (this.getNodeParameter('inputMode', i) === 'json') {
		body = readJsonInput(this, i);
	} else {
		const id = bodyId(idParameter(this, 'customerId', i), 'Customer');
		const properties = readPropertyValues(this, i, false);
		// A record read before (Get Many → change properties.City → Update) carries its values under
		// "properties". The service has no customer detail to compare with: its values are sent as read,
		// a value cleared there (empty or null) included, so clearing a field clears it. A field at the
		// item's top level wins.
		for (const [key, value] of Object.entries(nestedMappedValues(this, i))) if (!(key in properties)) properties[key] = value;
		if (Object.keys(properties).length === 0) throw nothingToChange(this, i, { customer: false });
		body = { id, properties };
	}
	const client = await clientFor(this, i);
	const updated = await client.call('customer.update', { body });
	return toItems(updated, i, wantsSimplify(this, i));
}

