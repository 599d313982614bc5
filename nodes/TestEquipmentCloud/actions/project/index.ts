import type { INodeProperties } from 'n8n-workflow';
import { resourceDescription } from '../common/types';
import * as getAll from './getAll.operation';

export const operations = { getAll };

export const description: INodeProperties[] = resourceDescription(
	'project',
	operations,
	{
		getAll: {
			name: 'Get Many',
			description: 'List projects (ID, name, last change time) with filters, sort and search',
			action: 'Get many projects',
		},
	},
	'getAll',
);
