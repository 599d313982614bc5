import type { IDataObject, INodePropertyOptions } from 'n8n-workflow';

/**
 * A property key's fixed list of values as dropdown options. The contract's PropertyKey puts
 * them in `choices`; read tolerantly: `options` too, whatever the data type, each value a
 * string, a number or {name|label, value}. Anything else is skipped, never thrown on.
 */
export function propertyChoices(key: IDataObject): INodePropertyOptions[] {
	const raw = Array.isArray(key.choices) ? key.choices : Array.isArray(key.options) ? key.options : [];
	return raw.flatMap((c: unknown): INodePropertyOptions[] => {
		if (typeof c === 'string' || typeof c === 'number') return [{ name: String(c), value: c }];
		if (c && typeof c === 'object') {
			const o = c as IDataObject;
			const value = [o.value, o.name, o.label].find((v): v is string | number => typeof v === 'string' || typeof v === 'number');
			if (value === undefined) return [];
			const name = [o.name, o.label].find((v): v is string => typeof v === 'string');
			return [{ name: name ?? String(value), value }];
		}
		return [];
	});
}
