import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { requestOptions } from '../common/list.description';
import { writeProperties } from '../common/write.description';
import { clientFor, customerIdOf, readJsonInput, readPropertyValues, toItems, wantsSimplify } from '../common/utils';

const properties: INodeProperties[] = [...writeProperties({ resource: 'device', update: false }), ...requestOptions(true)];

export const description = updateDisplayOptions({ show: { resource: ['device'], operation: ['create'] } }, properties);

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
