import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { requestOptions } from '../common/list.description';
import { deviceIdOf, recordLocator } from '../common/locators';
import { clientFor, hintUnknownBinEntry, toItems } from '../common/utils';
import type { WriteCheck } from '../../transport';

const properties: INodeProperties[] = [
	{
		...recordLocator({ name: 'deviceId', displayName: 'Device', searchListMethod: 'searchDevices', placeholder: 'e.g. 1042', barcode: true }),
		description: 'The device to delete',
	},
	{
		displayName: 'Delete Permanently',
		name: 'deletePermanently',
		type: 'boolean',
		default: false,
		description:
			'Whether to remove the device completely (direct_delete). Off: it moves to the recycle bin and can be restored.',
	},
	...requestOptions(),
];

export const description = updateDisplayOptions({ show: { resource: ['device'], operation: ['delete'] } }, properties);

/** What to look for when the answer was lost: the write may have been applied. */
export const write: WriteCheck = {
	operation: 'Device Delete',
	check: 'find the device in the recycle bin (Recycle Bin › Get Many with a filter item_id = its ID)',
};

export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const permanently = this.getNodeParameter('deletePermanently', i, false) as boolean;
	const client = await clientFor(this, i);
	const id = await deviceIdOf(this, 'deviceId', i, client);
	const result = await client.delete('device.delete', id, permanently, 'Device');
	hintUnknownBinEntry(this, result, 'Device');
	return toItems(result ?? { id, deleted: true }, i);
}
