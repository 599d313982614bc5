import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { IDEMPOTENCY_PARTITION } from '../../lambdas/email/aws';
import { NS as MAIL } from '../../lambdas/email/facts';
import { NOTICES_SUMMARY_NS, noticesNamespace } from '../../lambdas/email/notices';
import { NS } from '../../lambdas/pollers/state';
import type { PollerName } from './pollers';

/**
 * Which partitions (`pk`) of the state table each function reads and writes, as
 * `dynamodb:LeadingKeys` patterns built from the code's own namespaces: `<namespace>:<environment>`,
 * or `…:<environment>:<account>` with several accounts, hence the `*`. The state store's actions:
 * get → GetItem, list → Query, putMany and deleteMany → BatchWriteItem, a lease → PutItem and DeleteItem.
 */
const ANY = '*';
const READ = ['dynamodb:GetItem', 'dynamodb:Query'];
const WRITE = ['dynamodb:BatchWriteItem'];
/** Powertools Idempotency's record per key: conditional put, read, update when done, delete on failure. */
const IDEMPOTENCY = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'];
/** The accounts' leases (one partition, `lease`; a lease is a conditional put, released by a delete): the pollers', and the notices' (one token, one reader). */
const LEASE_PARTITION = 'lease';
/** The deployment's one SES sending budget (one item, `mail:sesBudget`): every e-mail function takes its slots with a conditional update. */
export const SEND_BUDGET_PARTITION = 'mail:sesBudget';
const SEND_BUDGET = ['dynamodb:UpdateItem'];
/** The months whose customer notices are done (`notices:done`): the digest reads them to wait for a month sent late. */
export const NOTICES_DONE_PARTITION = 'notices:done';

export interface StatePartitions {
	/** Read and written. */
	own: string[];
	/** Read only (another function's). */
	reads?: string[];
	/** Takes leases (the pollers). */
	leases?: boolean;
	/** Keeps Powertools Idempotency records (the e-mail functions). */
	idempotency?: boolean;
	/** Sends through the deployment's SES sending budget (the e-mail functions). */
	sendBudget?: boolean;
}

export const POLLER_PARTITIONS: Record<PollerName, StatePartitions> = {
	overdueDevices: { own: [NS.overdue(ANY), NS.overdueClock(ANY), NS.overduePages(ANY)], leases: true },
	// It also records each result for the history: the newest test date and the test record.
	testResults: { own: [NS.seenResults(ANY), NS.resultsCursor(ANY), NS.failedEvidence(ANY), NS.measurementPending(ANY), NS.measurements(ANY), NS.measurementBackfill(ANY), NS.measurementWarnings(ANY), NS.latestResult(ANY), NS.tests(ANY)], leases: true },
	dueSoon: { own: [NS.dueSoon(ANY), NS.dueSoonClock(ANY)], leases: true },
	// And the recycle bin's device entries, for the report's failure rates (pollers/scrapped.ts), kept in parts.
	dueDates: { own: [NS.dueDates(ANY), NS.rebuild(ANY), NS.tests(ANY), NS.scrapped(ANY), NS.scrappedBin(ANY)], reads: [NS.latestResult(ANY)], leases: true },
};

export const EMAIL_PARTITIONS = {
	collector: { own: [MAIL.facts, MAIL.filed], idempotency: true, sendBudget: true },
	// Today's truth (overdue, coming due) and the measured-value warnings are the pollers'.
	digest: { own: [MAIL.facts, MAIL.carried(ANY), 'mail:inbox:*'], reads: [NOTICES_SUMMARY_NS, NOTICES_DONE_PARTITION, NS.overdue(ANY), NS.dueSoon(ANY), NS.measurementWarnings(ANY)], idempotency: true, sendBudget: true },
	// The monthly compliance report writes none of the table's: it reads the pollers' history, test records, recycle bin (its parts too) and measured-value warnings.
	report: { own: [], reads: [NS.dueDates(ANY), NS.tests(ANY), NS.scrapped(ANY), NS.scrappedBin(ANY), NS.measurementWarnings(ANY)], idempotency: true, sendBudget: true },
	// The account's lease while they read the account's lists, as its pollers take it.
	notices: { own: [noticesNamespace(ANY), NOTICES_SUMMARY_NS], leases: true, idempotency: true, sendBudget: true },
} satisfies Record<string, StatePartitions>;

const LEASE = ['dynamodb:PutItem', 'dynamodb:DeleteItem'];

/** Whether `p` lets a function take `action` (e.g. dynamodb:Query) on the partition `pk`: the statements below, read as IAM reads them. */
export function partitionsAllow(p: StatePartitions, action: string, pk: string): boolean {
	const matches = (patterns: string[]) => patterns.some((x) => new RegExp(`^${x.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(pk));
	return (
		(READ.includes(action) && matches([...p.own, ...(p.reads ?? [])])) ||
		(WRITE.includes(action) && matches(p.own)) ||
		(p.leases === true && LEASE.includes(action) && matches([LEASE_PARTITION])) ||
		(p.idempotency === true && IDEMPOTENCY.includes(action) && matches([IDEMPOTENCY_PARTITION])) ||
		(p.sendBudget === true && SEND_BUDGET.includes(action) && matches([SEND_BUDGET_PARTITION]))
	);
}

const onPartitions = (sid: string, actions: string[], table: dynamodb.ITable, keys: string[]) =>
	new iam.PolicyStatement({ sid, actions, resources: [table.tableArn], conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...new Set(keys)] } } });

/** The statements that let a role do what `p` says on the table, and nothing else. */
export function grantStatePartitions(role: iam.IRole, table: dynamodb.ITable, p: StatePartitions): void {
	role.addToPrincipalPolicy(onPartitions('StateRead', READ, table, [...p.own, ...(p.reads ?? [])]));
	// A function that writes none of the table's items gets no write statement at all.
	if (p.own.length > 0) role.addToPrincipalPolicy(onPartitions('StateWrite', WRITE, table, p.own));
	if (p.leases) role.addToPrincipalPolicy(onPartitions('StateLeases', LEASE, table, [LEASE_PARTITION]));
	if (p.idempotency) role.addToPrincipalPolicy(onPartitions('Idempotency', IDEMPOTENCY, table, [IDEMPOTENCY_PARTITION]));
	if (p.sendBudget) role.addToPrincipalPolicy(onPartitions('SendBudget', SEND_BUDGET, table, [SEND_BUDGET_PARTITION]));
}
