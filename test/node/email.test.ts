/**
 * E-mail › Build Customer Re-Test Notices and Build Monthly Compliance Report in n8n's engine
 * against the sandbox: one item per e-mail, ready for Send Email (json fields, attachments as
 * binary fields), byte for byte the e-mail the Lambdas send for the same inputs; bad parameters
 * are refused by name (or leave by the error output); customers without an address are named.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { IDataObject, INodeExecutionData, INodeProperties, INodePropertyOptions, INodeTypeDescription } from 'n8n-workflow';
import { FAILURE_RATE_GROUP_BY, FAILURE_RATE_MONTHS, addDays, addMonths, failureRates, laterDay, longestInterval, monthBefore, monthDays, previousTestsFrom, readComplianceReportInput, readFailureRateInput, readServiceDay, todayOf } from '../../client';
import { readNoticeInput } from '../../client/noticesRead';
import { runComplianceReport } from '../../lambdas/email/complianceRun';
import type { DigestDeps } from '../../lambdas/email/digest';
import { noticeMonthOf, runNotices } from '../../lambdas/email/notices';
import type { Mailer, OutgoingEmail } from '../../lambdas/email/ports';
import { parseEmailSettings } from '../../lambdas/email/settings';
import { EventBridgePublisher } from '../../lambdas/adapters/eventBridgePublisher';
import { FileStateStore } from '../../lambdas/adapters/fileStateStore';
import { DEFAULT_SETTINGS } from '../../lambdas/pollers/context';
import { pollDueDates } from '../../lambdas/pollers/dueDates';
import { SCRAPPED_KEY, scrappedFrom } from '../../lambdas/pollers/scrappedBin';
import { NS, type DueHistory, type ScrappedBin, type TestRecord } from '../../lambdas/pollers/state';
import { CUSTOMER, DEVICE } from '../../sandbox/properties';
import { recordPollerWarnings, resultsById, type WarningStore } from '../support/measuredWarnings';
import { pollerClient } from '../reliability/support';
import { readCsv } from '../support/csv';
import { LocalAws } from '../support/localAws';
import { getBinaryBuffer, loadPackage, runNode } from '../support/n8n';
import { credentialsFor, hintsOf, run, useSandbox } from './helpers';

// At a raised rate: these tests are of what the node reads and builds, not of pacing.
const sandbox = useSandbox({ ratePerSecond: 200 });

/** A mailer that keeps what it is given (the Lambdas' e-mails, before MIME). */
function keepingMailer(): Mailer & { sent: OutgoingEmail[] } {
	const sent: OutgoingEmail[] = [];
	return { sent, sendOnce: async ({ email }) => (sent.push(email), { messageId: `m${sent.length}`, factKeys: [] }) };
}

const REPLY_TO = 'booking@lab.example.com';
/** The notices' today is the workflow's day; the Lambdas' below read the account's, UTC. */
const IN_UTC = { workflowSettings: { timezone: 'UTC' } };
const noticeParameters = (month: string, options: IDataObject = {}, language = 'en'): IDataObject => ({ resource: 'email', operation: 'customerNotices', month, language, options: { replyTo: REPLY_TO, companyName: 'Lab service', ...options } });

async function lambdaNotices(month: string, locale = 'en', options: IDataObject = {}) {
	const settings = parseEmailSettings({ mailFrom: 'Lab service <service@lab.example.com>', locale, recipients: { default: ['ops@lab.example.com'] }, customerNotices: { enabled: true, replyTo: REPLY_TO, companyName: 'Lab service', ...options } }, 'test');
	const mailer = keepingMailer();
	const client = pollerClient(sandbox, sandbox.sandboxToken);
	const store = { get: async () => undefined, putMany: async () => undefined, list: async function* () {} } as unknown as DigestDeps['store'];
	const report = await runNotices({ store, mailer, settings, environment: 'sandbox', now: () => sandbox.account.now(), read: () => readNoticeInput(client, () => sandbox.account.now(), 'UTC') }, month);
	return { report, sent: mailer.sent };
}

async function attachments(item: INodeExecutionData): Promise<Array<{ field: string; fileName?: string; mimeType: string; text: string }>> {
	const out = [];
	for (const [field, b] of Object.entries(item.binary ?? {})) out.push({ field, fileName: b.fileName, mimeType: b.mimeType, text: (await getBinaryBuffer(b)).toString('utf8') });
	return out;
}

