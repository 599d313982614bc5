import type { IDataObject, ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { FIELDS, type DataType, type Resource } from '../../../client';
import { getClient, toNodeError } from '../transport';
import { EVENT_RESOURCE, type TriggerEvent } from '../shared/events';

interface KeyOption {
	name: string;
	value: number | string;
	dataType: string;
	description?: string;
}

function currentResource(ctx: ILoadOptionsFunctions): string {
	const resource = String(ctx.getCurrentNodeParameter('resource') ?? ctx.getNodeParameter('resource', ''));
	if (resource !== '') return resource;
	// The trigger has no resource: its event decides the list.
	const event = String(ctx.getCurrentNodeParameter('event') ?? ctx.getNodeParameter('event', ''));
	return EVENT_RESOURCE[event as TriggerEvent] ?? '';
}

/** The property key table (GET /data/properties/all/) of the resource's records. */
async function propertyKeys(ctx: ILoadOptionsFunctions, resource: string): Promise<KeyOption[]> {
	const owner = resource === 'customer' ? 'customer' : 'device';
	try {
		const client = await getClient(ctx);
		const keys: KeyOption[] = [];
		for await (const key of client.items('propertyKey.list')) {
			const k = key as IDataObject;
			if (typeof k.resource === 'string' && k.resource !== owner) continue;
			if (typeof k.id !== 'number' && typeof k.id !== 'string') continue;
			const name = typeof k.name === 'string' ? k.name : `Property ${k.id}`;
			const dataType = typeof k.data_type === 'string' ? k.data_type : 'Text';
			keys.push({ name, value: Number(k.id), dataType, description: `Property key ${k.id} (${dataType})` });
		}
		return keys;
	} catch (error) {
		throw toNodeError(ctx.getNode(), error);
	}
}

function fieldKeys(resource: string): KeyOption[] {
	return (FIELDS[resource as Resource] ?? []).map((f) => ({
		name: f.name,
		value: f.name,
		dataType: f.dataType,
		description: `${f.description} (${f.dataType})`,
	}));
}

async function keysOf(ctx: ILoadOptionsFunctions): Promise<KeyOption[]> {
	const resource = currentResource(ctx);
	if (resource === 'customer' || resource === 'device' || resource === 'overdueDevice') return await propertyKeys(ctx, resource);
	if (FIELDS[resource as Resource]) return fieldKeys(resource);
	throw new NodeOperationError(ctx.getNode(), `The resource "${resource}" has no properties or fields to choose from`);
}

function toOptions(keys: KeyOption[], dataType?: DataType): INodePropertyOptions[] {
	return keys
		.filter((k) => dataType === undefined || k.dataType === dataType)
		.map((k) => ({ name: dataType ? k.name : `${k.name} (${k.dataType})`, value: k.value, description: k.description }))
		.sort((a, b) => a.name.localeCompare(b.name));
}

/** Properties of customers or devices (Properties to Return, form fields). */
export async function getPropertyKeys(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const resource = currentResource(this);
	return toOptions(await propertyKeys(this, resource));
}

/** Everything a list can be sorted by: property keys or field names. */
export async function getSortKeys(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return toOptions(await keysOf(this));
}

export async function getTextKeys(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return toOptions(await keysOf(this), 'Text');
}

export async function getNumberKeys(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return toOptions(await keysOf(this), 'Number');
}

export async function getDateKeys(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return toOptions(await keysOf(this), 'Date');
}
