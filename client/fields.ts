import type { Resource } from './catalogue';
import type { DataType } from './filters';
import { DEFAULT_PROFILE, FIELD_RESOURCES, type FieldResource, type ServiceProfile } from './profile';

/**
 * The fields of the lists filtered by field name, by their canonical names. Their names on the
 * wire and their data types come from the service profile; each face reads this table: the node
 * offers these fields, the sandbox serves and filters them, the pollers read them.
 */
export interface FieldInfo {
	name: string;
	dataType: DataType;
	description: string;
}

const DESCRIPTIONS: Record<FieldResource, Record<string, string>> = {
	testResult: {
		id: 'Test result ID',
		device_id: 'The tested device',
		customer_id: 'The device owner',
		project_id: 'The project the test belongs to',
		test_date: 'When the test was performed',
		synced_time: 'When the test equipment uploaded the result (often later)',
		status: 'passed or failed',
		tester: 'Who performed the test',
		test_sequence: 'The test procedure',
	},
	project: { id: 'Project ID', name: 'Project name', customer_id: 'The customer', status: 'open or closed', created_time: 'Created', updated_time: 'Last change' },
	subUser: {
		id: 'User ID',
		username: 'Login name',
		email: 'E-mail address',
		first_name: 'First name',
		last_name: 'Last name',
		role: 'admin, tester or viewer',
		date_joined: 'Account created',
	},
	propertyKey: { id: 'Property key id', name: 'Property name', data_type: 'Number, Text or Date', resource: 'device or customer' },
	recycleBin: {
		id: 'Recycle bin entry ID',
		resource: 'device or customer',
		item_id: 'ID of the deleted item',
		name: 'Designation or name of the deleted item',
		deleted_time: 'When it was deleted',
	},
};

/** A list's fields by canonical name, with the data types `profile` gives them. */
export function fieldsOf(resource: Resource, profile: ServiceProfile = DEFAULT_PROFILE): readonly FieldInfo[] | undefined {
	const fields = profile.fields[resource as FieldResource];
	if (!fields) return undefined;
	return Object.entries(fields).map(([name, f]) => ({ name, dataType: f.dataType, description: DESCRIPTIONS[resource as FieldResource][name] ?? name }));
}

/** The default profile's field lists (what the node's editor offers before it knows an account). */
export const FIELDS: Partial<Record<Resource, readonly FieldInfo[]>> = Object.fromEntries(FIELD_RESOURCES.map((r) => [r, fieldsOf(r)]));

export function fieldType(resource: Resource, name: string, profile: ServiceProfile = DEFAULT_PROFILE): DataType | undefined {
	return profile.fields[resource as FieldResource]?.[name]?.dataType;
}