describe('E-mail › Build Customer Re-Test Notices', () => {
	it('one item per customer owed a notice, the same subject, HTML, text and CSV as the Lambdas send, attachments as binary fields', async () => {
		const month = noticeMonthOf(sandbox.account.today());
		const { items, error } = await run(sandbox, noticeParameters(month), IN_UTC);
		expect(error).toBeUndefined();
		const lambda = await lambdaNotices(month);
		expect(lambda.sent.length).toBeGreaterThan(0);
		const notices = items.filter((i) => i.json.kind === 'customerNotice');
		expect(notices.map((i) => i.json.to)).toEqual(lambda.sent.map((e) => e.to));
		for (const [n, item] of notices.entries()) {
			const email = lambda.sent[n];
			expect(item.json).toMatchObject({ to: email.to, replyTo: REPLY_TO, subject: email.subject, language: 'en', kind: 'customerNotice', attachmentFields: 'attachment_0' });
			expect(item.json.html).toBe(email.html);
			expect(item.json.text).toBe(email.text);
			const customer = (email.data as { customer: { id: number } }).customer;
			expect(item.json.dedupeKey).toBe(`customerNotice:sandbox:${month}:${customer.id}`);
			expect(item.json.content).toEqual(email.data);
			const [csv] = await attachments(item);
			expect(csv).toEqual({ field: 'attachment_0', fileName: email.attachments![0].filename, mimeType: 'text/csv', text: email.attachments![0].content });
			expect(item.json).not.toHaveProperty('_files');
		}
		// The same key on every run (for Remove Duplicates).
		const again = await run(sandbox, noticeParameters(month), IN_UTC);
		expect(again.items.map((i) => i.json.dedupeKey)).toEqual(items.map((i) => i.json.dedupeKey));
	});

	it('German: the customers’ language, the same bytes as the Lambdas’ German notices', async () => {
		const month = noticeMonthOf(sandbox.account.today());
		const { items } = await run(sandbox, noticeParameters(month, {}, 'de'), IN_UTC);
		const lambda = await lambdaNotices(month, 'de');
		const notices = items.filter((i) => i.json.kind === 'customerNotice');
		expect(notices.length).toBe(lambda.sent.length);
		for (const [n, item] of notices.entries()) {
			expect(item.json.language).toBe('de');
			expect(item.json.html).toBe(lambda.sent[n].html);
			expect(item.json.subject).toBe(lambda.sent[n].subject);
		}
	});

	it('a contact e-mail whose local part is not 7-bit ASCII is no usable address on both faces: no item, named in the hint and output as the Lambdas report it', async () => {
		const customers = sandbox.account.table('customer');
		const month = noticeMonthOf(sandbox.account.today());
		const first = (await lambdaNotices(month)).report.sent[0];
		const record = customers.get(first.customerId)!;
		const was = record.values[CUSTOMER.contactEmail];
		record.values[CUSTOMER.contactEmail] = 'Jörg.Müller@lab.example';
		try {
			const lambda = await lambdaNotices(month);
			const reported = lambda.report.noAddress.find((c) => c.customerId === first.customerId);
			expect(reported?.reason).toContain('has a local part that is not 7-bit ASCII');
			const plain = await run(sandbox, noticeParameters(month), IN_UTC);
			expect(plain.error).toBeUndefined();
			const noticeOf = (i: INodeExecutionData) => (i.json.content as { customer?: { id: number } } | undefined)?.customer?.id;
			expect(plain.items.filter((i) => noticeOf(i) === first.customerId)).toEqual([]);
			// The same e-mails as the Lambdas send, and no other.
			expect(plain.items.map((i) => i.json.to).sort()).toEqual(lambda.sent.map((e) => e.to).sort());
			const hints = plain.run.data.resultData.runData['Test Equipment Cloud'][0].hints ?? [];
			expect(hints.map((h) => h.message).join('\n')).toContain(`${first.customerName} (${reported!.reason})`);
			const asked = await run(sandbox, noticeParameters(month, { outputWithoutAddress: true }), IN_UTC);
			expect(asked.items.filter((i) => i.json.kind === 'customerWithoutAddress' && i.json.customerId === first.customerId).map((i) => i.json.reason)).toEqual([reported!.reason]);
		} finally {
			record.values[CUSTOMER.contactEmail] = was;
		}
	});

	it('customers without a usable address: no e-mail item, named in an execution hint, output as items when asked; names escaped in the HTML', async () => {
		const customers = sandbox.account.table('customer');
		const month = noticeMonthOf(sandbox.account.today());
		const lambda = await lambdaNotices(month);
		const first = lambda.report.sent[0];
		customers.get(first.customerId)!.values[CUSTOMER.contactEmail] = 'not an address';
		customers.get(first.customerId)!.values[CUSTOMER.name] = '<b>Acme & Söhne</b>';
		const plain = await run(sandbox, noticeParameters(month), IN_UTC);
		expect(plain.items.some((i) => i.json.to === first.address && (i.json.content as IDataObject).customer !== undefined && ((i.json.content as { customer: { id: number } }).customer.id === first.customerId))).toBe(false);
		const hints = plain.run.data.resultData.runData['Test Equipment Cloud'][0].hints ?? [];
		expect(hints.map((h) => h.message).join('\n')).toContain('<b>Acme & Söhne</b> (contact e-mail "not an address" is not an e-mail address)');
		expect(plain.items.some((i) => i.json.kind === 'customerWithoutAddress')).toBe(false);

		const asked = await run(sandbox, noticeParameters(month, { outputWithoutAddress: true }), IN_UTC);
		expect(asked.items.filter((i) => i.json.kind === 'customerWithoutAddress')).toContainEqual(expect.objectContaining({ json: expect.objectContaining({ customerId: first.customerId, customerName: '<b>Acme & Söhne</b>', month }) }));

		const routed = await run(sandbox, noticeParameters(month, { addresses: JSON.stringify({ '<b>Acme & Söhne</b>': 'facilities@acme.example' }) }), IN_UTC);
		const item = routed.items.find((i) => i.json.to === 'facilities@acme.example')!;
		expect(item.json.html).toContain('&lt;b&gt;Acme &amp; Söhne&lt;/b&gt;');
		expect(item.json.html).not.toContain('<b>Acme');
	});

	it.each([
		[{ month: '2026-13' }, 'Month: expected a month as YYYY-MM'],
		[{ month: 'next month' }, 'Month: expected a month as YYYY-MM'],
		[{ language: 'fr' }, 'Language: must be one of en, de, got "fr"'],
		[{ options: { replyTo: 'not-an-address' } }, 'Options › Reply To: "not-an-address" is not an e-mail address'],
		[{ options: { replyTo: REPLY_TO, addresses: '{"Acme": ' } }, 'Options › Addresses per Customer: not valid JSON'],
		[{ options: { replyTo: REPLY_TO, addresses: '{"Acme": "nobody"}' } }, 'Options › Addresses per Customer: "Acme": "nobody" is not an e-mail address'],
		[{ options: { replyTo: REPLY_TO, locales: '{"Acme": "fr"}' } }, 'Options › Languages per Customer: "Acme": "fr" is not a language; valid languages are en, de'],
	])('bad input %j is refused naming the parameter', async (bad, message) => {
		const { error } = await run(sandbox, { ...noticeParameters('2026-12'), ...bad });
		expect(error?.message).toContain(message);
	});

	/** The node's option for each `customerNotices` setting, as its errors name it. */
	const OPTION_NAMES: Record<string, string> = { companyName: 'Company Name', replyTo: 'Reply To', signature: 'Signature', maxRows: 'Max Rows', optOut: 'Opted-Out Customers', addresses: 'Addresses per Customer', locales: 'Languages per Customer' };

	it.each([
		['braces in the company name', { companyName: 'Lab {service}' }],
		['an empty signature', { signature: '' }],
		['a blank signature', { signature: ' \n ' }],
		['a company name over 200 characters', { companyName: 'L'.repeat(201) }],
		['a signature over 2,000 characters', { signature: 'S'.repeat(2001) }],
		['a Reply To whose local part is not 7-bit ASCII', { replyTo: 'jörg@lab.example.com' }],
		['Max Rows 0', { maxRows: 0 }],
		['Max Rows 1.5', { maxRows: 1.5 }],
		['opted-out names with spaces around', { optOut: ['  Nobody GmbH  ', ' '] }],
		['an address per customer that is none', { addresses: { Acme: 'nobody' } }],
		['a language per customer that is none', { locales: { Acme: 'fr' } }],
	])('%s: the same notices from the node’s options as from the Lambdas’ customerNotices settings, or the same error', async (_, options: IDataObject) => {
		const month = noticeMonthOf(sandbox.account.today());
		const asNode = Object.fromEntries(Object.entries(options).map(([k, v]) => [k, typeof v === 'object' ? JSON.stringify(v) : v]));
		const node = await run(sandbox, noticeParameters(month, asNode), IN_UTC);
		const settingsError = (() => {
			try {
				parseEmailSettings({ mailFrom: 'Lab service <service@lab.example.com>', recipients: { default: ['ops@lab.example.com'] }, customerNotices: { enabled: true, replyTo: REPLY_TO, companyName: 'Lab service', ...options } }, 'test');
				return undefined;
			} catch (error) {
				return (error as Error).message;
			}
		})();
		if (settingsError !== undefined) {
			const key = Object.keys(options).find((k) => settingsError.includes(`customerNotices.${k}`))!;
			expect(key).toBeDefined();
			const reason = settingsError.slice(settingsError.indexOf(`customerNotices.${key}: `) + `customerNotices.${key}: `.length).split('\n')[0];
			expect(node.error?.message).toBe(`Options › ${OPTION_NAMES[key]}: ${reason}`);
			return;
		}
		expect(node.error).toBeUndefined();
		const lambda = await lambdaNotices(month, 'en', options);
		const notices = node.items.filter((i) => i.json.kind === 'customerNotice');
		expect(lambda.sent.length).toBeGreaterThan(0);
		expect(notices.map((i) => [i.json.to, i.json.subject, i.json.text, i.json.html])).toEqual(lambda.sent.map((e) => [e.to, e.subject, e.text, e.html]));
	});

	it.each([
		['a contact e-mail with an internationalized domain', 'Info@Prüfdienst-Müller.de', {}],
		['a contact e-mail whose domain is none', 'info@lab|x.example', {}],
		['an address per customer with an internationalized domain', undefined, { addresses: 'Info@Prüfdienst-Müller.de' }],
		['an address per customer whose domain is none', undefined, { addresses: 'info@lab|x.example' }],
		['a Reply To with an internationalized domain', undefined, { replyTo: 'Buchung@Prüfdienst-Müller.de' }],
	])('%s: the node’s item (to, replyTo, content, text) or hint and customerWithoutAddress item equal what the Lambdas send or report', async (_, contactEmail: string | undefined, given: { addresses?: string; replyTo?: string }) => {
		const customers = sandbox.account.table('customer');
		const month = noticeMonthOf(sandbox.account.today());
		const first = (await lambdaNotices(month)).report.sent[0];
		const record = customers.get(first.customerId)!;
		const was = record.values[CUSTOMER.contactEmail];
		if (contactEmail !== undefined) record.values[CUSTOMER.contactEmail] = contactEmail;
		const options = { ...(given.replyTo ? { replyTo: given.replyTo } : {}), ...(given.addresses ? { addresses: { [first.customerName]: given.addresses } } : {}) };
		try {
			const lambda = await lambdaNotices(month, 'en', options);
			const asNode = Object.fromEntries(Object.entries(options).map(([k, v]) => [k, typeof v === 'object' ? JSON.stringify(v) : v]));
			const node = await run(sandbox, noticeParameters(month, { ...asNode, outputWithoutAddress: true }), IN_UTC);
			expect(node.error).toBeUndefined();
			const notices = node.items.filter((i) => i.json.kind === 'customerNotice');
			expect(notices.map((i) => [i.json.to, i.json.replyTo, i.json.content, i.json.text, i.json.html])).toEqual(lambda.sent.map((e) => [e.to, e.replyTo, e.data, e.text, e.html]));
			const without = node.items.filter((i) => i.json.kind === 'customerWithoutAddress').map((i) => ({ customerId: i.json.customerId, customerName: i.json.customerName, reason: i.json.reason }));
			expect(without).toEqual(lambda.report.noAddress);
			const hints = (node.run.data.resultData.runData['Test Equipment Cloud'][0].hints ?? []).map((h) => h.message).join('\n');
			for (const c of lambda.report.noAddress) expect(hints).toContain(`${c.customerName} (${c.reason})`);
			if (contactEmail === 'info@lab|x.example' || given.addresses === 'info@lab|x.example') expect(lambda.report.noAddress.map((c) => c.customerId)).toContain(first.customerId);
			else if (given.replyTo === undefined) expect(notices.find((i) => (i.json.content as { customer: { id: number } }).customer.id === first.customerId)?.json.to).toBe('info@xn--prfdienst-mller-0vbj.de');
			else expect(notices.every((i) => i.json.replyTo === 'buchung@xn--prfdienst-mller-0vbj.de' && String(i.json.text).includes('buchung@prüfdienst-müller.de'))).toBe(true);
		} finally {
			record.values[CUSTOMER.contactEmail] = was;
		}
	});

	it('an unknown time zone in the workflow’s settings is refused naming it; on the error output when the user chose it', async () => {
		const { error } = await run(sandbox, noticeParameters('2026-12'), { workflowSettings: { timezone: 'Mars/Olympus' } });
		expect(error?.message).toContain('Timezone (workflow settings): "Mars/Olympus" is not a time zone');
		const { outputs, error: none } = await run(sandbox, { ...noticeParameters('2026-12'), language: 'fr' }, { nodeSettings: { onError: 'continueErrorOutput' } });
		expect(none).toBeUndefined();
		expect(outputs[1][0].json.error).toContain('Language: must be one of en, de');
	});
});

