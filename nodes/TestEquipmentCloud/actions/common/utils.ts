import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError, jsonParse } from 'n8n-workflow';
import { boundaryOverlap, encodePathId, fieldsOf, FirstRecords, forEachProperty, holdsRole, sortRecords, ValidationError, withoutProperty, type FilterInput, type ListQuery, type OperationId, type Resource, type ServiceClient, type ServiceProfile } from '../../../../client';
import { filtersFromParameter, isExpression, readFilterBuilder } from '../../shared/filters';
import { cachedListKeys } from '../../shared/filtersKeys';
import { isObject, simplifyRecord } from '../../shared/records';
import { isPropertyResource, type ListResource } from '../../shared/resources';
import { getClient } from '../../transport';
import { DEFAULT_LIMIT } from './list.description';

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

/** Simplify: version 1 reads Options › Simplify (off by default), version 2 the form's Simplify (on). */
export function wantsSimplify(ctx: IExecuteFunctions, i: number): boolean {
	if (ctx.getNode().typeVersion >= 2) return ctx.getNodeParameter('simplify', i, true) === true;
	return getOptions(ctx, i).simplify === true;
}

/** One n8n item per record, each paired with the input item it came from. */
export function toItems(records: unknown, i: number, simplify = false): INodeExecutionData[] {
	const list = Array.isArray(records) ? records : records === null || records === undefined ? [] : [records];
	return list.map((record) => {
		const value = simplify ? simplifyRecord(record) : record;
		return { json: (isObject(value) ? value : { value }) as IDataObject, pairedItem: { item: i } };
	});
}

/**
 * Reads the Filters parameter and validates each filter with names the form shows: version 3's
 * property-first builder, or the type-first one of versions 1 and 2.
 */
export async function readFilters(ctx: IExecuteFunctions, i: number, resource: ListResource): Promise<FilterInput[]> {
	if (ctx.getNode().typeVersion >= 3) return (await readFilterBuilder(ctx, resource, i)).filters;
	return filtersFromParameter(ctx.getNodeParameter('filters', i, {}), resource, { item: i, stored: ctx.getNode().parameters.filters });
}

export async function readListQuery(ctx: IExecuteFunctions, i: number, resource: ListResource): Promise<ListQuery> {
	const options = getOptions(ctx, i);
	const query: ListQuery = { filters: await readFilters(ctx, i, resource) };
	if (options.search) query.search = options.search;
	// An expression that gives an empty Search (a field the item lacks) would list every record, one
	// step from Update or Delete: refused as an empty filter value is. Left empty in the form, there is no search.
	else if (isExpression((ctx.getNode().parameters.options as IDataObject | undefined)?.search)) {
		throw new ValidationError('Options › Search', `the search is empty for item ${i} (its expression gave nothing), and an empty search lists every record; give the item a value, or remove the search`);
	}
	if (isPropertyResource(resource) && Array.isArray(options.enabled) && options.enabled.length > 0) {
		query.enabled = options.enabled;
	}
	const rule = options.sort?.rule;
	if (rule && rule.key !== undefined && rule.key !== '') {
		query.ordering = { key: rule.key, direction: rule.direction ?? 'asc' };
	}
	return query;
}

/**
 * Get Many of any list: Return All streams every page; otherwise stops at Limit. Pages are the
 * largest the service accepts (the client asks no more than Limit needs): reading N records
 * costs about N / (the largest page) requests at 5 per second. Pages overlap, so a list that changes while
 * it is read gives each record once. Only the record pickers page small.
 *
 * The service sorts only a Limit that one of its pages holds (`largestPageSize`: the page size it
 * answered after refusing a larger one, else the profile's). Over more than one page its sorted
 * order moves a record whenever its value changes (a device tested during the read), so the list
 * is read in the service's own order, each record once, and sorted after the last page
 * (`sortRecords`); a sorted Limit whose page the service refuses during the read is read again so.
 */
