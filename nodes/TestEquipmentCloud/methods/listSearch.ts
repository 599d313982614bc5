import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import type { OperationId } from '../../../client';
import { getClient, toNodeError } from '../transport';

/** How many records the list mode of a record picker loads at a time (scrolling loads more). */
const PICKER_SIZE = 100;

function propertyValue(record: IDataObject, pattern: RegExp): string | undefined {
	const properties = Array.isArray(record.properties) ? (record.properties as IDataObject[]) : [];
	const found = properties.find((p) => typeof p.name === 'string' && pattern.test(p.name));
	return found && found.value !== null && found.value !== undefined && found.value !== '' ? String(found.value) : undefined;
}

/** One picker page; the token is the offset of the next page, absent after the last one. */
async function search(
	ctx: ILoadOptionsFunctions,
	operation: OperationId,
	filter: string | undefined,
	paginationToken: unknown,
	label: (record: IDataObject) => string,
): Promise<INodeListSearchResult> {
	try {
		const client = await getClient(ctx);
		const offset = paginationToken === undefined || paginationToken === '' ? 0 : Number(paginationToken);
		const records: IDataObject[] = [];
		const query = filter ? { search: filter } : {};
		for await (const page of client.pages(operation, query, { pageSize: PICKER_SIZE, maxItems: PICKER_SIZE, offset })) {
			records.push(...(page as IDataObject[]));
		}
		const results = records.filter((r) => r.id !== undefined && r.id !== null).map((r) => ({ name: label(r), value: String(r.id) }));
		return records.length < PICKER_SIZE ? { results } : { results, paginationToken: String(offset + records.length) };
	} catch (error) {
		throw toNodeError(ctx.getNode(), error);
	}
}

export async function searchDevices(this: ILoadOptionsFunctions, filter?: string, paginationToken?: string): Promise<INodeListSearchResult> {
	return await search(this, 'device.list', filter, paginationToken, (d) => {
		const designation = propertyValue(d, /designation/i) ?? `Device ${d.id}`;
		const barcode = propertyValue(d, /barcode/i);
		return `${designation}${barcode ? ` (${barcode})` : ''} · #${d.id}`;
	});
}

export async function searchCustomers(this: ILoadOptionsFunctions, filter?: string, paginationToken?: string): Promise<INodeListSearchResult> {
	return await search(this, 'customer.list', filter, paginationToken, (c) => `${propertyValue(c, /name/i) ?? `Customer ${c.id}`} · #${c.id}`);
}

export async function searchTestResults(this: ILoadOptionsFunctions, filter?: string, paginationToken?: string): Promise<INodeListSearchResult> {
	return await search(this, 'testResult.list', filter, paginationToken, (r) =>
		[`#${r.id}`, r.test_date, r.status, r.device_id !== undefined ? `device ${r.device_id}` : undefined]
			.filter((part) => part !== undefined && part !== null && part !== '')
			.join(' · '),
	);
}
