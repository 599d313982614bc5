import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { dayIn } from '../../client/dates';
import type { NoticeInput } from '../../client/noticesRead';
import { FileMailStore } from '../adapters/fileMailStore';
import { OutboxMailer } from '../adapters/outboxMailer';
import type { TecEvent } from '../events/event';
import type { Log, Publisher } from '../ports';
import { reportMonthOn } from '../../email/compliance';
import { runComplianceReport, UNMATCHED_DEPARTMENTS, type ComplianceRunReport } from './complianceRun';
import { localHour, onEvent, runDigest, type DigestDeps } from './digest';
import { readEmailEvent } from './events';
import { noticeMonthOf, recordNoticesSummary, runNotices, type NoticeSent } from './notices';
import type { AccountRouting } from './accounts';
import { parseEmailSettings, type EmailSettings } from './settings';
import type { PollerView } from './view';

/**
 * The alert e-mails under `npm start`: the same collector and digest code as in AWS, with a
 * local JSON file for the facts and an outbox folder instead of SES. Settings come from a JSON
 * file with the CDK context keys (mailFrom, recipients, digestHour, immediateFailedTests, locale,
 * timeZone, alertEmails), by default cdk.json's "context": the e-mail previewed is the one deployed.
 */
export interface LocalMailOptions {
	environment: 'sandbox' | 'production';
	outboxDir: string;
	statePath: string;
	/** A JSON file of settings, or a cdk.json (its "context" is used). */
	configPath?: string;
	log: Log;
	/** The pollers' state (the runner's store): the digest's view of today's truth. */
	view: PollerView;
	/** The clock of the digest hour and of the e-mails: the pollers' (the embedded sandbox's when there is one). */
	now?: () => number;
	/** The outbox writer (default: one on outboxDir). */
	mailer?: OutboxMailer;
	/** Several accounts: each routes by its own recipients, one digest per recipient with a section per account. */
	accounts?: AccountRouting[];
	/**
	 * Reads customers and devices from the service for the re-test notices (when customerNotices is
	 * enabled): one reader, or one per account (named) when the deployment watches several.
	 */
	/** Reads an account's customers and devices; `timeZone` is the e-mails' (the notices' today is the day there). */
	readNotices?: Array<{ account?: string; read: (timeZone: string) => Promise<NoticeInput> }>;
}

export interface LocalMail {
	/** Gives every event the pollers emit to the collector. */
	publisher: Publisher;
	outboxDir: string;
	/**
	 * Runs the digest when its hour has come today (or now, when asked), and on the first day of a
	 * month the compliance report of the month before (or now, of the month before today); returns
	 * the files written.
	 */
	afterCycle(digestNow?: boolean, reportNow?: boolean, noticesNow?: boolean): Promise<string[]>;
}

/** The audit trail of the re-test notices under `npm start`: one JSON line per notice sent, beside the mail state. */
export const NOTICES_LOG = 'notices-log.jsonl';

/** The e-mail settings of `npm start`: a JSON file of the CDK context keys, by default cdk.json's "context". */
export function readLocalEmailSettings(configPath: string | undefined): { settings: EmailSettings; timeZone: string } {
	const path = resolve(configPath ?? 'cdk.json');
	if (!existsSync(path)) throw new Error(`The e-mail settings file ${path} does not exist (--email-config FILE: JSON with mailFrom, recipients, digestHour, timeZone)`);
	let json: Record<string, unknown>;
	try {
		json = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
	} catch (error) {
		throw new Error(`The e-mail settings file ${path} is not JSON (${(error as Error).message})`);
	}
	const input = (typeof json.context === 'object' && json.context !== null ? json.context : json) as Record<string, unknown>;
	const alertEmails = typeof input.alertEmails === 'string' ? input.alertEmails.split(/[,;\s]+/).filter(Boolean) : input.alertEmails;
	const settings = parseEmailSettings({ ...input, recipients: input.recipients ?? (alertEmails ? { default: alertEmails } : undefined) }, path);
	const timeZone = typeof input.timeZone === 'string' && input.timeZone !== '' ? input.timeZone : 'UTC';
	return { settings, timeZone };
}

/**
 * Appends a notice's line to the audit log unless the log has it (the same month, account and
 * customer): the line is written before the notice's record, so a run after a crash between the
 * two tells of the notice again.
 */
export function appendNoticeLog(path: string, entry: NoticeSent): void {
	const key = (e: Pick<NoticeSent, 'month' | 'account' | 'customerId'>) => `${e.month}\n${e.account ?? ''}\n${e.customerId}`;
	const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
	for (const line of text.split('\n')) {
		if (line.trim() === '') continue;
		try {
			if (key(JSON.parse(line) as NoticeSent) === key(entry)) return;
		} catch {
			// A line cut short by a crash: not this notice's.
		}
	}
	mkdirSync(dirname(path), { recursive: true });
	// A line cut short by a crash is closed first, so this one stays a line of its own.
	appendFileSync(path, `${text === '' || text.endsWith('\n') ? '' : '\n'}${JSON.stringify(entry)}\n`);
}

