import { createHash } from 'node:crypto';
import { dayIn } from '../../client/dates';
import type { DueDevice, OverdueDevice } from '../events/schemas';
import type { EmailEvent } from './events';
import { collectEvent, FACT_KEEP_MS, MARK_KEEP_MS, NS, WARNING_NEW_MS, type CollectResult, type Fact } from './facts';
import type { MailStore, Mailer, OutgoingEmail, SendReceipt } from './ports';
import { digestContent, failedTestItem } from '../../email/digest';
import { renderDigest, renderFailedTest, type DigestContent, type FailedTestItem } from '../../email/render';
import { everyRecipient, recipientsOf, renderAccountsDigest, truthScope, type AccountRouting } from './accounts';
import { allRecipients, localeOf, route, type EmailSettings, type Recipients, type Routable } from './settings';
import type { Locale } from '../../email/texts';
import { readTruth, readWarnings, type PollerView, type RecordedWarning, type TodaysTruth } from './view';
import { NOTICES_SUMMARY_NS, noticesDigestLines, noticesSummaryKey, type NoticesSummary } from './notices';

const DAY_MS = 86_400_000;

export interface DigestDeps {
	store: MailStore;
	mailer: Mailer;
	/** The pollers' state: today's truth about what is overdue and coming due (lambdas/email/view.ts). */
	view: PollerView;
	settings: EmailSettings;
	timeZone: string;
	environment: 'sandbox' | 'production';
	now: () => number;
	/** Several accounts (lambdas/email/accounts.ts): each routes by its own recipients and has its own truth; unset for one. */
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
 * The daily digest of one day, for every recipient: the facts since their last digest and the
 * devices still overdue, one e-mail each (none when there is nothing to say). Rows, routing, due
 * dates, days overdue and escalation come from today's truth (the pollers' view, read now), not
 * from the event that once mentioned the device. Safe to run again for the same day (a second
 * schedule firing, a retry, a crash midway): each recipient's e-mail is sent once, only the facts
 * it carried are marked carried for them, so a fact that arrived in between goes into the next
 * digest. A recipient that fails does not stop the others; the run then fails as a whole so that
 * it is retried and alarmed on.
 */
