import { createHash } from 'node:crypto';
import { addDays, allFailureRates, allForecasts, daysBetween, daysLate, monthBefore, monthDays, monthFigures, outcomeOn, overdueOn, type ComplianceGroupBy, type DueEntry, type FailureRateGroupBy, type FailureRateMonths, type FailureRates, type Forecast, type MonthFigures, type RateTestResult } from '../../client';
import { NS, dueEntries, type DueHistory, type TestRecord } from '../pollers/state';
import { renderComplianceReport } from './complianceRender';
import { recipientLocale, type DigestDeps } from './digest';
import type { OutgoingEmail } from './ports';
import { allRecipients, route, type EmailSettings } from './settings';
import { recipientsOf, truthScope } from './accounts';
import { fill, textsFor } from './texts';

/**
 * The monthly compliance report: on the first day of a month, at the digest hour, one e-mail per
 * recipient about the month that ended, from the history of due dates the pollers keep
 * (lambdas/pollers/dueDates.ts). A recipient's report covers the due dates routed to them as the
 * digest routes devices (by the customer and department the device had on its due date); the
 * escalation list gets the whole account's. No due date in the month, no report.
 * Figures are as of the first day of the new month (client/compliance.ts, monthFigures).
 */

export interface LateDevice {
	deviceId: number;
	designation: string | null;
	customerName: string | null;
	department: string | null;
	due: string;
	/** The test date (tested late), or null while still overdue. */
	testedOn: string | null;
	daysLate: number;
	firstSeenOverdue: boolean;
}

export interface ComplianceReportContent {
	month: string;
	/** The day the figures are for: the first of the next month. */
	asOf: string;
	recipient: string;
	environment: 'sandbox' | 'production';
	timeZone: string;
	all: MonthFigures;
	previous: MonthFigures;
	/** On-time rate change from the month before, in percentage points; null when either has none. */
	change: number | null;
	/** The 12 months up to this one, oldest first: on-time rate and devices overdue at the month's end. */
	trend: Array<{ month: string; onTimeRate: number | null; due: number; overdue: number }>;
	customers: MonthFigures[];
	departments: MonthFigures[];
	/** Tested late, then still overdue; most days late first. */
	late: LateDevice[];
	/** Devices without a due date now (not counted). */
	withoutDueDate: number;
	/** The first day the history has (its figures start there). */
	historySince: string | null;
	/** Months of the trend whose figures rest, in part, on the history rebuilt from test results (pollers/rebuild.ts). */
	rebuiltMonths: string[];
	/** The month's due dates and outcomes, for the CSV attachment. */
	rows: CsvRow[];
	/**
	 * Failure rates of the 12 and 24 months up to the report's last day, per device type, department
	 * and customer (client/failureRates.ts), from the test records the pollers keep (the rebuild and
	 * the test-results poller, `tests:` namespace), for the devices this report covers.
	 */
	failureRates: Record<FailureRateMonths, Record<FailureRateGroupBy, FailureRates>>;
	/**
	 * The next 12 months from the report's day (client/forecast.ts), for the devices this report
	 * covers, from their next test dates and intervals as the due-date history last saw them.
	 */
	forecast: Record<ComplianceGroupBy, Forecast>;
}

export interface CsvRow {
	deviceId: number;
	designation: string | null;
	customerId: number | null;
	customerName: string | null;
	department: string | null;
	due: string;
	outcome: string;
	testedOn: string | null;
	daysLate: number | null;
	firstSeenOverdue: boolean;
	openedOn: string;
	closedOn: string | null;
	/** Rebuilt from the test results, not recorded while watching. */
	rebuilt: boolean;
}

/** The month a report sent on `day` is about (the month before), or undefined when `day` is not the first. */
export function reportMonthOn(day: string): string | undefined {
	return day.endsWith('-01') ? monthBefore(day.slice(0, 7)) : undefined;
}

