/** The customer re-test notices against the sandbox over real HTTP: what each says is the sandbox's truth, sent once per customer and month. */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeNotices, listedIn } from '../../email/notices';
import { noticeCustomerOf, noticeDeviceOf, readNoticeInput } from '../../client/noticesRead';
import { FileMailStore } from '../../lambdas/adapters/fileMailStore';
import { OutboxMailer } from '../../lambdas/adapters/outboxMailer';
import { appendNoticeLog } from '../../lambdas/email/local';
import { dueByCustomer, noticeMonthOf, noticesNamespace, NoticesError, runNotices, type NoticeDeps, type NoticeSent } from '../../lambdas/email/notices';
import { renderNotice } from '../../email/noticesRender';
import { parseEmailSettings, type EmailSettings } from '../../lambdas/email/settings';
import type { Mailer } from '../../lambdas/email/ports';
import { CUSTOMER, DEVICE } from '../../sandbox/properties';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { mimeParts } from '../support/localSes';
import { pollerClient } from '../reliability/support';
import { addDays, addMonths, dayIn, dayString } from '../../client/dates';
import { monthBefore } from '../../client/compliance';

const RATE = 200;
const HOSTILE = `<script>alert("x")</script> O'Brien & Söhne ‏שלום‏ 🔧 ${'x'.repeat(300)}`.slice(0, 300);

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, ratePerSecond: RATE });
	const customers = sandbox.account.table('customer');
	customers.get(2)!.values[CUSTOMER.name] = HOSTILE;
	customers.get(3)!.values[CUSTOMER.contactEmail] = 'not an address';
});
afterAll(() => sandbox.stop());

function settingsWith(notices: Record<string, unknown>, locale = 'en'): EmailSettings {
	return parseEmailSettings({ mailFrom: 'Lab service <service@lab.example.com>', locale, recipients: { default: ['ops@lab.example.com'] }, customerNotices: { enabled: true, replyTo: 'booking@lab.example.com', ...notices } }, 'test');
}

function deps(dir: string, settings: EmailSettings, mailer: Mailer = new OutboxMailer(join(dir, 'outbox'))): NoticeDeps {
	const client = pollerClient(sandbox, sandbox.sandboxToken, { ratePerSecond: RATE });
	return { store: new FileMailStore(join(dir, 'mail.json'), () => sandbox.account.now()), mailer, settings, environment: 'sandbox', now: () => sandbox.account.now(), read: () => readNoticeInput(client, () => sandbox.account.now(), 'UTC') };
}

/** The sandbox's own truth: each customer's devices due in the month, and those overdue today. */
function truth(month: string) {
	const today = sandbox.account.today();
	const out = new Map<number, { due: number[]; overdue: number[] }>();
	for (const d of sandbox.account.table('device').values()) {
		const next = d.values[DEVICE.nextTest];
		if (typeof next !== 'string' || d.customer_id === undefined) continue;
		const entry = out.get(d.customer_id) ?? { due: [], overdue: [] };
		if (next.slice(0, 7) === month) entry.due.push(d.id);
		if (next < today) entry.overdue.push(d.id);
		out.set(d.customer_id, entry);
	}
	return new Map([...out].sort(([a], [b]) => a - b).filter(([, e]) => e.due.length > 0).map(([id, e]) => [id, { due: e.due.sort((a, b) => a - b), overdue: e.overdue.sort((a, b) => a - b) }]));
}

/** A notice's files in the outbox: one per customer, `<address>_c<customer id>`. */
const fileOf = (s: { address: string; customerId: number }) => `${s.address}_c${s.customerId}`;

const sorted = (ids: Array<{ id: number }>) => ids.map((d) => d.id).sort((a, b) => a - b);

