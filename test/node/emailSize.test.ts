/**
 * E-mails that arrive whole: at a large account (2,000 customers, 12,000 devices) every e-mail's
 * HTML stays under 100 KB (Gmail clips a body over about 102 KB); long lists end with "…and N
 * more" and the CSV attachments hold every row (UTF-8 with a byte-order mark; `;` between cells
 * in German, `,` in English, as each language's spreadsheet opens them).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { INodeExecutionData } from 'n8n-workflow';
import { addDays, monthBefore } from '../../client';
import { noticeMonthOf } from '../../email/notices';
import { DEVICE } from '../../sandbox/properties';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { getBinaryBuffer, paceNodeFaster } from '../support/n8n';
import { credentialsFor, run } from './helpers';

const BOM = '\uFEFF';
const bytes = (item: INodeExecutionData) => Buffer.byteLength(item.json.html as string, 'utf8');
async function csvOf(item: INodeExecutionData, field = 'attachment_0'): Promise<string> {
	return (await getBinaryBuffer(item.binary![field])).toString('utf8');
}

const LARGE = { devices: 12_000, customers: 2_000 };
const WHOLE = 100_000;
/** Requests per second of the sandbox and the node's pacer: the test is of the e-mails, not of pacing. */
const RATE = 200;

const sandbox = {} as Sandbox;
beforeAll(async () => {
	Object.assign(sandbox, await startSandbox({ port: 0, size: LARGE, ratePerSecond: RATE }));
	paceNodeFaster(sandbox.url, sandbox.sandboxToken, RATE);
}, 120_000);
afterAll(() => sandbox.stop());

