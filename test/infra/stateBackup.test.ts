import { describe, expect, it } from 'vitest';
import { RETENTION_MONTHS } from '../../lambdas/pollers/dueDates';
import { PollerState } from '../../infra/constructs/state';
import { StateBackup } from '../../infra/constructs/stateBackup';
import { ofType, synthConstruct } from './synth';

describe('StateBackup', () => {
	const s = synthConstruct('StateBackupTest', (stack) => {
		const state = new PollerState(stack, 'State', { environment: 'production' });
		return { state, backup: new StateBackup(stack, 'StateBackup', { table: state.table }) };
	});

	it('backs the state table up monthly into a retained vault, kept longer than the due-date history reaches back (point-in-time recovery keeps 35 days)', () => {
		const [[, plan]] = ofType(s, 'AWS::Backup::BackupPlan');
		const rules = plan.Properties.BackupPlan.BackupPlanRule as Array<{ Lifecycle: { DeleteAfterDays: number }; ScheduleExpression: string }>;
		const longest = Math.max(...rules.map((r) => r.Lifecycle.DeleteAfterDays));
		expect(longest).toBeGreaterThan(RETENTION_MONTHS * 31);
		expect(rules.some((r) => /^cron\(0 \d+ 1 \* \? \*\)$/.test(r.ScheduleExpression))).toBe(true);
		const [[, selection]] = ofType(s, 'AWS::Backup::BackupSelection');
		expect(selection.Properties.BackupSelection.Resources).toEqual([{ 'Fn::GetAtt': [s.id(s.construct.state.table), 'Arn'] }]);
		const [[, vault]] = ofType(s, 'AWS::Backup::BackupVault');
		expect(vault).toMatchObject({ DeletionPolicy: 'Retain' });
	});

	it("names the retained vault after the stack, not by CloudFormation: a deploy after `cdk destroy` stops on it (\"already exists\") instead of starting an empty state table beside the kept one", () => {
		const [[, vault]] = ofType(s, 'AWS::Backup::BackupVault');
		expect(vault.Properties.BackupVaultName).toEqual(expect.stringMatching(/^StateBackupTest.*Vault/));
		expect(vault).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
	});

	it('creates the state table only after the vault: after `cdk destroy` the kept vault\'s "already exists" stops the deploy before a new table exists (a table created in parallel would stay behind on rollback, Retain, beside the kept one)', () => {
		const table = (s.json.Resources as Record<string, unknown>)[s.id(s.construct.state.table)] as { DependsOn?: string[] };
		expect(table.DependsOn ?? []).toContain(s.id(s.construct.backup.vault));
	});
});
