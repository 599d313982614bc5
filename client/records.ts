/**
 * Reading the service's records, tolerantly: devices and customers carry `properties` as a list
 * of `{key_id, name, data_type, value}` (a `{name: value}` map is accepted too). Unknown fields
 * are ignored; a property without a name is keyed by its key id.
 */
export function propertyValues(record: unknown): Record<string, unknown> | undefined {
	const props = propertiesOf(record);
	if (Array.isArray(props)) {
		const out: Record<string, unknown> = {};
		forEachProperty(record, (key, value) => {
			out[key] = value;
		});
		return out;
	}
	return props && typeof props === 'object' ? { ...(props as Record<string, unknown>) } : undefined;
}

/**
 * Each property of a record in its order, read as `propertyValues` reads it, without building the
 * map: for a list scan that looks for a few names in every record.
 */
export function forEachProperty(record: unknown, visit: (key: string, value: unknown, keyId?: unknown, dataType?: unknown) => void): void {
	const props = propertiesOf(record);
	if (Array.isArray(props)) {
		for (const p of props) {
			if (!p || typeof p !== 'object') continue;
			const { name, key_id: keyId, value, data_type: dataType } = p as { name?: unknown; key_id?: unknown; value?: unknown; data_type?: unknown };
			const key = typeof name === 'string' && name !== '' ? name : keyId === undefined || keyId === null ? '' : String(keyId);
			if (key !== '') visit(key, value, keyId, dataType);
		}
	} else if (props && typeof props === 'object') {
		for (const [key, value] of Object.entries(props)) visit(key, value);
	}
}

function propertiesOf(record: unknown): unknown {
	return record && typeof record === 'object' ? (record as { properties?: unknown }).properties : undefined;
}
