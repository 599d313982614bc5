import type { Resource } from './catalogue';
import type { DataType } from './filters';

/**
 * ASSUMED: the field lists of the lists filtered by field name (the spec shows only
 * `updated_time` on projects). Each face reads this table: the node offers these fields, the
 * sandbox serves and filters them, the pollers read them.
 */
export interface FieldInfo {
	name: string;
	dataType: DataType;
	description: string;
}

export const FIELDS: Partial<Record<Resource, readonly FieldInfo[]>> = {
	testResult: [
		{ name: 'id', dataType: 'Number', description: 'Test result ID' },
		{ name: 'device_id', dataType: 'Number', description: 'The tested device' },
		{ name: 'customer_id', dataType: 'Number', description: 'The device owner' },
		{ name: 'project_id', dataType: 'Number', description: 'The project the test belongs to' },
		{ name: 'test_date', dataType: 'Date', description: 'When the test was performed' },
		{ name: 'synced_time', dataType: 'Date', description: 'When the test equipment uploaded the result (often later)' },
		{ name: 'status', dataType: 'Text', description: 'passed or failed' },
		{ name: 'tester', dataType: 'Text', description: 'Who performed the test' },
		{ name: 'test_sequence', dataType: 'Text', description: 'The test procedure' },
	],
	project: [
		{ name: 'id', dataType: 'Number', description: 'Project ID' },
		{ name: 'name', dataType: 'Text', description: 'Project name' },
		{ name: 'customer_id', dataType: 'Number', description: 'The customer' },
		{ name: 'status', dataType: 'Text', description: 'open or closed' },
		{ name: 'created_time', dataType: 'Date', description: 'Created' },
		{ name: 'updated_time', dataType: 'Date', description: 'Last change' },
	],
	subUser: [
		{ name: 'id', dataType: 'Number', description: 'User ID' },
		{ name: 'username', dataType: 'Text', description: 'Login name' },
		{ name: 'email', dataType: 'Text', description: 'E-mail address' },
		{ name: 'first_name', dataType: 'Text', description: 'First name' },
		{ name: 'last_name', dataType: 'Text', description: 'Last name' },
		{ name: 'role', dataType: 'Text', description: 'admin, tester or viewer' },
		{ name: 'date_joined', dataType: 'Date', description: 'Account created' },
	],
	propertyKey: [
		{ name: 'id', dataType: 'Number', description: 'Property key id' },
		{ name: 'name', dataType: 'Text', description: 'Property name' },
		{ name: 'data_type', dataType: 'Text', description: 'Number, Text or Date' },
		{ name: 'resource', dataType: 'Text', description: 'device or customer' },
	],
	recycleBin: [
		{ name: 'id', dataType: 'Number', description: 'Recycle bin entry ID' },
		{ name: 'resource', dataType: 'Text', description: 'device or customer' },
		{ name: 'item_id', dataType: 'Number', description: 'ID of the deleted item' },
		{ name: 'name', dataType: 'Text', description: 'Designation or name of the deleted item' },
		{ name: 'deleted_time', dataType: 'Date', description: 'When it was deleted' },
	],
};

export function fieldType(resource: Resource, name: string): DataType | undefined {
	return FIELDS[resource]?.find((f) => f.name === name)?.dataType;
}
