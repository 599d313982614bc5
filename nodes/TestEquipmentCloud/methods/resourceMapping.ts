import type { IDataObject, ILoadOptionsFunctions, INodePropertyOptions, ResourceMapperField, ResourceMapperFields } from 'n8n-workflow';
import { getClient, toNodeError } from '../transport';

/**
 * The account's properties of customers or devices as resource mapper fields, with the type
 * of each (Text → string, Number → number, Date → date picker, a fixed list → its options).
 * A property's allowed values are read where the contract's PropertyKey puts them (`choices`);
 * read tolerantly: `options` too, whatever the data type, as strings or {name|label, value}.
 */
function choices(key: IDataObject): INodePropertyOptions[] {
	const raw = Array.isArray(key.choices) ? key.choices : Array.isArray(key.options) ? key.options : [];
	return raw.flatMap((c: unknown): INodePropertyOptions[] => {
		if (typeof c === 'string' || typeof c === 'number') return [{ name: String(c), value: c }];
		if (c && typeof c === 'object') {
			const o = c as IDataObject;
			const value = (o.value ?? o.name ?? o.label) as string | number | undefined;
			if (value === undefined) return [];
			return [{ name: String(o.name ?? o.label ?? value), value }];
		}
		return [];
	});
}

function fieldType(dataType: string, options: INodePropertyOptions[]): ResourceMapperField['type'] {
	if (options.length > 0) return 'options';
	if (dataType === 'Number') return 'number';
	if (dataType === 'Date') return 'dateTime';
	return 'string';
}

export async function getPropertyFields(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	const resource = String(this.getCurrentNodeParameter('resource') ?? this.getNodeParameter('resource', ''));
	const owner = resource === 'customer' ? 'customer' : 'device';
	try {
		const client = await getClient(this);
		const fields: ResourceMapperField[] = [];
		for await (const item of client.items('propertyKey.list')) {
			const key = item as IDataObject;
			if (typeof key.resource === 'string' && key.resource !== owner) continue;
			if (typeof key.id !== 'number' && typeof key.id !== 'string') continue;
			const options = choices(key);
			fields.push({
				id: String(key.id),
				displayName: typeof key.name === 'string' ? key.name : `Property ${String(key.id)}`,
				required: false,
				defaultMatch: false,
				canBeUsedToMatch: false,
				display: true,
				type: fieldType(typeof key.data_type === 'string' ? key.data_type : 'Text', options),
				...(options.length > 0 ? { options } : {}),
			});
		}
		return { fields };
	} catch (error) {
		throw toNodeError(this.getNode(), error);
	}
}
