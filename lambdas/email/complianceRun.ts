import { createHash } from 'node:crypto';
import type { RateTestResult } from '../../client';
import { composeComplianceReport, type ComplianceReportContent, type ReportDevice, type ReportHistory } from '../../email/compliance';
import { complianceAttachments, renderComplianceReport } from '../../email/complianceRender';
import { NS, dueEntries, type DueHistory, type TestRecord } from '../pollers/state';
import { recipientLocale, type DigestDeps } from './digest';
import type { OutgoingEmail } from './ports';
import { allRecipients } from './settings';

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
	sent: Array<{ recipient: string; messageId: string }>;
	nothingToSay: string[];
	failed: Array<{ recipient: string; error: string }>;
}

/**
 * Reads the histories once, then sends each recipient's report once (keyed by month and
 * recipient). `asOf` is for previews (`npm start --report-now`): what the history knows that day.
 */
export async function runComplianceReport(deps: DigestDeps, month: string, key = `compliance:${month}`, asOf?: string): Promise<ComplianceRunReport> {
	const histories: Array<{ key: string; value: DueHistory }> = [];
	// The pollers' view (their state: the same table in AWS, the runner's state file under npm start).
	for await (const item of deps.view.list<DueHistory>(NS.dueDates(deps.environment))) histories.push(item);
	const tests: RateTestResult[] = [];
	for await (const item of deps.view.list<TestRecord>(NS.tests(deps.environment))) tests.push({ id: Number(item.key), deviceId: item.value.device, testDate: item.value.on, failed: item.value.failed });
	const history = reportHistory(histories);
	const report: ComplianceRunReport = { month, sent: [], nothingToSay: [], failed: [] };
	for (const recipient of allRecipients(deps.settings.recipients)) {
		try {
			const content = composeComplianceReport(deps, recipient, month, history, asOf, tests);
			if (!content) {
				report.nothingToSay.push(recipient);
				continue;
			}
			const receipt = await deps.mailer.sendOnce({ key, recipient, factKeys: [], email: envelope(deps, recipient, key, content) });
			report.sent.push({ recipient, messageId: receipt.messageId });
		} catch (error) {
			report.failed.push({ recipient, error: (error as Error).message });
		}
	}
	if (report.failed.length > 0) {
		throw new Error(`The compliance report of ${month} could not be sent to ${report.failed.length} recipient(s): ${report.failed.map((f) => `${f.recipient} (${f.error})`).join('; ')}`);
	}
	return report;
}

function envelope(deps: Pick<DigestDeps, 'settings' | 'now' | 'accounts'>, recipient: string, key: string, content: ComplianceReportContent): OutgoingEmail {
	const locale = recipientLocale(deps, recipient);
	const rendered = renderComplianceReport(content, locale);
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
