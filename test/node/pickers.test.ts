/**
 * Pickers: a device By Barcode (looked up at run time, errors that name the barcode), the
 * customer of a new or updated device From List / By ID / By URL (version 2).
 */
import { describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import { DEVICE } from '../../sandbox/properties';
import { run, useSandbox, valuesOf } from './helpers';

const sandbox = useSandbox();

const barcodeOf = (id: number) => String(sandbox.account.data.devices.get(id)!.values[DEVICE.idBarcode]);
const byBarcode = (value: string) => ({ __rl: true, mode: 'barcode', value });

describe('device By Barcode', () => {
	it('Get, Update and Delete find the device whose barcode it is', async () => {
		const barcode = barcodeOf(42);
		expect(barcode).not.toBe('');
		const got = await run(sandbox, { resource: 'device', operation: 'get', deviceId: byBarcode(barcode) }, { typeVersion: 2 });
		expect(got.error).toBeUndefined();
		expect(got.items[0].json).toMatchObject({ id: 42 });
		expect((got.items[0].json.properties as IDataObject)['ID Barcode']).toBe(barcode);

		const updated = await run(
			sandbox,
			{ resource: 'device', operation: 'update', deviceId: byBarcode(barcodeOf(43)), fields: { mappingMode: 'defineBelow', value: { [DEVICE.location]: 'Van 2' } } },
			{ typeVersion: 2 },
		);
		expect(updated.error).toBeUndefined();
		expect(sandbox.account.data.devices.get(43)!.values[DEVICE.location]).toBe('Van 2');

		const deleted = await run(sandbox, { resource: 'device', operation: 'delete', deviceId: byBarcode(barcodeOf(44)) });
		expect(deleted.error).toBeUndefined();
		expect(sandbox.account.data.devices.has(44)).toBe(false);
	});

	it('an unknown barcode is an error naming it, not a 400 from the service', async () => {
		const { error } = await run(sandbox, { resource: 'device', operation: 'get', deviceId: byBarcode('NO-SUCH-CODE') });
		expect(error).toMatchObject({ name: 'NodeOperationError', message: 'Device: no device has the barcode "NO-SUCH-CODE"' });
		expect(sandbox.stats.byStatus['400'] ?? 0).toBe(0);
	});
});

describe('customer of a device (version 2)', () => {
	it('Create with the customer By URL, Update with the customer By ID', async () => {
		const created = await run(
			sandbox,
			{
				resource: 'device',
				operation: 'create',
				customer: { __rl: true, mode: 'url', value: 'https://app.example.com/customers/3' },
				fields: { mappingMode: 'defineBelow', value: { [DEVICE.designation]: 'Insulation tester' } },
				simplify: false,
			},
			{ typeVersion: 2 },
		);
		expect(created.error).toBeUndefined();
		const device = created.items[0].json;
		expect(device.customer_id).toBe(3);
		expect(valuesOf(device)[DEVICE.designation]).toBe('Insulation tester');

		const moved = await run(
			sandbox,
			{ resource: 'device', operation: 'update', deviceId: { __rl: true, mode: 'id', value: String(device.id) }, customer: { __rl: true, mode: 'id', value: '5' } },
			{ typeVersion: 2 },
		);
		expect(moved.error).toBeUndefined();
		expect(moved.items[0].json.customer_id).toBe(5);
	});

	it('version 1 keeps its Customer ID text field', async () => {
		const created = await run(sandbox, {
			resource: 'device',
			operation: 'create',
			customerId: '4',
			propertyValues: { property: [{ key: DEVICE.designation, value: 'Drill' }] },
		});
		expect(created.error).toBeUndefined();
		expect(created.items[0].json.customer_id).toBe(4);
	});
});
