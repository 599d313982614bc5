import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError, jsonParse } from 'n8n-workflow';
import {
	propertyValues,
	FILTER_KEY_TYPE,
	encodePathId,
	ValidationError,
	validateFilter,
	type DataType,
	type FilterInput,
	type ListQuery,
	type OperationId,
	type ServiceClient,
} from '../../../../client';
import { getClient } from '../../transport';
import { isPropertyResource, type ListResource } from './descriptions';

export interface CommonOptions {
	maxRetryWait?: number;
	timeout?: number;
	simplify?: boolean;
	search?: string;
	enabled?: Array<number | string>;
	sort?: { rule?: { key?: number | string; direction?: 'asc' | 'desc' } };
}

export function getOptions(ctx: IExecuteFunctions, i: number): CommonOptions {
	return ctx.getNodeParameter('options', i, {}) as CommonOptions;
}

export async function clientFor(ctx: IExecuteFunctions, i: number): Promise<ServiceClient> {
	const { maxRetryWait, timeout } = getOptions(ctx, i);
	return await getClient(ctx, { maxRetryWaitSeconds: maxRetryWait, timeoutSeconds: timeout });
}

function isObject(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `properties: [{name, value}, …]` → `properties: {name: value}` (the Simplify option). */
export function simplifyRecord(record: unknown): unknown {
	if (!isObject(record) || !Array.isArray(record.properties)) return record;
	return { ...record, properties: propertyValues(record) as IDataObject };
}

/** One n8n item per record, each paired with the input item it came from. */
export function toItems(records: unknown, i: number, simplify = false): INodeExecutionData[] {
	const list = Array.isArray(records) ? records : records === null || records === undefined ? [] : [records];
	return list.map((record) => {
		const value = simplify ? simplifyRecord(record) : record;
		return { json: (isObject(value) ? value : { value }) as IDataObject, pairedItem: { item: i } };
	});
}

interface FilterEntry {
	key?: number | string;
	join?: string;
	conditions?: { condition?: Array<{ keyword?: string; value?: string | number }> };
}

const FILTER_GROUPS: Array<[string, DataType]> = [
	['date', 'Date'],
	['number', 'Number'],
	['text', 'Text'],
];

function conditionValue(dataType: DataType, value: unknown): string | number {
	if (dataType === 'Date' && typeof value === 'string') {
		const trimmed = value.trim();
		// Expressions such as {{ $now }} give a timestamp: the filter compares days.
		return /^\d{4}-\d{2}-\d{2}T/.test(trimmed) ? trimmed.slice(0, 10) : trimmed;
	}
	if (typeof value === 'string' || typeof value === 'number') return value;
	return value === undefined || value === null ? '' : String(value);
}

/** Reads the Filters parameter and validates each filter with names the form shows. */
export function readFilters(ctx: IExecuteFunctions, i: number, resource: ListResource): FilterInput[] {
	return filtersFromParameter(ctx.getNodeParameter('filters', i, {}), resource);
}

/** The Filters parameter's value (as n8n stores it) → validated filter inputs of the client. */
export function filtersFromParameter(value: unknown, resource: ListResource): FilterInput[] {
	const raw = (value ?? {}) as Record<string, FilterEntry[] | undefined>;
	const keyType = FILTER_KEY_TYPE[resource];
	const filters: FilterInput[] = [];
	for (const [group, dataType] of FILTER_GROUPS) {
		for (const [n, entry] of (raw[group] ?? []).entries()) {
			const input: FilterInput = {
				key: entry.key ?? '',
				join: entry.join,
				dataType,
				conditions: (entry.conditions?.condition ?? []).map((c) => ({
					keyword: String(c.keyword ?? ''),
					value: conditionValue(dataType, c.value),
				})),
			};
			// Throws a ValidationError naming the filter as the form shows it.
			validateFilter(input, keyType, `Filters › ${dataType} Filter ${n + 1}`);
			filters.push(input);
		}
	}
	return filters;
}

export function readListQuery(ctx: IExecuteFunctions, i: number, resource: ListResource): ListQuery {
	const options = getOptions(ctx, i);
	const query: ListQuery = { filters: readFilters(ctx, i, resource) };
	if (options.search) query.search = options.search;
	if (isPropertyResource(resource) && Array.isArray(options.enabled) && options.enabled.length > 0) {
		query.enabled = options.enabled;
	}
	const rule = options.sort?.rule;
	if (rule && rule.key !== undefined && rule.key !== '') {
		query.ordering = { key: rule.key, direction: rule.direction ?? 'asc' };
	}
	return query;
}

/** Get Many of any list: Return All streams every page; otherwise stops at Limit. */
export async function executeList(
	this: IExecuteFunctions,
	i: number,
	resource: ListResource,
	operation: OperationId,
): Promise<INodeExecutionData[]> {
	const query = readListQuery(this, i, resource);
	const returnAll = this.getNodeParameter('returnAll', i, false) as boolean;
	const limit = returnAll ? undefined : (this.getNodeParameter('limit', i, 50) as number);
	const simplify = isPropertyResource(resource) && getOptions(this, i).simplify === true;
	const client = await clientFor(this, i);
	const out: INodeExecutionData[] = [];
	// A list that cannot be read to its end (odd answers from the service) is an error, not a silent part.
	for await (const page of client.pages(operation, query, { maxItems: limit, incomplete: 'throw' })) {
		out.push(...toItems(page, i, simplify));
	}
	return out;
}

/** The value of a resource locator or plain ID parameter. */
export function idParameter(ctx: IExecuteFunctions, name: string, i: number): string {
	const value = ctx.getNodeParameter(name, i, '', { extractValue: true }) as string | number;
	return String(value ?? '').trim();
}

/** Form fields → `{ "<property key id>": value }`. */
export function readPropertyValues(ctx: IExecuteFunctions, i: number, required: boolean): IDataObject {
	const raw = ctx.getNodeParameter('propertyValues', i, {}) as { property?: Array<{ key?: string | number; value?: unknown }> };
	const properties: IDataObject = {};
	for (const [n, p] of (raw.property ?? []).entries()) {
		const key = String(p.key ?? '').trim();
		if (!/^\d+$/.test(key) || Number(key) <= 0) {
			throw new ValidationError(`Properties › Property ${n + 1}`, `choose a property (a property key ID such as 4), got "${key}"`);
		}
		if (key in properties) {
			throw new ValidationError(`Properties › Property ${n + 1}`, `property ${key} is set twice`);
		}
		const value = p.value;
		properties[key] = value === '' || value === undefined ? null : (value as IDataObject[string]);
	}
	if (required && Object.keys(properties).length === 0) {
		throw new ValidationError('Properties', 'add at least one property to change');
	}
	return properties;
}

/** The JSON input: one object or a non-empty array of objects. */
export function readJsonInput(ctx: IExecuteFunctions, i: number): IDataObject | IDataObject[] {
	const raw = ctx.getNodeParameter('json', i) as unknown;
	let value: unknown = raw;
	if (typeof raw === 'string') {
		try {
			value = jsonParse(raw);
		} catch (error) {
			throw new NodeOperationError(ctx.getNode(), `JSON: not valid JSON (${(error as Error).message})`, { itemIndex: i });
		}
	}
	const ok = Array.isArray(value) ? value.length > 0 && value.every(isObject) : isObject(value);
	if (!ok) {
		throw new NodeOperationError(ctx.getNode(), 'JSON: give one object or a non-empty array of objects', {
			itemIndex: i,
			description: 'For example {"properties": {"1": "Drill"}} or [{…}, {…}]',
		});
	}
	return value as IDataObject | IDataObject[];
}

/** An ID for a request body: validated like a path ID; digits become a number. */
export function bodyId(value: string, parameter: string): number | string {
	encodePathId(value, parameter);
	return /^\d+$/.test(value) && Number.isSafeInteger(Number(value)) ? Number(value) : value;
}