describe('customer re-test notices', () => {
	it("each customer's notice lists the sandbox's devices due next month and those overdue; no address, invalid address and opt-out reported; sent once across a repeat and a restart", async () => {
		const dir = mkdtempSync(join(tmpdir(), 'tec-notices-'));
		const month = noticeMonthOf(sandbox.account.today());
		const want = truth(month);
		const optOutId = [...want.keys()].find((id) => id !== 2 && id !== 3 && id !== 5)!;
		const optOutName = String(sandbox.account.table('customer').get(optOutId)!.values[CUSTOMER.name]);
		const settings = settingsWith({ optOut: [optOutName.toUpperCase()], locales: { [optOutName]: 'de' } });
		const report = await runNotices(deps(dir, settings), month);

		const expectSent = [...want.keys()].filter((id) => ![3, 5, optOutId].includes(id));
		expect(report.sent.map((s) => s.customerId).sort((a, b) => a - b)).toEqual(expectSent);
		expect(report.optedOut).toEqual([optOutName]);
		if (want.has(5)) expect(report.noAddress).toContainEqual(expect.objectContaining({ customerId: 5, reason: 'no contact e-mail in the service' }));
		if (want.has(3)) expect(report.noAddress).toContainEqual(expect.objectContaining({ customerId: 3, reason: expect.stringContaining('is not an e-mail address') }));
		expect(want.has(3) || want.has(5)).toBe(true);

		const folder = join(dir, 'outbox', `notices_${month}`);
		for (const sent of report.sent) {
			const { content } = JSON.parse(readFileSync(join(folder, `${fileOf(sent)}.json`), 'utf8'));
			expect(sorted(content.due), `customer ${sent.customerId}`).toEqual(want.get(sent.customerId)!.due);
			expect(sorted(content.overdue), `customer ${sent.customerId}`).toEqual(want.get(sent.customerId)!.overdue);
			const eml = mimeParts(readFileSync(join(folder, `${fileOf(sent)}.eml`), 'utf8'));
			expect(eml.headers['reply-to']).toBe('booking@lab.example.com');
			expect(eml.attachments[0].content.trim().split('\r\n')).toHaveLength(1 + content.due.length + content.overdue.length);
			const html = readFileSync(join(folder, `${fileOf(sent)}.html`), 'utf8');
			expect(html).toContain('<html lang="en">');
			for (const d of content.due) if (d.idBarcode) expect(eml.text).toContain(d.idBarcode);
		}

		// Hostile customer name: escaped in the HTML, whole in the text.
		if (want.has(2)) {
			const hostile = report.sent.find((s) => s.customerId === 2)!;
			const html = readFileSync(join(folder, `${fileOf(hostile)}.html`), 'utf8');
			expect(html).not.toContain('<script>');
			expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; O&#39;Brien &amp; Söhne');
			expect(mimeParts(readFileSync(join(folder, `${fileOf(hostile)}.eml`), 'utf8')).text).toContain(HOSTILE);
		}

		// The same month again, and again after a restart (new store and mailer on the same files): nothing more.
		const files = readdirSync(folder).length;
		const again = await runNotices(deps(dir, settings), month);
		expect(again.sent).toEqual([]);
		expect(again.alreadySent).toHaveLength(report.sent.length);
		expect(readdirSync(folder)).toHaveLength(files);
		const recorded: NoticeSent[] = [];
		for await (const { value } of new FileMailStore(join(dir, 'mail.json'), () => sandbox.account.now()).list<NoticeSent>(noticesNamespace(month))) recorded.push(value);
		expect(recorded.map((r) => r.customerId).sort((a, b) => a - b)).toEqual(expectSent);
	}, 120_000);

	it('renders in the customer\'s language (German: Wiederholungsprüfung, dates 27.11.2026, lang="de")', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'tec-notices-'));
		const month = noticeMonthOf(sandbox.account.today());
		const report = await runNotices(deps(dir, settingsWith({}, 'de')), month);
		const first = report.sent[0];
		const folder = join(dir, 'outbox', `notices_${month}`);
		const eml = mimeParts(readFileSync(join(folder, `${fileOf(first)}.eml`), 'utf8'));
		expect(eml.text).toContain('Wiederholungsprüfung');
		expect(eml.text).toMatch(/\d{2}\.\d{2}\.\d{4}/);
		expect(readFileSync(join(folder, `${fileOf(first)}.html`), 'utf8')).toContain('<html lang="de">');
		expect(eml.attachments[0].filename).toBe(`wiederholungspruefung-${month}.csv`);
	}, 120_000);

	it('a customer with 2,000 devices due: every one in the CSV, the body capped with "…and N more"', async () => {
		const devices = sandbox.account.table('device');
		const month = noticeMonthOf(sandbox.account.today());
		const base = Math.max(...devices.keys()) + 1;
		const template = [...devices.values()][0];
		for (let i = 0; i < 2000; i++) {
			devices.set(base + i, { ...template, id: base + i, customer_id: 1, values: { ...template.values, [DEVICE.idBarcode]: `BULK-${i}`, [DEVICE.nextTest]: `${month}-15` } });
		}
		try {
			const dir = mkdtempSync(join(tmpdir(), 'tec-notices-'));
			const report = await runNotices(deps(dir, settingsWith({ maxRows: 50 })), month);
			const one = report.sent.find((s) => s.customerId === 1)!;
			expect(one.dueDevices.length).toBe(truth(month).get(1)!.due.length);
			const eml = mimeParts(readFileSync(join(dir, 'outbox', `notices_${month}`, `${fileOf(one)}.eml`), 'utf8'));
			const csv = eml.attachments[0].content.trim().split('\r\n');
			expect(csv).toHaveLength(1 + one.dueDevices.length + one.overdueDevices.length);
			for (let i = 0; i < 2000; i += 199) expect(csv.some((line) => line.includes(`BULK-${i},`))).toBe(true);
			expect(eml.text).toContain(`…and ${one.dueDevices.length - 50} more`);
			expect(eml.html).toContain(`…and ${one.dueDevices.length - 50} more`);
		} finally {
			for (let i = 0; i < 2000; i++) devices.delete(base + i);
		}
	}, 180_000);

	it('one customer whose send fails does not stop the others; the run fails naming it, and a retry sends only it', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'tec-notices-'));
		const month = noticeMonthOf(sandbox.account.today());
		const outbox = new OutboxMailer(join(dir, 'outbox'));
		const victimId = [...truth(month).keys()].find((id) => ![2, 3, 5].includes(id))!;
		const victim = `facilities@customer${victimId}.example`;
		const rejecting: Mailer = { sendOnce: (r) => (r.email.to === victim ? Promise.reject(new Error('MessageRejected: address blacklisted')) : outbox.sendOnce(r)) };
		const settings = settingsWith({});
		const error = await runNotices(deps(dir, settings, rejecting), month).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(NoticesError);
		const report = (error as NoticesError).report;
		expect(report.failed.map((f) => f.address)).toEqual([victim]);
		expect(report.sent.length).toBeGreaterThan(1);
		const retry = await runNotices(deps(dir, settings), month);
		expect(retry.sent.map((s) => s.address)).toEqual([victim]);
		expect(existsSync(join(dir, 'outbox', `notices_${month}`, `${fileOf(retry.sent[0])}.eml`))).toBe(true);
	}, 120_000);

	it('two customers sharing an address each get their own notice (files named <address>_c<customer id>)', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'tec-notices-'));
		const month = noticeMonthOf(sandbox.account.today());
		const ids = [...truth(month).keys()].filter((id) => ![2, 3, 5].includes(id)).slice(0, 2);
		const names = ids.map((id) => String(sandbox.account.table('customer').get(id)!.values[CUSTOMER.name]));
		const report = await runNotices(deps(dir, settingsWith({ addresses: { [names[0]]: 'shared@site.example', [names[1]]: 'Shared@Site.example' } })), month);
		expect(report.sent.filter((s) => s.address === 'shared@site.example').map((s) => s.customerId)).toEqual(ids);
		expect(readdirSync(join(dir, 'outbox', `notices_${month}`)).filter((f) => f.startsWith('shared@') && f.endsWith('.eml')).sort()).toEqual(ids.map((id) => `shared@site.example_c${id}.eml`));
	}, 120_000);
});

