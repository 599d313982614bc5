import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { requestOptions } from '../common/list.description';
import { writeProperties } from '../common/write.description';
import { clientFor, customerIdOf, readJsonInput, readPropertyValues, toItems, wantsSimplify } from '../common/utils';
import type { WriteCheck } from '../../transport';

const properties: INodeProperties[] = [...writeProperties({ resource: 'device', update: false }), ...requestOptions(true)];

export const description = updateDisplayOptions({ show: { resource: ['device'], operation: ['create'] } }, properties);

/** What to look for when the answer was lost: the write may have been applied. */
export const write: WriteCheck = {
	operation: 'Device Create',
	check: 'find the device by its ID Barcode (Device › Get, By Barcode), or with Device › Get Many and a filter on another property you sent',
};

export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	let body: IDataObject | IDataObject[];
	if (this.getNodeParameter('inputMode', i) === 'json') {
		body = readJsonInput(this, i);
	} else {
		const fields: IDataObject = { properties: readPropertyValues(this, i, true) };
		const customerId = customerIdOf(this, i);
		if (customerId !== undefined) fields.customer_id = customerId;
		body = fields;
	}
	const client = await clientFor(this, i);
	const created = await client.call('device.create', { body });
	return toItems(created, i, wantsSimplify(this, i));
}
