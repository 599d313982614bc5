import type { INodeProperties } from 'n8n-workflow';
import { resourceDescription } from '../common/types';
import * as create from './create.operation';
import * as del from './delete.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as getMeasurementTrend from './getMeasurementTrend.operation';
import * as update from './update.operation';
import * as updateMany from './updateMany.operation';

export const operations = { create, delete: del, get, getAll, getMeasurementTrend, update, updateMany };

export const description: INodeProperties[] = resourceDescription(
	'device',
	operations,
	{
		create: {
			name: 'Create',
			description: 'Create a device under test from property values (optionally for a customer ID); returns the new device',
			action: 'Create a device',
		},
		delete: {
			name: 'Delete',
			description: 'Delete a device by device ID: to the recycle bin, or permanently; returns the deleted ID',
			action: 'Delete a device',
		},
		get: {
			name: 'Get',
			description: 'Get one device by device ID or barcode: its properties such as designation and next test date',
			action: 'Get a device',
		},
		getAll: {
			name: 'Get Many',
			description: 'List devices under test (ID, properties) with filters on properties, sort and search',
			action: 'Get many devices',
		},
		getMeasurementTrend: {
			name: 'Get Measurement Trend',
			description:
				'Follow one device’s measured values by device ID or barcode: per step its latest passed results, the least-squares trend, its 95 % prediction bound and the day it reaches the limit, against the next test date',
			action: 'Get the measurement trend of a device',
		},
		update: {
			name: 'Update',
			description: 'Change property values of a device by device ID; returns the updated device',
			action: 'Update a device',
		},
		updateMany: {
			name: 'Update Many',
			description: 'Set the same property values on several devices (a list of device IDs) in one request',
			action: 'Update many devices',
		},
	},
	'getAll',
);
