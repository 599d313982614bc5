import type { INodeProperties } from 'n8n-workflow';
import { resourceDescription } from '../common/types';
import * as download from './download.operation';

export const operations = { download };

export const description: INodeProperties[] = resourceDescription(
	'file',
	operations,
	{
		download: {
			name: 'Download',
			description: 'Download a file (such as a test report) by file ID as binary data',
			action: 'Download a file',
		},
	},
	'download',
);
