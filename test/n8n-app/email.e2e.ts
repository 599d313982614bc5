/**
 * The four e-mail templates (examples/email-*.json) in the real n8n app, sending through n8n's own
 * Send Email node to a real SMTP server in this process: `n8n start`, and each workflow run as the
 * editor's "Execute workflow" button runs it (REST `POST /rest/workflows/:id/run` from its trigger).
 * Not `n8n execute`: the CLI starts only from a Manual Trigger (n8n 2.41's findCliWorkflowStart),
 * and the templates start from a Schedule Trigger or this package's trigger, which run here in their
 * manual mode (the Schedule Trigger fires at once, the trigger fetches a real failed result).
 * Every message is read back with postal-mime and held against the items our node produced: the
 * recipients, subjects, bodies, attachments with their names and bytes; a second run of the
 * notices, the digest and the compliance report sends nothing (Remove Duplicates remembers across
 * executions).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CUSTOMER } from '../../sandbox/properties';
import { startSmtp, type LocalSmtp } from '../support/localSmtp';
import { ROOT } from './install';
import {
	N8n,
	readWorkflow,
	startSandbox,
	storedBinary,
	type N8nServer,
	type NodeRun,
	type RecordedExecution,
	type SandboxProcess,
	type WorkflowJson,
} from './harness';

const SMTP_USER = 'n8n-mailer';
const SMTP_PASSWORD = 'smtp-sandbox-password';
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

const TEMPLATES = {
	notices: { id: 'tec-email-notices', file: 'email-customer-notices.json', build: 'Build re-test notices' },
	digest: { id: 'tec-email-digest', file: 'email-daily-digest.json', build: 'Build daily digests' },
	failedTest: { id: 'tec-email-failed-test', file: 'email-failed-test-alert.json', build: 'Build failed-test e-mails' },
	compliance: { id: 'tec-email-compliance', file: 'email-monthly-compliance-report.json', build: 'Build compliance report' },
} as const;
type Template = keyof typeof TEMPLATES;

let sandbox: SandboxProcess;
let smtp: LocalSmtp;
let n8n: N8n;
let server: N8nServer | undefined;
const workflows = {} as Record<Template, WorkflowJson>;

type Item = NonNullable<NonNullable<NodeRun['data']>['main'][number]>[number];
type Parsed = Awaited<ReturnType<LocalSmtp['parsed']>>[number];

beforeAll(async () => {
	sandbox = await startSandbox();
	smtp = await startSmtp({ users: { [SMTP_USER]: SMTP_PASSWORD } });
	n8n = new N8n(inject('n8nApp'), inject('userFolder'));
	await n8n.importCredential(sandbox);
	// The templates' SMTP credential (id 2, "SMTP account"): plain authentication, no TLS.
	await n8n.importCredentials([
		{ id: '2', name: 'SMTP account', type: 'smtp', data: { user: SMTP_USER, password: SMTP_PASSWORD, host: '127.0.0.1', port: smtp.port, secure: false, disableStartTls: true } },
	]);
	for (const [name, t] of Object.entries(TEMPLATES) as Array<[Template, (typeof TEMPLATES)[Template]]>) workflows[name] = readWorkflow(join(ROOT, 'examples', t.file));
	// Half the customers get their notice in German (Options › Languages per Customer), the rest in English.
	const customers = await sandbox.api<{ results: Array<{ properties: Array<{ key_id: number; value: unknown }> }> }>('/data/customers/all/?limit=1000');
	const names = customers.results.map((c) => String(c.properties.find((p) => p.key_id === CUSTOMER.name)?.value));
	const build = workflows.notices.nodes.find((n) => n.name === TEMPLATES.notices.build)!;
	const options = build.parameters.options as Record<string, unknown>;
	options.locales = JSON.stringify(Object.fromEntries(names.filter((_, i) => i % 2 === 0).map((n) => [n, 'de'])));
	await n8n.importWorkflows(Object.fromEntries((Object.keys(TEMPLATES) as Template[]).map((k) => [TEMPLATES[k].id, workflows[k]])));
	server = await n8n.start();
	await server.signIn();
});

afterAll(async () => {
	await server?.stop();
	await smtp?.stop();
	await sandbox?.stop();
});

/** Runs a template from its trigger; returns the execution and the messages it sent. */
async function run(template: Template): Promise<{ execution: RecordedExecution; messages: Parsed[] }> {
	const before = smtp.received.length;
	const trigger = workflows[template].nodes[0].name;
	const execution = await server!.runFromTrigger(TEMPLATES[template].id, trigger, inject('n8nApp').n8nDir);
	expect(execution.status, JSON.stringify(execution.data.resultData.error)).toBe('success');
	return { execution, messages: (await smtp.parsed()).slice(before) };
}

