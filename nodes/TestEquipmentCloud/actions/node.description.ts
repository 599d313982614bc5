import type { INodeProperties } from 'n8n-workflow';
import type { NodeResource } from '../shared/resources';
import { RESOURCES, RESOURCE_NAMES } from './node.type';

/** The resource selector and every operation's parameters, in the order the form shows them. */
export const properties: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: (Object.keys(RESOURCES) as NodeResource[]).map((value) => ({ name: RESOURCE_NAMES[value], value })),
		default: 'device',
	},
	...Object.values(RESOURCES).flatMap((resource) => resource.description),
];
