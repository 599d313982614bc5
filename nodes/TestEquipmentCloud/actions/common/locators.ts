import type { IDataObject, IExecuteFunctions, INodeProperties, INodePropertyMode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { boundaryOverlap, roleValue, type ServiceClient } from '../../../../client';

/**
 * ASSUMED: the service's web app shows a customer at an address ending in `/customers/<id>`
 * (optionally followed by `/`); "By URL" takes the ID from there.
 */
export const CUSTOMER_URL_ID = 'customers/([0-9]+)';

/** A resource locator for one record: pick from a searchable list, or give the ID (devices also by barcode). */
export function recordLocator(args: {
	name: string;
	displayName: string;
	searchListMethod: string;
	placeholder: string;
	barcode?: boolean;
	url?: boolean;
	required?: boolean;
}): INodeProperties {
	const locator: INodeProperties = {
		displayName: args.displayName,
		name: args.name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: args.required ?? true,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: args.searchListMethod, searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: args.placeholder,
				validation: [
					{
						type: 'regex',
						properties: {
							regex: '^[A-Za-z0-9][A-Za-z0-9_-]*$',
							errorMessage: 'An ID is letters, digits, "-" or "_" (for example 1042)',
						},
					},
				],
			},
			{
				displayName: 'By URL',
				name: 'url',
				type: 'string',
				placeholder: 'e.g. https://app.example.com/customers/1042',
				extractValue: { type: 'regex', regex: CUSTOMER_URL_ID },
				validation: [
					{
						type: 'regex',
						properties: { regex: `.*${CUSTOMER_URL_ID}.*`, errorMessage: 'A customer address ends in /customers/<ID>' },
					},
				],
			},
			{
				// The barcode on the device's label (what a scanner gives); looked up at run time.
				displayName: 'By Barcode',
				name: 'barcode',
				type: 'string',
				placeholder: 'e.g. TEC-000042',
			},
		],
	};
	const wanted = (mode: INodePropertyMode) => (mode.name !== 'url' || args.url === true) && (mode.name !== 'barcode' || args.barcode === true);
	return { ...locator, modes: (locator.modes ?? []).filter(wanted) };
}

/** The barcode of a device record: the property holding the service profile's ID barcode role. */
function barcodeOf(record: IDataObject, client: ServiceClient): string | undefined {
	const value = roleValue(record, 'idBarcode', client.profile);
	return value !== null && value !== undefined ? String(value) : undefined;
}

/**
 * The device ID of a device locator: the ID itself, or the one device whose barcode is the one
 * given, compared without regard to case (a scanner may send lower case; the service's search
 * ignoring case too is ASSUMED in client/profile.ts). Every device the search
 * finds is read, however many contain the text ("LAB-1" is in LAB-100 … LAB-199 too): no device
 * or several are errors that name the barcode.
 */
export async function deviceIdOf(ctx: IExecuteFunctions, name: string, i: number, client: ServiceClient): Promise<string> {
	const locator = ctx.getNodeParameter(name, i, {}) as { mode?: string; value?: unknown } | string;
	if (typeof locator !== 'object' || locator === null || locator.mode !== 'barcode') {
		return String(ctx.getNodeParameter(name, i, '', { extractValue: true }) ?? '').trim();
	}
	const value = String(locator.value ?? '').trim();
	if (value === '') {
		throw new NodeOperationError(ctx.getNode(), 'Device: give a barcode (By Barcode), for example TEC-000042', { itemIndex: i });
	}
	const matches: IDataObject[] = [];
	const wanted = value.toLowerCase();
	const pages = client.pages('device.list', { search: value }, { pageSize: client.maxPageSize, incomplete: 'throw', overlap: boundaryOverlap(client.maxPageSize) });
	for await (const page of pages) {
		for (const record of page as IDataObject[]) if (barcodeOf(record, client)?.trim().toLowerCase() === wanted) matches.push(record);
	}
	if (matches.length === 1) return String(matches[0].id);
	throw new NodeOperationError(
		ctx.getNode(),
		matches.length === 0 ? `Device: no device has the barcode "${value}"` : `Device: ${matches.length} devices have the barcode "${value}"`,
		{
			itemIndex: i,
			description:
				matches.length === 0
					? 'Check the barcode on the label, or choose the device From List.'
					: `Devices ${matches.map((m) => String(m.id)).join(', ')} share it; choose one By ID.`,
		},
	);
}