interface Routed {
	entries: DueEntry[];
	devices: Map<number, DueHistory['device']>;
}

/** The entries and devices a recipient's report covers. */
function routedTo(settings: EmailSettings, recipient: string, histories: Array<{ key: string; value: DueHistory }>): Routed {
	const everything = settings.recipients.escalation?.to.includes(recipient) ?? false;
	const mine = (g: { customerName: string | null; department: string | null }) => everything || route(settings.recipients, { ...g, daysOverdue: 0 }).includes(recipient);
	const entries = dueEntries(histories).filter(mine);
	const devices = new Map(histories.filter((h) => mine(h.value.device)).map((h) => [Number(h.key), h.value.device]));
	const withEntries = new Set(entries.map((e) => e.deviceId));
	for (const h of histories) if (withEntries.has(Number(h.key))) devices.set(Number(h.key), h.value.device);
	return { entries, devices };
}

export function composeComplianceReport(
	deps: Pick<DigestDeps, 'settings' | 'timeZone' | 'environment'>,
	recipient: string,
	month: string,
	histories: Array<{ key: string; value: DueHistory }>,
	asOf = `${monthBefore(month, -1)}-01`,
	tests: readonly RateTestResult[] = [],
): ComplianceReportContent | undefined {
	const { entries, devices } = routedTo(deps.settings, recipient, histories);
	const [all] = monthFigures(entries, month, asOf, 'all');
	if (all.due === 0) return undefined;
	const previousMonth = monthBefore(month);
	const [previous] = monthFigures(entries, previousMonth, `${month}-01`, 'all');
	const trend = Array.from({ length: 12 }, (_, i) => monthBefore(month, 11 - i)).map((m) => {
		// Each month as of the first of the next; the report's own month as of the report's day.
		const at = m === month ? asOf : `${monthBefore(m, -1)}-01`;
		const [f] = monthFigures(entries, m, at, 'all');
		return { month: m, onTimeRate: f.onTimeRate, due: f.due, overdue: overdueOn(entries, at, 'all')[0].overdue };
	});
	const rebuiltMonths = trend
		.map((t) => t.month)
		.filter((m) => {
			const { first: from, last: to } = monthDays(m);
			const at = m === month ? asOf : `${monthBefore(m, -1)}-01`;
			return entries.some((e) => e.rebuilt && e.openedOn <= at && ((e.due >= from && e.due <= to) || (e.due < at && outcomeOn(e, at) === 'open')));
		});
	const { first, last } = monthDays(month);
	const inMonth = entries.filter((e) => e.due >= first && e.due <= last && e.openedOn <= asOf);
	const designation = (id: number) => devices.get(id)?.designation ?? null;
	const late: LateDevice[] = [];
	const rows: CsvRow[] = [];
	for (const e of inMonth.sort((a, b) => a.due.localeCompare(b.due) || a.deviceId - b.deviceId)) {
		const outcome = outcomeOn(e, asOf)!;
		const testedOn = outcome === 'tested' ? (e.testedOn ?? e.closedOn ?? e.due) : null;
		const base = { deviceId: e.deviceId, designation: designation(e.deviceId), customerName: e.customerName, department: e.department, due: e.due, firstSeenOverdue: e.firstSeenOverdue };
		if (testedOn !== null && testedOn > e.due) late.push({ ...base, testedOn, daysLate: daysLate(e.due, testedOn) });
		else if (outcome === 'open' && e.due < asOf) late.push({ ...base, testedOn: null, daysLate: daysBetween(e.due, asOf) });
		rows.push({
			...base,
			customerId: e.customerId,
			outcome,
			testedOn,
			daysLate: testedOn === null ? null : daysLate(e.due, testedOn),
			openedOn: e.openedOn,
			closedOn: outcome === 'open' ? null : (e.closedOn ?? null),
			rebuilt: e.rebuilt === true,
		});
	}
	late.sort((a, b) => (a.testedOn === null ? 1 : 0) - (b.testedOn === null ? 1 : 0) || b.daysLate - a.daysLate || a.deviceId - b.deviceId);
	// The rates of the devices this report covers, up to the day before the figures' day.
	const covered = [...devices].filter(([, d]) => d.deletedOn === undefined).map(([id, d]) => ({ id, designation: d.designation, department: d.department, customerId: d.customerId, customerName: d.customerName, testIntervalMonths: d.testIntervalMonths ?? null }));
	const coveredIds = new Set(covered.map((d) => d.id));
	const failureRates = allFailureRates(tests.filter((t) => coveredIds.has(t.deviceId)), covered, addDays(asOf, -1));
	const forecast = allForecasts([...devices].filter(([, d]) => d.deletedOn === undefined).map(([id, d]) => ({ id, customerId: d.customerId, customerName: d.customerName, department: d.department, nextTestDate: d.nextTestDate, testIntervalMonths: d.testIntervalMonths ?? null })), asOf);
	const since = entries.reduce<string | null>((min, e) => (min === null || e.openedOn < min ? e.openedOn : min), null);
	return {
		month,
		asOf,
		recipient,
		environment: deps.environment,
		timeZone: deps.timeZone,
		all,
		previous,
		change: all.onTimeRate === null || previous.onTimeRate === null ? null : Math.round((all.onTimeRate - previous.onTimeRate) * 1000) / 10,
		trend,
		customers: monthFigures(entries, month, asOf, 'customer'),
		departments: monthFigures(entries, month, asOf, 'department'),
		late,
		withoutDueDate: [...devices.values()].filter((d) => d.nextTestDate === null && d.deletedOn === undefined).length,
		historySince: since,
		rebuiltMonths,
		rows,
		failureRates,
		forecast,
	};
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
	const report: ComplianceRunReport = { month, sent: [], nothingToSay: [], failed: [] };
	// One account, or each account of several: its own history and test records (where its pollers
	// keep them) to its own recipients, one report per account.
	for (const a of deps.accounts ?? [undefined]) {
		const scoped = a ? { ...deps, environment: a.environment ?? deps.environment, settings: { ...deps.settings, recipients: recipientsOf(deps.settings, deps.accounts, a.account) } } : deps;
		const where = truthScope(scoped.environment, a?.account);
		const histories: Array<{ key: string; value: DueHistory }> = [];
		// The pollers' view (their state: the same table in AWS, the runner's state file under npm start).
		for await (const item of deps.view.list<DueHistory>(NS.dueDates(where))) histories.push(item);
		const tests: RateTestResult[] = [];
		for await (const item of deps.view.list<TestRecord>(NS.tests(where))) tests.push({ id: Number(item.key), deviceId: item.value.device, testDate: item.value.on, failed: item.value.failed });
		const sendKey = a ? `${key}:${a.account}` : key;
		for (const recipient of allRecipients(scoped.settings.recipients)) {
			try {
				const content = composeComplianceReport(scoped, recipient, month, histories, asOf, tests);
				if (!content) {
					report.nothingToSay.push(recipient);
					continue;
				}
				const receipt = await deps.mailer.sendOnce({ key: sendKey, recipient, factKeys: [], email: envelope(scoped, recipient, sendKey, content, a?.account) });
				report.sent.push({ recipient, messageId: receipt.messageId });
			} catch (error) {
				report.failed.push({ recipient, error: (error as Error).message });
			}
		}
	}
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
		attachments: [
			{ filename: `calibration-compliance-${content.month}.csv`, contentType: 'text/csv', content: rendered.csv },
			{ filename: `failure-rates-${content.month}.csv`, contentType: 'text/csv', content: rendered.failureRatesCsv },
			{ filename: `forecast-${content.month}.csv`, contentType: 'text/csv', content: rendered.forecastCsv },
		],
		data: content,
		messageId: `<${id}@${domain}>`,
		date: new Date(deps.now()),
	};
}
