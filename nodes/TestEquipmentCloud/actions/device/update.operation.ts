import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { requestOptions } from '../common/list.description';
import { deviceIdOf, recordLocator } from '../common/locators';
import { writeProperties } from '../common/write.description';
import { bodyId, clientFor, customerIdOf, readJsonInput, readPropertyValues, toItems, wantsSimplify } from '../common/utils';

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
		const fields: IDataObject = { id, properties: readPropertyValues(this, i, false) };
		const customerId = customerIdOf(this, i);
		if (customerId !== undefined) fields.customer_id = customerId;
		body = fields;
	}
	const updated = await client.call('device.update', { body });
	return toItems(updated, i, wantsSimplify(this, i));
}
