import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { requestOptions } from '../common/list.description';
import { recordLocator } from '../common/locators';
import { clientFor, idParameter, toItems } from '../common/utils';

const properties: INodeProperties[] = [
	{
		...recordLocator({
			name: 'testResultId',
			displayName: 'Test Result',
			searchListMethod: 'searchTestResults',
			placeholder: 'e.g. 501',
		}),
		description: 'The test result to get, with its performed test steps and measured limits',
	},
	...requestOptions(),
];

export const description = updateDisplayOptions({ show: { resource: ['testResult'], operation: ['get'] } }, properties);

export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const id = idParameter(this, 'testResultId', i);
	const client = await clientFor(this, i);
	const detail = await client.call('testResult.get', { pathParams: { id }, parameter: 'Test Result' });
	return toItems(detail, i);
}
