import type { IBinaryKeyData, IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { ValidationError } from '../../../../client';
import { parseAddressList, parseRecipients } from '../../../../email/recipientsInput';
import { route, type Recipients, type Routable } from '../../../../email/routing';
import { LOCALES, type Locale } from '../../../../email/texts';
import { CREDENTIAL_TYPE } from '../../transport';

/**
 * What the E-mail operations share: their parameters as checked values (each problem names its
 * parameter), the workflow's time zone, and one item per e-mail, ready for n8n's Send Email,
 * Gmail and Outlook nodes (attachments as binary fields attachment_0, attachment_1, …).
 */

export type EmailKind = 'digest' | 'failedTest' | 'complianceReport' | 'customerNotice';

export const languageParameter = (description: string): INodeProperties => ({
	displayName: 'Language',
	name: 'language',
	type: 'options',
	default: 'en',
	options: [
		{ name: 'English', value: 'en' },
		{ name: 'German', value: 'de' },
	],
	description,
});

export function languageOf(ctx: IExecuteFunctions, i: number): Locale {
	const value = ctx.getNodeParameter('language', i, 'en');
	const locale = LOCALES.find((l) => l === value);
	if (!locale) throw new ValidationError('Language', `must be one of ${LOCALES.join(', ')}, got ${JSON.stringify(value)}`);
	return locale;
}

/** The workflow's time zone (its settings, else the instance's), checked: dates and months are counted in it. */
export function timeZoneOf(ctx: IExecuteFunctions): string {
	const timeZone = ctx.getTimezone();
	let known = true;
	try {
		new Intl.DateTimeFormat('en-CA', { timeZone }).format(0);
	} catch {
		known = false;
	}
	if (!known) throw new ValidationError('Timezone (workflow settings)', `${JSON.stringify(timeZone)} is not a time zone; expected an IANA name such as Europe/Berlin`);
	return timeZone;
}


/** How far a time zone's wall clock is ahead of UTC at an instant (ms). */
function offsetAt(instant: number, timeZone: string): number {
	const parts = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(new Date(instant));
	const n = (type: string) => Number(parts.find((p) => p.type === type)?.value);
	return Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second')) - (instant - (((instant % 1000) + 1000) % 1000));
}

/**
 * A date and time as n8n's date picker gives it: with an offset or `Z` as written; without one
 * (the picker's "2026-11-28T06:00:00"), a wall-clock time in the workflow's time zone. NaN when
 * it is not a date.
 */
export function instantIn(text: string, timeZone: string): number {
	const trimmed = text.trim();
	if (/(Z|[+-]\d{2}:?\d{2})$/i.test(trimmed) || !/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$/.test(trimmed)) return Date.parse(trimmed);
	const wall = Date.parse(`${trimmed.length === 10 ? `${trimmed}T00:00:00` : trimmed.replace(' ', 'T')}Z`);
	if (Number.isNaN(wall)) return wall;
	// The offset at the wall time read as UTC, then at the instant that gives (right across a DST change).
	const first = wall - offsetAt(wall, timeZone);
	return wall - offsetAt(first, timeZone);
}

/** The month `offset` months from the one `day` falls in (YYYY-MM). */
export function monthFrom(day: string, offset: number): string {
	const [y, m] = day.split('-').map(Number);
	const index = y * 12 + (m - 1) + offset;
	return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;
}

/** A month parameter (YYYY-MM); empty: `fallback`. */
export function monthOf(ctx: IExecuteFunctions, i: number, fallback: string): string {
	const value = ctx.getNodeParameter('month', i, '');
	if (value === '' || value === undefined || value === null) return fallback;
	const text = typeof value === 'string' ? value.trim() : '';
	if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(text)) throw new ValidationError('Month', `expected a month as YYYY-MM, e.g. ${fallback}, got ${JSON.stringify(value)}`);
	return text;
}

