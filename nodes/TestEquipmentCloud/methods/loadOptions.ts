import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { DataType } from '../../../client';
import { EVENT_RESOURCE, type TriggerEvent } from '../shared/events';
import { KEY_TYPE_SEPARATOR } from '../shared/filters.description';
import { listKeys, propertyKeys, type FilterKey } from '../shared/filtersKeys';

function currentResource(ctx: ILoadOptionsFunctions): string {
	const resource = String(ctx.getCurrentNodeParameter('resource') ?? ctx.getNodeParameter('resource', ''));
	if (resource !== '') return resource;
	// The trigger has no resource: its event decides the list.
	const event = String(ctx.getCurrentNodeParameter('event') ?? ctx.getNodeParameter('event', ''));
	return EVENT_RESOURCE[event as TriggerEvent] ?? '';
}

async function keysOf(ctx: ILoadOptionsFunctions): Promise<FilterKey[]> {
	const resource = currentResource(ctx);
	const keys = await listKeys(ctx, resource);
	if (keys) return keys;
	throw new NodeOperationError(ctx.getNode(), `The resource "${resource}" has no properties or fields to choose from`);
}

function toOptions(keys: FilterKey[], dataType?: DataType): INodePropertyOptions[] {
	return keys
		.filter((k) => dataType === undefined || k.dataType === dataType)
		.map((k) => ({ name: dataType ? k.name : `${k.name} (${k.dataType})`, value: k.key, description: k.description }))
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

/**
 * The property-first Filters' keys: "Next test (Date)", each value carrying its type
 * (`<key>|<type>`) so that the form shows that type's conditions.
 */
export async function getFilterKeys(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return (await keysOf(this))
		.map((k) => ({ name: `${k.name} (${k.dataType})`, value: `${k.key}${KEY_TYPE_SEPARATOR}${k.dataType}`, description: k.description }))
		.sort((a, b) => a.name.localeCompare(b.name));
}

/** The type-first Filters' keys of node versions 1–2 and trigger version 1. */
export async function getTextKeys(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return toOptions(await keysOf(this), 'Text');
}

export async function getNumberKeys(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return toOptions(await keysOf(this), 'Number');
}

export async function getDateKeys(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return toOptions(await keysOf(this), 'Date');
}
