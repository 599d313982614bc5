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
		displayOptions: { show: { resource: ['overdueDevice'] } },
		options: [
			{ name: 'Get Many', value: 'getAll', description: 'List devices whose next test date has passed', action: 'Get many overdue devices' },
		],
		default: 'getAll',
	},
	...getAll.description,
];