export async function runDigest(deps: DigestDeps, day: string, key = `digest:${day}`): Promise<DigestReport> {
	const report: DigestReport = { day, sent: [], nothingToSay: [], failed: [] };
	await adoptEarlierInboxes(deps);
	// One account, or each account of several: its truth, and the settings it routes by.
	const scopes = await Promise.all(
		(deps.accounts ?? [undefined]).map(async (a) => ({
			account: a?.account,
			truth: await readTruth(deps.view, truthScope(a?.environment ?? deps.environment, a?.account)),
			// The measured-value warnings the results poller announced (and still keeps), while they are news (WARNING_NEW_MS).
			warnings: (await readWarnings(deps.view, truthScope(a?.environment ?? deps.environment, a?.account))).filter((w) => Date.parse(w.announcedOn) > deps.now() - WARNING_NEW_MS),
			deps: a ? { ...deps, environment: a.environment ?? deps.environment, settings: { ...deps.settings, recipients: recipientsOf(deps.settings, deps.accounts, a.account) } } : deps,
			// The day's customer re-test notices of the account: said in the digest of its recipients.
			notices: await deps.store.get<NoticesSummary>(NOTICES_SUMMARY_NS, noticesSummaryKey(day, a?.account)),
		})),
	);
	const noticesFor = (x: (typeof scopes)[number], recipient: string) =>
		x.notices && allRecipients(x.deps.settings.recipients).includes(recipient) ? noticesDigestLines(x.notices, recipientLocale(deps, recipient)) : undefined;
	const scopeOf = (f: Fact) => scopes.find((x) => x.account === f.account) ?? scopes[0];
	const facts: Fact[] = [];
	for await (const { value } of deps.store.list<Fact>(NS.facts)) facts.push(value);
	const carried = new Map<string, Set<string>>();
	const expiresAt = deps.now() + MARK_KEEP_MS;
	for (const recipient of everyRecipient(deps.settings, deps.accounts)) {
		try {
			const mine = new Set<string>();
			for await (const { key: k } of deps.store.list(NS.carried(recipient))) mine.add(k);
			carried.set(recipient, mine);
			const unseen = facts.filter((f) => !mine.has(f.key));
			// Several accounts: a part per account with something to say, one e-mail for them all.
			// In the recipient's language, as the rest of the digest; an account with nothing but its notices to say has a part for them.
			const parts = scopes.flatMap((x) => {
				const notices = noticesFor(x, recipient);
				const warnings = x.warnings.filter((w) => !mine.has(w.factKey));
				const part = composeDigest(x.deps, recipient, day, unseen.filter((f) => !deps.accounts || f.account === x.account), x.truth, warnings);
				const content = part ? { ...part, notices } : notices ? noticesOnly(deps, recipient, day, notices) : undefined;
				return content ? [{ account: x.account ?? '', content }] : [];
			});
			const content = parts.length === 0 ? undefined : { ...parts[0].content, factKeys: parts.flatMap((p) => p.content.factKeys) };
			if (!content) {
				report.nothingToSay.push(recipient);
				continue;
			}
			const locale = recipientLocale(deps, recipient);
			const email = envelope(deps, recipient, key, deps.accounts ? renderAccountsDigest(parts, locale) : renderDigest(content, locale), locale);
			const receipt: SendReceipt = await deps.mailer.sendOnce({ key, recipient, factKeys: content.factKeys, email });
			await deps.store.putMany(NS.carried(recipient), receipt.factKeys.map((k) => ({ key: k, value: { day }, expiresAt })));
			for (const k of receipt.factKeys) mine.add(k);
			report.sent.push({ recipient, messageId: receipt.messageId, facts: receipt.factKeys.length });
		} catch (error) {
			report.failed.push({ recipient, error: (error as Error).message });
		}
	}
	// A fact leaves once it is old news, or once every address it concerns today has it; a coming
	// due date stays until it is old news, for whoever becomes responsible for the device meanwhile.
	const done = facts.filter((f) => {
		const r = factRouting(scopeOf(f).deps, day, f, scopeOf(f).truth);
		return r === 'oldNews' || (r !== 'wait' && f.kind !== 'dueSoon' && r.every((to) => carried.get(to)?.has(f.key)));
	});
	await deps.store.deleteMany(NS.facts, done.map((f) => f.key));
	if (report.failed.length > 0) throw new DigestError(report);
	return report;
}

/**
 * Facts an earlier version filed per recipient (`mail:inbox:<recipient>`) and no digest took yet:
 * filed once in the shared facts, routed by today's truth like any other.
 */
async function adoptEarlierInboxes(deps: Pick<DigestDeps, 'store' | 'settings' | 'accounts' | 'now'>): Promise<void> {
	for (const recipient of everyRecipient(deps.settings, deps.accounts)) {
		const ns = `mail:inbox:${recipient}`;
		const earlier: Fact[] = [];
		for await (const { value } of deps.store.list<Fact>(ns)) earlier.push(value);
		if (earlier.length === 0) continue;
		await deps.store.putMany(NS.facts, earlier.map((f) => ({ key: f.key, value: f, expiresAt: deps.now() + FACT_KEEP_MS })));
		await deps.store.deleteMany(ns, earlier.map((f) => f.key));
	}
}

/** The e-mail of one failed test, sent when it arrives (immediate e-mails on); it stays filed for the digest. */
export async function sendFailedTestNow(deps: Pick<DigestDeps, 'mailer' | 'settings' | 'environment' | 'timeZone' | 'now' | 'accounts'>, recipient: string, fact: Extract<Fact, { kind: 'failed' }>): Promise<SendReceipt> {
	const key = `failed:${fact.key}`;
	const locale = recipientLocale(deps, recipient);
	const email = envelope(deps, recipient, key, renderFailedTest(failedItem(fact), { environment: deps.environment, timeZone: deps.timeZone, locale }), locale);
	return deps.mailer.sendOnce({ key, recipient, factKeys: [], email });
}

