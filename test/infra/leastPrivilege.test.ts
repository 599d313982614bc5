import { describe, expect, it } from 'vitest';
import { BASE_CONFIG, roleOf, roleStatements, synth, type Json, type Synth } from './synth';

/**
 * Each function's role, read as IAM reads it: which DynamoDB actions it may take on which
 * partitions of the state table (dynamodb:LeadingKeys), which events it may publish, and whom SES
 * lets it send to. The partitions are the ones the code keeps (lambdas/pollers/state.ts NS,
 * lambdas/email/facts.ts NS, the notices' and Idempotency's).
 */
const s = synth({ ...BASE_CONFIG, environment: 'production', customerNotices: JSON.stringify({ enabled: true }) }, 'LeastPrivilege');
const several = synth(
	{
		...BASE_CONFIG,
		customerNotices: JSON.stringify({ enabled: true }),
		accounts: [
			{ id: 'default', environment: 'production', baseUrl: 'https://tec.example.com' },
			{ id: 'site-b', environment: 'production', baseUrl: 'https://tec-b.example.com' },
		],
	},
	'LeastPrivilegeSeveral',
);

const asList = (v: Json): Json[] => (Array.isArray(v) ? v : [v]);
const glob = (pattern: string) => new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
const actionMatches = (pattern: string, action: string) => glob(pattern).test(action);

/** Whether the statements allow `action` on the state table for the partition `pk` (Allow only: the roles have no Deny). */
function allows(x: Synth, statements: Json[], action: string, pk: string): boolean {
	const table = x.id(x.stack.table);
	return statements.some((st: Json) => {
		if (st.Effect !== 'Allow' || !asList(st.Action).some((a: string) => actionMatches(a, action))) return false;
		if (!asList(st.Resource).some((r: Json) => r === '*' || JSON.stringify(r) === JSON.stringify({ 'Fn::GetAtt': [table, 'Arn'] }))) return false;
		const leading = st.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] ?? st.Condition?.['ForAllValues:StringEquals']?.['dynamodb:LeadingKeys'];
		if (st.Condition && leading === undefined) return false;
		return leading === undefined || asList(leading).some((p: string) => glob(p).test(pk));
	});
}

