import type { INodeProperties } from 'n8n-workflow';
import type { OperationExecute } from '../common/types';
import * as getAll from './getAll.operation';

export const operations: Record<string, { execute: OperationExecute }> = { getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['project'] } },
		options: [
			{ name: 'Get Many', value: 'getAll', description: 'List projects with filters, sort and search', action: 'Get many projects' },
		],
		default: 'getAll',
	},
	...getAll.description,
];