const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
const daysFrom = (day: string, date: string | null) => (date && DAY_PATTERN.test(date) ? Math.round((Date.parse(`${day}T00:00:00Z`) - Date.parse(`${date}T00:00:00Z`)) / DAY_MS) : null);

/** A device on the overdue list, as of the digest's day. */
function overdueToday(day: string, device: OverdueDevice): OverdueDevice {
	return { ...device, daysOverdue: daysFrom(day, device.nextTestDate) ?? device.daysOverdue };
}

/** A coming-due fact as today's truth has it: undefined when it no longer holds (tested, deleted, due date moved or passed, overdue now). */
function dueToday(day: string, f: Extract<Fact, { kind: 'dueSoon' }>, truth: TodaysTruth): DueDevice | undefined {
	const now = truth.dueSoon.get(f.device.id);
	if (!now || now.dropped || now.due !== f.device.nextTestDate || truth.overdue.has(f.device.id)) return undefined;
	const daysLeft = -(daysFrom(day, now.due) ?? -f.device.daysLeft);
	return daysLeft < 0 ? undefined : { ...f.device, ...now.device, nextTestDate: now.due, daysLeft };
}

/** Whom a fact concerns today; 'oldNews' once it no longer holds; 'wait' while the pollers' view has not caught up with it. */
function factRouting(deps: Pick<DigestDeps, 'settings'>, day: string, f: Fact, truth: TodaysTruth): string[] | 'oldNews' | 'wait' {
	const routes = (d: Routable) => route(deps.settings.recipients, d);
	switch (f.kind) {
		case 'failed':
			return routes(f.device);
		case 'overdue': {
			const now = truth.overdue.get(f.device.id);
			if (now?.episode === f.episode) return routes(overdueToday(day, now.device));
			const ended = truth.ended.get(f.device.id);
			return (now && now.episode > f.episode) || (ended !== undefined && ended >= f.episode) ? 'oldNews' : 'wait';
		}
		case 'dueSoon': {
			const due = dueToday(day, f, truth);
			if (due) return routes(due);
			return truth.dueSoon.has(f.device.id) || truth.overdue.has(f.device.id) || (daysFrom(day, f.device.nextTestDate) ?? 0) > 0 ? 'oldNews' : 'wait';
		}
	}
}

/** What one recipient's digest says and the facts it carries; undefined when it would say nothing. */
export function composeDigest(
	deps: Pick<DigestDeps, 'settings' | 'timeZone' | 'environment'>,
	recipient: string,
	day: string,
	facts: Fact[],
	truth: TodaysTruth,
	/** The recorded warnings this recipient has not had yet: listed when routed to them, and marked carried. */
	warnings: readonly RecordedWarning[] = [],
): (DigestContent & { factKeys: string[] }) | undefined {
	const mine = (d: Routable) => route(deps.settings.recipients, d).includes(recipient);
	const factKeys: string[] = [];
	const current = new Map<number, OverdueDevice>();
	for (const [id, { device }] of truth.overdue) current.set(id, overdueToday(day, device));

	// Newly overdue: announced since this recipient's last digest, in the episode still open.
	const newly = new Map<number, OverdueDevice>();
	for (const f of facts) {
		if (f.kind !== 'overdue' || truth.overdue.get(f.device.id)?.episode !== f.episode || !mine(current.get(f.device.id)!)) continue;
		newly.set(f.device.id, current.get(f.device.id)!);
		factKeys.push(f.key);
	}
	const still = [...current.values()].filter((d) => !newly.has(d.id) && mine(d));

	// Coming due: the facts that still hold, as of today; one row per device.
	const due = new Map<number, DueDevice>();
	for (const f of facts) {
		if (f.kind !== 'dueSoon') continue;
		const d = dueToday(day, f, truth);
		if (!d || !mine(d)) continue;
		due.set(d.id, d);
		factKeys.push(f.key);
	}
	const failedFacts = facts.filter((f): f is Extract<Fact, { kind: 'failed' }> => f.kind === 'failed' && mine(f.device));
	factKeys.push(...failedFacts.map((f) => f.key));
	const warned = warnings.filter((w) => mine(w.row.device));
	factKeys.push(...warned.map((w) => w.factKey));

	// Ordered and assembled as the node's digest is (email/digest.ts).
	const content = digestContent(
		{ day, recipient, environment: deps.environment, timeZone: deps.timeZone, escalationDays: deps.settings.recipients.escalation?.afterDays },
		{ newlyOverdue: [...newly.values()], stillOverdue: still, dueSoon: [...due.values()], failedTests: failedFacts.map(failedItem), measurementWarnings: warned.map((w) => w.row) },
	);
	return content && { ...content, factKeys: factKeys.sort() };
}

