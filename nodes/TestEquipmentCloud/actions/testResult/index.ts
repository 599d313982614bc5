import type { INodeProperties } from 'n8n-workflow';
import type { OperationExecute } from '../common/types';
import * as get from './get.operation';
import * as getAll from './getAll.operation';

export const operations: Record<string, { execute: OperationExecute }> = { get, getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['testResult'] } },
		options: [
			{ name: 'Get', value: 'get', description: 'Get a test result with its performed test steps and measured limits', action: 'Get a test result' },
			{ name: 'Get Many', value: 'getAll', description: 'List test results with filters, sort and search', action: 'Get many test results' },
		],
		default: 'getAll',
	},
	...get.description,
	...getAll.description,
];
