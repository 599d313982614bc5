/**
 * The trigger as n8n loads it from the built package: description, registration, the filters UI
 * shared with the action node, the editor's key lists, and the example workflow.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NodeHelpers } from 'n8n-workflow';
import type { INode, INodeParameters, INodeProperties, INodePropertyOptions, INodeTypeDescription } from 'n8n-workflow';
import { CREDENTIAL_TYPE, PACKAGE_DIR, TRIGGER_NODE_TYPE, callMethod, loadPackage, runWorkflow, type WorkflowJson } from '../support/n8n';
import { credentials, overdueNow, useWorld } from '../support/trigger';

const world = useWorld();

async function description(type: string): Promise<INodeTypeDescription> {
	const pkg = await loadPackage();
	return pkg.nodeTypes.getByNameAndVersion(`${pkg.packageName}.${type}`, 1).description;
}

/** A key list the editor loads for the trigger's Filters, for an event. */
async function keyList(method: string, event: string): Promise<INodePropertyOptions[]> {
	return (await callMethod({ kind: 'loadOptions', method, nodeType: TRIGGER_NODE_TYPE, parameters: { event }, credentials: credentials(world.sandbox) })) as INodePropertyOptions[];
}

describe('the trigger node', () => {
	it('is registered in package.json and loaded by n8n with the trigger conventions', async () => {
		const pkg = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8'));
		expect(pkg.n8n.nodes).toContain('dist/nodes/TestEquipmentCloud/TestEquipmentCloudTrigger.node.js');
		const d = await description(TRIGGER_NODE_TYPE);
		expect(d).toMatchObject({
			name: 'testEquipmentCloudTrigger',
			displayName: 'Test Equipment Cloud Trigger',
			polling: true,
			inputs: [],
			outputs: ['main'],
			group: ['trigger'],
			credentials: [{ name: CREDENTIAL_TYPE, required: true }],
			// n8n's loader turns the light/dark `file:` icons into URLs of the files in dist/.
			iconUrl: { light: expect.stringMatching(/TestEquipmentCloud\/testEquipmentCloud\.svg$/), dark: expect.stringMatching(/testEquipmentCloud\.dark\.svg$/) },
			subtitle: expect.stringContaining('event'),
		});
		expect(d.usableAsTool).toBeUndefined();
		// n8n adds Poll Times to polling nodes.
		expect(d.properties.map((p) => p.name)).toContain('pollTimes');
	});

	it('has exactly the public event values, Only Failed Results, and a 7-day lookback by default', async () => {
		const d = await description(TRIGGER_NODE_TYPE);
		const event = d.properties.find((p) => p.name === 'event')!;
		expect((event.options as INodePropertyOptions[]).map((o) => o.value).sort()).toEqual(['deviceDueSoon', 'deviceMeasurementDrift', 'deviceOverdue', 'projectUpdated', 'testResultNearLimit', 'testResultNew']);
		const onlyFailed = d.properties.find((p) => p.name === 'onlyFailed')!;
		expect(onlyFailed).toMatchObject({ displayName: 'Only Failed Results', type: 'boolean', default: false, displayOptions: { show: { event: ['testResultNew'] } } });
		const options = d.properties.find((p) => p.name === 'options')!.options as INodeProperties[];
		expect(options.find((o) => o.name === 'lookbackDays')).toMatchObject({ type: 'number', default: 7 });
		expect(options.find((o) => o.name === 'maxRetryWait')).toBeDefined();
		expect(options.find((o) => o.name === 'leadDays')).toMatchObject({ type: 'number', default: 30, displayOptions: { show: { '/event': ['deviceDueSoon'] } } });
		expect(options.find((o) => o.name === 'includeFailedSteps')).toMatchObject({ type: 'boolean', default: false, displayOptions: { show: { '/event': ['testResultNew'] } } });
		expect(options.find((o) => o.name === 'threshold')).toMatchObject({ type: 'number', default: 0.8, displayOptions: { show: { '/event': ['testResultNearLimit'] } } });
	});

	it('reuses the action node’s filters UI (same keywords per data type), keyed on the event: type first in version 1, property first from version 2', async () => {
		const trigger = (await description(TRIGGER_NODE_TYPE)).properties.filter((p) => p.name === 'filters' || p.name === 'filterJoin');
		const action = (await description('testEquipmentCloud')).properties.filter((p) => p.name === 'filters' || p.name === 'filterJoin');
		const shape = (p: INodeProperties) => {
			const { displayOptions: _shownFor, ...rest } = p;
			return JSON.parse(JSON.stringify(rest).replaceAll('"event"', '"resource"'));
		};
		// The action node repeats its Filters per list resource: one of each kind is enough.
		const distinct = (ps: INodeProperties[]) => [...new Map(ps.map((p) => [JSON.stringify(shape(p)), shape(p)])).values()];
		expect(distinct(trigger)).toEqual(distinct(action));
		expect(trigger.map((p) => [p.name, p.displayOptions?.show?.['@version']])).toEqual([
			['filters', [1]],
			['filters', [{ _cnd: { gte: 2 } }]],
			['filterJoin', [{ _cnd: { gte: 2 } }]],
		]);
		const d = await description(TRIGGER_NODE_TYPE);
		expect(d).toMatchObject({ version: [1, 2], defaultVersion: 2 });
	});

	it('the property-first Filters list every key with its type, the value carrying it', async () => {
		const keys = await keyList('getFilterKeys', 'deviceDueSoon');
		expect(keys.find((k) => k.name === 'Next test (Date)')).toMatchObject({ value: '9|Date' });
		expect(keys.find((k) => k.name === 'Department (Text)')).toMatchObject({ value: '4|Text' });
		const fields = await keyList('getFilterKeys', 'projectUpdated');
		expect(fields.map((k) => [k.name, k.value])).toContainEqual(['updated_time (Date)', 'updated_time|Date']);
	});

	it('the editor lists the keys of the event’s list: fields for test results, property keys for overdue devices', async () => {
		const fields = await keyList('getTextKeys', 'testResultNew');
		expect(fields.map((o) => o.value)).toEqual(expect.arrayContaining(['status', 'tester']));
		const keys = await keyList('getDateKeys', 'deviceOverdue');
		expect(keys.map((o) => o.name)).toEqual(expect.arrayContaining(['Last tested', 'Next test']));
	});
});

