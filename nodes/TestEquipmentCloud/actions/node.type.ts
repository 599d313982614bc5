import type { NodeResource } from '../shared/resources';
import type { OperationModule } from './common/types';
import * as compliance from './compliance';
import * as customer from './customer';
import * as device from './device';
import * as email from './email';
import * as file from './file';
import * as overdueDevice from './overdueDevice';
import * as project from './project';
import * as recycleBin from './recycleBin';
import * as subUser from './subUser';
import * as testResult from './testResult';

/**
 * The one registry of the node's resources and their operations, read by the router and the
 * node's description. Every resource of the client's catalogue must be here (compile-time check).
 */
export const RESOURCES = {
	compliance,
	customer,
	device,
	email,
	file,
	overdueDevice,
	project,
	recycleBin,
	subUser,
	testResult,
} satisfies Record<NodeResource, { operations: Record<string, OperationModule> }>;

/** Resource → the names of its operations. */
export type TestEquipmentCloudMap = { [R in NodeResource]: keyof (typeof RESOURCES)[R]['operations'] & string };

/** Every resource/operation pair that exists; any other pair does not compile. */
export type TestEquipmentCloudType = { [R in NodeResource]: { resource: R; operation: TestEquipmentCloudMap[R] } }[NodeResource];

/** How each resource is named in the Resource list. */
export const RESOURCE_NAMES: Record<NodeResource, string> = {
	compliance: 'Compliance',
	customer: 'Customer',
	device: 'Device',
	email: 'E-mail',
	file: 'File',
	overdueDevice: 'Overdue Device',
	project: 'Project',
	recycleBin: 'Recycle Bin',
	subUser: 'Sub-User',
	testResult: 'Test Result',
};

function isResource(value: string): value is NodeResource {
	return Object.prototype.hasOwnProperty.call(RESOURCES, value);
}

/** The pair as the registry knows it, or undefined when the node has no such operation. */
export function nodeOperation(resource: string, operation: string): TestEquipmentCloudType | undefined {
	if (!isResource(resource)) return undefined;
	const operations: Record<string, OperationModule> = RESOURCES[resource].operations;
	return Object.prototype.hasOwnProperty.call(operations, operation)
		? ({ resource, operation } as TestEquipmentCloudType)
		: undefined;
}

/** The operation module of a pair that exists. */
export function operationModule<T extends TestEquipmentCloudType>(pair: T): OperationModule {
	const operations: Record<string, OperationModule> = RESOURCES[pair.resource].operations;
	return operations[pair.operation];
}
