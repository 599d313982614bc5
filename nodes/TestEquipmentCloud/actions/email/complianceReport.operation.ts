import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { checkThreshold, laterDay, monthDays, readComplianceReportInput, readResultWarnings, readServiceDay, todayOf, ValidationError, warningRows, type MeasurementWarningItem, type RateTestResult } from '../../../../client';
import { composeComplianceReport, reportEntries, type ReportDevice, type ReportHistory } from '../../../../email/compliance';
import { complianceAttachments, renderComplianceReport } from '../../../../email/complianceRender';
import { allRecipients, localeOf, type Recipients } from '../../../../email/routing';
import { requestOptions } from '../common/list.description';
import { clientFor } from '../common/utils';
import { hintUnmatchedDepartments, intervalSettingsOf, intervalSettingProperties } from '../common/intervalSettings';
import { emailItem, environmentOf, languageOf, languageParameter, monthFrom, monthOf, recipientsOf, recipientsParameter, requireToForUnrouted, timeZoneOf, toParameter } from './common';

const properties: INodeProperties[] = [
	{
		displayName: 'Month',
		name: 'month',
		type: 'string',
		default: '',
		placeholder: 'e.g. 2026-10',
		description: 'The month the report is about (YYYY-MM), one that has ended. Empty: last month, in the workflow’s time zone.',
	},
	toParameter(false, 'Who gets the whole account’s report (comma-separated addresses); with routing rules, who gets the devices no rule routes'),
	recipientsParameter,
	languageParameter('The language of the reports, unless the routing rules’ locales give a recipient one of their own'),
	{
		displayName: 'Measured Values Near Their Limit',
		name: 'measurementWarnings',
		type: 'boolean',
		default: true,
		description:
			'Whether to add the section of the month’s passed tests whose measured values use at least the Near-Limit Threshold of their limit, or whose trend reaches the limit before the next due date ("test earlier"), by the results poller’s rule, and its CSV. Costs one request per passed result of the month (its detail), and for each one with measured values its device’s result list (once per device) and up to 4 earlier details for the trend (each read once).',
	},
	{
		displayName: 'Near-Limit Threshold',
		name: 'nearLimitThreshold',
		type: 'number',
		typeOptions: { minValue: 0.01, maxValue: 1, numberPrecision: 2 },
		default: 0.8,
		description: 'Share of the limit at or above which a measured value is listed (0.8 = 80 %, as the results poller’s nearLimitThreshold)',
		displayOptions: { show: { measurementWarnings: [true] } },
	},
	{
		displayName: 'Interval Recommendations',
		name: 'intervalRecommendations',
		type: 'collection',
		placeholder: 'Add Setting',
		default: {},
		description: 'The settings of the section’s interval recommendations, as Compliance › Get Interval Recommendations takes them (the Lambdas’ report: the e-mail settings’ intervals); each one not set, its default',
		options: intervalSettingProperties,
	},
	...requestOptions(),
];

export const description = updateDisplayOptions({ show: { resource: ['email'], operation: ['complianceReport'] } }, properties);

