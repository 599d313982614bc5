import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { requestOptions } from '../common/list.description';
import { deviceIdOf, recordLocator } from '../common/locators';
import { clientFor, toItems, wantsSimplify } from '../common/utils';

const properties: INodeProperties[] = [
	{
		...recordLocator({ name: 'deviceId', displayName: 'Device', searchListMethod: 'searchDevices', placeholder: 'e.g. 1042', barcode: true }),
		description: 'The device to get',
	},
	...requestOptions(true),
];

export const description = updateDisplayOptions({ show: { resource: ['device'], operation: ['get'] } }, properties);

export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const client = await clientFor(this, i);
	const id = await deviceIdOf(this, 'deviceId', i, client);
	const device = await client.call('device.get', { pathParams: { id }, parameter: 'Device' });
	return toItems(device, i, wantsSimplify(this, i));
}
