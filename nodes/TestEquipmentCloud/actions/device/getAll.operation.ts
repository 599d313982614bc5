import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { listProperties } from '../common/list.description';
import { executeList } from '../common/utils';

const properties: INodeProperties[] = listProperties('device');

export const description = updateDisplayOptions({ show: { resource: ['device'], operation: ['getAll'] } }, properties);

export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	return await executeList.call(this, i, 'device', 'device.list');
}
