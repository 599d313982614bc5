import type { IDataObject, ILoadOptionsFunctions, INodePropertyOptions, ResourceMapperField, ResourceMapperFields } from 'n8n-workflow';
import { getClient, toNodeError } from '../transport';
import { propertyChoices } from '../shared/propertyChoices';

function fieldType(dataType: string, options: INodePropertyOptions[]): ResourceMapperField['type'] {
	if (options.length > 0) return 'options';
	if (dataType === 'Number') return 'number';
	if (dataType === 'Date') return 'dateTime';
	return 'string';
}

/**
 * The account's properties of customers or devices as resource mapper fields, with the type
 * of each (Text → string, Number → number, Date → date picker, a fixed list of values → a
 * dropdown of them).
 */
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
			const options = propertyChoices(key);
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