describe('e-mails of a large account arrive whole', () => {
	it('the monthly compliance report: HTML under 100 KB, the customer table ends with "…and N more"', async () => {
		const month = monthBefore(sandbox.account.today().slice(0, 7));
		const { items, error } = await run(sandbox, { resource: 'email', operation: 'complianceReport', month, to: 'quality@lab.example.com' }, { credentials: credentialsFor(sandbox) });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		const { html, text, content } = items[0].json as { html: string; text: string; content: { customers: unknown[]; rows: unknown[] } };
		expect(content.customers.length).toBeGreaterThan(100);
		expect(Buffer.byteLength(html, 'utf8')).toBeLessThan(WHOLE);
		expect(html).toContain('more (the attached CSV has them all).');
		expect(text).toContain('more (see the attached CSV)');
		// The CSV of due dates holds every one, English: commas, a byte-order mark.
		const csv = await csvOf(items[0]);
		expect(csv.startsWith(`${BOM}month,device_id,designation,`)).toBe(true);
		expect(csv.split('\r\n').length - 2).toBe(content.rows.length);
		for (const field of ['attachment_1', 'attachment_2', 'attachment_3', 'attachment_4']) expect((await csvOf(items[0], field)).startsWith(BOM)).toBe(true);
		// The interval recommendations: every group of both groupings in their CSV, however many the body lists.
		const intervals = (content as unknown as { intervals: { groups: { designation: unknown[]; designationDepartment: unknown[] } } }).intervals.groups;
		expect((await csvOf(items[0], 'attachment_3')).trimEnd().split('\r\n').length - 1).toBe(intervals.designation.length + intervals.designationDepartment.length);
		// The month's measured-value warnings (drift below the threshold included, by the results poller's rule) add a sixth CSV.
		const warnings = (content as unknown as { measurementWarnings?: unknown[] }).measurementWarnings;
		expect(items[0].json.attachmentFields).toBe(`attachment_0,attachment_1,attachment_2,attachment_3,attachment_4${warnings ? ',attachment_5' : ''}`);
		if (warnings) expect((await csvOf(items[0], 'attachment_5')).trimEnd().split('\r\n').length - 1).toBe(warnings.length);
	}, 300_000);

	it('German: the report under 100 KB, its CSVs with semicolons', async () => {
		const month = monthBefore(sandbox.account.today().slice(0, 7));
		const { items, error } = await run(sandbox, { resource: 'email', operation: 'complianceReport', month, to: 'quality@lab.example.com', language: 'de' }, { credentials: credentialsFor(sandbox) });
		expect(error).toBeUndefined();
		expect(bytes(items[0])).toBeLessThan(WHOLE);
		for (const field of ['attachment_0', 'attachment_1', 'attachment_2', 'attachment_3', 'attachment_4']) {
			const [head] = (await csvOf(items[0], field)).split('\r\n');
			expect(head.startsWith(BOM)).toBe(true);
			expect(head).toContain(';');
			expect(head).not.toContain(',');
		}
	}, 300_000);

	it('the customer notices: every notice’s HTML under 100 KB', async () => {
		const month = noticeMonthOf(sandbox.account.today());
		const { items, error } = await run(sandbox, { resource: 'email', operation: 'customerNotices', month, options: { replyTo: 'booking@lab.example.com', maxRows: 1000 } }, { credentials: credentialsFor(sandbox) });
		expect(error).toBeUndefined();
		expect(items.length).toBeGreaterThan(100);
		for (const item of items) if (item.json.kind === 'customerNotice') expect(bytes(item)).toBeLessThan(WHOLE);
	}, 300_000);

	it('a customer with thousands of devices due: the notice under 100 KB, ending with "…and N more"; its CSV lists every device (German: semicolons)', async () => {
		const month = noticeMonthOf(sandbox.account.today());
		const [customerId] = [...sandbox.account.data.customers.keys()];
		const devices = [...sandbox.account.data.devices.values()].slice(0, 3000);
		for (const [n, d] of devices.entries()) {
			d.customer_id = customerId;
			d.values[DEVICE.nextTest] = addDays(`${month}-01`, n % 28);
		}
		try {
			for (const language of ['en', 'de']) {
				const { items, error } = await run(sandbox, { resource: 'email', operation: 'customerNotices', month, language, options: { replyTo: 'booking@lab.example.com', maxRows: 1000 } }, { credentials: credentialsFor(sandbox) });
				expect(error).toBeUndefined();
				const big = items.find((i) => (i.json.content as { customer?: { id: number } }).customer?.id === customerId)!;
				expect((big.json.content as { due: unknown[] }).due.length).toBeGreaterThanOrEqual(3000);
				expect(bytes(big)).toBeLessThan(WHOLE);
				expect(big.json.html).toMatch(language === 'en' ? /…and \d+ more/ : /… ?und \d+ weitere/);
				const csv = await csvOf(big);
				expect(csv.startsWith(BOM)).toBe(true);
				expect(csv.trimEnd().split('\r\n').length - 1).toBe((big.json.content as { due: unknown[]; overdue: unknown[] }).due.length + (big.json.content as { overdue: unknown[] }).overdue.length);
				expect(csv.split('\r\n')[0]).toContain(language === 'de' ? ';' : ',');
			}
		} finally {
			sandbox.account.reset();
		}
	}, 300_000);

	it('the daily digest with thousands of overdue devices: every digest under 100 KB, its lists ending with "…and N more"', async () => {
		const { items, error } = await run(sandbox, { resource: 'email', operation: 'digest', to: 'ops@lab.example.com', failedSince: new Date(Date.now() - 30 * 86_400_000).toISOString() }, { credentials: credentialsFor(sandbox) });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		const content = items[0].json.content as { stillOverdue: unknown[] };
		expect(content.stillOverdue.length).toBeGreaterThan(1000);
		expect(bytes(items[0])).toBeLessThan(WHOLE);
		expect(items[0].json.html).toMatch(/…and \d+ more/);
	}, 300_000);

	it('a failed test with thousands of failed steps: the e-mail under 100 KB, the steps left out counted', async () => {
		const [deviceId] = sandbox.account.data.devices.keys();
		const bad = sandbox.account.syncTestResult({ device_id: deviceId, status: 'failed', performed: { steps: 3000, failedSteps: 3000 } });
		const { items, error } = await run(sandbox, { resource: 'email', operation: 'failedTest', testResultId: String(bad.id), to: 'ops@lab.example.com' }, { credentials: credentialsFor(sandbox) });
		expect(error).toBeUndefined();
		expect(bytes(items[0])).toBeLessThan(WHOLE);
		expect(items[0].json.html).toMatch(/…and \d+ more failed steps/);
		expect((items[0].json.content as { failedStepCount: number }).failedStepCount).toBeGreaterThan(1000);
	}, 300_000);
});
