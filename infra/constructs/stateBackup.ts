import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as backup from 'aws-cdk-lib/aws-backup';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import { Construct } from 'constructs';
import { RETENTION_MONTHS } from '../../lambdas/pollers/dueDates';

/**
 * How long a monthly backup is kept: the due-date history's reach (RETENTION_MONTHS) and a year, so
 * the oldest backup still holds months the table itself has let go, and a loss found late (a wrong
 * restore, a deleted item) can be restored from before it. Point-in-time recovery keeps only 35 days.
 */
export const STATE_BACKUP_RETENTION = Duration.days(Math.ceil((RETENTION_MONTHS + 12) * 30.5));

export interface StateBackupProps {
	table: dynamodb.ITable;
}

/**
 * AWS Backup of the state table: on the 1st of each month (after the month's last history run and
 * before the compliance report goes out), kept STATE_BACKUP_RETENTION in a vault of its own that
 * outlives the stack. AWS Backup rather than on-demand DynamoDB backups: it schedules and expires
 * them itself (no function of ours), and a recovery point cannot be deleted by the functions' roles.
 */
export class StateBackup extends Construct {
	readonly plan: backup.BackupPlan;
	readonly vault: backup.BackupVault;

	constructor(scope: Construct, id: string, props: StateBackupProps) {
		super(scope, id);
		this.vault = new backup.BackupVault(this, 'Vault', { removalPolicy: RemovalPolicy.RETAIN });
		// The table waits for the vault: after `cdk destroy` the kept vault's "already exists" stops a
		// deploy before a new table is created (a rollback would keep it, Retain, beside the old one).
		props.table.node.addDependency(this.vault);
		this.plan = new backup.BackupPlan(this, 'Plan', {
			backupVault: this.vault,
			backupPlanRules: [
				new backup.BackupPlanRule({
					ruleName: 'Monthly',
					scheduleExpression: events.Schedule.cron({ minute: '0', hour: '3', day: '1', month: '*', year: '*' }),
					startWindow: Duration.hours(1),
					completionWindow: Duration.hours(8),
					deleteAfter: STATE_BACKUP_RETENTION,
				}),
			],
		});
		const selection = this.plan.addSelection('State', { resources: [backup.BackupResource.fromDynamoDbTable(props.table)] });
		Validations.of(selection).acknowledge({
			id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup]',
			reason: "AWS Backup's own service role policy for taking backups, the role AWS documents for a backup selection; it is assumed only by backup.amazonaws.com.",
		});
	}
}