describe('E-mail › Build Monthly Compliance Report', () => {
	/** The Lambdas' report from the same history (the one the node rebuilt, held as the pollers hold theirs). */
	async function lambdaReports(month: string, recipients: unknown, locale = 'en', warnings?: WarningStore, intervals?: unknown) {
		const client = pollerClient(sandbox, sandbox.sandboxToken);
		// The node's cut-off: the later of the workflow's day (Europe/Berlin) and the service's.
		const today = laterDay(todayOf(Date.now(), 'Europe/Berlin'), await readServiceDay(client))!;
		const input = await readComplianceReportInput(client, month, today);
		const byDevice = new Map<number, DueHistory>();
		for (const d of input.devices) byDevice.set(d.id, { device: { ...d, lastTestedDate: null, seenOn: today }, entries: [] } as unknown as DueHistory);
		for (const { deviceId, ...e } of input.entries) byDevice.get(deviceId)!.entries.push(e);
		const view = {
			list: async function* <T>(ns: string): AsyncGenerator<{ key: string; value: T }> {
				if (ns === NS.dueDates('sandbox')) for (const [id, h] of byDevice) yield { key: String(id), value: h as T };
				if (ns === NS.tests('sandbox')) for (const t of input.tests) yield { key: String(t.id), value: { device: t.deviceId, on: t.testDate, failed: t.failed } satisfies TestRecord as T };
				if (ns === NS.measurementWarnings('sandbox') && warnings) yield* warnings.list<T>(ns);
				// The recycle bin as the due-date poller keeps it (pollers/scrapped.ts), read as the node read it.
				if (ns === NS.scrapped('sandbox')) yield { key: SCRAPPED_KEY, value: { readOn: today, from: scrappedFrom(today), devices: input.scrapped } satisfies ScrappedBin as T };
			},
		};
		const settings = parseEmailSettings({ mailFrom: 'alerts@lab.example.com', locale, recipients, ...(intervals === undefined ? {} : { intervals }) }, 'test');
		const mailer = keepingMailer();
		const deps = { mailer, view, settings, timeZone: 'Europe/Berlin', environment: 'sandbox', now: () => sandbox.account.now() } as unknown as DigestDeps;
		await runComplianceReport(deps, month);
		return mailer.sent;
	}

	it('one item per recipient, the same subject, HTML, text, CSVs and content as the Lambdas’ report from the same history', async () => {
		const month = monthBefore(sandbox.account.today().slice(0, 7));
		const customers = [...sandbox.account.table('customer').values()].map((c) => String(c.values[CUSTOMER.name]));
		const rules = { customers: { [customers[0]]: ['custodian@acme.example'] } };
		// The demo's measured values: the poller's memory of them is not rebuilt here (the warnings' own test below compares them).
		const { items, error } = await run(sandbox, { resource: 'email', operation: 'complianceReport', month, to: 'quality@lab.example.com', recipients: JSON.stringify(rules), language: 'en', measurementWarnings: false }, { workflowSettings: { timezone: 'Europe/Berlin' } });
		expect(error).toBeUndefined();
		const sent = await lambdaReports(month, { default: ['quality@lab.example.com'], ...rules });
		expect(sent.length).toBeGreaterThan(0);
		expect(items.map((i) => i.json.to)).toEqual(sent.map((e) => e.to));
		for (const [n, item] of items.entries()) {
			const email = sent[n];
			expect(item.json).toMatchObject({ subject: email.subject, kind: 'complianceReport', language: 'en', dedupeKey: `complianceReport:sandbox:${month}:${email.to}`, attachmentFields: 'attachment_0,attachment_1,attachment_2,attachment_3,attachment_4' });
			expect(item.json.html).toBe(email.html);
			expect(item.json.text).toBe(email.text);
			expect(item.json.content).toEqual(JSON.parse(JSON.stringify(email.data)));
			expect((item.json.content as IDataObject).all).toBeDefined();
			expect((item.json.content as IDataObject).trend).toHaveLength(12);
			const files = await attachments(item);
			expect(files.map((f) => [f.fileName, f.mimeType, f.text])).toEqual(email.attachments!.map((a) => [a.filename, 'text/csv', a.content]));
			// The interval recommendations and devices out of line: in the content, the body and their own CSVs.
			const content = item.json.content as IDataObject & { intervals: { groups: { designation: unknown[]; designationDepartment: unknown[] } }; outliers: { devices: unknown[] } };
			expect(content.intervals.groups.designation.length).toBeGreaterThan(0);
			expect(item.json.html).toContain('>Interval recommendations (NCSLI RP-1 method A3)</h2>');
			expect(item.json.html).toContain('>Devices out of line <span');
			expect(files.map((f) => f.fileName)).toEqual([`calibration-compliance-${month}.csv`, `failure-rates-${month}.csv`, `forecast-${month}.csv`, `interval-recommendations-${month}.csv`, `devices-out-of-line-${month}.csv`]);
			expect(files[3].text.split('\r\n').length - 2).toBe(content.intervals.groups.designation.length + content.intervals.groups.designationDepartment.length);
			expect(files[4].text.split('\r\n').length - 2).toBe(content.outliers.devices.length);
		}
	});

	it('with interval settings (Interval Recommendations options; the e-mail settings’ intervals): the same bytes as the Lambdas’ report with the same settings, a department matched whatever its case and spacing, a row no device has named in a hint', async () => {
		const month = monthBefore(sandbox.account.today().slice(0, 7));
		const departments = [...new Set([...sandbox.account.data.devices.values()].map((d) => d.values[DEVICE.department]).filter((d): d is string => typeof d === 'string'))];
		expect(departments.length).toBeGreaterThan(1);
		const loose = ` ${departments[0].toUpperCase()} `;
		const options = { reliabilityTarget: 0.95, confidence: 0.8, defaultEnvironment: 'office', minMonths: 2, departmentLimits: { department: [{ name: loose, environment: 'workshop', minMonths: 3, maxMonths: 0 }, { name: 'Nowhere', environment: 'office', minMonths: 0, maxMonths: 0 }] } };
		const result = await run(sandbox, { resource: 'email', operation: 'complianceReport', month, to: 'quality@lab.example.com', language: 'en', measurementWarnings: false, intervalRecommendations: options }, { workflowSettings: { timezone: 'Europe/Berlin' } });
		const { items, error } = result;
		expect(error).toBeUndefined();
		const intervals = { reliabilityTarget: 0.95, confidence: 0.8, defaultEnvironment: 'office', minMonths: 2, departments: { [loose]: { environment: 'workshop', minMonths: 3 }, Nowhere: { environment: 'office' } } };
		const sent = await lambdaReports(month, { default: ['quality@lab.example.com'] }, 'en', undefined, intervals);
		expect(items).toHaveLength(1);
		expect(items[0].json.html).toBe(sent[0].html);
		expect(items[0].json.text).toBe(sent[0].text);
		expect(items[0].json.content).toEqual(JSON.parse(JSON.stringify(sent[0].data)));
		const content = items[0].json.content as { intervals: { settings: unknown; groups: { designationDepartment: Array<{ department: string | null; minMonths: number; environments: string[] }> } } };
		expect(content.intervals.settings).toEqual(intervals);
		// Not the defaults: the department set as a workshop with its own minimum, the rest offices.
		const groups = content.intervals.groups.designationDepartment;
		expect(groups.filter((g) => g.department === departments[0]).every((g) => g.environments.join() === 'workshop' && g.minMonths === 3)).toBe(true);
		expect(groups.filter((g) => g.department !== departments[0]).every((g) => g.environments.join() === 'office')).toBe(true);
		expect(hintsOf(result)).toContain('Department Limits "Nowhere" matches no device’s department (names match whatever their case and spacing): its limits set nothing');
		const bad = await run(sandbox, { resource: 'email', operation: 'complianceReport', month, to: 'quality@lab.example.com', intervalRecommendations: { reliabilityTarget: 98 } });
		expect(bad.error?.message).toMatch(/Interval Recommendations › Reliability Target: must be a share above 0.5 and below 1/);
	});

	it('a recipient at a domain with umlauts: the same address (Punycode, as SES takes it), bytes and dedupeKey as the Lambdas’ report', async () => {
		const month = monthBefore(sandbox.account.today().slice(0, 7));
		const { items, error } = await run(sandbox, { resource: 'email', operation: 'complianceReport', month, to: 'QS@Prüfdienst-Müller.de', language: 'de', measurementWarnings: false }, { workflowSettings: { timezone: 'Europe/Berlin' } });
		expect(error).toBeUndefined();
		const sent = await lambdaReports(month, { default: ['QS@Prüfdienst-Müller.de'] }, 'de');
		expect(sent.map((e) => e.to)).toEqual(['qs@xn--prfdienst-mller-0vbj.de']);
		expect(items.map((i) => i.json.to)).toEqual(sent.map((e) => e.to));
		expect(items[0].json).toMatchObject({ subject: sent[0].subject, dedupeKey: `complianceReport:sandbox:${month}:qs@xn--prfdienst-mller-0vbj.de` });
		expect(items[0].json.html).toBe(sent[0].html);
		expect(items[0].json.text).toBe(sent[0].text);
	});

	it('the operation’s description in the editor says what the e-mail carries: as many CSV attachments as it attaches, each named', async () => {
		const month = monthBefore(sandbox.account.today().slice(0, 7));
		const { items, error } = await run(sandbox, { resource: 'email', operation: 'complianceReport', month, to: 'quality@lab.example.com', language: 'en' }, { workflowSettings: { timezone: 'Europe/Berlin' } });
		expect(error).toBeUndefined();
		const files = await attachments(items[0]);
		const pkg = await loadPackage();
		const node = pkg.nodeTypes.getByNameAndVersion(`${pkg.packageName}.testEquipmentCloud`).description as INodeTypeDescription;
		const operations = node.properties.find((p: INodeProperties) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes('email'))!;
		const text = (operations.options as INodePropertyOptions[]).find((o) => o.value === 'complianceReport')!.description!;
		const count = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven'][files.length];
		expect(text).toContain(`${count} CSV attachments`);
		// Each file by what it holds: calibration-compliance-2026-10.csv is "calibration compliance".
		for (const f of files) expect(text).toContain(f.fileName!.replace(/-\d{4}-\d{2}\.csv$/, '').replace(/-/g, ' '));
	});

	it('German: the same bytes as the Lambdas’ German report, the interval recommendations’ CSV with semicolons and decimal commas', async () => {
		const month = monthBefore(sandbox.account.today().slice(0, 7));
		const { items, error } = await run(sandbox, { resource: 'email', operation: 'complianceReport', month, to: 'quality@lab.example.com', language: 'de', measurementWarnings: false }, { workflowSettings: { timezone: 'Europe/Berlin' } });
		expect(error).toBeUndefined();
		const sent = await lambdaReports(month, { default: ['quality@lab.example.com'] }, 'de');
		expect(items).toHaveLength(1);
		expect(sent).toHaveLength(1);
		expect(items[0].json.html).toBe(sent[0].html);
		expect(items[0].json.text).toBe(sent[0].text);
		expect(items[0].json.html).toContain('>Empfehlungen zum Prüfintervall (NCSLI RP-1, Methode A3)</h2>');
		const files = await attachments(items[0]);
		expect(files.map((f) => [f.fileName, f.text])).toEqual(sent[0].attachments!.map((a) => [a.filename, a.content]));
		expect(files[3].text.startsWith('\uFEFFgroup_by;designation;department;')).toBe(true);
		const [head, first] = readCsv(files[3].text.slice(1), ';');
		// A decimal comma, as German Excel reads a number.
		expect(first[head.indexOf('reliability_target')]).toBe('0,98');
	});

	it('measured values near their limit: a known series uploaded through the admin API gives the section and measurement-warnings-<month>.csv, the same bytes as the Lambdas’ report from what the results poller recorded, in English and German; the option leaves them out', async () => {
		const today = sandbox.account.today();
		const month = monthBefore(today.slice(0, 7));
		const [device] = [...sandbox.account.data.devices.values()].filter((d) => typeof d.values[DEVICE.testInterval] === 'number' && d.customer_id !== null);
		for (const [id, r] of sandbox.account.data.testResults) if (r.device_id === device.id) sandbox.account.data.testResults.delete(id);
		// The month's other results measure nothing here: the poller below reads only the known series (its memory of the demo's values is not rebuilt).
		for (const r of sandbox.account.data.testResults.values()) if (r.test_date.startsWith(month)) r.measured = [];
		const PE = 'Protective conductor resistance';
		const tested = `${month}-15`;
		const ids: number[] = [];
		for (const [date, value] of [[addDays(tested, -360), 0.1], [addDays(tested, -180), 0.15], [tested, 0.24]] as const) {
			const res = await fetch(`${sandbox.adminUrl}/test-results`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ device_id: device.id, test_date: date, measurements: [{ step: PE, value, unit: 'Ω', high_limit: 0.3 }] }) });
			expect(res.status).toBe(201);
			ids.push(((await res.json()) as { id: number }).id);
		}
		const client = pollerClient(sandbox, sandbox.sandboxToken);
		const dir = mkdtempSync(join(tmpdir(), 'warnings-'));
		const poller = new FileStateStore(join(dir, 'state.json'));
		await recordPollerWarnings(client, await resultsById(client, ids), poller, () => sandbox.account.now());
		for (const language of ['en', 'de'] as const) {
			const { items, error } = await run(sandbox, { resource: 'email', operation: 'complianceReport', month, to: 'quality@lab.example.com', language }, { workflowSettings: { timezone: 'Europe/Berlin' } });
			expect(error).toBeUndefined();
			const sent = await lambdaReports(month, { default: ['quality@lab.example.com'] }, language, poller);
			expect(items).toHaveLength(1);
			expect(items[0].json.html).toBe(sent[0].html);
			expect(items[0].json.text).toBe(sent[0].text);
			expect(items[0].json.content).toEqual(JSON.parse(JSON.stringify(sent[0].data)));
			const files = await attachments(items[0]);
			expect(files.map((f) => [f.fileName, f.text])).toEqual(sent[0].attachments!.map((a) => [a.filename, a.content]));
			expect(items[0].json.attachmentFields).toBe('attachment_0,attachment_1,attachment_2,attachment_3,attachment_4,attachment_5');
			const warnings = (items[0].json.content as { measurementWarnings: Array<Record<string, unknown>> }).measurementWarnings;
			const mine = warnings.filter((w) => (w.device as { id: number }).id === device.id);
			expect(mine).toHaveLength(1);
			expect(mine[0]).toMatchObject({ testResultId: ids[2], testDate: tested, step: PE, value: 0.24, highLimit: 0.3, limitUsed: 0.8, nearLimit: true });
			const csv = files.find((f) => f.fileName === `measurement-warnings-${month}.csv`)!;
			const [head, ...rows] = readCsv(csv.text.slice(1), language === 'de' ? ';' : ',');
			expect(rows).toHaveLength(warnings.length);
			const row = rows.find((r) => r[head.indexOf('test_result_id')] === String(ids[2]))!;
			expect(row[head.indexOf('value')]).toBe(language === 'de' ? '0,24' : '0.24');
			expect(row[head.indexOf('limit_used')]).toBe(language === 'de' ? '0,8' : '0.8');
			expect(items[0].json.html).toContain(language === 'de' ? '>Messwerte nahe am Grenzwert <span' : '>Measured values near their limit <span');
		}
		const { items: without } = await run(sandbox, { resource: 'email', operation: 'complianceReport', month, to: 'quality@lab.example.com', measurementWarnings: false }, { workflowSettings: { timezone: 'Europe/Berlin' } });
		expect((without[0].json.content as IDataObject).measurementWarnings).toBeUndefined();
		expect(without[0].json.attachmentFields).toBe('attachment_0,attachment_1,attachment_2,attachment_3,attachment_4');
		rmSync(dir, { recursive: true, force: true });
	});

	/**
	 * One device's Protective conductor resistance (high limit 0.3) uploaded in the order given
	 * ([day offset from <month>-15, value]), its other results removed and the month's other results
	 * measuring nothing: the node's report and the Lambdas' from what the results poller recorded.
	 */
	async function driftReports(series: ReadonlyArray<readonly [number, number]>) {
		const month = monthBefore(sandbox.account.today().slice(0, 7));
		const [device] = [...sandbox.account.data.devices.values()].filter((d) => typeof d.values[DEVICE.testInterval] === 'number' && d.customer_id !== null);
		for (const [id, r] of sandbox.account.data.testResults) if (r.device_id === device.id) sandbox.account.data.testResults.delete(id);
		for (const r of sandbox.account.data.testResults.values()) if (r.test_date.startsWith(month)) r.measured = [];
		const tested = `${month}-15`;
		const ids: number[] = [];
		for (const [offset, value] of series) {
			const res = await fetch(`${sandbox.adminUrl}/test-results`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ device_id: device.id, test_date: addDays(tested, offset), measurements: [{ step: 'Protective conductor resistance', value, unit: 'Ω', high_limit: 0.3 }] }) });
			expect(res.status).toBe(201);
			ids.push(((await res.json()) as { id: number }).id);
		}
		const client = pollerClient(sandbox, sandbox.sandboxToken);
		const dir = mkdtempSync(join(tmpdir(), 'warnings-'));
		const poller = new FileStateStore(join(dir, 'state.json'));
		await recordPollerWarnings(client, await resultsById(client, ids), poller, () => sandbox.account.now());
		const { items, error } = await run(sandbox, { resource: 'email', operation: 'complianceReport', month, to: 'quality@lab.example.com', language: 'en' }, { workflowSettings: { timezone: 'Europe/Berlin' } });
		expect(error).toBeUndefined();
		const sent = await lambdaReports(month, { default: ['quality@lab.example.com'] }, 'en', poller);
		rmSync(dir, { recursive: true, force: true });
		expect(items).toHaveLength(1);
		expect(items[0].json.html).toBe(sent[0].html);
		expect(items[0].json.text).toBe(sent[0].text);
		expect(items[0].json.content).toEqual(JSON.parse(JSON.stringify(sent[0].data)));
		const files = await attachments(items[0]);
		expect(files.map((f) => [f.fileName, f.text])).toEqual(sent[0].attachments!.map((a) => [a.filename, a.content]));
		const warnings = (items[0].json.content as { measurementWarnings?: Array<Record<string, unknown>> }).measurementWarnings;
		return { month, tested, ids, warnings, files };
	}

	it('a value drifting below the threshold whose trend says "test earlier": the section and its CSV on both faces, the row as the results poller recorded it (near limit no, test earlier yes)', async () => {
		const { month, tested, ids, warnings, files } = await driftReports([[-360, 0.02], [-270, 0.07], [-180, 0.12], [-90, 0.17], [0, 0.22]]);
		expect(warnings).toHaveLength(1);
		expect(warnings![0]).toMatchObject({ testResultId: ids[4], testDate: tested, value: 0.22, nearLimit: false, testEarlier: true });
		expect(files.map((f) => f.fileName)).toContain(`measurement-warnings-${month}.csv`);
	});

	it('a late upload within the month: no trend on either face, as the results poller holds it', async () => {
		const { tested, ids, warnings } = await driftReports([[-360, 0.1], [-180, 0.1], [0, 0.1], [-10, 0.26]]);
		expect(warnings).toHaveLength(1);
		expect(warnings![0]).toMatchObject({ testResultId: ids[3], testDate: addDays(tested, -10), value: 0.26, nearLimit: true, predictedLimitDate: null, testEarlier: false });
	});

	it.each([
		[{ nearLimitThreshold: 0 }, 'Near-Limit Threshold: must be a share of the limit above 0 and at most 1'],
		[{ to: 'not an address' }, 'To: "not" is not an e-mail address'],
		[{ to: '' }, 'To: required'],
		[{ to: 'qs@prüf/dienst.de' }, 'To: "qs@prüf/dienst.de" has a domain that is not a valid (internationalized) domain name'],
		[{ to: 'jörg@lab.example.com' }, 'To: "jörg@lab.example.com" has a local part that is not 7-bit ASCII'],
		[{ to: 'quality@lab.example.com', recipients: '{"customers": {"Acme": ["qs@a|b.de"]}}' }, 'Recipients (Routing Rules) › customers["Acme"]: "qs@a|b.de" has a domain that is not a valid'],
		[{ recipients: '{"customers": ' }, 'Recipients (Routing Rules): not valid JSON'],
		[{ recipients: '{"customer": {}}' }, 'Recipients (Routing Rules): unknown "customer"'],
		[{ month: '2026-3' }, 'Month: expected a month as YYYY-MM'],
		[{ month: '2999-01' }, 'Month: must be a month that has ended'],
	])('bad input %j is refused naming the parameter', async (bad, message) => {
		const { error } = await run(sandbox, { resource: 'email', operation: 'complianceReport', to: 'quality@lab.example.com', ...bad });
		expect(error?.message).toContain(message);
	});
});

