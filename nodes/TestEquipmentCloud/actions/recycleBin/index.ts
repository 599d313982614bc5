import type { INodeProperties } from 'n8n-workflow';
import type { OperationExecute } from '../common/types';
import * as getAll from './getAll.operation';
import * as restore from './restore.operation';

export const operations: Record<string, { execute: OperationExecute }> = { getAll, restore };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['recycleBin'] } },
		options: [
			{ name: 'Get Many', value: 'getAll', description: 'List deleted customers and devices', action: 'Get many recycle bin entries' },
			{ name: 'Restore', value: 'restore', description: 'Restore a deleted customer or device', action: 'Restore a recycle bin entry' },
		],
		default: 'getAll',
	},
	...getAll.description,
	...restore.description,
];