function itemsOf(execution: RecordedExecution, node: string): Item[] {
	const runs = execution.data.resultData.runData[node];
	if (!runs) throw new Error(`node "${node}" did not run (ran: ${Object.keys(execution.data.resultData.runData).join(', ')})`);
	return runs[0]?.data?.main[0] ?? [];
}

const normalized = (s: string | undefined) => (s ?? '').replace(/\r\n/g, '\n').trimEnd();

/** The message sent for an item: to its address, with its subject, body and attachments (names, types, bytes). */
function expectSentAsBuilt(message: Parsed, item: Item, from = 'service@lab.example.com'): void {
	const json = item.json as { to: string; subject: string; html: string; text: string; replyTo?: string; attachmentFields: string };
	expect(message.envelope.rcptTo).toEqual([json.to]);
	expect(message.envelope.user).toBe(SMTP_USER);
	expect(message.to?.map((a) => ('address' in a ? a.address : undefined))).toEqual([json.to]);
	expect(message.from).toMatchObject({ address: from, name: 'Example Test Service' });
	expect(message.subject).toBe(json.subject);
	expect(normalized(message.html)).toBe(normalized(json.html));
	expect(normalized(message.text)).toBe(normalized(json.text));
	if (json.replyTo) expect(message.replyTo?.map((a) => ('address' in a ? a.address : undefined))).toEqual([json.replyTo]);
	const fields = json.attachmentFields === '' ? [] : json.attachmentFields.split(',');
	expect(message.attachments).toHaveLength(fields.length);
	for (const [n, field] of fields.entries()) {
		const ref = item.binary![field];
		const attached = message.attachments[n];
		expect(attached.filename).toBe(ref.fileName);
		expect(attached.mimeType).toBe(ref.mimeType);
		// The bytes the node produced (n8n keeps them on disk), byte for byte: a CSV's BOM included.
		expect(Buffer.from(attached.content as ArrayBuffer)).toEqual(storedBinary(inject('userFolder'), ref));
	}
}

/** Each item's message, found by recipient and subject (SMTP delivers them in the node's order, but not necessarily). */
function messageFor(messages: Parsed[], item: Item): Parsed {
	const found = messages.filter((m) => m.envelope.rcptTo[0] === item.json.to && m.subject === item.json.subject);
	expect(found, `${String(item.json.to)}: ${String(item.json.subject)}`).toHaveLength(1);
	return found[0];
}