export async function executeList(
	this: IExecuteFunctions,
	i: number,
	resource: ListResource,
	operation: OperationId,
): Promise<INodeExecutionData[]> {
	const query = await readListQuery(this, i, resource);
	const returnAll = this.getNodeParameter('returnAll', i, false) as boolean;
	const limit = returnAll ? undefined : (this.getNodeParameter('limit', i, DEFAULT_LIMIT) as number);
	const simplify = isPropertyResource(resource) && wantsSimplify(this, i);
	const client = await clientFor(this, i);
	const ordering = query.ordering;
	if (ordering === undefined || (limit !== undefined && limit <= client.largestPageSize)) {
		const records = await readInServiceOrder(client, operation, query, limit);
		if (records !== undefined) return toItems(records, i, simplify);
	}
	await checkSortKey(this, i, resource, ordering!.key, client);
	const sorted = await readAndSort(client, operation, query, ordering!, limit, resource);
	return toItems(sorted, i, simplify);
}

/**
 * A sort done here refuses a key the service would refuse (the service refuses an unknown ordering
 * key): records without the key would keep the read order, and the run would look sorted.
 */
async function checkSortKey(ctx: IExecuteFunctions, i: number, resource: ListResource, key: number | string, client: ServiceClient): Promise<void> {
	const property = isPropertyResource(resource);
	const known = property
		? (await cachedListKeys(ctx, resource))?.map((k) => ({ key: String(k.key), name: k.name }))
		: fieldsOf(resource as Resource, client.profile)?.map((f) => ({ key: f.name, name: f.name }));
	if (known === undefined || known.some((k) => k.key === String(key))) return;
	const listed = known.slice(0, 30).map((k) => (k.key === k.name ? k.key : `${k.key} (${k.name})`));
	throw new ValidationError(
		`Options › Sort › ${property ? 'Property Name or ID' : 'Field Name or ID'}`,
		`${JSON.stringify(key)} (item ${i}) is not ${property ? "one of the account's property keys" : "a field of the list"}; known: ${listed.join(', ')}${known.length > listed.length ? `, and ${known.length - listed.length} more` : ''}`,
	);
}

const readOptions = (client: ServiceClient, maxItems: number | undefined) =>
	// A list that cannot be read to its end (odd answers from the service) is an error, not a silent part.
	({ pageSize: client.maxPageSize, maxItems, incomplete: 'throw', overlap: boundaryOverlap(client.maxPageSize) }) as const;

/**
 * The records in the order the service gives (its sort, when one page holds the Limit); undefined
 * when a sorted read would need a second page (the service refused the page size during the read).
 */
async function readInServiceOrder(client: ServiceClient, operation: OperationId, query: ListQuery, limit: number | undefined): Promise<unknown[] | undefined> {
	const records: unknown[] = [];
	let pages = 0;
	for await (const page of client.pages(operation, query, readOptions(client, limit))) {
		records.push(...page);
		pages++;
		if (query.ordering !== undefined && records.length < limit! && (pages > 1 || client.largestPageSize < limit!)) return undefined;
	}
	return records;
}

/** The records read in the service's own order (each once), sorted here; a Limit keeps only its first records while reading. */
async function readAndSort(client: ServiceClient, operation: OperationId, query: ListQuery, ordering: NonNullable<ListQuery['ordering']>, limit: number | undefined, resource: ListResource): Promise<unknown[]> {
	// Chosen properties without the sort key: it is read too (to sort by), and left out afterwards.
	const addedKey = query.enabled !== undefined && !query.enabled.some((k) => String(k) === String(ordering.key)) ? ordering.key : undefined;
	const read: ListQuery = { ...query, ordering: undefined, ...(addedKey !== undefined ? { enabled: [...query.enabled!, addedKey] } : {}) };
	const records: unknown[] = [];
	const first = limit !== undefined ? new FirstRecords<unknown>(limit, ordering, resource, client.profile) : undefined;
	for await (const page of client.pages(operation, read, readOptions(client, undefined))) {
		for (const record of page) {
			if (first) first.add(record);
			else records.push(record);
		}
	}
	const sorted = first ? first.sorted() : sortRecords(records, ordering, resource, client.profile);
	return addedKey === undefined ? sorted : sorted.map((record) => withoutProperty(record, addedKey));
}

