import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { readCustomerNames, ValidationError } from '../../../../client';
import { readDeviceOwner, readFailedTest, reportFileOf } from '../../../../client/failedTestRead';
import { failedTestItem } from '../../../../email/digest';
import { renderFailedTest } from '../../../../email/render';
import { localeOf, route } from '../../../../email/routing';
import { maxRetryWaitOption, timeoutOption } from '../../shared/options';
import { clientFor } from '../common/utils';
import { emailItem, environmentOf, languageOf, languageParameter, recipientsOf, recipientsParameter, timeZoneOf, toParameter, type EmailAttachment } from './common';

const properties: INodeProperties[] = [
	{
		displayName: 'Test Result ID',
		name: 'testResultId',
		type: 'string',
		default: '={{ $json.id }}',
		required: true,
		placeholder: 'e.g. 501',
		description: 'The test result to e-mail about; by default the incoming item’s ID (the trigger’s New Test Result items map as they are). A result that did not fail gives no e-mail.',
	},
	toParameter(false, 'Who gets the failed tests of devices no routing rule routes (comma-separated addresses); required unless the routing rules route every device'),
	recipientsParameter,
	languageParameter('The language of the e-mails, unless the routing rules’ locales give a recipient one of their own'),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Attach Test Report',
				name: 'attachReport',
				type: 'boolean',
				default: false,
				description: 'Whether to attach the service’s own test report (its PDF file) when the result has one',
			},
			maxRetryWaitOption,
			timeoutOption,
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['email'], operation: ['failedTest'] } }, properties);

/** The result's ID: the parameter, else the incoming item's `id`. */
function resultIdOf(ctx: IExecuteFunctions, i: number): number {
	let value = ctx.getNodeParameter('testResultId', i, '') as unknown;
	if (value === '' || value === undefined || value === null) value = ctx.getInputData()[i]?.json.id;
	const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
	if (!/^\d+$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) {
		throw new ValidationError('Test Result ID', value === undefined || value === '' ? 'required: the ID of a test result (the incoming item has no "id")' : `expected a test result ID (a positive whole number), got ${JSON.stringify(value)}`);
	}
	return Number(text);
}

/**
 * One item per recipient of a failed result: the e-mail the Lambdas send at once for a failed
 * test (its failing steps with measured values and limits), routed by the device's customer and
 * department; the service's PDF test report attached on request. A result that did not fail
 * gives none (said in an execution hint).
 */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const id = resultIdOf(this, i);
	const timeZone = timeZoneOf(this);
	const recipients = recipientsOf(this, i);
	const language = languageOf(this, i);
	const attachReport = (this.getNodeParameter('options', i, {}) as { attachReport?: boolean }).attachReport === true;
	const environment = await environmentOf(this);
	const client = await clientFor(this, i);
	const input = this.getInputData()[i]?.json ?? {};
	const result = await readFailedTest(client, id, 'Test Result ID', Number(input.id) === id ? (input as IDataObject) : {});
	if (result.status.toLowerCase() !== 'failed') {
		this.addExecutionHints({ message: `Test result ${id} did not fail (status "${result.status}"): no e-mail for it.`, location: 'outputPane' });
		return [];
	}
	let names: Map<number, string> | undefined;
	const owner = result.deviceId === null ? { customerName: null, department: null } : await readDeviceOwner(client, result.deviceId, result.customerId, async (c) => (names ??= await readCustomerNames(client)).get(c) ?? null);
	const item = failedTestItem({
		testResultId: id,
		testDate: result.testDate,
		tester: result.tester,
		testSequence: result.testSequence,
		device: { id: result.deviceId ?? 0, customerId: result.customerId, designation: result.designation, idBarcode: result.idBarcode, ...owner },
		failedSteps: result.failedSteps,
	});
	const report = attachReport ? reportFileOf(result.files) : undefined;
	const attachments: EmailAttachment[] = [];
	if (report) {
		const file = await client.downloadFile(report.id, 'Options › Attach Test Report');
		attachments.push({ fileName: file.fileName ?? report.fileName ?? `test-report-${id}.pdf`, mimeType: file.mimeType ?? report.mimeType ?? 'application/pdf', data: file.data });
	}
	const to = route(recipients, item.device);
	if (to.length === 0) {
		const whose = [item.device.customerName, item.device.department].filter(Boolean).join(' / ') || 'no customer or department';
		this.addExecutionHints({ message: `Test result ${id} failed, but no routing rule routes its device and To is empty (${whose}): no e-mail for it.`, location: 'outputPane' });
	}
	const items: INodeExecutionData[] = [];
	for (const recipient of to) {
		const locale = localeOf({ locale: language, recipients }, recipient);
		const rendered = renderFailedTest(item, { environment, timeZone, locale });
		items.push(await emailItem(this, i, { to: recipient, ...rendered, language: locale, kind: 'failedTest', dedupeKey: `failedTest:${environment}:${id}:${recipient}`, content: item, attachments }));
	}
	return items;
}
