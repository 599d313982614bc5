import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { todayOf, ValidationError } from '../../../../client';
import { readNoticeInput } from '../../../../client/noticesRead';
import { composeNotices, listedIn, noticeData, replyToHeader, type NoticeSettings } from '../../../../email/notices';
import { NOTICE_OPTIONS, type Checked, type NoticeOption } from '../../../../email/noticeOptions';
import { maxRetryWaitOption, timeoutOption } from '../../shared/options';
import { clientFor } from '../common/utils';
import { emailItem, environmentOf, languageOf, languageParameter, monthFrom, monthOf, timeZoneOf } from './common';

const properties: INodeProperties[] = [
	{
		displayName: 'Month',
		name: 'month',
		type: 'string',
		default: '',
		placeholder: 'e.g. 2026-12',
		description: 'The month the devices fall due (YYYY-MM). Empty: next month, in the workflow’s time zone.',
	},
	languageParameter('The language of the notices of customers without one of their own (Options › Languages per Customer)'),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{ displayName: 'Addresses per Customer', name: 'addresses', type: 'json', default: '{}', description: 'Customer name → address, overriding the customer’s contact e-mail, e.g. {"Acme GmbH": "facilities@acme.example"}' },
			{ displayName: 'Company Name', name: 'companyName', type: 'string', default: '', description: 'Your company’s name as your customers know it ({companyName}); empty: the Reply To address' },
			{ displayName: 'Languages per Customer', name: 'locales', type: 'json', default: '{}', description: 'Customer name → en or de, e.g. {"Acme GmbH": "de"}' },
			{ displayName: 'Max Rows', name: 'maxRows', type: 'number', typeOptions: { minValue: 1, maxValue: 1000 }, default: 100, description: 'Devices listed per section in the e-mail; the CSV attachment holds every device' },
			maxRetryWaitOption,
			{ displayName: 'Opted-Out Customers', name: 'optOut', type: 'string', typeOptions: { rows: 3 }, default: '', placeholder: 'e.g. Meier, Schulz & Co. KG', description: 'Names of customers who get no notice, one per line (a name may hold commas), or the settings’ JSON array of names' },
			{ displayName: 'Output Customers Without Address', name: 'outputWithoutAddress', type: 'boolean', default: false, description: 'Whether customers owed a notice but without a usable address are output as items of their own (kind "customerWithoutAddress"); they are always named in the execution hint' },
			{ displayName: 'Reply To', name: 'replyTo', type: 'string', default: '', placeholder: 'e.g. service@lab.example.com', description: 'Where a customer’s reply goes to book a date (said in the notice, and the items’ replyTo)' },
			{ displayName: 'Signature', name: 'signature', type: 'string', typeOptions: { rows: 3 }, default: '', description: 'The lines under the closing; empty: the company name' },
			timeoutOption,
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['email'], operation: ['customerNotices'] } }, properties);

interface Options {
	addresses?: unknown;
	companyName?: unknown;
	locales?: unknown;
	maxRows?: unknown;
	optOut?: unknown;
	outputWithoutAddress?: boolean;
	replyTo?: string;
	signature?: unknown;
}

/** The node's option of each `customerNotices` setting, as its errors name it. */
const OPTION_NAMES: Record<NoticeOption, string> = { companyName: 'Company Name', replyTo: 'Reply To', signature: 'Signature', maxRows: 'Max Rows', optOut: 'Opted-Out Customers', addresses: 'Addresses per Customer', locales: 'Languages per Customer' };

/** An option by the rule the Lambdas' `customerNotices` settings follow too (email/noticeOptions.ts). */
function option<K extends NoticeOption>(o: Options, key: K): Extract<ReturnType<(typeof NOTICE_OPTIONS)[K]>, { value: unknown }>['value'] {
	const checked = NOTICE_OPTIONS[key](o[key]) as Checked<Extract<ReturnType<(typeof NOTICE_OPTIONS)[K]>, { value: unknown }>['value']>;
	if ('problem' in checked) throw new ValidationError(`Options › ${OPTION_NAMES[key]}`, checked.problem);
	return checked.value;
}

/** The options as the notices' settings. */
function noticeSettings(o: Options): NoticeSettings {
	const signature = option(o, 'signature');
	return { addresses: option(o, 'addresses'), locales: option(o, 'locales'), maxRows: option(o, 'maxRows'), optOut: option(o, 'optOut'), ...(signature === undefined ? {} : { signature }) };
}

/**
 * One item per customer with devices due in the month: the notice in the customer's language,
 * to its contact e-mail (or the address the options give), the CSV of every device attached.
 * Customers without a usable address are named in an execution hint (and output as items when
 * asked); opted-out customers get nothing.
 */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const timeZone = timeZoneOf(this);
	const month = monthOf(this, i, monthFrom(todayOf(Date.now(), timeZone), 1));
	const language = languageOf(this, i);
	const o = this.getNodeParameter('options', i, {}) as Options;
	const settings = noticeSettings(o);
	// Required here: the node has no sender address to fall back on, as the Lambdas' mailFrom.
	if ((o.replyTo ?? '').trim() === '') throw new ValidationError('Options › Reply To', 'required: the address your customers reply to to book a date, e.g. service@lab.example.com');
	const replyTo = option(o, 'replyTo');
	const companyName = option(o, 'companyName') ?? replyTo;
	const environment = await environmentOf(this);
	const client = await clientFor(this, i);
	// Only the devices a notice of the month lists are held (of 100,000, those due then or overdue).
	const input = await readNoticeInput(client, Date.now, timeZone, listedIn(month));
	const composed = composeNotices(input, month, settings, { locale: language, replyTo, companyName, environment });
	const items: INodeExecutionData[] = [];
	for (const n of composed.notices) {
		items.push(
			await emailItem(this, i, {
				to: n.address,
				// The header as the Lambdas send it (Punycode); the text shows the address as written.
				replyTo: replyToHeader(replyTo),
				subject: n.rendered.subject,
				html: n.rendered.html,
				text: n.rendered.text,
				language: n.locale,
				kind: 'customerNotice',
				dedupeKey: `customerNotice:${environment}:${month}:${n.customer.id}`,
				content: noticeData(month, n),
				attachments: [{ fileName: n.rendered.csvFilename, mimeType: 'text/csv', data: n.rendered.csv }],
			}),
		);
	}
	if (composed.noAddress.length > 0) {
		this.addExecutionHints({
			message: `No notice for ${composed.noAddress.length} customer(s) owed one for ${month}, without a usable address: ${composed.noAddress.map((c) => `${c.customerName} (${c.reason})`).join('; ')}. Add their contact e-mail in the service or Options › Addresses per Customer.`,
			location: 'outputPane',
		});
		if (o.outputWithoutAddress === true) {
			for (const c of composed.noAddress) items.push({ json: { kind: 'customerWithoutAddress', month, customerId: c.customerId, customerName: c.customerName, reason: c.reason } as IDataObject, pairedItem: { item: i } });
		}
	}
	return items;
}
