import { createHash } from 'node:crypto';
import type { DueDevice, OverdueDevice } from '../events/schemas';
import type { EmailEvent } from './events';
import { collectEvent, NS, type CollectResult, type Fact, type OverdueEntry } from './facts';
import type { MailStore, Mailer, OutgoingEmail, SendReceipt } from './ports';
import { renderDigest, renderFailedTest, type DigestContent, type FailedTestItem } from './render';
import { accountNamespace, everyRecipient, factsOf, recipientsOf, renderAccountsDigest, type AccountPart, type AccountRouting } from './accounts';
import { route, type EmailSettings } from './settings';

const DAY_MS = 86_400_000;

export interface DigestDeps {
	store: MailStore;
	mailer: Mailer;
	settings: EmailSettings;
	timeZone: string;
	environment: 'sandbox' | 'production';
	now: () => number;
	/** Several accounts (lambdas/email/accounts.ts): each routes by its own recipients; unset for one. */
	accounts?: AccountRouting[];
}

export interface DigestReport {
	day: string;
	sent: Array<{ recipient: string; messageId: string; facts: number }>;
	nothingToSay: string[];
	failed: Array<{ recipient: string; error: string }>;
}

export class DigestError extends Error {
	override readonly name = 'DigestError';
	constructor(readonly report: DigestReport) {
		super(`The digest of ${report.day} could not be sent to ${report.failed.length} recipient(s): ${report.failed.map((f) => `${f.recipient} (${f.error})`).join('; ')}`);
	}
}

/**
 * The daily digest of one day, for every recipient: what is in their inbox since the last digest
 * plus the devices still overdue, one e-mail each (none when there is nothing to say). Safe to
 * run again for the same day (a second schedule firing, a retry, a crash midway): each
 * recipient's e-mail is sent once, and only the facts it carried leave the inbox, so a fact that
 * arrived in between goes into the next digest. A recipient that fails does not stop the others;
 * the run then fails as a whole so that it is retried and alarmed on.
 */
export async function runDigest(deps: DigestDeps, day: string, key = `digest:${day}`): Promise<DigestReport> {
	const report: DigestReport = { day, sent: [], nothingToSay: [], failed: [] };
	const overdue = new Map<string | undefined, OverdueDevice[]>();
	for (const account of deps.accounts?.map((a) => a.account) ?? [undefined]) {
		const list: OverdueDevice[] = [];
		for await (const { value } of deps.store.list<OverdueEntry>(accountNamespace(NS.overdue, account))) if (value.state === 'overdue' && value.device) list.push(value.device);
		overdue.set(account, list);
	}
	for (const recipient of everyRecipient(deps.settings, deps.accounts)) {
		try {
			const facts: Fact[] = [];
			for await (const { value } of deps.store.list<Fact>(NS.inbox(recipient))) facts.push(value);
			const content = deps.accounts ? composeAccountsDigest(deps, deps.accounts, recipient, day, facts, overdue) : composeDigest(deps, recipient, day, facts, overdue.get(undefined) ?? []);
			const factKeys = facts.map((f) => f.key).sort();
			if (!content) {
				await deps.store.deleteMany(NS.inbox(recipient), factKeys);
				report.nothingToSay.push(recipient);
				continue;
			}
			const email = envelope(deps, recipient, key, 'parts' in content ? renderAccountsDigest(content.parts) : renderDigest(content));
			const receipt: SendReceipt = await deps.mailer.sendOnce({ key, recipient, factKeys, email });
			await deps.store.deleteMany(NS.inbox(recipient), receipt.factKeys);
			report.sent.push({ recipient, messageId: receipt.messageId, facts: receipt.factKeys.length });
		} catch (error) {
			report.failed.push({ recipient, error: (error as Error).message });
		}
	}
	if (report.failed.length > 0) throw new DigestError(report);
	return report;
}

/** A recipient's digest over several accounts: a part per account with something to say, each routed by that account's recipients. */
function composeAccountsDigest(deps: DigestDeps, accounts: AccountRouting[], recipient: string, day: string, facts: Fact[], overdue: Map<string | undefined, OverdueDevice[]>): { parts: AccountPart[] } | undefined {
	const parts: AccountPart[] = [];
	for (const { account } of accounts) {
		const settings = { ...deps.settings, recipients: recipientsOf(deps.settings, accounts, account) };
		const content = composeDigest({ ...deps, settings }, recipient, day, factsOf(facts, account), overdue.get(account) ?? []);
		if (content) parts.push({ account, content });
	}
	return parts.length > 0 ? { parts } : undefined;
}

/** The e-mail of one failed test, sent when it arrives (immediate e-mails on); it stays in the inbox for the digest. */
export async function sendFailedTestNow(deps: DigestDeps, recipient: string, fact: Extract<Fact, { kind: 'failed' }>): Promise<SendReceipt> {
	const key = `failed:${fact.key}`;
	const email = envelope(deps, recipient, key, renderFailedTest(failedItem(fact), { environment: deps.environment, timeZone: deps.timeZone }));
	return deps.mailer.sendOnce({ key, recipient, factKeys: [], email });
}

