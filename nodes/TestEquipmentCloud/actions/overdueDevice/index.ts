import type { INodeProperties } from 'n8n-workflow';
import { resourceDescription } from '../common/types';
import * as getAll from './getAll.operation';

export const operations = { getAll };

export const description: INodeProperties[] = resourceDescription(
	'overdueDevice',
	operations,
	{
		getAll: {
			name: 'Get Many',
			description: 'List the devices whose next test (calibration, inspection) date has passed, with their properties',
			action: 'Get many overdue devices',
		},
	},
	'getAll',
);