export const toParameter = (required: boolean, description: string): INodeProperties => ({
	displayName: 'To',
	name: 'to',
	type: 'string',
	default: '',
	required,
	placeholder: 'e.g. lab-lead@example.com',
	description,
});

export const recipientsParameter: INodeProperties = {
	displayName: 'Recipients (Routing Rules)',
	name: 'recipients',
	type: 'json',
	default: '',
	description:
		'Optional routing, the same JSON as the e-mail settings’ recipients: {"customers": {"Acme GmbH": ["custodian@acme.example"]}, "departments": {…}, "escalation": {"afterDays": 30, "to": […]}, "locales": {"Acme GmbH": "de"}}. Devices no rule routes go to To.',
};

/** To and the routing rules as one set of rules: To is the default list. */
export function recipientsOf(ctx: IExecuteFunctions, i: number): Recipients {
	const toValue = ctx.getNodeParameter('to', i, '');
	const to = toValue === '' ? [] : parseAddressList(toValue, 'To');
	const recipients = parseRecipients(ctx.getNodeParameter('recipients', i, ''), 'Recipients (Routing Rules)', to);
	if (recipients.default.length + Object.keys(recipients.customers).length + Object.keys(recipients.departments).length === 0) {
		throw new ValidationError('To', 'required: an address for every device no routing rule routes (or routing rules for customers or departments)');
	}
	return recipients;
}

/**
 * With To empty, a device no routing rule routes would reach nobody: To is then required (the
 * parameter's description says so), and the error names whose devices they are.
 */
export function requireToForUnrouted(recipients: Recipients, devices: Iterable<Routable>): void {
	if (recipients.default.length > 0) return;
	let count = 0;
	const whose = new Set<string>();
	for (const d of devices) {
		if (route(recipients, d).length > 0) continue;
		count++;
		whose.add([d.customerName, d.department].filter(Boolean).join(' / ') || 'no customer or department');
	}
	if (count === 0) return;
	const named = [...whose].slice(0, 5).join('; ') + (whose.size > 5 ? `; and ${whose.size - 5} more` : '');
	throw new ValidationError('To', `required: ${count} ${count === 1 ? 'device' : 'devices'} no routing rule routes (${named}) would reach nobody; give To, or rules for their customers or departments`);
}

/** The credential's environment: the e-mails mark a sandbox account's. */
export async function environmentOf(ctx: IExecuteFunctions): Promise<'sandbox' | 'production'> {
	const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
	return credentials.environment === 'production' ? 'production' : 'sandbox';
}

export interface EmailAttachment {
	fileName: string;
	mimeType: string;
	data: Uint8Array | string;
}

export interface Email {
	to: string;
	replyTo?: string;
	subject: string;
	html: string;
	text: string;
	language: Locale;
	kind: EmailKind;
	dedupeKey: string;
	content: unknown;
	attachments: EmailAttachment[];
}

/** One e-mail as an n8n item: its fields in json, each attachment a binary field with its name and type. */
export async function emailItem(ctx: IExecuteFunctions, i: number, e: Email): Promise<INodeExecutionData> {
	const binary: IBinaryKeyData = {};
	for (const [n, a] of e.attachments.entries()) {
		binary[`attachment_${n}`] = await ctx.helpers.prepareBinaryData(typeof a.data === 'string' ? Buffer.from(a.data, 'utf8') : Buffer.from(a.data), a.fileName, a.mimeType);
	}
	const json: IDataObject = {
		to: e.to,
		...(e.replyTo === undefined ? {} : { replyTo: e.replyTo }),
		subject: e.subject,
		html: e.html,
		text: e.text,
		language: e.language,
		kind: e.kind,
		dedupeKey: e.dedupeKey,
		attachmentFields: Object.keys(binary).join(','),
		content: e.content as IDataObject,
	};
	return { json, ...(e.attachments.length > 0 ? { binary } : {}), pairedItem: { item: i } };
}
