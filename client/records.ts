/**
 * Reading the service's records, tolerantly: devices and customers carry `properties` as a list
 * of `{key_id, name, data_type, value}` (a `{name: value}` map is accepted too). Unknown fields
 * are ignored; a property without a name is keyed by its key id.
 */
export function propertyValues(record: unknown): Record<string, unknown> | undefined {
	if (!record || typeof record !== 'object') return undefined;
	const props = (record as { properties?: unknown }).properties;
	if (Array.isArray(props)) {
		const out: Record<string, unknown> = {};
		for (const p of props) {
			if (!p || typeof p !== 'object') continue;
			const { name, key_id: keyId, value } = p as { name?: unknown; key_id?: unknown; value?: unknown };
			const key = typeof name === 'string' && name !== '' ? name : keyId === undefined || keyId === null ? '' : String(keyId);
			if (key !== '') out[key] = value;
		}
		return out;
	}
	return props && typeof props === 'object' ? { ...(props as Record<string, unknown>) } : undefined;
}
