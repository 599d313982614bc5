import { RemovalPolicy, Validations, type CfnResource } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

export interface PollerStateProps {
	environment: 'sandbox' | 'production';
	/**
	 * A fixed name for the table (context `stateTableName`, chosen on a first deploy); unset or
	 * `generated`: the name CloudFormation gives it, as every stack deployed so far has. Not fixed by
	 * default: the synth cannot see a deployed stack, and a name set on a table that has CloudFormation's
	 * replaces it with an empty one (the kept one orphaned), silently. A fixed name makes an update
	 * that would replace the table fail, naming it; a deploy after `cdk destroy` fails either way, on
	 * the kept backup vault's name (docs/aws-deployment.md, "Remove": how to adopt both).
	 */
	tableName?: string;
	/** false where no poller reads the stack's own token secret (pollersReadStackToken): not created, so no token goes where nothing reads it. */
	tokenSecret?: boolean;
}

/**
 * What the pollers keep between runs: the state table and the access token secret (where a poller
 * reads it). Both keep the logical IDs they had before the stack was split into constructs, so an
 * update of a deployed stack keeps the data and the token instead of replacing them.
 */
export class PollerState extends Construct {
	readonly table: dynamodb.Table;
	readonly tokenSecret?: secretsmanager.Secret;

	constructor(scope: Construct, id: string, props: PollerStateProps) {
		super(scope, id);
		this.table = new dynamodb.Table(this, 'Table', {
			tableName: props.tableName === 'generated' ? undefined : props.tableName,
			partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
			sortKey: { name: 'sk', type: dynamodb.AttributeType.STRING },
			billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
			timeToLiveAttribute: 'expiresAt',
			pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
			encryption: dynamodb.TableEncryption.AWS_MANAGED,
			deletionProtection: props.environment === 'production',
			// Losing the state would announce every overdue device again: keep it.
			removalPolicy: RemovalPolicy.RETAIN,
		});
		(this.table.node.defaultChild as CfnResource).overrideLogicalId('State1C20CC9A');

		if (props.tokenSecret === false) return;
		// Created without a value; docs/aws-deployment.md says how to put the token in it.
		this.tokenSecret = new secretsmanager.Secret(this, 'AccessToken', {
			description: `Test Equipment Cloud access token (${props.environment}) for the pollers: put {"token":"..."} or the plain token in it`,
			// CloudFormation needs a value source; this one generates an unused random field and
			// leaves "token" empty, so the pollers fail with "put the token in it" until you do.
			generateSecretString: { secretStringTemplate: JSON.stringify({ token: '' }), generateStringKey: 'unused', passwordLength: 16, excludePunctuation: true },
			removalPolicy: RemovalPolicy.DESTROY,
		});
		(this.tokenSecret.node.defaultChild as CfnResource).overrideLogicalId('AccessToken4AAD9E79');
		Validations.of(this.tokenSecret).acknowledge({
			id: 'AwsSolutions-SMG4',
			reason: 'The access token is issued in the Test Equipment Cloud web app; there is no API to mint one, so a rotation Lambda cannot rotate it. Rotate it by hand (put-secret-value); the pollers re-read it within 5 minutes.',
		});
	}
}
