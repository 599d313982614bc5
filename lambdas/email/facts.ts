import { DETAIL_TYPES, type DueDevice, type FailedStep, type OverdueDevice, type TestResultFailedData } from '../events/schemas';
import type { EmailEvent } from './events';
import type { MailStore } from './ports';
import { route, type Recipients } from './settings';

/**
 * The facts an e-mail is built from, collected from the events (the pollers stay the only
 * readers of the service). A fact is filed once, whoever it concerns; the digest routes it by
 * today's truth (lambdas/email/view.ts) and records, per recipient, that an e-mail carried it.
 */
export type Fact = (
	| { kind: 'overdue'; key: string; at: string; device: OverdueDevice; episode: number }
	| { kind: 'dueSoon'; key: string; at: string; device: DueDevice; stage: number }
	| { kind: 'failed'; key: string; at: string; device: FailedDevice; testResult: FailedTest; failedSteps: FailedStep[]; failedStepCount: number; truncatedSteps: number }
) & {
	/** The account the fact is about, when the deployment watches several (its event's `metadata.account`). */
	account?: string;
};

export type FailedTest = TestResultFailedData['testResult'];
export type FailedDevice = TestResultFailedData['device'];

export const NS = {
	/** Facts not yet carried to everyone they concern (key: the event's dedupeKey). */
	facts: 'mail:facts',
	/** Per recipient: the facts an e-mail already carried to them (key: the fact's key). */
	carried: (recipient: string) => `mail:carried:${recipient}`,
	/** Every dedupeKey filed (and its immediate e-mails sent): a redelivery, however late, changes nothing. */
	filed: 'mail:filed',
} as const;

const DAY_MS = 86_400_000;
/** A fact no digest took (its address left the settings, or every digest failed for weeks; the alarms say so) goes after this. */
export const FACT_KEEP_MS = 60 * DAY_MS;
/** Filed keys and carried marks outlive the facts and every redelivery (EventBridge retries for 24 hours, the DLQ is replayed by hand). */
export const MARK_KEEP_MS = 90 * DAY_MS;
/**
 * The digest lists a measured-value warning as new only while it is younger than this: a carried
 * mark, written when a digest lists it (on or after its announcement day), then outlives every
 * later digest that could list it, however long the results poller keeps the warning itself.
 */
export const WARNING_NEW_MS = MARK_KEEP_MS - DAY_MS;

export interface CollectResult {
	detailType: string;
	dedupeKey?: string;
	/** Recipients the fact concerns as filed (the digest routes it again by today's truth). */
	recipients: string[];
	/** Facts to alert at once (failed tests, when immediate e-mails are on). */
	immediate: Array<{ recipient: string; fact: Fact }>;
	ignored?: string;
}

/**
 * Files one event, read and checked by readEmailEvent. Exactly once per dedupeKey: the fact is
 * written under its key, then `send` alerts at once (itself once per key and recipient), and only
 * then is the key recorded as filed. A redelivery finds the key and changes nothing; one that
 * follows a crash before the record redoes the idempotent steps, and a digest that carried the
 * fact meanwhile left a carried mark per recipient, so no e-mail says it twice.
 */
export async function collectEvent(
	event: EmailEvent,
	deps: { store: MailStore; recipients: Recipients; immediateFailedTests: boolean; now: number; send?: (recipient: string, fact: Fact) => Promise<unknown> },
): Promise<CollectResult> {
	const result: CollectResult = { detailType: event['detail-type'], recipients: [], immediate: [], dedupeKey: event.detail.metadata.dedupeKey };
	const { store, recipients, now } = deps;
	const key = event.detail.metadata.dedupeKey;
	if (await store.get(NS.filed, key)) return { ...result, ignored: 'already filed' };
	const fact = factOf(event);
	if (!fact) return { ...result, ignored: event['detail-type'] === DETAIL_TYPES.deviceOverdue ? 'a reminder: the digest lists the device as still overdue' : 'the digest reads the overdue list from the pollers' };
	await store.putMany(NS.facts, [{ key, value: fact, expiresAt: now + FACT_KEEP_MS }]);
	result.recipients = route(recipients, fact.device);
	if (fact.kind === 'failed' && deps.immediateFailedTests) {
		result.immediate = result.recipients.map((recipient) => ({ recipient, fact }));
		for (const r of result.recipients) await deps.send?.(r, fact);
	}
	await store.putMany(NS.filed, [{ key, value: { at: now }, expiresAt: now + MARK_KEEP_MS }]);
	return result;
}

function factOf(event: EmailEvent): Fact | undefined {
	const { dedupeKey, occurredAt, account } = event.detail.metadata;
	const base = { key: dedupeKey, at: occurredAt, ...(account === undefined ? {} : { account }) };
	switch (event['detail-type']) {
		case DETAIL_TYPES.deviceOverdue: {
			const d = event.detail.data;
			// Reminders only refresh the device: the digest lists it as still overdue anyway.
			return d.reminder === 0 ? { kind: 'overdue', ...base, device: d.device, episode: d.episode } : undefined;
		}
		case DETAIL_TYPES.deviceDueSoon:
			return { kind: 'dueSoon', ...base, device: event.detail.data.device, stage: event.detail.data.stage };
		case DETAIL_TYPES.testResultFailed: {
			const d = event.detail.data;
			// Routed by the device's own customer and department, as the event carries them.
			return { kind: 'failed', ...base, device: d.device, testResult: d.testResult, failedSteps: d.failedSteps, failedStepCount: d.failedStepCount, truncatedSteps: d.truncatedSteps };
		}
		case DETAIL_TYPES.deviceOverdueResolved:
			return undefined;
	}
}
