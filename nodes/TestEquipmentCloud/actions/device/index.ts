import type { INodeProperties } from 'n8n-workflow';
import type { OperationExecute } from '../common/types';
import * as create from './create.operation';
import * as del from './delete.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as update from './update.operation';
import * as updateMany from './updateMany.operation';

export const operations: Record<string, { execute: OperationExecute }> = { create, delete: del, get, getAll, update, updateMany };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['device'] } },
		options: [
			{ name: 'Create', value: 'create', description: 'Create a device (or several from JSON)', action: 'Create a device' },
			{ name: 'Delete', value: 'delete', description: 'Delete a device: to the recycle bin, or permanently', action: 'Delete a device' },
			{ name: 'Get', value: 'get', description: 'Get the details of a device', action: 'Get a device' },
			{ name: 'Get Many', value: 'getAll', description: 'List devices with filters, sort and search', action: 'Get many devices' },
			{ name: 'Update', value: 'update', description: 'Change properties of a device (or several from JSON)', action: 'Update a device' },
			{ name: 'Update Many', value: 'updateMany', description: 'Set the same properties on several devices in one request', action: 'Update many devices' },
		],
		default: 'getAll',
	},
	...create.description,
	...del.description,
	...get.description,
	...getAll.description,
	...update.description,
	...updateMany.description,
];
