import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { requestOptions } from '../common/list.description';
import { recordLocator } from '../common/locators';
import { clientFor, idParameter, toItems, wantsSimplify } from '../common/utils';

const properties: INodeProperties[] = [
	{
		...recordLocator({ name: 'deviceId', displayName: 'Device', searchListMethod: 'searchDevices', placeholder: 'e.g. 1042' }),
		description: 'The device to get',
	},
	...requestOptions(true),
];

export const description = updateDisplayOptions({ show: { resource: ['device'], operation: ['get'] } }, properties);

export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const id = idParameter(this, 'deviceId', i);
	const client = await clientFor(this, i);
	const device = await client.call('device.get', { pathParams: { id }, parameter: 'Device' });
	return toItems(device, i, wantsSimplify(this, i));
}
