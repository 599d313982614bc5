/**
 * "On Error: Continue (using error output)": on every operation of the registry, a failed item
 * leaves by the error output (n8n-core's routing), keeps its pairing, and carries the service's
 * description and HTTP code; in version 1 and in version 2.
 */
import { describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import type { TestEquipmentCloudType } from '../../nodes/TestEquipmentCloud/actions/node.type';
import { CUSTOMER, DEVICE } from '../../sandbox/properties';
import { byId, credentialsFor, run, useSandbox } from './helpers';

const sandbox = useSandbox();

/** Version 2's resource mapper value with one property. */
const mapped = (key: number, value: string) => ({ mappingMode: 'defineBelow', value: { [String(key)]: value } });

/** Parameters that reach the service for each pair; the table must name every pair (compile-time). */
const CASES: { [P in TestEquipmentCloudType as `${P['resource']}.${P['operation']}`]: IDataObject } = {
	'compliance.getSummary': { groupBy: 'customer' },
	'compliance.getFailureRates': { groupBy: 'department', months: 24 },
	'compliance.getForecast': { groupBy: 'customer' },
	'compliance.getIntervalRecommendations': { groupBy: 'designationDepartment', months: 36 },
	'customer.create': { inputMode: 'fields', propertyValues: { property: [{ key: CUSTOMER.name, value: 'ACME' }] }, fields: mapped(CUSTOMER.name, 'ACME') },
	'customer.delete': { customerId: byId(1) },
	'customer.getAll': { limit: 1 },
	'customer.update': { inputMode: 'json', json: `{"id": 1, "properties": {"${CUSTOMER.city}": "Berlin"}}` },
	'device.create': { inputMode: 'fields', propertyValues: { property: [{ key: DEVICE.designation, value: 'Drill' }] }, fields: mapped(DEVICE.designation, 'Drill') },
	'device.delete': { deviceId: byId(1) },
	'device.get': { deviceId: byId(1) },
	'device.getAll': { limit: 1 },
	'device.getMeasurementTrend': { deviceId: byId(1) },
	'compliance.getMeasurementWarnings': { days: 30 },
	'device.update': { deviceId: byId(1), inputMode: 'fields', propertyValues: { property: [{ key: DEVICE.location, value: 'Shelf' }] }, fields: mapped(DEVICE.location, 'Shelf') },
	'email.complianceReport': { to: 'quality@lab.example.com' },
	'email.customerNotices': { options: { replyTo: 'booking@lab.example.com' } },
	'email.digest': { to: 'ops@lab.example.com' },
	'email.failedTest': { testResultId: '1', to: 'ops@lab.example.com' },
	'device.updateMany': { deviceIds: '1, 2', propertyValues: { property: [{ key: DEVICE.location, value: 'Shelf' }] }, fields: mapped(DEVICE.location, 'Shelf') },
	'file.download': { fileId: '1' },
	'overdueDevice.getAll': { limit: 1 },
	'project.getAll': { limit: 1 },
	'recycleBin.getAll': { limit: 1 },
	'recycleBin.restore': { entryId: '1' },
	'subUser.getAll': { limit: 1 },
	'testResult.get': { testResultId: byId(1) },
	'testResult.getAll': { limit: 1 },
};

const continueErrorOutput = { onError: 'continueErrorOutput' as const };

describe('Continue (using error output) sends failed items to the error output', () => {
	for (const [pair, parameters] of Object.entries(CASES)) {
		const [resource, operation] = pair.split('.');
		for (const typeVersion of [1, 2]) {
			it(`${pair}, version ${typeVersion}: a refused request (401) arrives on the error output with its HTTP code`, async () => {
				const { outputs, error } = await run(
					sandbox,
					{ resource, operation, ...parameters },
					{
						typeVersion,
						nodeSettings: continueErrorOutput,
						credentials: credentialsFor(sandbox, 'not-a-valid-token'),
						inputItems: [{ json: { source: 'input 0' } }],
					},
				);
				expect(error).toBeUndefined();
				expect(outputs[0]).toEqual([]);
				expect(outputs[1]).toHaveLength(1);
				const [failed] = outputs[1];
				expect(failed.pairedItem).toEqual({ item: 0 });
				// n8n-core merges the input item's json into an error item.
				expect(failed.json.source).toBe('input 0');
				expect(failed.json).toMatchObject({
					error: expect.stringContaining('HTTP 401'),
					details: { httpCode: 401, description: expect.any(String) },
				});
			});
		}
	}

	it('good and bad items of one run part ways: the good on the main output, the bad on the error output', async () => {
		const { outputs } = await run(
			sandbox,
			{ resource: 'device', operation: 'get', deviceId: { __rl: true, mode: 'id', value: '={{ $json.id }}' } },
			{ typeVersion: 2, nodeSettings: continueErrorOutput, inputItems: [{ json: { id: 1 } }, { json: { id: 99999 } }, { json: { id: 2 } }] },
		);
		expect(outputs[0].map((i) => [i.json.id, i.pairedItem])).toEqual([
			[1, { item: 0 }],
			[2, { item: 2 }],
		]);
		expect(outputs[1]).toHaveLength(1);
		expect(outputs[1][0].pairedItem).toEqual({ item: 1 });
		expect(outputs[1][0].json).toMatchObject({
			id: 99999,
			error: 'The requested item does not exist (it may have been deleted) (HTTP 404)',
			details: { httpCode: 404, description: 'Device 99999 does not exist.' },
		});
	});

	it('a parameter error (nothing sent) goes to the error output too', async () => {
		const { outputs } = await run(
			sandbox,
			{ resource: 'device', operation: 'get', deviceId: { __rl: true, mode: 'id', value: '={{ "a/b" }}' } },
			{ typeVersion: 2, nodeSettings: continueErrorOutput },
		);
		expect(outputs[0]).toEqual([]);
		expect(outputs[1][0].json.error).toEqual(expect.stringContaining('Device: must be an identifier'));
	});
});

describe('the registry of resources', () => {
	it('a pair the node does not have does not compile', () => {
		// @ts-expect-error: devices have no "restore"
		const unknown: TestEquipmentCloudType = { resource: 'device', operation: 'restore' };
		expect(Object.keys(CASES)).not.toContain(`${unknown.resource}.${unknown.operation}`);
	});
});