describe('the e-mail templates in the n8n app, sent through Send Email to a real SMTP server', () => {
	it('email-customer-notices.json: one message per customer, in German or English, its CSV attached byte for byte; a second run sends nothing', async () => {
		const { execution, messages } = await run('notices');
		const items = itemsOf(execution, TEMPLATES.notices.build);
		expect(items.length).toBeGreaterThan(1);
		expect(itemsOf(execution, 'Skip e-mails already sent')).toHaveLength(items.length);
		expect(messages).toHaveLength(items.length);
		const languages = new Set<unknown>();
		for (const item of items) {
			const message = messageFor(messages, item);
			expectSentAsBuilt(message, item);
			languages.add(item.json.language);
			const csv = Buffer.from(message.attachments[0].content as ArrayBuffer);
			expect(message.attachments[0].filename).toMatch(/\.csv$/);
			expect(csv.subarray(0, 3)).toEqual(BOM);
			const header = csv.subarray(3).toString('utf8').split(/\r?\n/)[0];
			// German Excel splits at ';', English at ','.
			expect(header).toContain(item.json.language === 'de' ? ';' : ',');
			expect(header).not.toContain(item.json.language === 'de' ? ',' : ';');
		}
		expect(languages).toEqual(new Set(['de', 'en']));
		// Umlauts intact: a German notice, as the mail client decoded it.
		const german = items.find((i) => i.json.language === 'de')!;
		const message = messageFor(messages, german);
		expect(`${message.subject} ${message.text}`).toMatch(/[äöüÄÖÜß]/);
		expect(message.html).toContain('lang="de"');

		const again = await run('notices');
		expect(itemsOf(again.execution, TEMPLATES.notices.build)).toHaveLength(items.length);
		expect(itemsOf(again.execution, 'Skip e-mails already sent')).toEqual([]);
		expect(again.messages).toEqual([]);
	});

	it('email-daily-digest.json: the digest to its recipient, no attachment; a second run sends nothing', async () => {
		const { execution, messages } = await run('digest');
		const items = itemsOf(execution, TEMPLATES.digest.build);
		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject({ to: 'lab-lead@example.com', kind: 'digest', attachmentFields: '' });
		expect(messages).toHaveLength(1);
		expectSentAsBuilt(messageFor(messages, items[0]), items[0]);

		const again = await run('digest');
		expect(itemsOf(again.execution, TEMPLATES.digest.build)).toHaveLength(1);
		expect(itemsOf(again.execution, 'Skip e-mails already sent')).toEqual([]);
		expect(again.messages).toEqual([]);
	});

	it('email-failed-test-alert.json: the trigger’s failed result becomes an e-mail with the service’s PDF report attached', async () => {
		const { execution, messages } = await run('failedTest');
		const [result] = itemsOf(execution, workflows.failedTest.nodes[0].name);
		expect(result.json.status).toBe('failed');
		const items = itemsOf(execution, TEMPLATES.failedTest.build);
		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject({ to: 'quality@example.com', kind: 'failedTest', dedupeKey: `failedTest:sandbox:${String(result.json.id)}:quality@example.com` });
		expect(messages).toHaveLength(1);
		const message = messageFor(messages, items[0]);
		expectSentAsBuilt(message, items[0]);
		// The attachment is the service's own file of that result.
		const detail = await sandbox.api<{ files: Array<{ id: number; file_name: string }> }>(`/tests_performed/detailed/${String(result.json.id)}/`);
		expect(detail.files.length).toBeGreaterThan(0);
		const link = await sandbox.api<{ url: string }>(`/files/download_link/${detail.files[0].id}/`, 'PUT');
		expect(Buffer.from(message.attachments[0].content as ArrayBuffer)).toEqual(Buffer.from(await (await fetch(link.url)).arrayBuffer()));
		expect(message.attachments[0].filename).toBe(detail.files[0].file_name);
	});

	it('email-monthly-compliance-report.json: the report with its five CSVs (six in a month with measured-value warnings), names and bytes as the node built them; a second run sends nothing', async () => {
		const { execution, messages } = await run('compliance');
		const items = itemsOf(execution, TEMPLATES.compliance.build);
		expect(items).toHaveLength(1);
		const month = (items[0].json.content as { month?: string }).month ?? String(items[0].json.dedupeKey).split(':')[1];
		// A sixth CSV in a month with measured values near their limit (the section's rows in content).
		const warnings = (items[0].json.content as { measurementWarnings?: unknown[] }).measurementWarnings;
		const names = [`calibration-compliance-${month}.csv`, `failure-rates-${month}.csv`, `forecast-${month}.csv`, `interval-recommendations-${month}.csv`, `devices-out-of-line-${month}.csv`, ...(warnings && warnings.length > 0 ? [`measurement-warnings-${month}.csv`] : [])];
		expect(items[0].json.attachmentFields).toBe(names.map((_, i) => `attachment_${i}`).join(','));
		expect(messages).toHaveLength(1);
		const message = messageFor(messages, items[0]);
		expectSentAsBuilt(message, items[0]);
		expect(message.attachments.map((a) => a.filename)).toEqual(names);
		for (const a of message.attachments) expect(Buffer.from(a.content as ArrayBuffer).subarray(0, 3)).toEqual(BOM);

		const again = await run('compliance');
		expect(itemsOf(again.execution, TEMPLATES.compliance.build)).toHaveLength(1);
		expect(itemsOf(again.execution, 'Skip e-mails already sent')).toEqual([]);
		expect(again.messages).toEqual([]);
	});
});
