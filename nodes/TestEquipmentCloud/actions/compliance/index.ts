import type { INodeProperties } from 'n8n-workflow';
import { resourceDescription } from '../common/types';
import * as getSummary from './getSummary.operation';

export const operations = { getSummary };

export const description: INodeProperties[] = resourceDescription(
	'compliance',
	operations,
	{
		getSummary: {
			name: 'Get Summary',
			description:
				'Count devices, overdue devices and devices due within 30 days now, or a past month’s due dates tested on time, late or still overdue (rebuilt from the test results), for the account or per customer or department',
			action: 'Get a compliance summary',
		},
	},
	'getSummary',
);
