import type { IDataObject, IExecuteFunctions, ILoadOptionsFunctions, INodePropertyOptions, IPollFunctions } from 'n8n-workflow';
import { getClient, toNodeError } from '../transport';
import { propertyChoices } from './propertyChoices';

/** One property of the account's customers or devices, as the filters and the mapper read it. */
export interface AccountPropertyKey {
	id: number | string;
	name: string;
	/** As the service names it (Number, Text, Date, or a type the spec does not name). */
	dataType: string;
	/** Its fixed list of values; empty when any value goes. */
	choices: INodePropertyOptions[];
}

/**
 * The property key table (GET /data/properties/all/) for the resource's records; keys without a
 * usable id are skipped, a missing name or type read tolerantly.
 */
export async function accountPropertyKeys(ctx: IExecuteFunctions | ILoadOptionsFunctions | IPollFunctions, resource: string): Promise<AccountPropertyKey[]> {
	const owner = resource === 'customer' ? 'customer' : 'device';
	try {
		const client = await getClient(ctx);
		const keys: AccountPropertyKey[] = [];
		for await (const item of client.items('propertyKey.list')) {
			const key = item as IDataObject;
			if (typeof key.resource === 'string' && key.resource !== owner) continue;
			if (typeof key.id !== 'number' && typeof key.id !== 'string') continue;
			keys.push({
				id: key.id,
				name: typeof key.name === 'string' ? key.name : `Property ${String(key.id)}`,
				dataType: typeof key.data_type === 'string' ? key.data_type : 'Text',
				choices: propertyChoices(key),
			});
		}
		return keys;
	} catch (error) {
		throw toNodeError(ctx.getNode(), error);
	}
}
