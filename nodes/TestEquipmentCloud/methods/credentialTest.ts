import type { ICredentialsDecrypted, ICredentialTestFunctions, INodeCredentialTestResult } from 'n8n-workflow';
import { ServiceError } from '../../../client';
import { getCredentialTestClient, onePage, type TestEquipmentCloudCredentials } from '../transport';

/**
 * The cheapest request any valid token can make. Every endpoint of the service needs a scope, so
 * no request is answered for a token without read scopes; the property-key list (limit 1) is the
 * narrowest: it is answered for devices:read *or* customers:read, and the service checks the
 * token (401) before the scope (413). So a 413 proves the token valid: the test passes and says
 * which scopes the node's reads will need. A refusal shows what to do and the service's own
 * description (the client's error message carries both, never the token); a redirect to another
 * origin fails the test (the token is never sent there). A service profile that cannot be used
 * fails it before any request, naming the key path and what is allowed.
 */
export async function testEquipmentCloudApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	try {
		const client = getCredentialTestClient(this, (credential.data ?? {}) as unknown as TestEquipmentCloudCredentials);
		await client.call('propertyKey.list', { params: onePage(client) });
		return { status: 'OK', message: 'Connection tested successfully' };
	} catch (error) {
		if (error instanceof ServiceError && error.kind === 'permission') {
			return {
				status: 'OK',
				message:
					'Connection tested successfully: the token is valid, but it has neither devices:read nor customers:read; operations need the scopes of their resource (Administration page, API Access tab)',
			};
		}
		return { status: 'Error', message: error instanceof Error ? error.message : String(error) };
	}
}