describe('re-test notices keyed on the customer (issue 41, item 6)', () => {
	it('two customers sharing an address, the first without a usable one in the first run and fixed before the next: each gets its own notice, recorded with its own message id', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'tec-notices-'));
		const month = noticeMonthOf(sandbox.account.today());
		const [first, second] = [...truth(month).keys()].filter((id) => ![2, 3, 5].includes(id)).slice(0, 2);
		const customers = sandbox.account.table('customer');
		const was = [first, second].map((id) => customers.get(id)!.values[CUSTOMER.contactEmail]);
		try {
			customers.get(first)!.values[CUSTOMER.contactEmail] = 'not an address';
			customers.get(second)!.values[CUSTOMER.contactEmail] = 'shared@site.example';
			const one = await runNotices(deps(dir, settingsWith({})), month);
			expect(one.noAddress.map((c) => c.customerId)).toContain(first);
			customers.get(first)!.values[CUSTOMER.contactEmail] = 'shared@site.example';
			const two = await runNotices(deps(dir, settingsWith({})), month);
			expect(two.sent.map((s) => s.customerId)).toEqual([first]);
			const [a, b] = [two.sent[0], one.sent.find((s) => s.customerId === second)!];
			expect(a.messageId).not.toBe(b.messageId);
			// Two notices written, each naming its own customer.
			const folder = join(dir, 'outbox', `notices_${month}`);
			const emls = readdirSync(folder).filter((f) => f.startsWith('shared@') && f.endsWith('.eml'));
			expect(emls).toHaveLength(2);
			const names = emls.map((f) => mimeParts(readFileSync(join(folder, f), 'utf8')).text);
			for (const id of [first, second]) expect(names.some((t) => t.includes(String(customers.get(id)!.values[CUSTOMER.name])))).toBe(true);
		} finally {
			customers.get(first)!.values[CUSTOMER.contactEmail] = was[0];
			customers.get(second)!.values[CUSTOMER.contactEmail] = was[1];
		}
	}, 120_000);
});

