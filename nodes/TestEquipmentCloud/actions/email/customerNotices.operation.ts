import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { todayOf, ValidationError } from '../../../../client';
import { readNoticeInput } from '../../../../client/noticesRead';
import { composeNotices, noticeData, type NoticeSettings } from '../../../../email/notices';
import { isEmailAddress } from '../../../../email/routing';
import { checkTemplate, LOCALES, type Locale } from '../../../../email/texts';
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
	companyName?: string;
	locales?: unknown;
	maxRows?: number;
	optOut?: unknown;
	outputWithoutAddress?: boolean;
	replyTo?: string;
	signature?: string;
}

/** Opted-out customers' names: one per line, or a JSON array of names (the settings' form, or an expression's array). */
function optOutNames(value: unknown): string[] {
	const parameter = 'Options › Opted-Out Customers';
	let list: unknown = value ?? '';
	if (typeof list === 'string' && list.trim().startsWith('[')) {
		let parsed: unknown = undefined;
		try {
			parsed = JSON.parse(list);
		} catch {
			// Named below, as any other value that is not a list of names.
		}
		list = parsed;
	}
	if (typeof list === 'string') return list.split(/\r?\n/).map((n) => n.trim()).filter(Boolean);
	if (Array.isArray(list) && list.every((n) => typeof n === 'string')) return list.map((n) => n.trim()).filter(Boolean);
	throw new ValidationError(parameter, `expected names one per line or a JSON array of names, e.g. ["Acme GmbH", "Meier, Schulz & Co. KG"]; got ${JSON.stringify(value)}`);
}

function jsonObject(value: unknown, parameter: string, example: string): Record<string, unknown> {
	let raw = value;
	if (typeof value === 'string') {
		if (value.trim() === '') return {};
		let problem: string | undefined;
		try {
			raw = JSON.parse(value) as unknown;
		} catch (error) {
			problem = (error as Error).message;
		}
		if (problem !== undefined) throw new ValidationError(parameter, `not valid JSON (${problem}); expected an object such as ${example}`);
	}
	if (raw === undefined || raw === null) return {};
	if (typeof raw !== 'object' || Array.isArray(raw)) throw new ValidationError(parameter, `expected an object such as ${example}`);
	return raw as Record<string, unknown>;
}

/** The options as the notices' settings, checked as the e-mail settings' `customerNotices` are. */
function noticeSettings(o: Options): NoticeSettings {
	const addresses: Record<string, string> = {};
	for (const [name, address] of Object.entries(jsonObject(o.addresses, 'Options › Addresses per Customer', '{"Acme GmbH": "facilities@acme.example"}'))) {
		if (typeof address !== 'string' || !isEmailAddress(address)) throw new ValidationError('Options › Addresses per Customer', `"${name}": ${JSON.stringify(address)} is not an e-mail address (expected e.g. facilities@acme.example)`);
		addresses[name] = address.trim().toLowerCase();
	}
	const locales: Record<string, Locale> = {};
	for (const [name, locale] of Object.entries(jsonObject(o.locales, 'Options › Languages per Customer', '{"Acme GmbH": "de"}'))) {
		const l = LOCALES.find((x) => x === locale);
		if (!l) throw new ValidationError('Options › Languages per Customer', `"${name}": ${JSON.stringify(locale)} is not a language; valid languages are ${LOCALES.join(', ')}`);
		locales[name] = l;
	}
	const maxRows = o.maxRows ?? 100;
	if (!Number.isInteger(maxRows) || maxRows < 1 || maxRows > 1000) throw new ValidationError('Options › Max Rows', `expected a whole number from 1 to 1000, got ${JSON.stringify(o.maxRows)}`);
	const signature = o.signature?.trim() ? o.signature : undefined;
	const optOut = optOutNames(o.optOut);
	return { addresses, locales, maxRows, optOut, ...(signature === undefined ? {} : { signature }) };
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
	const replyTo = (o.replyTo ?? '').trim();
	if (!isEmailAddress(replyTo)) {
		throw new ValidationError('Options › Reply To', replyTo === '' ? 'required: the address your customers reply to to book a date, e.g. service@lab.example.com' : `${JSON.stringify(o.replyTo)} is not an e-mail address (expected e.g. service@lab.example.com)`);
	}
	const companyName = o.companyName?.trim() || replyTo;
	if (o.companyName && checkTemplate(o.companyName, []) !== undefined) throw new ValidationError('Options › Company Name', 'no braces { } (they mark placeholders in the notices’ texts)');
	const environment = await environmentOf(this);
	const client = await clientFor(this, i);
	const input = await readNoticeInput(client, Date.now, timeZone);
	const composed = composeNotices(input, month, settings, { locale: language, replyTo: replyTo.toLowerCase(), companyName, environment });
	const items: INodeExecutionData[] = [];
	for (const n of composed.notices) {
		items.push(
			await emailItem(this, i, {
				to: n.address,
				replyTo: replyTo.toLowerCase(),
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
