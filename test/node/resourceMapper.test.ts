/**
 * Version 2's property form (n8n's resource mapper): fields loaded from the account's property
 * keys with their types, values mapped by hand (a date from the date picker) or automatically
 * from input fields named like the properties, on Create, Update and Update Many.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { IDataObject, ResourceMapperFields } from 'n8n-workflow';
import { propertyChoices } from '../../nodes/TestEquipmentCloud/shared/propertyChoices';
import { CUSTOMER, CUSTOMER_KEYS, DEVICE, DEVICE_KEYS } from '../../sandbox/properties';
import { callMethod } from '../support/n8n';
import { credentialsFor, run, useSandbox, valuesOf } from './helpers';

const sandbox = useSandbox();

const fieldsOf = async (resource: string) =>
	(await callMethod({
		kind: 'resourceMapping',
		method: 'getPropertyFields',
		parameters: { resource, operation: 'create' },
		credentials: credentialsFor(sandbox),
	})) as ResourceMapperFields;

describe('fields of the resource mapper', () => {
	it('are the account’s device properties with their types (Date → date picker, Number → number)', async () => {
		const { fields } = await fieldsOf('device');
		expect(fields.map((f) => f.id).sort()).toEqual(DEVICE_KEYS.map((k) => String(k.id)).sort());
		const byId = new Map(fields.map((f) => [f.id, f]));
		expect(byId.get(String(DEVICE.designation))).toMatchObject({ displayName: 'Designation', type: 'string', display: true, required: false });
		expect(byId.get(String(DEVICE.nextTest))).toMatchObject({ displayName: 'Next test', type: 'dateTime' });
		expect(byId.get(String(DEVICE.testInterval))).toMatchObject({ type: 'number' });
	});

	it('a property with a fixed list of values is a dropdown of those values', async () => {
		const { fields } = await fieldsOf('device');
		expect(fields.find((f) => f.id === String(DEVICE.protectionClass))).toMatchObject({
			displayName: 'Protection class',
			type: 'options',
			options: [
				{ name: 'I', value: 'I' },
				{ name: 'II', value: 'II' },
				{ name: 'III', value: 'III' },
			],
		});
		for (const f of fields.filter((f) => f.id !== String(DEVICE.protectionClass))) expect(f.options).toBeUndefined();
	});

	it('are the customer properties for customers', async () => {
		const { fields } = await fieldsOf('customer');
		expect(fields.map((f) => f.id).sort()).toEqual(CUSTOMER_KEYS.map((k) => String(k.id)).sort());
		expect(fields.find((f) => f.id === String(CUSTOMER.contractStart))?.type).toBe('dateTime');
	});
});

describe('reading a property’s fixed list of values', () => {
	it('takes `choices` (the contract) or `options`, as strings, numbers or {name|label, value}', () => {
		expect(propertyChoices({ data_type: 'Text', choices: ['I', 'II'] })).toEqual([
			{ name: 'I', value: 'I' },
			{ name: 'II', value: 'II' },
		]);
		expect(propertyChoices({ data_type: 'Choice', options: [{ label: 'Class I', value: 'I' }, { name: 'II' }, 3, { label: 'no value' }] } as IDataObject)).toEqual([
			{ name: 'Class I', value: 'I' },
			{ name: 'II', value: 'II' },
			{ name: '3', value: 3 },
			{ name: 'no value', value: 'no value' },
		]);
		expect(propertyChoices({ choices: [{ value: { nested: true } }, null, true, ['I']] } as IDataObject)).toEqual([]);
		expect(propertyChoices({ data_type: 'Text' })).toEqual([]);
	});

	it('never throws, and every option has a name and a string or number value, whatever the service sends', () => {
		fc.assert(
			fc.property(fc.dictionary(fc.constantFrom('choices', 'options', 'data_type', 'name'), fc.jsonValue()), (key) => {
				for (const option of propertyChoices(key as IDataObject)) {
					expect(typeof option.name).toBe('string');
					expect(['string', 'number']).toContain(typeof option.value);
				}
			}),
		);
	});
});

describe('values from the resource mapper', () => {
	it('Create Device: text, number and a date from the date picker (a timestamp) become the service’s values', async () => {
		const { items, error } = await run(
			sandbox,
			{
				resource: 'device',
				operation: 'create',
				fields: {
					mappingMode: 'defineBelow',
					value: { [DEVICE.designation]: 'Earth tester', [DEVICE.testInterval]: 12, [DEVICE.lastTested]: '2026-03-01T00:00:00.000+01:00' },
				},
				simplify: false,
			},
			{ typeVersion: 2 },
		);
		expect(error).toBeUndefined();
		const values = valuesOf(items[0].json);
		expect(values[DEVICE.designation]).toBe('Earth tester');
		expect(Number(values[DEVICE.testInterval])).toBe(12);
		expect(values[DEVICE.lastTested]).toBe('2026-03-01');
	});

	it('Create Device: a value picked from a fixed list is stored; a value outside it fails with the service’s description', async () => {
		const created = await run(
			sandbox,
			{ resource: 'device', operation: 'create', fields: { mappingMode: 'defineBelow', value: { [DEVICE.designation]: 'Hand lamp', [DEVICE.protectionClass]: 'III' } }, simplify: false },
			{ typeVersion: 2 },
		);
		expect(created.error).toBeUndefined();
		const id = Number(created.items[0].json.id);
		expect(sandbox.account.data.devices.get(id)!.values[DEVICE.protectionClass]).toBe('III');

		const refused = await run(
			sandbox,
			{ resource: 'device', operation: 'create', fields: { mappingMode: 'defineBelow', value: { [DEVICE.designation]: 'Hand lamp', [DEVICE.protectionClass]: 'IV' } } },
			{ typeVersion: 2 },
		);
		expect(refused.error).toMatchObject({ httpCode: '400', description: expect.stringContaining('Protection class takes one of "I", "II", "III"; got "IV"') });
	});

	it('Map Automatically: input fields named like properties fill them; other fields are left out', async () => {
		const { items, error } = await run(
			sandbox,
			{
				resource: 'customer',
				operation: 'create',
				fields: {
					mappingMode: 'autoMapInputData',
					value: null,
					schema: CUSTOMER_KEYS.map((k) => ({ id: String(k.id), displayName: k.name, display: true, required: false, defaultMatch: false })),
				},
			},
			{ typeVersion: 2, inputItems: [{ json: { Name: 'Müller Elektro', City: 'Köln', unrelated: 'x' } }] },
		);
		expect(error).toBeUndefined();
		const properties = items[0].json.properties as Record<string, unknown>;
		expect(properties).toMatchObject({ Name: 'Müller Elektro', City: 'Köln' });
		expect(JSON.stringify(properties)).not.toContain('unrelated');
	});

	it('Update Many takes the mapper too (no expression needed)', async () => {
		const { error } = await run(
			sandbox,
			{ resource: 'device', operation: 'updateMany', deviceIds: '5, 6', fields: { mappingMode: 'defineBelow', value: { [DEVICE.department]: 'Lab 3' } } },
			{ typeVersion: 2 },
		);
		expect(error).toBeUndefined();
		for (const id of [5, 6]) expect(sandbox.account.data.devices.get(id)!.values[DEVICE.department]).toBe('Lab 3');
	});

	it('nothing mapped is an error naming the parameter, before any request', async () => {
		const { error } = await run(sandbox, { resource: 'device', operation: 'create', fields: { mappingMode: 'defineBelow', value: {} } }, { typeVersion: 2 });
		expect(error).toMatchObject({ name: 'NodeOperationError', message: expect.stringContaining('Properties: give at least one property a value') });
	});
});