/**
 * One item per recipient with due dates in the month: the monthly compliance report as the
 * Lambdas send it (on-time rate, trend, late devices, failure rates, forecast, interval
 * recommendations, devices out of line, measured values near their limit; five or six CSVs attached), from the due-date history rebuilt from the test results (the node keeps none).
 */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const timeZone = timeZoneOf(this);
	const month = monthOf(this, i, monthFrom(todayOf(Date.now(), timeZone), -1));
	const language = languageOf(this, i);
	const recipients = recipientsOf(this, i);
	const environment = await environmentOf(this);
	const client = await clientFor(this, i);
	// Today by the one rule (client/dates.ts, todayOf): the workflow's day; the rebuild's cut-off for
	// "future" results is the later of it and the service's day.
	const today = todayOf(Date.now(), timeZone);
	if (month >= today.slice(0, 7)) throw new ValidationError('Month', `must be a month that has ended (before ${today.slice(0, 7)}, the current month in the workflow’s time zone), got "${month}"`);
	const options = this.getNodeParameter('intervalRecommendations', i, {}) as IDataObject;
	const intervals = intervalSettingsOf((name, fallback) => options[name] ?? fallback, 'Interval Recommendations › ');
	let held: Held | undefined = await readHeld(this, i, client, month, laterDay(today, await readServiceDay(client))!, recipients);
	hintUnmatchedDepartments(this, intervals, held.history.devices.values());
	const context = { settings: { recipients, intervals }, timeZone, environment };
	const items: INodeExecutionData[] = [];
	const all = allRecipients(recipients);
	for (const [n, recipient] of all.entries()) {
		const content = composeComplianceReport(context, recipient, month, held!.history, undefined, held!.tests, held!.warnings, held!.scrapped);
		// The last report composed: the account's records go before the e-mail is rendered and its files made.
		if (n === all.length - 1) held = undefined;
		if (!content) continue;
		const locale = localeOf({ locale: language, recipients }, recipient);
		const rendered = renderComplianceReport(content, locale);
		items.push(
			await emailItem(this, i, {
				to: recipient,
				subject: rendered.subject,
				html: rendered.html,
				text: rendered.text,
				language: locale,
				kind: 'complianceReport',
				dedupeKey: `complianceReport:${environment}:${month}:${recipient}`,
				content,
				attachments: complianceAttachments(month, rendered).map((a) => ({ fileName: a.filename, mimeType: a.contentType, data: a.content })),
			}),
		);
	}
	return items;
}

/** What the reports are composed from: the rebuilt history, the results and the month's warnings. */
interface Held {
	history: ReportHistory;
	tests: RateTestResult[];
	warnings: MeasurementWarningItem[];
	scrapped: Awaited<ReturnType<typeof readComplianceReportInput>>['scrapped'];
}

async function readHeld(ctx: IExecuteFunctions, i: number, client: Parameters<typeof readComplianceReportInput>[0], month: string, today: string, recipients: Recipients): Promise<Held> {
	// Only the due entries this report reads are held (of 100,000 devices' rebuilt history, most end before its 12 months).
	const read = reportEntries(month);
	const input = await readComplianceReportInput(client, month, today, read.keep);
	for (const e of read.earliest()) input.entries.push(e);
	const devices = new Map<number, ReportDevice>();
	for (const d of input.devices) devices.set(d.id, d);
	requireToForUnrouted(recipients, devices.values());
	const warnings = ctx.getNodeParameter('measurementWarnings', i, true) === true ? await monthWarnings(client, month, checkThreshold(ctx.getNodeParameter('nearLimitThreshold', i, 0.8), 'Near-Limit Threshold'), input) : [];
	return { history: { entries: input.entries, devices }, tests: input.tests, warnings, scrapped: input.scrapped };
}

/** The measured-value warnings of the month's passed results (read with the report's other records) by the results poller's rule, as rows of the report's devices. */
async function monthWarnings(client: Parameters<typeof readResultWarnings>[0], month: string, threshold: number, input: Awaited<ReturnType<typeof readComplianceReportInput>>): Promise<MeasurementWarningItem[]> {
	const { first, last } = monthDays(month);
	const byId = new Map(input.devices.map((d) => [d.id, d]));
	const passed = input.tests.filter((t) => t.failed === false && t.testDate >= first && t.testDate <= last);
	const read = await readResultWarnings(client, passed, threshold, (id) => (byId.has(id) ? byId.get(id)!.nextTestDate : undefined));
	return read.alerts.flatMap((a) => {
		const d = byId.get(a.deviceId)!;
		return warningRows({ id: d.id, customerId: d.customerId, designation: d.designation, idBarcode: d.idBarcode, customerName: d.customerName, department: d.department }, a.nearLimit, a.drift);
	});
}