describe('a notice in its language (issue 41, item 13)', () => {
	it('a German notice carries Content-Language: de; the default subjects say "1 device" / "1 Gerät", and the plural for more', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'tec-notices-'));
		const month = noticeMonthOf(sandbox.account.today());
		const report = await runNotices(deps(dir, settingsWith({}, 'de')), month);
		const eml = mimeParts(readFileSync(join(dir, 'outbox', `notices_${month}`, `${fileOf(report.sent[0])}.eml`), 'utf8'));
		expect(eml.headers['content-language']).toBe('de');
		const device = { id: 1, customerId: 1, designation: 'Drill', idBarcode: 'B1', department: null, location: null, nextTestDate: `${month}-10` };
		const notice = (locale: 'en' | 'de', due: (typeof device)[]) => renderNotice({ customerName: 'Acme', month, due, overdue: [], locale, replyTo: 'r@lab.example', companyName: 'Lab', environment: 'sandbox' }, settingsWith({}).customerNotices).subject;
		expect(notice('en', [device])).toContain(': 1 device at Acme');
		expect(notice('de', [device])).toContain(': 1 Gerät bei Acme');
		expect(notice('en', [device, { ...device, id: 2 }])).toContain(': 2 devices at Acme');
		expect(notice('de', [device, { ...device, id: 2 }])).toContain(': 2 Geräte bei Acme');
	}, 120_000);
});

