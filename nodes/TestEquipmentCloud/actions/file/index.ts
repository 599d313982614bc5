import type { INodeProperties } from 'n8n-workflow';
import type { OperationExecute } from '../common/types';
import * as download from './download.operation';

export const operations: Record<string, { execute: OperationExecute }> = { download };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['file'] } },
		options: [
			{ name: 'Download', value: 'download', description: 'Download a file (such as a test report) as binary data', action: 'Download a file' },
		],
		default: 'download',
	},
	...download.description,
];
