import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { errorItem } from '../shared/errors';
import { toNodeError } from '../transport';
import { nodeOperation, operationModule } from './node.type';

/** Runs the chosen operation once per input item; every output item is paired with its input. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const pair = nodeOperation(resource, operation);
	if (!pair) {
		throw new NodeOperationError(this.getNode(), `The operation "${operation}" of the resource "${resource}" is not supported`);
	}

	const handler = operationModule(pair);
	const output: INodeExecutionData[] = [];
	for (let i = 0; i < items.length; i++) {
		try {
			const results = await handler.execute.call(this, i);
			for (const item of results) output.push({ ...item, pairedItem: { item: i } });
		} catch (caught) {
			const error = toNodeError(this.getNode(), caught, i, handler.write);
			if (this.continueOnFail()) {
				output.push(errorItem(error, i, this.getNode()));
				continue;
			}
			throw error;
		}
	}
	return [output];
}