describe('the audit log of the notices (issue 41, item 16)', () => {
	it('a crash between the audit line and the state record cannot lose the line: the line is written first, and once however often a rerun writes it', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'tec-notices-'));
		const month = noticeMonthOf(sandbox.account.today());
		const log = join(dir, 'notices-log.jsonl');
		let crashed: number | undefined;
		// The first notice's run dies right after its audit step (the process ends before anything else is written).
		const crashing = { ...deps(dir, settingsWith({})), onSent: (entry: NoticeSent) => {
			appendNoticeLog(log, entry);
			if (crashed === undefined) {
				crashed = entry.customerId;
				throw new Error('the process ended');
			}
		} };
		await runNotices(crashing, month).catch(() => undefined);
		expect(crashed).toBeDefined();
		const again = await runNotices({ ...deps(dir, settingsWith({})), onSent: (entry) => appendNoticeLog(log, entry) }, month);
		const lines = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as NoticeSent);
		expect(lines.filter((l) => l.customerId === crashed)).toHaveLength(1);
		expect(new Set(lines.map((l) => l.customerId)).size).toBe(lines.length);
		expect(again.sent.map((e) => e.customerId)).toContain(crashed);
	}, 120_000);
});

describe('the audit log cut short', () => {
	it('a line cut short by a crash (a full disk) is closed before the repeated line, which stays readable', () => {
		const dir = mkdtempSync(join(tmpdir(), 'tec-notices-'));
		const log = join(dir, 'notices-log.jsonl');
		const entry: NoticeSent = { month: '2026-12', customerId: 7, customerName: 'Acme', address: 'a@acme.example', locale: 'en', messageId: '<m@x>', sentAt: '2026-11-01T06:00:00.000Z', dueDevices: [1], overdueDevices: [] };
		writeFileSync(log, JSON.stringify(entry).slice(0, 20));
		appendNoticeLog(log, entry);
		const lines = readFileSync(log, 'utf8').split('\n').filter((l) => l !== '');
		expect(lines).toHaveLength(2);
		expect(JSON.parse(lines[1])).toEqual(entry);
	});
});

describe('customer notice settings', () => {
	it('off by default; a template with an unknown placeholder is refused, naming it and the valid ones', () => {
		expect(parseEmailSettings({ mailFrom: 'a@b.example', recipients: { default: ['c@d.example'] } }, 'test').customerNotices.enabled).toBe(false);
		expect(() => settingsWith({ subject: 'Due in {month} for {customer}' })).toThrow(/customerNotices\.subject: unknown placeholder \{customer\}; valid placeholders are \{customerName\}/);
		expect(() => settingsWith({ introduction: 'Hello {custmerName}' })).toThrow(/customerNotices\.introduction: unknown placeholder \{custmerName\}/);
		expect(() => settingsWith({ locales: { Acme: 'fr' } })).toThrow(/customerNotices\.locales: "Acme": "fr" is not a language; valid languages are en, de/);
		expect(() => settingsWith({ addresses: { Acme: 'nope' } })).toThrow(/customerNotices\.addresses: "Acme": "nope" is not an e-mail address/);
		expect(() => settingsWith({ colour: 'red' })).toThrow(/customerNotices: unknown "colour"; valid keys are/);
	});
});

describe('reading records for the notices', () => {
	it('a record without a usable id is skipped; missing properties read as null; the month after December is January', () => {
		expect(noticeDeviceOf({ id: 'x' })).toBeUndefined();
		expect(noticeDeviceOf(null)).toBeUndefined();
		expect(noticeCustomerOf({ id: -1 })).toBeUndefined();
		expect(noticeCustomerOf({ id: 7, properties: [] })).toEqual({ id: 7, name: '#7', email: null });
		const d = noticeDeviceOf({ id: 3, customer_id: 7, properties: [{ key_id: DEVICE.location, name: 'Location', value: 'Hall 2' }, { key_id: DEVICE.nextTest, name: 'Next test', value: '2027-01-15' }] })!;
		expect(d).toMatchObject({ id: 3, customerId: 7, location: 'Hall 2', nextTestDate: '2027-01-15', designation: null });
		const input = { today: '2026-12-01', customers: [{ id: 7, name: 'Acme', email: null }], devices: [d, { ...d, id: 4, nextTestDate: null }, { ...d, id: 5, nextTestDate: '2026-11-02' }], skippedRecords: 0 };
		expect(dueByCustomer(input, noticeMonthOf('2026-12-01')).map((c) => [c.customer.id, ids(c.due), ids(c.overdue)])).toEqual([[7, [3], [5]]]);
		expect(noticeMonthOf('2026-12-31')).toBe('2027-01');
	});
});

