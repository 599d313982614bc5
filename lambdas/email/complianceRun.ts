import { createHash } from 'node:crypto';
import { monthBefore } from '../../client/compliance';
import type { RateTestResult } from '../../client/failureRates';
import { longestInterval, previousTestsFrom, unmatchedDepartments } from '../../client/intervals';
import { composeComplianceReport, type ComplianceReportContent, type ReportDevice, type ReportHistory } from '../../email/compliance';
import { complianceAttachments, renderComplianceReport } from '../../email/complianceRender';
import { readKeptBin } from '../pollers/scrappedBin';
import { NS, dueEntries, type DueHistory, type TestRecord } from '../pollers/state';
import { recipientLocale, type DigestDeps } from './digest';
import type { OutgoingEmail } from './ports';
import { allRecipients } from './settings';
import { recipientsOf, truthScope } from './accounts';
import { fill, textsFor } from '../../email/texts';
import { readWarnings } from './view';

/**
 * Sending the monthly compliance report (composed in email/compliance.ts): the pollers' due-date
 * history and test records read from their state, each recipient's report sent once.
 */

/** The pollers' due-date histories as the report reads them. */
export function reportHistory(histories: ReadonlyArray<{ key: string; value: DueHistory }>): ReportHistory {
	return { entries: dueEntries(histories), devices: new Map<number, ReportDevice>(histories.map((h) => [Number(h.key), h.value.device])) };
}

export interface ComplianceRunReport {
	month: string;
	/** Sent by this run. */
	sent: Array<{ recipient: string; messageId: string }>;
	/** Sent before (a rerun, or the 2nd after the 1st): the mailer answered with the earlier send's receipt. */
	alreadySent: string[];
	nothingToSay: string[];
	failed: Array<{ recipient: string; error: string }>;
	/** The interval settings' department rows that match no device's department of any account (they set nothing; the caller warns). */
	unmatchedDepartments: string[];
}

/** The warning a run logs for interval settings' department rows that match no device. */
export const UNMATCHED_DEPARTMENTS = 'intervals.departments: no device has these departments; they set nothing';

/**
 * Reads the histories once, then sends each recipient's report once (keyed by month and
 * recipient). `asOf` is for previews (`npm start --report-now`): what the history knows that day.
 */
export async function runComplianceReport(deps: DigestDeps, month: string, key = `compliance:${month}`, asOf?: string): Promise<ComplianceRunReport> {
	const report: ComplianceRunReport = { month, sent: [], alreadySent: [], nothingToSay: [], failed: [], unmatchedDepartments: [] };
	const startedAt = deps.now();
	const departments = deps.settings.intervals?.departments ?? {};
	let unmatched = Object.keys(departments);
	// One account, or each account of several: its own history and test records (where its pollers
	// keep them) to its own recipients, one report per account.
	for (const a of deps.accounts ?? [undefined]) {
		const scoped = a ? { ...deps, environment: a.environment ?? deps.environment, settings: { ...deps.settings, recipients: recipientsOf(deps.settings, deps.accounts, a.account) } } : deps;
		const where = truthScope(scoped.environment, a?.account);
		const histories: Array<{ key: string; value: DueHistory }> = [];
		// The pollers' view (their state: the same table in AWS, the runner's state file under npm start).
		for await (const item of deps.view.list<DueHistory>(NS.dueDates(where))) histories.push(item);
		// The records the report uses, as n8n reads them: from the previous tests of its 24 months' first ones
		// (the pollers keep them longer, for the longest interval there is; the rest stays out of memory).
		const previousFrom = previousTestsFrom(`${monthBefore(month, 23)}-01`, longestInterval(histories.map((h) => h.value.device)));
		const tests: RateTestResult[] = [];
		for await (const item of deps.view.list<TestRecord>(NS.tests(where))) if (item.value.on >= previousFrom) tests.push({ id: Number(item.key), deviceId: item.value.device, testDate: item.value.on, failed: item.value.failed });
		const history = reportHistory(histories);
		// A row matched by any account's devices sets something.
		const none = new Set(unmatchedDepartments(departments, history.devices.values()));
		unmatched = unmatched.filter((n) => none.has(n));
		// The scrapped devices the due-date poller last read from the recycle bin (pollers/scrapped.ts); none read, not counted (and said why).
		const bin = await readKeptBin(deps.view, where);
		// The measured-value warnings the results poller announced and still keeps (pollers/measuredAlerts.ts, WARNING_KEEP_DAYS).
		const warnings = (await readWarnings(deps.view, where)).map((w) => w.row);
		const sendKey = a ? `${key}:${a.account}` : key;
		for (const recipient of allRecipients(scoped.settings.recipients)) {
			try {
				const content = composeComplianceReport(scoped, recipient, month, history, asOf, tests, warnings, bin.devices, bin.devices === null ? bin.notRead : undefined);
				if (!content) {
					report.nothingToSay.push(recipient);
					continue;
				}
				const receipt = await deps.mailer.sendOnce({ key: sendKey, recipient, factKeys: [], email: envelope(scoped, recipient, sendKey, content, a?.account) });
				// A receipt from before this run is the earlier send's (receipts of earlier versions have no time: earlier too).
				if (receipt.sentAt === undefined || Date.parse(receipt.sentAt) < startedAt) report.alreadySent.push(recipient);
				else report.sent.push({ recipient, messageId: receipt.messageId });
			} catch (error) {
				report.failed.push({ recipient, error: (error as Error).message });
			}
		}
	}
	report.unmatchedDepartments = unmatched;
	if (report.failed.length > 0) {
		throw new Error(`The compliance report of ${month} could not be sent to ${report.failed.length} recipient(s): ${report.failed.map((f) => `${f.recipient} (${f.error})`).join('; ')}`);
	}
	return report;
}

function envelope(deps: Pick<DigestDeps, 'settings' | 'now' | 'accounts'>, recipient: string, key: string, content: ComplianceReportContent, account?: string): OutgoingEmail {
	const locale = recipientLocale(deps, recipient);
	const report = renderComplianceReport(content, locale);
	// Several accounts: each account's report names it, as its digest part does.
	const rendered = account === undefined ? report : { ...report, subject: fill(textsFor(locale).digest.accountSubject, { subject: report.subject, account }) };
	const domain = /@([^>\s]+)>?\s*$/.exec(deps.settings.mailFrom)?.[1] ?? 'test-equipment-cloud.invalid';
	const id = createHash('sha256').update(`${key}\n${recipient}`).digest('hex').slice(0, 32);
	return {
		from: deps.settings.mailFrom,
		to: recipient,
		subject: rendered.subject,
		text: rendered.text,
		html: rendered.html,
		locale,
		attachments: complianceAttachments(content.month, rendered),
		data: content,
		messageId: `<${id}@${domain}>`,
		date: new Date(deps.now()),
	};
}
