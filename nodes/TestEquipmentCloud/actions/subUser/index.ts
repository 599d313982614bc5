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
		displayOptions: { show: { resource: ['subUser'] } },
		options: [
			{ name: 'Get Many', value: 'getAll', description: 'List the users of the account', action: 'Get many users' },
		],
		default: 'getAll',
	},
	...getAll.description,
];
