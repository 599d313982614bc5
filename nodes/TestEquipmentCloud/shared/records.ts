import type { IDataObject } from 'n8n-workflow';
import { propertyValues } from '../../../client';

export function isObject(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `properties: [{name, value}, …]` → `properties: {name: value}` (the Simplify option). */
export function simplifyRecord(record: unknown): unknown {
	if (!isObject(record) || !Array.isArray(record.properties)) return record;
	return { ...record, properties: propertyValues(record) as IDataObject };
}