describe('E-mail › To is required unless the routing rules route every device', () => {
	const names = () => [...sandbox.account.table('customer').values()].map((c) => String(c.values[CUSTOMER.name]));
	const month = () => monthBefore(sandbox.account.today().slice(0, 7));
	const cases = [
		['digest', () => ({ failedSince: new Date(Date.now() - 30 * 86_400_000).toISOString() })],
		['complianceReport', () => ({ month: month() })],
	] as const;

	it.each(cases)('%s: rules for one customer and an empty To is an error naming To and the devices no rule routes', async (operation, extra) => {
		const [one] = names();
		const rules = { customers: { [one]: ['custodian@acme.example'] } };
		const { items, error } = await run(sandbox, { resource: 'email', operation, to: '', recipients: JSON.stringify(rules), language: 'en', ...extra() }, IN_UTC);
		expect(items).toEqual([]);
		expect(error?.message).toMatch(/^To: required: \d+ devices? no routing rule routes/);
	});

	it.each(cases)('%s: rules for every customer route every device, and To may stay empty', async (operation, extra) => {
		const rules = { customers: Object.fromEntries(names().map((n) => [n, ['custodian@acme.example']])) };
		const { items, error } = await run(sandbox, { resource: 'email', operation, to: '', recipients: JSON.stringify(rules), language: 'en', ...extra() }, IN_UTC);
		expect(error).toBeUndefined();
		expect(items.map((i) => i.json.to)).toEqual(['custodian@acme.example']);
	});
});