/**
 * A Delete whose lost answer was repeated and found the item deleted, but whose recycle bin entry
 * could not be read (recycle_bin_id null): a hint says where a Restore finds it.
 */
export function hintUnknownBinEntry(ctx: IExecuteFunctions, result: unknown, label: 'Customer' | 'Device'): void {
	const r = result as { id?: unknown; already_deleted?: unknown; direct_delete?: unknown; recycle_bin_id?: unknown } | null;
	if (r?.already_deleted !== true || r.direct_delete !== false || r.recycle_bin_id !== null) return;
	ctx.addExecutionHints({
		message: `${label} ${String(r.id)} was deleted, but its recycle bin entry could not be read (the first answer was lost; recycle_bin_id is null): Recycle Bin › Get Many with a filter item_id = ${String(r.id)} finds the entry's ID for a Restore.`,
		location: 'outputPane',
	});
}

/** The value of a resource locator or plain ID parameter. */
export function idParameter(ctx: IExecuteFunctions, name: string, i: number): string {
	const value = ctx.getNodeParameter(name, i, '', { extractValue: true }) as string | number;
	return String(value ?? '').trim();
}

/** The customer of a device's form (version 1: Customer ID text; version 2: the Customer picker); undefined when empty. */
export function customerIdOf(ctx: IExecuteFunctions, i: number): number | string | undefined {
	const v2 = ctx.getNode().typeVersion >= 2;
	const value = v2 ? idParameter(ctx, 'customer', i) : String(ctx.getNodeParameter('customerId', i, '') ?? '').trim();
	return value === '' ? undefined : bodyId(value, v2 ? 'Customer' : 'Customer ID');
}

/** A mapped value as the service takes it: dates as YYYY-MM-DD, empty as null. */
function mappedValue(value: unknown): IDataObject[string] {
	if (value === '' || value === undefined) return null;
	if (value instanceof Date) return value.toISOString().slice(0, 10);
	if (typeof value === 'object' && value !== null && typeof (value as { toISODate?: unknown }).toISODate === 'function') {
		return (value as { toISODate: () => string }).toISODate();
	}
	if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value)) return value.slice(0, 10);
	return value as IDataObject[string];
}

/** Version 2's resource mapper → `{ "<property key id>": value }` (by hand, or from input fields named like properties). */
function readMappedValues(ctx: IExecuteFunctions, i: number, required: boolean): IDataObject {
	const mapper = ctx.getNodeParameter('fields', i, {}) as {
		mappingMode?: string;
		value?: IDataObject | null;
		schema?: Array<{ id: string; displayName: string; removed?: boolean }>;
	};
	const schema = mapper.schema ?? [];
	const properties: IDataObject = {};
	if (mapper.mappingMode === 'autoMapInputData') {
		const input = ctx.getInputData()[i]?.json ?? {};
		for (const field of schema) {
			if (field.removed) continue;
			const key = field.displayName in input ? field.displayName : field.id in input ? field.id : undefined;
			if (key !== undefined) properties[field.id] = mappedValue(input[key]);
		}
	} else {
		for (const [id, value] of Object.entries(mapper.value ?? {})) {
			if (value === undefined || value === null || value === '') continue;
			if (!/^\d+$/.test(id)) {
				throw new ValidationError('Properties', `"${id}" is not a property of the account; reload the properties and map again`);
			}
			properties[id] = mappedValue(value);
		}
	}
	if (required && Object.keys(properties).length === 0) {
		throw new ValidationError(
			'Properties',
			mapper.mappingMode === 'autoMapInputData'
				? 'no input field is named like a property (map the properties below instead)'
				: 'give at least one property a value',
		);
	}
	return properties;
}

