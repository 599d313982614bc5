import type { INodeProperties } from 'n8n-workflow';
import type { OperationExecute } from '../common/types';
import * as create from './create.operation';
import * as del from './delete.operation';
import * as getAll from './getAll.operation';
import * as update from './update.operation';

export const operations: Record<string, { execute: OperationExecute }> = { create, delete: del, getAll, update };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['customer'] } },
		options: [
			{ name: 'Create', value: 'create', description: 'Create a customer (or several from JSON)', action: 'Create a customer' },
			{ name: 'Delete', value: 'delete', description: 'Delete a customer: to the recycle bin, or permanently', action: 'Delete a customer' },
			{ name: 'Get Many', value: 'getAll', description: 'List customers with filters, sort and search', action: 'Get many customers' },
			{ name: 'Update', value: 'update', description: 'Change properties of a customer (or several from JSON)', action: 'Update a customer' },
		],
		default: 'getAll',
	},
	...create.description,
	...del.description,
	...getAll.description,
	...update.description,
];
