import type { INodeProperties } from 'n8n-workflow';
import { resourceDescription } from '../common/types';
import * as create from './create.operation';
import * as del from './delete.operation';
import * as getAll from './getAll.operation';
import * as update from './update.operation';

export const operations = { create, delete: del, getAll, update };

export const description: INodeProperties[] = resourceDescription(
	'customer',
	operations,
	{
		create: {
			name: 'Create',
			description: 'Create a customer from property values; returns the new customer with its numeric ID',
			action: 'Create a customer',
		},
		delete: {
			name: 'Delete',
			description: 'Delete a customer by customer ID: to the recycle bin, or permanently; returns the deleted ID',
			action: 'Delete a customer',
		},
		getAll: {
			name: 'Get Many',
			description: 'List customers (ID, properties) with filters on properties, sort and search',
			action: 'Get many customers',
		},
		update: {
			name: 'Update',
			description: 'Change property values of a customer by customer ID; returns the updated customer',
			action: 'Update a customer',
		},
	},
	'getAll',
);
