import type { ILoadOptionsFunctions, INodePropertyOptions, ResourceMapperField, ResourceMapperFields } from 'n8n-workflow';
import { accountPropertyKeys } from '../shared/propertyKeys';

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
	const fields = (await accountPropertyKeys(this, resource)).map(
		(key): ResourceMapperField => ({
			id: String(key.id),
			displayName: key.name,
			required: false,
			defaultMatch: false,
			canBeUsedToMatch: false,
			display: true,
			type: fieldType(key.dataType, key.choices),
			...(key.choices.length > 0 ? { options: key.choices } : {}),
		}),
	);
	return { fields };
}
