import { z } from 'zod/v4';

/**
 * The shapes the service serves, defined once: the sandbox answers with them, the pollers parse
 * with them, the OpenAPI document is generated from them. Objects are open (unknown fields are
 * kept) and enumerations accept values added later, as the spec's versioning section asks.
 */

/** The service's shapes: one registry, so the OpenAPI document holds these and nothing else. */
export const serviceSchemas = z.registry<{ id: string; description?: string }>();

function named<T extends z.ZodType>(id: string, schema: T, description?: string): T {
	serviceSchemas.add(schema, description ? { id, description } : { id });
	return schema;
}

/** A known set of values that also accepts values added later. */
const openEnum = <const T extends readonly [string, ...string[]]>(values: T, description: string) =>
	z.union([z.enum(values), z.string()]).meta({ description: `${description} Known values: ${values.join(', ')}; others may be added.` });

const day = z.string().meta({ description: 'A calendar date, YYYY-MM-DD', examples: ['2026-11-21'] });
const time = z.string().meta({ description: 'A date-time, ISO 8601 (UTC)', examples: ['2026-11-21T09:30:00Z'] });
const id = z.number().int();

export const DataType = openEnum(['Number', 'Text', 'Date'], 'Data type of a property; decides which filter keywords apply.');

export const PropertyValue = named('PropertyValue', z.object({
	key_id: id.meta({ description: 'Property key id' }),
	name: z.string(),
	data_type: DataType,
	value: z.union([z.string(), z.number(), z.boolean(), z.null()]),
}).loose());

export const PropertyKey = named('PropertyKey', z.object({
	id,
	name: z.string(),
	data_type: DataType,
	resource: openEnum(['device', 'customer'], 'The resource the property belongs to.'),
	choices: z.array(z.string()).optional().meta({
		description:
			'ASSUMED (the spec names only the data types Number, Text and Date): a Text property with a fixed list of values lists them here; absent for free text.',
	}),
}).loose());

export const Customer = named('Customer', z.object({
	id,
	created_time: time,
	updated_time: time,
	properties: z.array(PropertyValue),
}).loose());

export const Device = named('Device', z.object({
	id,
	customer_id: id.nullable(),
	created_time: time,
	updated_time: time,
	properties: z.array(PropertyValue).meta({ description: 'The device properties; ID Barcode appears once' }),
}).loose());

export const OverdueDevice = named('OverdueDevice', Device.extend({
	customer_name: z.string().nullable(),
	next_test_date: day,
	days_overdue: z.number().int(),
}).loose());

export const TestStatus = openEnum(['passed', 'failed'], 'Outcome of a test.');

export const TestResult = named('TestResult', z.object({
	id,
	device_id: id,
	customer_id: id.nullable(),
	project_id: id.nullable(),
	test_date: day,
	synced_time: time.meta({ description: 'When the test equipment uploaded the result; can be days after test_date' }),
	status: TestStatus,
	tester: z.string(),
	test_sequence: z.string(),
}).loose());

export const Measurement = named('Measurement', z.object({
	name: z.string(),
	value: z.number(),
	unit: z.string(),
	low_limit: z.number().nullable(),
	high_limit: z.number().nullable(),
	passed: z.boolean(),
}).loose());

export const PerformedStep = named('PerformedStep', z.object({
	step: z.number().int(),
	name: z.string(),
	status: TestStatus,
	measurements: z.array(Measurement),
}).loose());

export const FileRef = named('FileRef', z.object({ id, file_name: z.string(), mime_type: z.string() }).loose());

export const TestResultDetail = named('TestResultDetail', TestResult.extend({
	device: z.object({ id, designation: z.union([z.string(), z.number(), z.null()]), id_barcode: z.union([z.string(), z.number(), z.null()]) }).loose().nullable(),
	steps: z.array(PerformedStep),
	files: z.array(FileRef),
}).loose());

export const Project = named('Project', z.object({
	id,
	name: z.string(),
	customer_id: id.nullable(),
	status: openEnum(['open', 'closed'], 'Project state.'),
	created_time: time,
	updated_time: time,
}).loose());

