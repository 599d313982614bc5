import { DETAIL_TYPES, type DueDevice, type FailedStep, type OverdueDevice, type TestResultFailedData } from '../events/schemas';
import type { EmailEvent } from './events';
import { accountNamespace } from './accounts';
import type { MailStore } from './ports';
import { route, type Recipients } from './settings';

/**
 * The facts an e-mail is built from, collected from the events (the pollers stay the only
 * readers of the service). Each fact is filed in the inbox of every recipient it is routed to;
 * the digest takes them out once the e-mail carrying them went out.
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
export type FailedDevice = TestResultFailedData['device'] & { customerName: string | null; department: string | null };

/** A device the overdue list holds now (`overdue`), or a tombstone that keeps a late event from reviving it. */
export interface OverdueEntry {
	state: 'overdue' | 'resolved';
	episode: number;
	device?: OverdueDevice;
}

export const NS = {
	inbox: (recipient: string) => `mail:inbox:${recipient}`,
	overdue: 'mail:overdue',
	/** Customer and department of devices seen in events: failed-test events carry only ids. */
	devices: 'mail:device',
} as const;

const DAY_MS = 86_400_000;
/** Tombstones and the device directory are kept this long after the last event about a device. */
const KEEP_MS = 180 * DAY_MS;
/** A fact no digest took (its address left the settings, or every digest failed for weeks; the alarms say so) goes after this. */
const INBOX_KEEP_MS = 60 * DAY_MS;

export interface CollectResult {
	detailType: string;
	dedupeKey?: string;
	/** Recipients whose inbox got the fact. */
	recipients: string[];
	/** Facts to alert at once (failed tests, when immediate e-mails are on). */
	immediate: Array<{ recipient: string; fact: Fact }>;
	ignored?: string;
}

/**
 * Files one event, read and checked by readEmailEvent. Writes are keyed by the event's dedupeKey,
 * so running it twice changes nothing.
 */
export async function collectEvent(
	event: EmailEvent,
	deps: { store: MailStore; recipients: Recipients; immediateFailedTests: boolean; now: number },
): Promise<CollectResult> {
	const result: CollectResult = { detailType: event['detail-type'], recipients: [], immediate: [] };
	const { store, recipients, now } = deps;
	// Several accounts: each account's devices apart (their ids repeat across accounts).
	const account = event.detail.metadata.account;
	const ns = { overdue: accountNamespace(NS.overdue, account), devices: accountNamespace(NS.devices, account) };
	const file = async (fact: Fact, addresses: string[]) => {
		if (account !== undefined) fact.account = account;
		for (const r of addresses) await store.putMany(NS.inbox(r), [{ key: fact.key, value: fact, expiresAt: now + INBOX_KEEP_MS }]);
		result.recipients = addresses;
		result.dedupeKey = fact.key;
	};

	switch (event['detail-type']) {
		case DETAIL_TYPES.deviceOverdue: {
			const { metadata, data } = event.detail;
			await remember(store, ns.devices, data.device, now);
			const known = await store.get<OverdueEntry>(ns.overdue, String(data.device.id));
			// An event of an episode that already ended (delivered late) changes nothing.
			if (known && (known.episode > data.episode || (known.episode === data.episode && known.state === 'resolved'))) return { ...result, ignored: 'episode already resolved' };
			await store.putMany(ns.overdue, [{ key: String(data.device.id), value: { state: 'overdue', episode: data.episode, device: data.device } satisfies OverdueEntry }]);
			// Reminders only refresh the device: the digest lists it as still overdue anyway.
			if (data.reminder === 0) await file({ kind: 'overdue', key: metadata.dedupeKey, at: metadata.occurredAt, device: data.device, episode: data.episode }, route(recipients, data.device));
			return result;
		}
		case DETAIL_TYPES.deviceOverdueResolved: {
			const { data } = event.detail;
			const known = await store.get<OverdueEntry>(ns.overdue, String(data.device.id));
			if (known && known.episode > data.episode) return { ...result, ignored: 'a later episode is open' };
			await store.putMany(ns.overdue, [{ key: String(data.device.id), value: { state: 'resolved', episode: data.episode } satisfies OverdueEntry, expiresAt: now + KEEP_MS }]);
			return result;
		}
		case DETAIL_TYPES.deviceDueSoon: {
			const { metadata, data } = event.detail;
			await remember(store, ns.devices, data.device, now);
			await file({ kind: 'dueSoon', key: metadata.dedupeKey, at: metadata.occurredAt, device: data.device, stage: data.stage }, route(recipients, data.device));
			return result;
		}
		case DETAIL_TYPES.testResultFailed: {
			const { metadata, data } = event.detail;
			const seen = await store.get<{ customerName: string | null; department: string | null }>(ns.devices, String(data.device.id));
			// ASSUMED: a failed test routes like its device; a device never seen in an overdue or
			// due-soon event has no known customer or department and goes to the default list.
			const device: FailedDevice = { ...data.device, customerName: seen?.customerName ?? null, department: seen?.department ?? null };
			const fact: Fact = {
				kind: 'failed',
				key: metadata.dedupeKey,
				at: metadata.occurredAt,
				device,
				testResult: data.testResult,
				failedSteps: data.failedSteps,
				failedStepCount: data.failedStepCount,
				truncatedSteps: data.truncatedSteps,
			};
			const to = route(recipients, device);
			await file(fact, to);
			if (deps.immediateFailedTests) result.immediate = to.map((recipient) => ({ recipient, fact }));
			return result;
		}
	}
}

async function remember(store: MailStore, namespace: string, device: { id: number; customerName: string | null; department: string | null }, now: number): Promise<void> {
	await store.putMany(namespace, [{ key: String(device.id), value: { customerName: device.customerName, department: device.department }, expiresAt: now + KEEP_MS }]);
}
