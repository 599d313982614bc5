import type { IExecuteFunctions, ILoadOptionsFunctions, IPollFunctions } from 'n8n-workflow';
import { DATA_TYPES, FIELDS, type DataType, type Resource } from '../../../client';
import { accountPropertyKeys } from './propertyKeys';
import { isPropertyResource } from './resources';

/** One key a filter (or sort rule) can use: a property key (by ID) or a field (by name). */
export interface FilterKey {
	key: number | string;
	name: string;
	dataType: DataType;
	description: string;
}

type Context = IExecuteFunctions | ILoadOptionsFunctions | IPollFunctions;

/**
 * ASSUMED: a property type the filter table does not name (for example a choice list) is
 * compared as Text: its values are words, and the Text keywords are the ones that apply to words.
 */
export function filterDataType(raw: unknown): DataType {
	return DATA_TYPES.includes(raw as DataType) ? (raw as DataType) : 'Text';
}

/** The account's property keys of the resource's records, as filter keys. */
export async function propertyKeys(ctx: Context, resource: string): Promise<FilterKey[]> {
	return (await accountPropertyKeys(ctx, resource)).map((k) => ({
		key: Number(k.id),
		name: k.name,
		dataType: filterDataType(k.dataType),
		description: `Property key ${k.id} (${k.dataType})`,
	}));
}

export function fieldKeys(resource: string): FilterKey[] {
	return (FIELDS[resource as Resource] ?? []).map((f) => ({
		key: f.name,
		name: f.name,
		dataType: f.dataType,
		description: `${f.description} (${f.dataType})`,
	}));
}

/** The keys of a list: the account's property keys, or the list's fields. Undefined for a list without either. */
export async function listKeys(ctx: Context, resource: string): Promise<FilterKey[] | undefined> {
	if (isPropertyResource(resource)) return await propertyKeys(ctx, resource);
	return FIELDS[resource as Resource] ? fieldKeys(resource) : undefined;
}

const perExecution = new WeakMap<object, Map<string, Promise<FilterKey[] | undefined>>>();

/**
 * The keys of a list, read at most once per execution (n8n gives each node run one context,
 * shared by its items): a filter whose key came from an expression needs its type, and every
 * filter error names the property as the account lists it.
 */
export function cachedListKeys(ctx: IExecuteFunctions | IPollFunctions, resource: string): Promise<FilterKey[] | undefined> {
	let byResource = perExecution.get(ctx);
	if (!byResource) perExecution.set(ctx, (byResource = new Map()));
	let keys = byResource.get(resource);
	if (!keys) {
		keys = listKeys(ctx, resource);
		byResource.set(resource, keys);
		// A failed read is not remembered: the next item may try again.
		keys.catch(() => byResource.delete(resource));
	}
	return keys;
}
