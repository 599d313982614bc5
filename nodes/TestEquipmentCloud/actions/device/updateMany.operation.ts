import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { ValidationError } from '../../../../client';
import { requestOptions } from '../common/list.description';
import { propertyMapperProperty, propertyValuesProperty } from '../common/write.description';
import { bodyId, clientFor, readPropertyValues, toItems, wantsSimplify } from '../common/utils';
import type { WriteCheck } from '../../transport';

const properties: INodeProperties[] = [
	{
		displayName: 'Device IDs',
		name: 'deviceIds',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 12, 15, 31',
		description: 'The devices to edit: IDs separated by commas, or an expression giving an array of IDs',
	},
	{
		...propertyValuesProperty({ show: { '@version': [1] } }),
		description: 'The properties to set on every listed device (the same values for all)',
	},
	{
		...propertyMapperProperty('map', { show: { '@version': [{ _cnd: { gte: 2 } }] } }),
		description: 'The properties to set on every listed device (the same values for all)',
	},
	...requestOptions(true),
];

export const description = updateDisplayOptions({ show: { resource: ['device'], operation: ['updateMany'] } }, properties);

/** What to look for when the answer was lost: the write may have been applied. */
export const write: WriteCheck = {
	operation: 'Device Update Many',
	check: 'get the devices (Device › Get Many) and compare their values with the ones sent',
};

function readIds(raw: unknown): Array<number | string> {
	const list = Array.isArray(raw) ? raw : String(raw ?? '').split(',');
	const ids = list.map((v) => String(v).trim()).filter((v) => v !== '');
	if (ids.length === 0) throw new ValidationError('Device IDs', 'give at least one device ID, for example 12, 15');
	return ids.map((id, n) => bodyId(id, `Device IDs (entry ${n + 1})`));
}

/** Multiple edit: the same properties on several devices in one request (`enabled` is not needed). */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const ids = readIds(this.getNodeParameter('deviceIds', i));
	const body: IDataObject = { ids, properties: readPropertyValues(this, i, true) };
	const client = await clientFor(this, i);
	const result = (await client.call('device.updateMany', { body })) as IDataObject | null;
	const records = result && Array.isArray(result.results) ? result.results : result;
	return toItems(records, i, wantsSimplify(this, i));
}