export const SubUser = named('SubUser', z.object({
	id,
	username: z.string(),
	email: z.string(),
	first_name: z.string(),
	last_name: z.string(),
	role: openEnum(['admin', 'tester', 'viewer'], 'Role of the user.'),
	is_active: z.boolean(),
	date_joined: time,
}).loose());

export const RecycleBinEntry = named('RecycleBinEntry', z.object({
	id: id.meta({ description: 'Recycle bin entry id (restore uses it)' }),
	resource: openEnum(['device', 'customer'], 'What was deleted.'),
	item_id: id,
	name: z.string(),
	deleted_time: time,
}).loose());

export const DownloadLink = named('DownloadLink', z.object({
	url: z.string().meta({ description: 'Valid for 5 minutes' }),
	expires_at: time,
	file_name: z.string(),
	mime_type: z.string(),
}).loose());

export const DeleteResult = named('DeleteResult', z.object({
	id,
	deleted: z.boolean(),
	direct_delete: z.boolean(),
	recycle_bin_id: id.nullable(),
}).loose());

export const RestoreResult = named('RestoreResult', z.object({
	restored: z.boolean(),
	resource: openEnum(['device', 'customer'], 'What was restored.'),
	item: z.union([Device, Customer]),
}).loose());

export const MultipleEditResult = named('MultipleEditResult', z.object({ updated: z.number().int(), results: z.array(Device) }).loose());

export const ServiceErrorBody = named('Error', z.object({ description: z.string() }).loose());

/** Property values for writes: `{ "<key id>": value }` or `[{ key_id, value }]`. */
export const PropertyInput = named('PropertyInput', z
	.union([
		z.record(z.string().regex(/^\d+$/), z.union([z.string(), z.number(), z.null()])),
		z.array(z.object({ key_id: id, value: z.union([z.string(), z.number(), z.null()]) })),
	])
	);

export const DeviceInput = named('DeviceInput', z.object({ id: id.optional(), customer_id: id.nullable().optional(), properties: PropertyInput }));
export const CustomerInput = named('CustomerInput', z.object({ id: id.optional(), properties: PropertyInput }));
export const MultipleEditInput = named('MultipleEditInput', z
	.object({
		ids: z.array(id).min(1),
		properties: PropertyInput,
		enabled: z.array(id).optional().meta({ description: 'Not required: when absent every given property is applied' }),
	})
	);

/** A page of a list (ASSUMED shape: limit/offset paging in the style of Django REST framework). */
function page<T extends z.ZodType>(item: T, id: string) {
	const schema = z
		.object({
			count: z.number().int().meta({ description: 'Items matching the query, all pages' }),
			next: z.string().nullable().meta({ description: 'URL of the next page, null on the last' }),
			previous: z.string().nullable(),
			results: z.array(item),
		})
		.loose();
	return named(id, schema);
}

export const CustomerPage = page(Customer, 'CustomerPage');
export const DevicePage = page(Device, 'DevicePage');
export const OverdueDevicePage = page(OverdueDevice, 'OverdueDevicePage');
export const TestResultPage = page(TestResult, 'TestResultPage');
export const ProjectPage = page(Project, 'ProjectPage');
export const SubUserPage = page(SubUser, 'SubUserPage');
export const RecycleBinPage = page(RecycleBinEntry, 'RecycleBinPage');
export const PropertyKeyPage = page(PropertyKey, 'PropertyKeyPage');

export const CustomerWrite = named('CustomerWrite', z.union([CustomerInput, z.array(CustomerInput)]), 'One object or an array');
export const DeviceWrite = named('DeviceWrite', z.union([DeviceInput, z.array(DeviceInput)]), 'One object or an array');
export const CustomerWritten = named('CustomerWritten', z.union([Customer, z.array(Customer)]), 'An object for an object, an array for an array');
export const DeviceWritten = named('DeviceWritten', z.union([Device, z.array(Device)]), 'An object for an object, an array for an array');
