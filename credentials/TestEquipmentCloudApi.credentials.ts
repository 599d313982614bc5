import type { IAuthenticateGeneric, ICredentialType, Icon, INodeProperties } from 'n8n-workflow';

const documentationUrl = 'https://github.com/test-equipment-cloud/n8n-nodes-test-equipment-cloud#use-in-n8n';

export class TestEquipmentCloudApi implements ICredentialType {
	name = 'testEquipmentCloudApi';

	displayName = `Test Equipment Cloud API`;

	documentationUrl = documentationUrl;

	icon: Icon = { light: 'file:testEquipmentCloud.svg', dark: 'file:testEquipmentCloud.dark.svg' };

	properties: INodeProperties[] = [
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'Generated on the Administration page, API Access tab. A token is made for one environment: keep "Test environment" checked for a sandbox token, uncheck it for a production token.',
		},
		{
			displayName: 'Environment',
			name: 'environment',
			type: 'options',
			options: [
				{ name: 'Sandbox', value: 'sandbox', description: 'The test account: try workflows here first' },
				{ name: 'Production', value: 'production', description: 'The live account with real data' },
			],
			default: 'sandbox',
			description: 'Which account the requests go to. Its token must have been created for the same environment.',
		},
		{
			displayName: 'In use: the Sandbox Base URL below. The Production Base URL is ignored until Environment is Production.',
			name: 'sandboxNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { environment: ['sandbox'] } },
		},
		{
			displayName: 'In use: the Production Base URL below (live data). The Sandbox Base URL is ignored until Environment is Sandbox.',
			name: 'productionNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { environment: ['production'] } },
		},
		{
			displayName: 'Sandbox Base URL',
			name: 'sandboxBaseUrl',
			type: 'string',
			default: '',
			placeholder: 'https://sandbox.example.com',
			description:
				'Base address of the sandbox account, without /api/v1 (it is added once). https is required except for local addresses such as http://127.0.0.1:8787 (the local sandbox).',
		},
		{
			displayName: 'Production Base URL',
			name: 'productionBaseUrl',
			type: 'string',
			default: '',
			placeholder: 'https://app.example.com',
			description: 'Base address of the production account, without /api/v1 (it is added once). Must use https.',
		},
		{
			displayName: 'Service Profile',
			name: 'serviceProfile',
			type: 'json',
			default: '{}',
			description:
				'Optional. Where the account differs from the defaults (paths, paging, field or property names): the keys to change, as "npm run doctor" suggests them, for example {"paging": {"style": "pageNumber"}}. Empty or {} = the defaults. See docs/service-profile.md.',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Token {{$credentials.accessToken}}',
			},
		},
	};

	// The connection test is the node's credentialTest method (testedBy): it shows the service's
	// own description of a refusal, which a declarative test request cannot.
}
