import type { INodeProperties } from 'n8n-workflow';
import { resourceDescription } from '../common/types';
import * as get from './get.operation';
import * as getAll from './getAll.operation';

export const operations = { get, getAll };

export const description: INodeProperties[] = resourceDescription(
	'testResult',
	operations,
	{
		get: {
			name: 'Get',
			description: 'Get one test result by test result ID with its performed test steps, measured values and limits, and file IDs',
			action: 'Get a test result',
		},
		getAll: {
			name: 'Get Many',
			description: 'List test results (ID, device ID, test date, passed or failed) with filters, sort and search',
			action: 'Get many test results',
		},
	},
	'getAll',
);
