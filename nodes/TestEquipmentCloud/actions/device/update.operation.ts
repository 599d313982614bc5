import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { requestOptions } from '../common/list.description';
import { recordLocator } from '../common/locators';
import { writeProperties } from '../common/write.description';
import { bodyId, clientFor, idParameter, readJsonInput, readPropertyValues, toItems, wantsSimplify } from '../common/utils';

const properties: INodeProperties[] = [
	{
		...recordLocator({ name: 'deviceId', displayName: 'Device', searchListMethod: 'searchDevices', placeholder: 'e.g. 1042' }),
		description: 'The device to update',
		displayOptions: { show: { inputMode: ['fields'] } },
	},
	...writeProperties({ resource: 'device', update: true }),
	...requestOptions(true),
];

export const description = updateDisplayOptions({ show: { resource: ['device'], operation: ['update'] } }, properties);

export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	let body: IDataObject | IDataObject[];
	if (this.getNodeParameter('inputMode', i) === 'json') {
		body = readJsonInput(this, i);
	} else {
		const fields: IDataObject = { id: bodyId(idParameter(this, 'deviceId', i), 'Device'), properties: readPropertyValues(this, i, false) };
		const customerId = String(this.getNodeParameter('customerId', i, '') ?? '').trim();
		if (customerId !== '') fields.customer_id = bodyId(customerId, 'Customer ID');
		body = fields;
	}
	const client = await clientFor(this, i);
	const updated = await client.call('device.update', { body });
	return toItems(updated, i, wantsSimplify(this, i));
}
