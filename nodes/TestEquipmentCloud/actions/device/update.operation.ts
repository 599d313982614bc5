import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { requestOptions } from '../common/list.description';
import { deviceIdOf, recordLocator } from '../common/locators';
import { writeProperties } from '../common/write.description';
import { bodyId, changedValues, clientFor, customerIdOf, nestedMappedValues, nothingToChange, readJsonInput, readPropertyValues, toItems, wantsSimplify, withoutComputed } from '../common/utils';
import type { WriteCheck } from '../../transport';

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

/** What to look for when the answer was lost: the write may have been applied. */
export const write: WriteCheck = {
	operation: 'Device Update',
	check: 'get the device (Device › Get) and compare its values with the ones sent',
};

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
			// sent, never the computed Next test (tested since the read, it differs and is refused). A
			// property someone else changed since the read differs too: the item's value is sent back.
			const device = await client.call('device.get', { pathParams: { id }, parameter: 'Device' });
			const changed = withoutComputed(changedValues(nested, device), device, client.profile);
			for (const [key, value] of Object.entries(changed)) properties[key] ??= value;
		}
		// Nothing to change is refused, as Customer Update refuses it: a success would say it changed.
		if (Object.keys(properties).length === 0 && customerId === undefined) {
			throw nothingToChange(this, i, { customer: true, ...(Object.keys(nested).length > 0 ? { unchanged: 'device' as const } : {}) });
		}
		const fields: IDataObject = { id, properties };
		if (customerId !== undefined) fields.customer_id = customerId;
		body = fields;
	}
	const updated = await client.call('device.update', { body });
	return toItems(updated, i, wantsSimplify(this, i));
}

