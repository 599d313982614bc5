import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { requestOptions } from '../common/list.description';
import { writeProperties } from '../common/write.description';
import { clientFor, readJsonInput, readPropertyValues, toItems, wantsSimplify } from '../common/utils';
import type { WriteCheck } from '../../transport';

const properties: INodeProperties[] = [...writeProperties({ resource: 'customer', update: false }), ...requestOptions(true)];

export const description = updateDisplayOptions({ show: { resource: ['customer'], operation: ['create'] } }, properties);

/** What to look for when the answer was lost: the write may have been applied. */
export const write: WriteCheck = {
	operation: 'Customer Create',
	check: 'find the customer with Customer › Get Many and a filter on its Name or another property you sent',
};

export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	let body: IDataObject | IDataObject[];
	if (this.getNodeParameter('inputMode', i) === 'json') {
		body = readJsonInput(this, i);
	} else {
		body = { properties: readPropertyValues(this, i, true) };
	}
	const client = await clientFor(this, i);
	const created = await client.call('customer.create', { body });
	return toItems(created, i, wantsSimplify(this, i));
}
