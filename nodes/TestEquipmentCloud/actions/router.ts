import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { toNodeError } from '../transport';
import type { OperationExecute } from './common/types';
import * as customer from './customer';
import * as device from './device';
import * as file from './file';
import * as overdueDevice from './overdueDevice';
import * as project from './project';
import * as recycleBin from './recycleBin';
import * as subUser from './subUser';
import * as testResult from './testResult';

const resources: Record<string, { operations: Record<string, { execute: OperationExecute }> }> = {
	customer,
	device,
	file,
	overdueDevice,
	project,
	recycleBin,
	subUser,
	testResult,
};

/** Runs the chosen operation once per input item; every output item is paired with its input. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const handler = resources[resource]?.operations[operation];
	if (!handler) {
		throw new NodeOperationError(this.getNode(), `The operation "${operation}" of the resource "${resource}" is not supported`);
	}

	const output: INodeExecutionData[] = [];
	for (let i = 0; i < items.length; i++) {
		try {
			const results = await handler.execute.call(this, i);
			for (const item of results) output.push({ ...item, pairedItem: { item: i } });
		} catch (caught) {
			const error = toNodeError(this.getNode(), caught, i);
			if (this.continueOnFail()) {
				const json: IDataObject = { error: error.message };
				if (error.description) json.description = error.description;
				if ('httpCode' in error && error.httpCode) json.httpCode = error.httpCode;
				output.push({ json, pairedItem: { item: i } });
				continue;
			}
			throw error;
		}
	}
	return [output];
}
