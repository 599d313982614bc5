import type { INodeProperties } from 'n8n-workflow';
import { resourceDescription } from '../common/types';
import * as getAll from './getAll.operation';

export const operations = { getAll };

export const description: INodeProperties[] = resourceDescription(
	'subUser',
	operations,
	{
		getAll: {
			name: 'Get Many',
			description: 'List the sub-users of the account (ID, name, e-mail)',
			action: 'Get many users',
		},
	},
	'getAll',
);