/**
 * Automatic mapping, the values an item carries under `properties` (a record read before and
 * changed: Get → set `properties.Location` → Update), as `{ "<property key id>": value }`. Fields
 * named at the item's top level are left to `readPropertyValues`.
 */
export function nestedMappedValues(ctx: IExecuteFunctions, i: number): IDataObject {
	if (ctx.getNode().typeVersion < 2) return {};
	const mapper = ctx.getNodeParameter('fields', i, {}) as { mappingMode?: string; schema?: Array<{ id: string; displayName: string; removed?: boolean }> };
	if (mapper.mappingMode !== 'autoMapInputData') return {};
	const input = ctx.getInputData()[i]?.json ?? {};
	const nested = new Map<string, unknown>();
	forEachProperty(input, (name, value, keyId) => {
		nested.set(name, value);
		if (keyId !== undefined && keyId !== null) nested.set(String(keyId), value);
	});
	const properties: IDataObject = {};
	for (const field of mapper.schema ?? []) {
		if (field.removed || field.displayName in input || field.id in input) continue;
		const key = nested.has(field.displayName) ? field.displayName : nested.has(field.id) ? field.id : undefined;
		if (key !== undefined) properties[field.id] = mappedValue(nested.get(key));
	}
	return properties;
}

/** The values of `wanted` that differ from the record's own (compared as text; missing and empty alike). */
export function changedValues(wanted: IDataObject, record: unknown): IDataObject {
	const current = new Map<string, unknown>();
	forEachProperty(record, (name, value, keyId) => current.set(String(keyId ?? name), value));
	const shown = (v: unknown) => (v === null || v === undefined ? '' : String(mappedValue(v)));
	return Object.fromEntries(Object.entries(wanted).filter(([id, value]) => shown(value) !== shown(current.get(id))));
}

/**
 * `values` without the property the service computes (the profile's Next test, ASSUMED in
 * client/profile.ts): a record read before carries it, and writing it is refused.
 */
export function withoutComputed(values: IDataObject, record: unknown, profile: ServiceProfile): IDataObject {
	const computed = new Set<string>();
	forEachProperty(record, (name, _value, keyId) => {
		if (holdsRole('nextTestDate', name, keyId, profile)) computed.add(String(keyId ?? name));
	});
	return Object.fromEntries(Object.entries(values).filter(([id]) => !computed.has(id) && !holdsRole('nextTestDate', undefined, id, profile)));
}

/**
 * An update with nothing to send, refused in the words of the form the item came through (Device
 * and Customer Update alike): a success would say it changed something. `unchanged`: the item's
 * properties were found, and all are the record's current values. `customer`: the form also offers
 * a customer (Device Update).
 */
export function nothingToChange(ctx: IExecuteFunctions, i: number, options: { customer: boolean; unchanged?: 'device' | 'customer' }): ValidationError {
	const { customer, unchanged } = options;
	const noCustomer = customer ? ', and no customer is chosen' : '';
	const orCustomer = customer ? ', or choose a customer' : '';
	let reason: string;
	if (unchanged !== undefined) reason = `the properties of input item ${i} are the ${unchanged}'s current values${noCustomer}`;
	else if (ctx.getNode().typeVersion < 2) reason = `add at least one property to change${orCustomer}`;
	else if ((ctx.getNodeParameter('fields', i, {}) as { mappingMode?: string }).mappingMode === 'autoMapInputData') {
		reason = `no input field is named like a property, at the top level or under "properties" (map the properties below instead)${noCustomer}`;
	} else reason = `give at least one property a value${orCustomer}`;
	return new ValidationError('Properties', `${reason} (nothing to change for item ${i})`);
}

/** Form fields → `{ "<property key id>": value }`. */
export function readPropertyValues(ctx: IExecuteFunctions, i: number, required: boolean): IDataObject {
	if (ctx.getNode().typeVersion >= 2) return readMappedValues(ctx, i, required);
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