const statementsOf = (x: Synth, fn: Json) => roleStatements(x, roleOf(x, x.id(fn)));
const WRITES = ['dynamodb:PutItem', 'dynamodb:BatchWriteItem', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem'];
const READS = ['dynamodb:GetItem', 'dynamodb:Query'];
const can = (x: Synth, fn: Json, actions: string[], pk: string) => actions.every((a) => allows(x, statementsOf(x, fn), a, pk));
const canAny = (x: Synth, fn: Json, actions: string[], pk: string) => actions.some((a) => allows(x, statementsOf(x, fn), a, pk));

describe('least privilege on the state table (dynamodb:LeadingKeys)', () => {
	const env = 'production';
	it('each poller reads and writes only its own partitions and the leases', () => {
		const p = s.stack.pollers;
		expect(can(s, p.overdueDevices, [...READS, 'dynamodb:BatchWriteItem'], `overdue:${env}`)).toBe(true);
		expect(can(s, p.overdueDevices, [...READS, 'dynamodb:BatchWriteItem'], `overduePages:${env}`)).toBe(true);
		expect(can(s, p.overdueDevices, ['dynamodb:PutItem', 'dynamodb:DeleteItem'], 'lease')).toBe(true);
		expect(can(s, p.testResults, [...READS, 'dynamodb:BatchWriteItem'], `cursor:${env}`)).toBe(true);
		expect(can(s, p.testResults, ['dynamodb:BatchWriteItem'], `tests:${env}`)).toBe(true);
		expect(can(s, p.dueDates, [...READS, 'dynamodb:BatchWriteItem'], `dueDates:${env}`)).toBe(true);
		expect(can(s, p.dueDates, READS, `latestResult:${env}`)).toBe(true);
		// Several accounts: the partitions carry the account after the environment.
		expect(can(several, several.stack.pollers.dueSoon, [...READS, 'dynamodb:BatchWriteItem'], `dueSoon:${env}:site-b`)).toBe(true);

		for (const [fn, pk] of [
			[p.overdueDevices, `dueDates:${env}`],
			[p.overdueDevices, 'mail:facts'],
			[p.testResults, `overdue:${env}`],
			[p.dueSoon, `notices:2026-11`],
			[p.dueDates, `cursor:${env}`],
			[p.dueDates, 'idempotency:email'],
		] as const) expect(canAny(s, fn, [...READS, ...WRITES], pk), `${s.id(fn)} on ${pk}`).toBe(false);
	});

	it('the e-mail functions write only their own partitions and read the pollers\' where they read them', () => {
		const { collector, digest, report } = s.stack.email;
		const notices = s.stack.email.notices!;
		expect(can(s, collector, ['dynamodb:GetItem', 'dynamodb:BatchWriteItem'], 'mail:filed')).toBe(true);
		expect(can(s, collector, ['dynamodb:BatchWriteItem'], 'mail:facts')).toBe(true);
		for (const fn of [collector, digest, report, notices]) expect(can(s, fn, ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'], 'idempotency:email')).toBe(true);
		for (const pk of [`overdue:${env}`, `dueSoon:${env}`, `measurementWarnings:${env}`]) {
			expect(can(s, digest, READS, pk), pk).toBe(true);
			expect(canAny(s, digest, WRITES, pk), pk).toBe(false);
		}
		// The monthly report reads the history, test records, recycle bin (and its parts) and warnings, and writes none of the table's items.
		for (const pk of [`dueDates:${env}`, `tests:${env}`, `scrapped:${env}`, `scrappedBin:${env}`, `measurementWarnings:${env}`]) {
			expect(can(s, report, READS, pk), pk).toBe(true);
			expect(canAny(s, report, WRITES, pk), pk).toBe(false);
		}
		for (const pk of [`dueDates:${env}`, `tests:${env}`]) expect(canAny(s, digest, READS, pk), pk).toBe(false);
		for (const pk of [`overdue:${env}`, 'mail:facts', 'lease']) expect(canAny(s, report, [...READS, ...WRITES], pk), pk).toBe(false);
		expect(can(s, digest, [...READS, 'dynamodb:BatchWriteItem'], 'mail:carried:ops@example.com')).toBe(true);
		expect(can(s, notices, [...READS, 'dynamodb:BatchWriteItem'], 'notices:2026-11')).toBe(true);
		expect(can(s, notices, [...READS, 'dynamodb:BatchWriteItem'], 'notices:summary')).toBe(true);
		// The collector can no longer erase the history or the notices log; the notices cannot touch the pollers' state or leases.
		for (const pk of [`dueDates:${env}`, 'notices:2026-11', `overdue:${env}`]) expect(canAny(s, collector, WRITES, pk), pk).toBe(false);
		for (const pk of [`overdue:${env}`, `dueDates:${env}`, 'mail:facts']) expect(canAny(s, notices, [...READS, ...WRITES], pk), pk).toBe(false);
		expect(canAny(s, digest, [...READS, ...WRITES], 'lease')).toBe(false);
		expect(canAny(s, collector, [...READS, ...WRITES], 'lease')).toBe(false);
	});

	it('the notices take the account\'s lease as the pollers do; every e-mail function takes slots of the one SES sending budget; the digest reads which months\' notices are done', () => {
		const { collector, digest } = s.stack.email;
		const notices = s.stack.email.notices!;
		// The lease as DynamoStateStore takes it: a conditional put, released by a conditional delete (pk `lease`).
		expect(can(s, notices, ['dynamodb:PutItem', 'dynamodb:DeleteItem'], 'lease')).toBe(true);
		expect(can(several, several.stack.email.notices!, ['dynamodb:PutItem', 'dynamodb:DeleteItem'], 'lease')).toBe(true);
		// The budget is one item updated in place (a conditional UpdateItem on `mail:sesBudget`), by all four.
		for (const fn of [collector, digest, s.stack.email.report, notices]) expect(can(s, fn, ['dynamodb:UpdateItem'], 'mail:sesBudget'), s.id(fn)).toBe(true);
		for (const fn of [collector, digest, s.stack.email.report, notices]) expect(canAny(s, fn, ['dynamodb:UpdateItem'], 'mail:facts'), s.id(fn)).toBe(false);
		expect(can(s, digest, ['dynamodb:GetItem'], 'notices:done')).toBe(true);
		expect(canAny(s, digest, WRITES, 'notices:done')).toBe(false);
		expect(can(s, notices, [...READS, 'dynamodb:BatchWriteItem'], 'notices:done')).toBe(true);
	});

	it('no role may scan the table or write it without a partition condition', () => {
		for (const fn of [...Object.values(s.stack.pollers), s.stack.email.collector, s.stack.email.digest, s.stack.email.notices!]) {
			for (const st of statementsOf(s, fn).filter((x: Json) => asList(x.Action).some((a: string) => a.startsWith('dynamodb:')))) {
				expect(asList(st.Action)).not.toContain('dynamodb:Scan');
				expect(st.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'], `${s.id(fn)} ${st.Sid}`).toBeDefined();
			}
		}
	});
});

describe('events and secrets', () => {
	it('the due-date history poller publishes no events; the other three may, to the bus', () => {
		const puts = (fn: Json) => statementsOf(s, fn).filter((st: Json) => asList(st.Action).includes('events:PutEvents'));
		expect(puts(s.stack.pollers.dueDates)).toEqual([]);
		for (const fn of [s.stack.pollers.overdueDevices, s.stack.pollers.testResults, s.stack.pollers.dueSoon]) expect(puts(fn)).toHaveLength(1);
	});
});

describe("SES's sandbox", () => {
	it('the send permission covers the recipients\' identities too (SES checks them in its sandbox), still only from the sender', () => {
		for (const fn of [s.stack.email.collector, s.stack.email.digest, s.stack.email.notices!]) {
			const send = statementsOf(s, fn).find((st: Json) => asList(st.Action).includes('ses:SendEmail'));
			const resources = JSON.stringify(send.Resource);
			expect(resources).toContain(':identity/*');
			expect(send.Condition).toEqual({ StringEquals: { 'ses:FromAddress': 'alerts@lab.example.com' } });
		}
	});
});
