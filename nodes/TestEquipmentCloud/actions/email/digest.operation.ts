import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { dayIn, todayOf, ValidationError } from '../../../../client';
import { readDigestInput } from '../../../../client/digestRead';
import { readMeasurementWarningsSince } from '../../../../client/measurementsRead';
import { warningRows, type MeasurementWarningItem } from '../../../../client/measurementWarningRows';
import { digestContent, digestRows, failedTestItem, rowsFor } from '../../../../email/digest';
import { renderDigest } from '../../../../email/render';
import { allRecipients, localeOf } from '../../../../email/routing';
import { maxRetryWaitOption, timeoutOption } from '../../shared/options';
import { clientFor } from '../common/utils';
import { emailItem, instantIn, environmentOf, languageOf, languageParameter, recipientsOf, recipientsParameter, requireToForUnrouted, timeZoneOf, toParameter } from './common';

const DAY_MS = 86_400_000;

const properties: INodeProperties[] = [
	toParameter(false, 'Who gets the devices no routing rule routes (comma-separated addresses); required unless the routing rules route every device'),
	recipientsParameter,
	{
		displayName: 'Failed Tests Since',
		name: 'failedSince',
		type: 'dateTime',
		default: '',
		description: 'The digest tells what happened since then: the failed tests uploaded since, the devices that became overdue or entered a lead stage since. Empty: 24 hours before now.',
	},
	languageParameter('The language of the digests, unless the routing rules’ locales give a recipient one of their own'),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Coming Due Stages (Days)',
				name: 'dueSoonStages',
				type: 'string',
				default: '30,7',
				description: 'Days before a due date, comma-separated: a device is listed as coming due when it entered one of them since Failed Tests Since (as the pollers’ dueSoonStages); empty: none',
			},
			{
				displayName: 'Measured Values Near Their Limit',
				name: 'measurementWarnings',
				type: 'boolean',
				default: true,
				description:
					'Whether to list the passed tests uploaded since Failed Tests Since whose measured values use at least the Near-Limit Threshold of their limit, or whose trend reaches the limit before the next due date ("test earlier"), by the results poller’s rule. Costs one request per passed result in that window (its detail), and for each one with measured values its device’s result list (once per device) and up to 4 earlier details for the trend (each read once).',
			},
			{
				displayName: 'Near-Limit Threshold',
				name: 'nearLimitThreshold',
				type: 'number',
				typeOptions: { minValue: 0.01, maxValue: 1, numberPrecision: 2 },
				default: 0.8,
				description: 'Share of the limit at or above which a measured value is listed (0.8 = 80 %, as the results poller’s nearLimitThreshold); used when Measured Values Near Their Limit is on',
			},
			maxRetryWaitOption,
			timeoutOption,
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['email'], operation: ['digest'] } }, properties);

/** Failed Tests Since as an instant; empty: 24 hours before now. */
function sinceOf(ctx: IExecuteFunctions, i: number, now: number, timeZone: string): number {
	const value = ctx.getNodeParameter('failedSince', i, '') as unknown;
	if (value === '' || value === undefined || value === null) return now - DAY_MS;
	const ms = typeof value === 'number' ? value : instantIn(String(value), timeZone);
	if (!Number.isFinite(ms)) throw new ValidationError('Failed Tests Since', `expected a date and time such as 2026-11-19T06:00:00, got ${JSON.stringify(value)}`);
	if (ms > now) throw new ValidationError('Failed Tests Since', `must not lie in the future, got ${JSON.stringify(value)}`);
	return ms;
}

function stagesOf(value: unknown): number[] {
	const text = typeof value === 'string' ? value.trim() : String(value ?? '');
	if (text === '') return [];
	return text.split(/[,;\s]+/).map((part) => {
		const n = Number(part);
		if (!/^\d+$/.test(part) || n < 1 || n > 366) throw new ValidationError('Options › Coming Due Stages (Days)', `expected whole days from 1 to 366, comma-separated (e.g. 30,7), got ${JSON.stringify(value)}`);
		return n;
	});
}

/**
 * One item per recipient with something to say: the daily digest as the Lambdas send it
 * (newly overdue, failed tests with their steps and limits, coming due, still overdue), composed
 * from the service's lists instead of the pollers' state (email/digest.ts, `digestRows`).
 */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const now = Date.now();
	const timeZone = timeZoneOf(this);
	const recipients = recipientsOf(this, i);
	const since = sinceOf(this, i, now, timeZone);
	const language = languageOf(this, i);
	const options = this.getNodeParameter('options', i, {}) as { dueSoonStages?: unknown; measurementWarnings?: boolean; nearLimitThreshold?: unknown };
	const stages = stagesOf(options.dueSoonStages ?? '30,7');
	const threshold = options.nearLimitThreshold ?? 0.8;
	const environment = await environmentOf(this);
	const client = await clientFor(this, i);
	const input = await readDigestInput(client, since, () => now, timeZone);
	const day = todayOf(now, timeZone);
	const failedTests = input.failedTests.map((t) =>
		failedTestItem({
			testResultId: t.id,
			testDate: t.testDate,
			tester: t.tester,
			testSequence: t.testSequence,
			device: { id: t.deviceId ?? 0, customerId: t.customerId, designation: t.designation, idBarcode: t.idBarcode, ...t.owner },
			failedSteps: t.failedSteps,
		}),
	);
	const rows = digestRows({ devices: input.devices, failedTests, today: input.today, day, sinceDay: dayIn(since, timeZone), stages });
	if (options.measurementWarnings !== false) rows.measurementWarnings = await warningsSince(client, since, threshold, input.devices);
	requireToForUnrouted(recipients, [...rows.newlyOverdue, ...rows.stillOverdue, ...rows.dueSoon, ...rows.failedTests.map((f) => f.device), ...(rows.measurementWarnings ?? []).map((w) => w.device)]);
	const items: INodeExecutionData[] = [];
	for (const recipient of allRecipients(recipients)) {
		const content = digestContent({ day, recipient, environment, timeZone, escalationDays: recipients.escalation?.afterDays }, rowsFor(recipients, recipient, rows));
		if (!content) continue;
		const locale = localeOf({ locale: language, recipients }, recipient);
		const rendered = renderDigest(content, locale);
		items.push(await emailItem(this, i, { to: recipient, ...rendered, language: locale, kind: 'digest', dedupeKey: `digest:${environment}:${day}:${recipient}`, content, attachments: [] }));
	}
	return items;
}

/** The measured-value warnings of the passed results uploaded since `since` (the results poller's rule), as rows of the digest's devices (routed as its failed tests are). */
async function warningsSince(client: Parameters<typeof readMeasurementWarningsSince>[0], since: number, threshold: unknown, devices: Awaited<ReturnType<typeof readDigestInput>>['devices']): Promise<MeasurementWarningItem[]> {
	const byId = new Map(devices.map((d) => [d.id, d]));
	const read = await readMeasurementWarningsSince(client, since, threshold as number, (id) => (byId.has(id) ? byId.get(id)!.nextTestDate : undefined));
	return read.alerts.flatMap((a) => {
		const d = byId.get(a.deviceId)!;
		return warningRows({ id: d.id, customerId: d.customerId, designation: d.designation, idBarcode: d.idBarcode, customerName: d.customerName, department: d.department }, a.nearLimit, a.drift);
	});
}