export function createLocalMail(options: LocalMailOptions): LocalMail {
	const { settings, timeZone } = readLocalEmailSettings(options.configPath);
	const now = options.now ?? Date.now;
	const mailer = options.mailer ?? new OutboxMailer(resolve(options.outboxDir));
	const store = new FileMailStore(options.statePath, now);
	const deps: DigestDeps = { store, mailer, view: options.view, settings, timeZone, environment: options.environment, now, accounts: options.accounts };
	let reported = 0;
	const auditPath = join(dirname(resolve(options.statePath)), NOTICES_LOG);

	/** Interval settings' department rows no device has: named in the log (they set nothing). */
	function warnUnmatched(report: ComplianceRunReport): ComplianceRunReport {
		if (report.unmatchedDepartments.length > 0) options.log.warn(UNMATCHED_DEPARTMENTS, { departments: report.unmatchedDepartments });
		return report;
	}

	/**
	 * The customer re-test notices: at the digest hour of a month's first day, or now when asked;
	 * either way for the month after today's, once per customer (a repeat sends only what is missing).
	 */
	async function customerNotices(day: string, t: number, noticesNow: boolean): Promise<void> {
		if (!settings.customerNotices.enabled || !options.readNotices?.length) {
			if (noticesNow) options.log.warn('The re-test notices are off: set customerNotices.enabled to true in the e-mail settings', {});
			return;
		}
		const month = noticeMonthOf(day);
		// On the 1st at the digest hour; on a later day when the runner sent an earlier month's but missed this one's (it was not running).
		const last = await store.get<string>('mail:local', 'lastNotices');
		const due = last !== month && (day.endsWith('-01') ? localHour(t, timeZone) >= settings.digestHour : last !== undefined && last < month);
		if (!noticesNow && !due) return;
		// Each account's customers in turn; one account that fails does not keep the others' notices back.
		const failures: unknown[] = [];
		for (const { account, read } of options.readNotices) {
			try {
				const report = await runNotices(
					{
						store,
						mailer,
						settings,
						environment: options.environment,
						now,
						read: () => read(timeZone),
						account,
						onSent: (entry: NoticeSent) => appendNoticeLog(auditPath, entry),
					},
					month,
				);
				// The company's digest of the day says what went out this month (this run's and earlier runs').
				await recordNoticesSummary(store, report, day, t);
				options.log.info('Customer re-test notices', {
					...(account === undefined ? {} : { account }),
					month,
					sent: report.sent.length,
					alreadySent: report.alreadySent.length,
					noAddress: report.noAddress.map((c) => `${c.customerName}: ${c.reason}`),
					optedOut: report.optedOut,
					skippedRecords: report.skippedRecords,
					auditLog: auditPath,
				});
			} catch (error) {
				failures.push(error);
			}
		}
		if (failures.length > 0) throw failures.length === 1 ? failures[0] : new AggregateError(failures, (failures as Error[]).map((e) => e.message).join('; '));
		if (due) await store.putMany('mail:local', [{ key: 'lastNotices', value: month }]);
	}

	/** The compliance report: at the digest hour of a month's first day, once; or now, when asked. */
	async function monthlyReport(day: string, t: number, reportNow: boolean): Promise<void> {
		const due = reportMonthOn(day);
		if (reportNow) {
			const month = reportMonthOn(`${day.slice(0, 7)}-01`)!;
			// A preview: the month before, with what the history knows today.
			const report = warnUnmatched(await runComplianceReport(deps, month, `compliance:${month}-now-${new Date(t).toISOString().slice(11, 19).replaceAll(':', '')}`, day));
			if (report.sent.length + report.alreadySent.length === 0) options.log.info('The compliance report had nothing to say (no due date in the month): no e-mail', { month });
		} else if (due && localHour(t, timeZone) >= settings.digestHour && (await store.get<string>('mail:local', 'lastComplianceReport')) !== due) {
			warnUnmatched(await runComplianceReport(deps, due));
			await store.putMany('mail:local', [{ key: 'lastComplianceReport', value: due }]);
		}
	}

	return {
		outboxDir: mailer.dir,
		publisher: {
			async publish(events: TecEvent[]) {
				for (const e of events) {
					// Read as the deployed collector reads a delivery; the rule's other detail types are ignored.
					const event = readEmailEvent({ source: e.source, 'detail-type': e['detail-type'], detail: e.detail });
					if (!('ignored' in event)) await onEvent(deps, event);
				}
			},
		},
		async afterCycle(digestNow = false, reportNow = false, noticesNow = false) {
			const t = now();
			const day = dayIn(t, timeZone);
			// Before the digest, which says what the notices did; a failure fails the cycle afterwards.
			const noticesFailure = await customerNotices(day, t, noticesNow).then(
				() => undefined,
				(error: unknown) => error,
			);
			// A failed report does not keep the digest from going out; it fails the cycle afterwards.
			const reportFailure = await monthlyReport(day, t, reportNow).then(
				() => undefined,
				(error: unknown) => error,
			);
			let ran = true;
			if (digestNow) {
				// A preview on request: its own key, so it is written even when today's digest went out.
				await runDigest(deps, day, `digest:${day}-now-${new Date(t).toISOString().slice(11, 19).replaceAll(':', '')}`);
			} else if (localHour(t, timeZone) >= settings.digestHour && (await store.get<string>('mail:local', 'lastDigest')) !== day) {
				await runDigest(deps, day);
				await store.putMany('mail:local', [{ key: 'lastDigest', value: day }]);
			} else ran = false;
			// Failed-test e-mails written during the cycle, and the digest.
			const written = mailer.written.slice(reported);
			reported = mailer.written.length;
			if (written.length > 0) options.log.info(`Wrote ${written.length} e-mail(s) to the outbox (not sent): open the .eml in a mail app or the .html in a browser`, { outbox: mailer.dir, files: written });
			else if (ran) options.log.info('The digest had nothing to say: no e-mail', { outbox: mailer.dir, day });
			if (reportFailure) throw reportFailure;
			if (noticesFailure) throw noticesFailure;
			return written;
		},
	};
}

export const DEFAULT_OUTBOX = join('.state', 'outbox');
