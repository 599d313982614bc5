import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { requestOptions } from '../common/list.description';
import { deviceIdOf, recordLocator } from '../common/locators';
import { writeProperties } from '../common/write.description';
import { ValidationError } from '../../../../client';
import { bodyId, changedValues, clientFor, customerIdOf, nestedMappedValues, readJsonInput, readPropertyValues, toItems, wantsSimplify } from '../common/utils';

const properties: INodeProperties[] = [
	{
		...recordLocator({ name: 'deviceId', displayName: 'Device', searchListMethod: 'searchDevices', placeholder: 'e.g. 1042', barcode: true }),
		description: 'The device to update',
		displayOptions: { show: { inputMode: ['fields'] } },
	},
	...writeProperties({ resource: 'device', update: true }),
	...requestOptions(true),
];

export const description = updateDisplayOptions({ show: { resource: ['device'], operation: ['update'] } }, properties);

export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const client = await clientFor(this, i);
	let body: IDataObject | IDataObject[];
	if (this.getNodeParameter('inputMode', i) === 'json') {
		body = readJsonInput(this, i);
	} else {
		const id = bodyId(await deviceIdOf(this, 'deviceId', i, client), 'Device');
		const properties = readPropertyValues(this, i, false);
		const customerId = customerIdOf(this, i);
		const nested = nestedMappedValues(this, i);
		if (Object.keys(nested).length > 0) {
			// A record read before carries every property: only what differs from the device now is
			// sent, so values the service computes stay as they are (a property someone else changed
			// since the read differs too, and the item's value is sent back, as automatic mapping does).
			const device = await client.call('device.get', { pathParams: { id }, parameter: 'Device' });
			for (const [key, value] of Object.entries(changedValues(nested, device))) properties[key] ??= value;
		}
		// Nothing to change is refused, as Customer Update refuses it: a success would say it changed.
		if (Object.keys(properties).length === 0 && customerId === undefined) throw new ValidationError('Properties', nothingToChange(this, i, Object.keys(nested).length > 0));
		const fields: IDataObject = { id, properties };
		if (customerId !== undefined) fields.customer_id = customerId;
		body = fields;
	}
	const updated = await client.call('device.update', { body });
	return toItems(updated, i, wantsSimplify(this, i));
}

/** Why an update has nothing to send, in the words of the form the item came through. */
function nothingToChange(ctx: IExecuteFunctions, i: number, unchanged: boolean): string {
	if (unchanged) return `the properties of input item ${i} are the device's current values and no customer is chosen: nothing to change`;
	if (ctx.getNode().typeVersion < 2) return 'add at least one property to change, or choose a customer';
	const mode = (ctx.getNodeParameter('fields', i, {}) as { mappingMode?: string }).mappingMode;
	return mode === 'autoMapInputData'
		? 'no input field is named like a property, at the top level or under "properties" (map the properties below instead), and no customer is chosen: nothing to change'
		: 'give at least one property a value, or choose a customer';
}
