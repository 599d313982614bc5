import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { requestOptions } from '../common/list.description';
import { clientFor, idParameter, toItems } from '../common/utils';
import type { WriteCheck } from '../../transport';

const properties: INodeProperties[] = [
	{
		displayName: 'Recycle Bin Entry ID',
		name: 'entryId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 7',
		description: 'The ID of the recycle bin entry (the "ID" of Get Many, or recycle_bin_ID of a delete)',
	},
	...requestOptions(),
];

export const description = updateDisplayOptions({ show: { resource: ['recycleBin'], operation: ['restore'] } }, properties);

/** What to look for when the answer was lost: the write may have been applied. */
export const write: WriteCheck = {
	operation: 'Recycle Bin Restore',
	check: 'see whether the entry is still in the recycle bin (Recycle Bin › Get Many): a restored entry leaves it',
};

export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const id = idParameter(this, 'entryId', i);
	const client = await clientFor(this, i);
	const restored = await client.call('recycleBin.restore', { pathParams: { id }, parameter: 'Recycle Bin Entry ID' });
	return toItems(restored, i);
}