describe('example workflow: overdue device alert', () => {
	const json = JSON.parse(readFileSync(join(PACKAGE_DIR, 'examples', 'overdue-device-alert-trigger.json'), 'utf8')) as WorkflowJson;

	it('is valid for both nodes, and a manual run fetches a sample overdue device and its detail', async () => {
		const pkg = await loadPackage();
		for (const node of json.nodes) {
			const type = pkg.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
			expect(node.typeVersion, node.name).toBe(pkg.nodeTypes.getByName(node.type).description.defaultVersion);
			const resolved = NodeHelpers.getNodeParameters(type.description.properties, node.parameters, true, false, node as INode, type.description);
			expect(resolved, node.name).toMatchObject(node.parameters);
			const issues = NodeHelpers.getNodeParametersIssues(type.description.properties, { ...node, parameters: resolved as INodeParameters }, type.description);
			expect(issues, node.name).toBeNull();
		}
		const { run, error } = await runWorkflow(json, credentials(world.sandbox));
		expect(error).toBeUndefined();
		const sample = run.data.resultData.runData['When a device becomes overdue']?.[0]?.data?.main?.[0] ?? [];
		const detail = run.data.resultData.runData['Get device detail']?.[0]?.data?.main?.[0] ?? [];
		expect(sample).toHaveLength(1);
		expect(overdueNow(world.sandbox).has(Number(sample[0].json.id))).toBe(true);
		expect(detail.map((i) => i.json.id)).toEqual([sample[0].json.id]);
		expect(detail[0].json.properties).toMatchObject({ Designation: expect.any(String) });
	});
});
