import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { requestOptions } from '../common/list.description';
import { recordLocator } from '../common/locators';
import { writeProperties } from '../common/write.description';
import { ValidationError } from '../../../../client';
import { bodyId, clientFor, idParameter, nestedMappedValues, readJsonInput, readPropertyValues, toItems, wantsSimplify } from '../common/utils';

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
		const id = bodyId(idParameter(this, 'customerId', i), 'Customer');
		const properties = readPropertyValues(this, i, false);
		// A record read before (Get Many → change properties.City → Update) carries its values under
		// "properties". The service has no customer detail to compare with: its values are sent as read.
		for (const [key, value] of Object.entries(nestedMappedValues(this, i))) if (value !== null && value !== undefined) properties[key] ??= value;
		if (Object.keys(properties).length === 0) throw new ValidationError('Properties', nothingToChange(this, i));
		body = { id, properties };
	}
	const client = await clientFor(this, i);
	const updated = await client.call('customer.update', { body });
	return toItems(updated, i, wantsSimplify(this, i));
}

/** Why an update has nothing to send, in the words of the form the item came through. */
function nothingToChange(ctx: IExecuteFunctions, i: number): string {
	if (ctx.getNode().typeVersion < 2) return 'add at least one property to change';
	const mode = (ctx.getNodeParameter('fields', i, {}) as { mappingMode?: string }).mappingMode;
	return mode === 'autoMapInputData'
		? 'no input field is named like a property, at the top level or under "properties" (map the properties below instead)'
		: 'give at least one property a value';
}