describe('E-mail › Build Customer Re-Test Notices › Opted-Out Customers', () => {
	it('takes one name per line or the settings’ JSON array, so a name with a comma can be opted out; opted-out customers get no item', async () => {
		const month = noticeMonthOf(sandbox.account.today());
		const all = await run(sandbox, noticeParameters(month), IN_UTC);
		const [first, second] = all.items.map((i) => (i.json.content as { customer: { id: number; name: string } }).customer);
		const record = sandbox.account.table('customer').get(first.id)!;
		const was = record.values[CUSTOMER.name];
		record.values[CUSTOMER.name] = 'Meier, Schulz & Co. KG';
		try {
			const names = (items: INodeExecutionData[]) => items.map((i) => (i.json.content as { customer: { name: string } }).customer.name);
			for (const optOut of ['Meier, Schulz & Co. KG', `Meier, Schulz & Co. KG\n${second.name}`, JSON.stringify(['Meier, Schulz & Co. KG', second.name])]) {
				const { items, error } = await run(sandbox, noticeParameters(month, { optOut }), IN_UTC);
				expect(error).toBeUndefined();
				expect(names(items)).not.toContain('Meier, Schulz & Co. KG');
				expect(items).toHaveLength(all.items.length - (optOut.includes(second.name) ? 2 : 1));
			}
			const { error } = await run(sandbox, noticeParameters(month, { optOut: '["Meier", 7]' }), IN_UTC);
			expect(error?.message).toMatch(/^Options › Opted-Out Customers: /);
		} finally {
			record.values[CUSTOMER.name] = was;
		}
	});
});

