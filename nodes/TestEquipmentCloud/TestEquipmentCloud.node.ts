import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	NodeConnectionType,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { properties } from './actions/node.description';
import { router } from './actions/router';
import { credentialTest, listSearch, loadOptions, resourceMapping } from './methods';

const main: NodeConnectionType[] = [NodeConnectionTypes.Main];

export class TestEquipmentCloud implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Test Equipment Cloud',
		name: 'testEquipmentCloud',
		icon: { light: 'file:testEquipmentCloud.svg', dark: 'file:testEquipmentCloud.dark.svg' },
		group: ['transform'],
		// 2: Simplify on by default, error items in the error output's shape, downloads keep their item.
		// 3: Filters property first (type inferred), date picker and days from today.
		version: [1, 2, 3],
		defaultVersion: 3,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description: 'Manage customers, devices, test results, projects and files of Test Equipment Cloud',
		defaults: { name: 'Test Equipment Cloud' },
		usableAsTool: true,
		inputs: main,
		outputs: main,
		credentials: [{ name: 'testEquipmentCloudApi', required: true, testedBy: 'testEquipmentCloudApiTest' }],
		properties,
	};

	methods = { loadOptions, listSearch, resourceMapping, credentialTest };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
