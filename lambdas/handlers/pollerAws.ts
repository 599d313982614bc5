import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DynamoStateStore } from '../adapters/dynamoStateStore';
import { EventBridgePublisher, type EventBridgePublisherOptions } from '../adapters/eventBridgePublisher';
import { captureAWSv3Client } from './powertools';

/**
 * The pollers' AWS side: the SDK clients, one per container, traced by X-Ray (PutEvents, DynamoDB,
 * the secret), and the adapters over them. runtime.ts imports this module when the first run
 * begins, not while the function loads: the SDK is most of a cold start's module loading, and the
 * init then holds only what an invocation needs before it starts (bench/bundles.ts measures it).
 */
export interface PollerAws {
	secrets: SecretsProvider;
	store: (table: string) => DynamoStateStore;
	publisher: (options: Omit<EventBridgePublisherOptions, 'client'>) => EventBridgePublisher;
}

export async function pollerAws(): Promise<PollerAws> {
	const [dynamo, events, secrets] = await Promise.all([
		captureAWSv3Client(new DynamoDBClient({})),
		captureAWSv3Client(new EventBridgeClient({})),
		captureAWSv3Client(new SecretsManagerClient({})),
	]);
	return {
		secrets: new SecretsProvider({ awsSdkV3Client: secrets }),
		store: (table) => new DynamoStateStore(table, dynamo),
		publisher: (options) => new EventBridgePublisher({ ...options, client: events }),
	};
}
