import type { INodeProperties } from 'n8n-workflow';
import * as customer from './customer';
import * as device from './device';
import * as file from './file';
import * as overdueDevice from './overdueDevice';
import * as project from './project';
import * as recycleBin from './recycleBin';
import * as subUser from './subUser';
import * as testResult from './testResult';

/** The resource selector and every operation's parameters, in the order the form shows them. */
export const properties: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Customer', value: 'customer' },
			{ name: 'Device', value: 'device' },
			{ name: 'File', value: 'file' },
			{ name: 'Overdue Device', value: 'overdueDevice' },
			{ name: 'Project', value: 'project' },
			{ name: 'Recycle Bin', value: 'recycleBin' },
			{ name: 'Sub-User', value: 'subUser' },
			{ name: 'Test Result', value: 'testResult' },
		],
		default: 'device',
	},
	...customer.description,
	...device.description,
	...file.description,
	...overdueDevice.description,
	...project.description,
	...recycleBin.description,
	...subUser.description,
	...testResult.description,
];
