import type { ICredentialsDecrypted, ICredentialTestFunctions, INodeCredentialTestResult } from 'n8n-workflow';
import { getCredentialTestClient, type TestEquipmentCloudCredentials } from '../transport';

/**
 * One cheap list request (limit 1) in the chosen environment. A refusal shows what to do and
 * the service's own description (the client's error message carries both, never the token).
 */
export async function testEquipmentCloudApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	try {
		const client = getCredentialTestClient(this, (credential.data ?? {}) as unknown as TestEquipmentCloudCredentials);
		await client.call('device.list', { params: [['limit', '1']] });
		return { status: 'OK', message: 'Connection tested successfully' };
	} catch (error) {
		return { status: 'Error', message: error instanceof Error ? error.message : String(error) };
	}
}