/** What one recipient's digest says; undefined when it would say nothing. */
export function composeDigest(deps: Pick<DigestDeps, 'settings' | 'timeZone' | 'environment'>, recipient: string, day: string, facts: Fact[], overdue: OverdueDevice[]): DigestContent | undefined {
	const today = Date.parse(`${day}T00:00:00Z`);
	const daysFrom = (date: string | null) => (date && /^\d{4}-\d{2}-\d{2}$/.test(date) ? Math.round((today - Date.parse(`${date}T00:00:00Z`)) / DAY_MS) : null);
	const current = new Map(overdue.map((d) => [d.id, { ...d, daysOverdue: daysFrom(d.nextTestDate) ?? d.daysOverdue }]));
	const byOverdue = (a: OverdueDevice, b: OverdueDevice) => (b.daysOverdue ?? 0) - (a.daysOverdue ?? 0) || a.id - b.id;

	// Newly overdue: announced since the last digest and still on the list (one resolved in between is old news).
	const newly = new Map<number, OverdueDevice>();
	for (const f of facts) if (f.kind === 'overdue' && current.has(f.device.id)) newly.set(f.device.id, current.get(f.device.id)!);
	const still = [...current.values()].filter((d) => !newly.has(d.id) && route(deps.settings.recipients, d).includes(recipient)).sort(byOverdue);

	// Coming due: the latest announcement per device, as seen from the digest's day; gone when it became overdue.
	const due = new Map<number, DueDevice>();
	for (const f of facts) {
		if (f.kind !== 'dueSoon' || current.has(f.device.id)) continue;
		const daysLeft = -(daysFrom(f.device.nextTestDate) ?? -f.device.daysLeft);
		if (daysLeft < 0) continue;
		const prev = due.get(f.device.id);
		if (!prev || prev.nextTestDate <= f.device.nextTestDate) due.set(f.device.id, { ...f.device, daysLeft });
	}
	const failed = facts.filter((f): f is Extract<Fact, { kind: 'failed' }> => f.kind === 'failed').map(failedItem);
	failed.sort((a, b) => a.testDate.localeCompare(b.testDate) || a.testResultId - b.testResultId);

	if (newly.size + still.length + due.size + failed.length === 0) return undefined;
	return {
		day,
		recipient,
		environment: deps.environment,
		timeZone: deps.timeZone,
		escalationDays: deps.settings.recipients.escalation?.afterDays,
		newlyOverdue: [...newly.values()].sort(byOverdue),
		stillOverdue: still,
		dueSoon: [...due.values()].sort((a, b) => a.daysLeft - b.daysLeft || a.id - b.id),
		failedTests: failed,
	};
}

function failedItem(f: Extract<Fact, { kind: 'failed' }>): FailedTestItem {
	return {
		testResultId: f.testResult.id,
		testDate: f.testResult.testDate,
		tester: f.testResult.tester,
		testSequence: f.testResult.testSequence,
		device: f.device,
		failedSteps: f.failedSteps,
		failedStepCount: f.failedStepCount,
		truncatedSteps: f.truncatedSteps,
	};
}

function envelope(deps: Pick<DigestDeps, 'settings' | 'now'>, recipient: string, key: string, rendered: { subject: string; text: string; html: string }): OutgoingEmail {
	const domain = /@([^>\s]+)>?\s*$/.exec(deps.settings.mailFrom)?.[1] ?? 'test-equipment-cloud.invalid';
	const id = createHash('sha256').update(`${key}\n${recipient}`).digest('hex').slice(0, 32);
	return { from: deps.settings.mailFrom, to: recipient, ...rendered, messageId: `<${id}@${domain}>`, date: new Date(deps.now()) };
}

/** The calendar day (YYYY-MM-DD) of an instant in a time zone. */
export function localDay(instant: number, timeZone: string): string {
	return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(instant));
}

/** The local hour (0-23) of an instant in a time zone. */
export function localHour(instant: number, timeZone: string): number {
	return Number(new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', hourCycle: 'h23' }).format(new Date(instant)));
}

/**
 * One event from the bus: filed for the digest, and a failed test e-mailed at once when that is
 * on (each recipient once, even when the event comes again).
 */
export async function onEvent(deps: DigestDeps, event: EmailEvent): Promise<CollectResult & { sentNow: number }> {
	const result = await collectEvent(event, {
		store: deps.store,
		recipients: recipientsOf(deps.settings, deps.accounts, event.detail.metadata.account),
		immediateFailedTests: deps.settings.immediateFailedTests,
		now: deps.now(),
	});
	let sentNow = 0;
	for (const { recipient, fact } of result.immediate) {
		if (fact.kind !== 'failed') continue;
		await sendFailedTestNow(deps, recipient, fact);
		sentNow++;
	}
	return { ...result, sentNow };
}

/**
 * The day a digest run is for: the local day of the time it was scheduled for (EventBridge
 * Scheduler passes it), so a retry or a second firing after midnight still means the same day.
 */
export function digestDay(input: { scheduledTime?: unknown } | null | undefined, now: number, timeZone: string): string {
	const scheduled = typeof input?.scheduledTime === 'string' ? Date.parse(input.scheduledTime) : Number.NaN;
	return localDay(Number.isNaN(scheduled) ? now : scheduled, timeZone);
}
