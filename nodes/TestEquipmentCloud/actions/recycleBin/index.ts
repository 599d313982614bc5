import type { INodeProperties } from 'n8n-workflow';
import { resourceDescription } from '../common/types';
import * as getAll from './getAll.operation';
import * as restore from './restore.operation';

export const operations = { getAll, restore };

export const description: INodeProperties[] = resourceDescription(
	'recycleBin',
	operations,
	{
		getAll: {
			name: 'Get Many',
			description: 'List deleted customers and devices (recycle bin entry ID, type, deletion time)',
			action: 'Get many recycle bin entries',
		},
		restore: {
			name: 'Restore',
			description: 'Restore a deleted customer or device by recycle bin entry ID',
			action: 'Restore a recycle bin entry',
		},
	},
	'getAll',
);
