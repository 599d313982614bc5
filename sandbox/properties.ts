import type { DataType, PropertyRole, ServiceProfile } from '../client';

/**
 * The sandbox account's property keys (the real table is per account; the spec does not show it).
 * Served at `GET /data/properties/all/`. Devices and customers use separate id ranges.
 */
export interface PropertyKey {
	id: number;
	name: string;
	data_type: DataType;
	resource: 'device' | 'customer';
	/** The allowed values of a Text property with a fixed list (shape: the contract's PropertyKey). */
	choices?: readonly string[];
}

export const DEVICE = {
	designation: 1,
	idBarcode: 2,
	lastTested: 3,
	department: 4,
	testInterval: 5,
	manufacturer: 6,
	serialNumber: 7,
	location: 8,
	nextTest: 9,
	protectionClass: 10,
} as const;

export const CUSTOMER = {
	name: 101,
	customerNumber: 102,
	city: 103,
	contractStart: 104,
	contactEmail: 105,
} as const;

export const PROPERTY_KEYS: readonly PropertyKey[] = [
	{ id: DEVICE.designation, name: 'Designation', data_type: 'Text', resource: 'device' },
	{ id: DEVICE.idBarcode, name: 'ID Barcode', data_type: 'Text', resource: 'device' },
	{ id: DEVICE.lastTested, name: 'Last tested', data_type: 'Date', resource: 'device' },
	{ id: DEVICE.department, name: 'Department', data_type: 'Text', resource: 'device' },
	{ id: DEVICE.testInterval, name: 'Test interval (months)', data_type: 'Number', resource: 'device' },
	{ id: DEVICE.manufacturer, name: 'Manufacturer', data_type: 'Text', resource: 'device' },
	{ id: DEVICE.serialNumber, name: 'Serial number', data_type: 'Text', resource: 'device' },
	{ id: DEVICE.location, name: 'Location', data_type: 'Text', resource: 'device' },
	{ id: DEVICE.nextTest, name: 'Next test', data_type: 'Date', resource: 'device' },
	// IEC 61140: I protective earth, II double insulation, III safety extra-low voltage.
	{ id: DEVICE.protectionClass, name: 'Protection class', data_type: 'Text', resource: 'device', choices: ['I', 'II', 'III'] },
	{ id: CUSTOMER.name, name: 'Name', data_type: 'Text', resource: 'customer' },
	{ id: CUSTOMER.customerNumber, name: 'Customer number', data_type: 'Text', resource: 'customer' },
	{ id: CUSTOMER.city, name: 'City', data_type: 'Text', resource: 'customer' },
	{ id: CUSTOMER.contractStart, name: 'Contract start', data_type: 'Date', resource: 'customer' },
	{ id: CUSTOMER.contactEmail, name: 'Contact e-mail', data_type: 'Text', resource: 'customer' },
];

export const DEVICE_KEYS = PROPERTY_KEYS.filter((k) => k.resource === 'device');
export const CUSTOMER_KEYS = PROPERTY_KEYS.filter((k) => k.resource === 'customer');

/** Derived by the service from Last tested + Test interval; writes to it are refused. */
export const READ_ONLY_KEYS: ReadonlySet<number> = new Set([DEVICE.nextTest]);

/** The property that holds each role of the service profile. */
const ROLE_KEYS: Record<PropertyRole, number> = {
	designation: DEVICE.designation,
	idBarcode: DEVICE.idBarcode,
	lastTested: DEVICE.lastTested,
	nextTestDate: DEVICE.nextTest,
	department: DEVICE.department,
	customerName: CUSTOMER.name,
	testInterval: DEVICE.testInterval,
	customerEmail: CUSTOMER.contactEmail,
	location: DEVICE.location,
};

/** The property keys as an account laid out by `profile` names them (a role's first name). */
export function propertyKeysOf(profile: ServiceProfile): PropertyKey[] {
	const names = new Map<number, string>(Object.entries(ROLE_KEYS).map(([role, id]) => [id, profile.properties[role as PropertyRole].names[0]]));
	return PROPERTY_KEYS.map((k) => (names.has(k.id) && names.get(k.id) !== k.name ? { ...k, name: names.get(k.id)! } : k));
}