describe('E-mail › dedupeKey', () => {
	it('differs between the sandbox and production for the same day and recipient: a workflow switched to production sends what the sandbox run already "processed"', async () => {
		// Without the measured values: 60 days of the demo's passed results would cost each device's result list and details, beside the point here.
		const parameters = { resource: 'email', operation: 'digest', to: 'lead@lab.example.com', failedSince: new Date(Date.now() - 60 * 86_400_000).toISOString(), language: 'en', options: { measurementWarnings: false } };
		const sandboxRun = await run(sandbox, parameters, IN_UTC);
		const production = { credentials: credentialsFor(sandbox, sandbox.sandboxToken, { environment: 'production', productionBaseUrl: sandbox.url }), ...IN_UTC };
		const productionRun = await runNode({ ...production, parameters });
		expect(sandboxRun.error ?? productionRun.error).toBeUndefined();
		const keys = (r: typeof sandboxRun) => r.items.map((i) => String(i.json.dedupeKey));
		expect(keys(sandboxRun)).toHaveLength(1);
		expect(keys(productionRun)).toHaveLength(1);
		expect(keys(productionRun)[0]).not.toBe(keys(sandboxRun)[0]);
	});
});

describe('E-mail › Build Monthly Compliance Report › interval recommendations from the pollers’ own test records', () => {
	/** The section's HTML: from its heading to the next section's. */
	const section = (html: string) => html.slice(html.indexOf('>Interval recommendations (NCSLI RP-1 method A3)</h2>'), html.indexOf('>Devices out of line <span'));

	it('a real due-date poller run over the demo into the npm start store (test records with their own expiry): the Lambdas’ interval section and CSV are the node’s', async () => {
		const month = monthBefore(sandbox.account.today().slice(0, 7));
		const { items, error } = await run(sandbox, { resource: 'email', operation: 'complianceReport', month, to: 'quality@lab.example.com', language: 'en' }, { workflowSettings: { timezone: 'Europe/Berlin' } });
		expect(error).toBeUndefined();

		const aws = await new LocalAws().start();
		const dir = mkdtempSync(join(tmpdir(), 'tec-intervals-'));
		try {
			const now = () => sandbox.account.now();
			// The store npm start keeps: what has expired (the items' TTL) is not listed.
			const store = new FileStateStore(join(dir, 'state.json'), { now });
			const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
			const ctx = {
				client: pollerClient(sandbox, sandbox.sandboxToken, { ratePerSecond: 200 }),
				store,
				publisher: new EventBridgePublisher({ busName: 'tec-test', client: aws.eventBridge(), sleep: async () => undefined }),
				environment: 'sandbox' as const,
				now,
				remainingMs: () => 600_000,
				log: quiet,
				metrics: { count: () => undefined },
				settings: { ...DEFAULT_SETTINGS, safetyMs: 1000 },
				runId: 'intervals',
			};
			const polled = await pollDueDates(ctx);
			expect(polled.rebuild?.done).toBe(true);
			const mailer = keepingMailer();
			const settings = parseEmailSettings({ mailFrom: 'alerts@lab.example.com', locale: 'en', recipients: { default: ['quality@lab.example.com'] } }, 'test');
			await runComplianceReport({ mailer, view: store, settings, timeZone: 'Europe/Berlin', environment: 'sandbox', now } as unknown as DigestDeps, month);
			expect(mailer.sent).toHaveLength(1);
			const node = items[0].json.content as IDataObject & { intervals: { groups: { designation: Array<{ resultsUsed: number }> } } };
			const lambdas = JSON.parse(JSON.stringify(mailer.sent[0].data)) as typeof node;
			// The demo's devices have earlier tests to count: a section with results in it.
			expect(node.intervals.groups.designation.reduce((n, g) => n + g.resultsUsed, 0)).toBeGreaterThan(100);
			expect(lambdas.intervals).toEqual(node.intervals);
			expect(section(mailer.sent[0].html)).toBe(section(items[0].json.html as string));
			const files = await attachments(items[0]);
			const csv = `interval-recommendations-${month}.csv`;
			expect(mailer.sent[0].attachments!.find((a) => a.filename === csv)!.content).toBe(files.find((f) => f.fileName === csv)!.text);
		} finally {
			await aws.stop();
			rmSync(dir, { recursive: true, force: true });
		}
	});

	it('scrapped devices (the recycle bin’s device entries): the report’s failure rates are Get Failure Rates’ on the month’s last day, on both faces (the Lambdas from the bin the due-date poller read), the same CSV', async () => {
		const month = monthBefore(sandbox.account.today().slice(0, 7));
		const { last } = monthDays(month);
		// Beside the demo's scrapped devices, one scrapped in the month after a passed test: one failed test of its type.
		const [template] = sandbox.account.data.devices.values();
		const id = Math.max(...sandbox.account.data.devices.keys(), ...[...sandbox.account.recycleBin.values()].map((e) => e.item_id)) + 1;
		sandbox.account.data.devices.set(id, { ...template, id, values: { ...template.values, [DEVICE.designation]: 'Scrap check' } });
		const rid = Math.max(0, ...sandbox.account.data.testResults.keys()) + 1;
		sandbox.account.data.testResults.set(rid, { id: rid, device_id: id, customer_id: null, project_id: null, test_date: addDays(last, -20), synced_time: `${last}T12:00:00Z`, status: 'passed', tester: 'A. Weber', test_sequence: 'DGUV V3' });
		sandbox.account.delete('device', id, false);
		const entry = [...sandbox.account.recycleBin.values()].find((e) => e.resource === 'device' && e.item_id === id)!;
		entry.deleted_time = `${addDays(last, -5)}T10:00:00Z`;

		const { items, error } = await run(sandbox, { resource: 'email', operation: 'complianceReport', month, to: 'quality@lab.example.com', language: 'en', measurementWarnings: false }, { workflowSettings: { timezone: 'Europe/Berlin' } });
		expect(error).toBeUndefined();
		const node = items[0].json.content as IDataObject & { scrappedCounted: boolean; failureRates: Record<string, Record<string, unknown>> };
		expect(node.scrappedCounted).toBe(true);
		// Get Failure Rates' reading and counting (client/failureRatesRead.ts, as the operation calls them), its today the report's last day.
		const client = pollerClient(sandbox, sandbox.sandboxToken, { ratePerSecond: 200 });
		for (const months of FAILURE_RATE_MONTHS) {
			const input = await readFailureRateInput(client, months, () => Date.parse(`${last}T12:00:00Z`), 'UTC');
			for (const by of FAILURE_RATE_GROUP_BY) expect(node.failureRates[months][by], `${months} ${by}`).toEqual(JSON.parse(JSON.stringify(failureRates(input.results, input.devices, input.today, months, by, input.scrapped ?? []))));
		}
		const byType = (node.failureRates[24].designation as { groups: Array<{ id: unknown; scrappedDevices: number; failedTests: number; tests: number }>; totals: { scrappedDevices: number } });
		expect(byType.groups.find((g) => g.id === 'Scrap check')).toMatchObject({ scrappedDevices: 1, tests: 2, failedTests: 1 });
		expect(byType.totals.scrappedDevices).toBeGreaterThan(1);

		const aws = await new LocalAws().start();
		const dir = mkdtempSync(join(tmpdir(), 'tec-scrapped-'));
		try {
			const now = () => sandbox.account.now();
			const store = new FileStateStore(join(dir, 'state.json'), { now });
			const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
			const ctx = {
				client,
				store,
				publisher: new EventBridgePublisher({ busName: 'tec-test', client: aws.eventBridge(), sleep: async () => undefined }),
				environment: 'sandbox' as const,
				now,
				remainingMs: () => 600_000,
				log: quiet,
				metrics: { count: () => undefined },
				settings: { ...DEFAULT_SETTINGS, safetyMs: 1000 },
				runId: 'scrapped',
			};
			await pollDueDates(ctx);
			const mailer = keepingMailer();
			const settings = parseEmailSettings({ mailFrom: 'alerts@lab.example.com', locale: 'en', recipients: { default: ['quality@lab.example.com'] } }, 'test');
			await runComplianceReport({ mailer, view: store, settings, timeZone: 'Europe/Berlin', environment: 'sandbox', now } as unknown as DigestDeps, month);
			const lambdas = JSON.parse(JSON.stringify(mailer.sent[0].data)) as typeof node;
			expect(lambdas.scrappedCounted).toBe(true);
			expect(lambdas.failureRates).toEqual(node.failureRates);
			const csv = `failure-rates-${month}.csv`;
			const files = await attachments(items[0]);
			expect(mailer.sent[0].attachments!.find((a) => a.filename === csv)!.content).toBe(files.find((f) => f.fileName === csv)!.text);
			expect(files.find((f) => f.fileName === csv)!.text.split('\r\n')[0]).toContain('scrapped_devices');
		} finally {
			await aws.stop();
			rmSync(dir, { recursive: true, force: true });
		}
	});

	it('a customer-routed recipient and a deleted device of that customer with a result in the 12 months: the Lambdas (whose history marks it deleted) count its results as the node does, not at all; the same failure rates, no "no longer in the device list" sentence, the same CSV', async () => {
		const month = monthBefore(sandbox.account.today().slice(0, 7));
		const customers = sandbox.account.table('customer');
		const hansa = [...customers.values()].find((c) => c.values[CUSTOMER.name] === 'Hansa AG')!;
		expect(hansa).toBeDefined();
		const from = addDays(sandbox.account.today(), -300);
		const tested = new Set([...sandbox.account.data.testResults.values()].filter((r) => r.test_date >= from).map((r) => r.device_id));
		const victim = [...sandbox.account.table('device').values()].find((d) => d.customer_id === hansa.id && tested.has(d.id))!;
		expect(victim).toBeDefined();
		const recipients = { customers: { 'Hansa AG': ['cust@lab.example.com'] } };

		const aws = await new LocalAws().start();
		const dir = mkdtempSync(join(tmpdir(), 'tec-deleted-'));
		try {
			const now = () => sandbox.account.now();
			const store = new FileStateStore(join(dir, 'state.json'), { now });
			const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
			const ctx = {
				client: pollerClient(sandbox, sandbox.sandboxToken, { ratePerSecond: 200 }),
				store,
				publisher: new EventBridgePublisher({ busName: 'tec-test', client: aws.eventBridge(), sleep: async () => undefined }),
				environment: 'sandbox' as const,
				now,
				remainingMs: () => 600_000,
				log: quiet,
				metrics: { count: () => undefined },
				settings: { ...DEFAULT_SETTINGS, safetyMs: 1000 },
				runId: 'listed',
			};
			await pollDueDates(ctx);
			sandbox.account.delete('device', victim.id, true);
			await pollDueDates({ ...ctx, runId: 'deleted' });

			const { items, error } = await run(sandbox, { resource: 'email', operation: 'complianceReport', month, to: 'quality@lab.example.com', recipients: JSON.stringify(recipients), language: 'en', measurementWarnings: false }, IN_UTC);
			expect(error).toBeUndefined();
			const mailer = keepingMailer();
			const settings = parseEmailSettings({ mailFrom: 'alerts@lab.example.com', locale: 'en', recipients: { default: ['quality@lab.example.com'], ...recipients } }, 'test');
			await runComplianceReport({ mailer, view: store, settings, timeZone: 'UTC', environment: 'sandbox', now } as unknown as DigestDeps, month);
			type Rates = { failureRates: Record<string, Record<string, { totals: { unknownDevices: number } }>> };
			for (const to of ['cust@lab.example.com', 'quality@lab.example.com']) {
				const node = items.find((it) => it.json.to === to)!;
				const sent = mailer.sent.find((e) => e.to === to)!;
				expect(node, to).toBeDefined();
				expect(sent, to).toBeDefined();
				const lambdas = JSON.parse(JSON.stringify(sent.data)) as Rates;
				expect(lambdas.failureRates[12].designation.totals.unknownDevices, to).toBe((node.json.content as unknown as Rates).failureRates[12].designation.totals.unknownDevices);
				expect(lambdas.failureRates, to).toEqual((node.json.content as unknown as Rates).failureRates);
				// The failure-rate section's text and CSV: without the "no longer in the device list" sentence on both faces.
				for (const text of [sent.text, node.json.text as string]) expect(text, to).not.toContain('no longer in the device list');
				const csv = `failure-rates-${month}.csv`;
				expect(sent.attachments!.find((a) => a.filename === csv)!.content, to).toBe((await attachments(node)).find((f) => f.fileName === csv)!.text);
			}
		} finally {
			await aws.stop();
			rmSync(dir, { recursive: true, force: true });
		}
	});

	it('an interval lengthened after the first rebuild: the Lambdas count the earlier test the node reads, the same intervals and HTML', async () => {
		const today = sandbox.account.today();
		const month = monthBefore(today.slice(0, 7));
		// The failure rates' 24 months: their first tests' previous tests are what the section counts.
		const ratesFrom = `${monthBefore(month, 23)}-01`;
		const devices = [...sandbox.account.table('device').values()];
		const longestBefore = longestInterval(devices.map((d) => ({ testIntervalMonths: d.values[DEVICE.testInterval] })));
		const lengthened = 60;
		expect(lengthened).toBeGreaterThan(longestBefore);
		const customerId = devices.find((d) => d.customer_id !== undefined)?.customer_id;
		const probe = sandbox.account.create('device', { customer_id: customerId, properties: { [DEVICE.designation]: 'Lengthened meter', [DEVICE.testInterval]: 12 } }, 'body');
		// Two passed tests 60 months apart: the later a month into the 24 months, the earlier before
		// the previous tests of the account's longest interval on the day of the first rebuild.
		const later = addMonths(ratesFrom, 1);
		const earlier = addMonths(later, -lengthened);
		expect(earlier < previousTestsFrom(`${monthBefore(today.slice(0, 7), 24)}-01`, longestBefore)).toBe(true);
		sandbox.account.syncTestResult({ device_id: probe.id, test_date: earlier, status: 'passed' });
		sandbox.account.syncTestResult({ device_id: probe.id, test_date: later, status: 'passed' });

		const aws = await new LocalAws().start();
		const dir = mkdtempSync(join(tmpdir(), 'tec-intervals-'));
		try {
			const now = () => sandbox.account.now();
			const store = new FileStateStore(join(dir, 'state.json'), { now });
			const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
			const ctx = {
				client: pollerClient(sandbox, sandbox.sandboxToken, { ratePerSecond: 200 }),
				store,
				publisher: new EventBridgePublisher({ busName: 'tec-test', client: aws.eventBridge(), sleep: async () => undefined }),
				environment: 'sandbox' as const,
				now,
				remainingMs: () => 600_000,
				log: quiet,
				metrics: { count: () => undefined },
				settings: { ...DEFAULT_SETTINGS, safetyMs: 1000 },
				runId: 'rebuilt',
			};
			expect((await pollDueDates(ctx)).rebuild?.done).toBe(true);
			// The employer lengthens the interval (its risk assessment) after the rebuild; the pollers see it on their next run.
			sandbox.account.edit('device', { id: probe.id, properties: { [DEVICE.testInterval]: lengthened } }, 'body');
			await pollDueDates({ ...ctx, runId: 'lengthened' });

			const { items, error } = await run(sandbox, { resource: 'email', operation: 'complianceReport', month, to: 'quality@lab.example.com', language: 'en', measurementWarnings: false }, { workflowSettings: { timezone: 'Europe/Berlin' } });
			expect(error).toBeUndefined();
			const mailer = keepingMailer();
			const settings = parseEmailSettings({ mailFrom: 'alerts@lab.example.com', locale: 'en', recipients: { default: ['quality@lab.example.com'] } }, 'test');
			await runComplianceReport({ mailer, view: store, settings, timeZone: 'Europe/Berlin', environment: 'sandbox', now } as unknown as DigestDeps, month);
			expect(mailer.sent).toHaveLength(1);
			type Intervals = { intervals: { groups: { designation: Array<{ designation: string | null; currentIntervalMonths: number; resultsUsed: number }> } } };
			const node = items[0].json.content as unknown as Intervals;
			const lambdas = JSON.parse(JSON.stringify(mailer.sent[0].data)) as Intervals;
			// The node counts the earlier test (the previous test of the later one at 60 months).
			expect(node.intervals.groups.designation.find((g) => g.designation === 'Lengthened meter')).toMatchObject({ currentIntervalMonths: lengthened, resultsUsed: 1 });
			expect(lambdas.intervals).toEqual(node.intervals);
			expect(mailer.sent[0].html).toBe(items[0].json.html);
		} finally {
			await aws.stop();
			rmSync(dir, { recursive: true, force: true });
		}
	});
});
