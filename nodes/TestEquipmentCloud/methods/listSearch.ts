import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import type { OperationId } from '../../../client';
import { getClient, toNodeError } from '../transport';

/** How many records the list mode of a record picker shows (type to search for others). */
const PICKER_SIZE = 100;

function propertyValue(record: IDataObject, pattern: RegExp): string | undefined {
	const properties = Array.isArray(record.properties) ? (record.properties as IDataObject[]) : [];
	const found = properties.find((p) => typeof p.name === 'string' && pattern.test(p.name));
	return found && found.value !== null && found.value !== undefined && found.value !== '' ? String(found.value) : undefined;
}

async function search(
	ctx: ILoadOptionsFunctions,
	operation: OperationId,
	filter: string | undefined,
	label: (record: IDataObject) => string,
): Promise<INodeListSearchResult> {
	try {
		const client = await getClient(ctx);
		const results: INodeListSearchResult['results'] = [];
		const query = filter ? { search: filter } : {};
		for await (const record of client.items(operation, query, { maxItems: PICKER_SIZE })) {
			const r = record as IDataObject;
			if (r.id === undefined || r.id === null) continue;
			results.push({ name: label(r), value: String(r.id) });
		}
		return { results };
	} catch (error) {
		throw toNodeError(ctx.getNode(), error);
	}
}

export async function searchDevices(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	return await search(this, 'device.list', filter, (d) => {
		const designation = propertyValue(d, /designation/i) ?? `Device ${d.id}`;
		const barcode = propertyValue(d, /barcode/i);
		return `${designation}${barcode ? ` (${barcode})` : ''} · #${d.id}`;
	});
}

export async function searchCustomers(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	return await search(this, 'customer.list', filter, (c) => `${propertyValue(c, /name/i) ?? `Customer ${c.id}`} · #${c.id}`);
}

export async function searchTestResults(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	return await search(this, 'testResult.list', filter, (r) =>
		[`#${r.id}`, r.test_date, r.status, r.device_id !== undefined ? `device ${r.device_id}` : undefined]
			.filter((part) => part !== undefined && part !== null && part !== '')
			.join(' · '),
	);
}