/** A digest that only says what the re-test notices did. */
function noticesOnly(deps: Pick<DigestDeps, 'timeZone' | 'environment'>, recipient: string, day: string, notices: string[]): DigestContent & { factKeys: string[] } {
	return { day, recipient, environment: deps.environment, timeZone: deps.timeZone, newlyOverdue: [], stillOverdue: [], dueSoon: [], failedTests: [], factKeys: [], notices };
}

function failedItem(f: Extract<Fact, { kind: 'failed' }>): FailedTestItem {
	return { ...failedTestItem({ testResultId: f.testResult.id, testDate: f.testResult.testDate, tester: f.testResult.tester, testSequence: f.testResult.testSequence, device: f.device, failedSteps: f.failedSteps, failedStepCount: f.failedStepCount }), truncatedSteps: f.truncatedSteps };
}

function envelope(deps: Pick<DigestDeps, 'settings' | 'now'>, recipient: string, key: string, rendered: { subject: string; text: string; html: string }, locale: Locale): OutgoingEmail {
	const domain = /@([^>\s]+)>?\s*$/.exec(deps.settings.mailFrom)?.[1] ?? 'test-equipment-cloud.invalid';
	const id = createHash('sha256').update(`${key}\n${recipient}`).digest('hex').slice(0, 32);
	return { from: deps.settings.mailFrom, to: recipient, ...rendered, locale, messageId: `<${id}@${domain}>`, date: new Date(deps.now()) };
}

/** The language of a recipient's e-mails (settings.localeOf), the accounts' own recipients included. */
export function recipientLocale(deps: Pick<DigestDeps, 'settings' | 'accounts'>, recipient: string): Locale {
	return localeOf(deps.settings, recipient, (deps.accounts ?? []).flatMap((a): Recipients[] => (a.recipients ? [a.recipients] : [])));
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
	let sentNow = 0;
	const result = await collectEvent(event, {
		store: deps.store,
		recipients: recipientsOf(deps.settings, deps.accounts, event.detail.metadata.account),
		immediateFailedTests: deps.settings.immediateFailedTests,
		now: deps.now(),
		send: async (recipient, fact) => {
			if (fact.kind !== 'failed') return;
			// The environment of the event's account (several accounts may mix them), not the deployment's.
			await sendFailedTestNow({ ...deps, environment: event.detail.metadata.environment }, recipient, fact);
			sentNow++;
		},
	});
	return { ...result, sentNow };
}

/**
 * The day a digest run is for: the local day of the time it was scheduled for (EventBridge
 * Scheduler passes it), so a retry or a second firing after midnight still means the same day.
 */
export function digestDay(input: { scheduledTime?: unknown } | null | undefined, now: number, timeZone: string): string {
	const scheduled = typeof input?.scheduledTime === 'string' ? Date.parse(input.scheduledTime) : Number.NaN;
	return dayIn(Number.isNaN(scheduled) ? now : scheduled, timeZone);
}