const ids = (list: Array<{ id: number }>) => list.map((x) => x.id);

describe("the notices' today", () => {
	it("is the account's day (its time zone), as the notice's month: in Sydney on the 1st at 2 am a device due on the last day of the month before is listed as overdue", async () => {
		const sb = await startSandbox({ port: 0, ratePerSecond: RATE });
		try {
			// 16:00 UTC on the last day of this month: 02:00 or 03:00 on the 1st of the next in Sydney.
			const last = addDays(`${monthBefore(dayString(sb.account.now()).slice(0, 7), -1)}-01`, -1);
			sb.account.clockOffsetMs += Date.parse(`${last}T16:00:00Z`) - sb.account.now();
			const sydney = dayIn(sb.account.now(), 'Australia/Sydney');
			expect(sydney).toBe(addDays(last, 1));
			const month = noticeMonthOf(sydney);
			// Device 1 due on the UTC day (the last of the month), device 2 of the same customer due in the notice's month.
			sb.account.edit('device', { id: 1, properties: { [DEVICE.testInterval]: 1, [DEVICE.lastTested]: addMonths(last, -1) } }, 't');
			expect(sb.account.get('device', 1).values[DEVICE.nextTest]).toBe(last);
			const customerId = sb.account.get('device', 1).customer_id!;
			sb.account.edit('device', { id: 2, customer_id: customerId, properties: { [DEVICE.testInterval]: 1, [DEVICE.lastTested]: `${monthBefore(month)}-10` } }, 't');
			const client = pollerClient(sb, sb.sandboxToken, { ratePerSecond: RATE });
			const input = await readNoticeInput(client, () => sb.account.now(), 'Australia/Sydney');
			expect(input.today).toBe(sydney);
			const notice = dueByCustomer(input, month).find((c) => c.customer.id === customerId)!;
			expect(ids(notice.due)).toContain(2);
			expect(ids(notice.overdue)).toContain(1);
		} finally {
			await sb.stop();
		}
	});
});

describe('re-test notices from only the devices a notice of the month lists (listedIn)', () => {
	const day = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);
	it('are the same notices as from every device', () => {
		fc.assert(
			fc.property(
				fc.array(fc.record({ customer: fc.integer({ min: 0, max: 3 }), next: fc.option(fc.integer({ min: 0, max: 500 })), designation: fc.constantFrom('Drill', 'Kettle', null) }), { maxLength: 40 }),
				fc.constantFrom('2026-06', '2026-12', '2027-01'),
				(specs, month) => {
					const customers = [1, 2, 3].map((id) => ({ id, name: `Customer ${id}`, email: `c${id}@example.com` }));
					const devices = specs.map((s, i) => ({ id: i + 1, customerId: s.customer === 0 ? null : s.customer, designation: s.designation, idBarcode: `B${i}`, department: null, location: null, nextTestDate: s.next === null ? null : day(s.next) }));
					const today = `${monthBefore(month)}-20`;
					const settings = { addresses: {}, optOut: [], locales: {}, maxRows: 50 };
					const c = { locale: 'en' as const, replyTo: 'service@lab.example.com', companyName: 'Lab', environment: 'sandbox' as const };
					const keep = listedIn(month);
					const whole = composeNotices({ today, customers, devices, skippedRecords: 0 }, month, settings, c);
					const listed = composeNotices({ today, customers, devices: devices.filter((d) => keep(d, today)), skippedRecords: 0 }, month, settings, c);
					expect(listed).toEqual(whole);
				},
			),
			{ numRuns: 200 },
		);
	});
});
