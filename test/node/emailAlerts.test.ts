/**
 * E-mail › Build Daily Digests and Build Failed-Test E-mails in n8n's engine against the sandbox:
 * one item per e-mail, byte for byte the e-mails the Lambdas send for the same inputs (the
 * Lambdas' own path: the failed test's event from FailedEvidence, filed and sent by onEvent; the
 * digest by runDigest over the facts the pollers would have filed and their view); bad parameters
 * refused by name, or on the error output when chosen.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import { addDays, daysBetween, todayOf, type ServiceClient } from '../../client';
import { makeEvent, type TecEvent } from '../../lambdas/events/event';
import { DETAIL_TYPES, type DueDevice, type OverdueDevice } from '../../lambdas/events/schemas';
import { onEvent, runDigest, type DigestDeps } from '../../lambdas/email/digest';
import { readEmailEvent, type EmailEvent } from '../../lambdas/email/events';
import { instantIn } from '../../nodes/TestEquipmentCloud/actions/email/common';
import { NS as MAIL_NS, type Fact } from '../../lambdas/email/facts';
import type { MailStore, Mailer, OutgoingEmail } from '../../lambdas/email/ports';
import { parseEmailSettings } from '../../lambdas/email/settings';
import { newReport, type PollerContext } from '../../lambdas/pollers/context';
import { FailedEvidence } from '../../lambdas/pollers/failedEvidence';
import { readOverdueDevice, readTestResult, passedOf } from '../../lambdas/pollers/records';
import { NS as POLLER_NS } from '../../lambdas/pollers/state';
import { silentLog } from '../../lambdas/ports';
import { CUSTOMER, DEVICE } from '../../sandbox/properties';
import { pollerClient } from '../reliability/support';
import { recordPollerWarnings, type WarningStore } from '../support/measuredWarnings';
import { getBinaryBuffer } from '../support/n8n';
import { run, useSandbox } from './helpers';

// At a raised rate: these tests are of the e-mails, not of pacing.
const sandbox = useSandbox({ ratePerSecond: 200 });
const TZ = 'Europe/Berlin';
const dayIn = (ms: number) => new Intl.DateTimeFormat('en-CA', { timeZone: TZ, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(ms));

function keepingMailer(): Mailer & { sent: OutgoingEmail[] } {
	const sent: OutgoingEmail[] = [];
	return { sent, sendOnce: async ({ email }) => (sent.push(email), { messageId: `m${sent.length}`, factKeys: [] }) };
}

/** A mail store in memory (the Lambdas' MailStore port). */
function memoryStore(): MailStore {
	const data = new Map<string, Map<string, unknown>>();
	const ns = (n: string) => data.get(n) ?? data.set(n, new Map()).get(n)!;
	return {
		get: async <T>(n: string, k: string) => ns(n).get(k) as T | undefined,
		putMany: async (n, items) => void items.forEach((i) => ns(n).set(i.key, i.value)),
		deleteMany: async (n, keys) => void keys.forEach((k) => ns(n).delete(k)),
		list: async function* <T>(n: string) {
			for (const [key, value] of ns(n)) yield { key, value: value as T };
		},
	} as MailStore;
}

/** The Lambdas' Test Result Failed event of a result, as the test results poller builds it. */
async function failedEvent(client: ServiceClient, id: number): Promise<TecEvent | undefined> {
	const ctx = { client, environment: 'sandbox', now: () => sandbox.account.now(), log: silentLog, metrics: { count: () => undefined } } as unknown as PollerContext;
	const r = readTestResult(await client.call('testResult.get', { pathParams: { id } }))!;
	const recorded = makeEvent(
		DETAIL_TYPES.testResultRecorded,
		ctx,
		`test-result-recorded:sandbox:${r.id}`,
		{ testResult: { id: r.id, status: r.status, passed: passedOf(r.status), testDate: r.testDate, syncedTime: r.syncedTime, projectId: r.projectId, testSequence: r.testSequence, tester: r.tester }, device: { id: r.deviceId, customerId: r.customerId } },
		ctx.now(),
	);
	return (await new FailedEvidence(ctx, newReport('testResults')).eventsFor(recorded))[0];
}

/**
 * The results poller's measured-value alerts over the results uploaded since `since`, in the order
 * of upload (test/support/measuredWarnings.ts): what it records for the e-mails, in `store`.
 */
async function pollerWarnings(client: ServiceClient, since: number, store: MailStore): Promise<void> {
	const results: Array<NonNullable<ReturnType<typeof readTestResult>>> = [];
	for await (const raw of client.items('testResult.list', { filters: [{ key: 'synced_time', conditions: [{ keyword: 'newerOrSame', value: addDays(dayIn(since), -1) }] }] }, { pageSize: client.maxPageSize })) {
		const r = readTestResult(raw)!;
		if (Date.parse(r.syncedTime!) >= since) results.push(r);
	}
	results.sort((a, b) => Date.parse(a.syncedTime!) - Date.parse(b.syncedTime!) || a.id - b.id);
	await recordPollerWarnings(client, results, store as unknown as WarningStore, () => sandbox.account.now());
}

const emailEvent = (e: TecEvent) => readEmailEvent(JSON.parse(JSON.stringify(e))) as EmailEvent;

function lambdaDeps(recipients: unknown, locale: string, store: MailStore = memoryStore(), view: DigestDeps['view'] = { list: async function* () {} }) {
	const mailer = keepingMailer();
	const settings = parseEmailSettings({ mailFrom: 'alerts@lab.example.com', locale, recipients, immediateFailedTests: true }, 'test');
	const deps: DigestDeps = { store, mailer, view, settings, timeZone: TZ, environment: 'sandbox', now: () => Date.now() };
	return { deps, mailer };
}

const customerNames = () => [...sandbox.account.table('customer').values()].map((c) => String(c.values[CUSTOMER.name]));

/** An instant as a wall-clock time in a time zone, without an offset (YYYY-MM-DDTHH:mm:ss). */
function wallTime(instant: number, timeZone: string): string {
	const p = Object.fromEntries(new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(new Date(instant)).map((x) => [x.type, x.value]));
	return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}`;
}

describe('a date and time without an offset is read in the workflow’s time zone (instantIn)', () => {
	it('reads back the instant whose wall-clock time it is, in any zone, across DST changes; with an offset as written', () => {
		const zones = ['Europe/Berlin', 'America/New_York', 'Pacific/Kiritimati', 'Australia/Lord_Howe', 'UTC', 'Asia/Kolkata'];
		fc.assert(
			fc.property(fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 0, 1) }), fc.constantFrom(...zones), (t, zone) => {
				const instant = t - (t % 1000);
				const wall = wallTime(instant, zone);
				const back = instantIn(wall, zone);
				// A wall time a DST fall-back repeats names two instants: either is its reading.
				expect(wallTime(back, zone)).toBe(wall);
				expect(instantIn(new Date(instant).toISOString(), zone)).toBe(instant);
			}),
		);
		expect(instantIn('2026-11-28', 'Europe/Berlin')).toBe(Date.parse('2026-11-27T23:00:00Z'));
		expect(instantIn('2026-11-28T06:00:00+01:00', 'America/New_York')).toBe(Date.parse('2026-11-28T05:00:00Z'));
		expect(instantIn('yesterday', 'UTC')).toBeNaN();
	});
});

describe('E-mail › Build Failed-Test E-mails', () => {
	it('the trigger’s new result maps without an expression: one item per recipient, the same bytes as the Lambdas’ failed-test e-mail, the PDF report attached', async () => {
		const deviceId = [...sandbox.account.data.devices.keys()][3];
		const bad = sandbox.account.syncTestResult({ device_id: deviceId, status: 'failed', performed: { steps: 6, failedSteps: 3 } });
		const owner = sandbox.account.get('device', deviceId);
		const customer = owner.customer_id === undefined ? 'nobody' : String(sandbox.account.data.customers.get(owner.customer_id)!.values[CUSTOMER.name]);
		const rules = { customers: { [customer]: ['custodian@acme.example'] }, locales: { 'custodian@acme.example': 'de' } };
		const { items, error } = await run(sandbox, { resource: 'email', operation: 'failedTest', to: 'ops@lab.example.com', recipients: JSON.stringify(rules), language: 'en', options: { attachReport: true } }, { inputItems: [{ json: { id: bad.id, status: 'failed', device_id: deviceId } }], workflowSettings: { timezone: TZ } });
		expect(error).toBeUndefined();

		const client = pollerClient(sandbox, sandbox.sandboxToken);
		const event = await failedEvent(client, bad.id);
		expect(event).toBeDefined();
		const { deps, mailer } = lambdaDeps({ default: ['ops@lab.example.com'], ...rules }, 'en');
		await onEvent(deps, emailEvent(event!));
		expect(mailer.sent.length).toBeGreaterThan(0);
		expect(items.map((i) => i.json.to)).toEqual(mailer.sent.map((e) => e.to));
		for (const [n, item] of items.entries()) {
			const email = mailer.sent[n];
			expect(item.json).toMatchObject({ subject: email.subject, kind: 'failedTest', language: email.locale ?? 'en', dedupeKey: `failedTest:sandbox:${bad.id}:${email.to}`, attachmentFields: 'attachment_0' });
			expect(item.json.html).toBe(email.html);
			expect(item.json.text).toBe(email.text);
			expect((item.json.content as IDataObject).failedStepCount).toBe(3);
			const pdf = item.binary!.attachment_0;
			expect([pdf.fileName, pdf.mimeType]).toEqual([`test-report-${bad.id}.pdf`, 'application/pdf']);
			expect((await getBinaryBuffer(pdf)).toString('latin1')).toMatch(/^%PDF-1\.4[\s\S]*Test report \d+ - device \d+/);
			expect(item.json).not.toHaveProperty('_files');
		}
		expect(items.map((i) => i.json.language)).toContain('de');
	});

	it('a result that did not fail gives no e-mail and says so; without the option no attachment', async () => {
		const deviceId = [...sandbox.account.data.devices.keys()][0];
		const good = sandbox.account.syncTestResult({ device_id: deviceId, status: 'passed' });
		const passed = await run(sandbox, { resource: 'email', operation: 'failedTest', testResultId: String(good.id), to: 'ops@lab.example.com' });
		expect(passed.items).toEqual([]);
		expect(passed.run.data.resultData.runData['Test Equipment Cloud'][0].hints?.map((h) => h.message).join()).toContain(`Test result ${good.id} did not fail`);
		const bad = sandbox.account.syncTestResult({ device_id: deviceId, status: 'failed' });
		const plain = await run(sandbox, { resource: 'email', operation: 'failedTest', testResultId: String(bad.id), to: 'ops@lab.example.com' });
		expect(plain.items).toHaveLength(1);
		expect(plain.items[0].binary).toBeUndefined();
		expect(plain.items[0].json.attachmentFields).toBe('');
	});

	it('a failed result no rule routes and no To: no e-mail, said in an execution hint', async () => {
		const deviceId = [...sandbox.account.data.devices.keys()][0];
		const bad = sandbox.account.syncTestResult({ device_id: deviceId, status: 'failed' });
		const { items, run: execution, error } = await run(sandbox, { resource: 'email', operation: 'failedTest', testResultId: String(bad.id), to: '', recipients: JSON.stringify({ customers: { 'No Such Customer': ['x@example.com'] } }) });
		expect(error).toBeUndefined();
		expect(items).toEqual([]);
		expect(execution.data.resultData.runData['Test Equipment Cloud'][0].hints?.map((h) => h.message).join()).toContain(`Test result ${bad.id} failed, but no routing rule routes its device and To is empty`);
	});

	it.each([
		[{ testResultId: 'abc' }, 'Test Result ID: expected a test result ID (a positive whole number), got "abc"'],
		[{ testResultId: '={{ $json.id }}' }, 'Test Result ID: required: the ID of a test result (the incoming item has no "id")'],
		[{ to: 'nobody' }, 'To: "nobody" is not an e-mail address'],
		[{ to: '' }, 'To: required'],
		[{ recipients: '{"departments": [' }, 'Recipients (Routing Rules): not valid JSON'],
		[{ language: 'fr' }, 'Language: must be one of en, de, got "fr"'],
	])('bad input %j is refused naming the parameter', async (bad, message) => {
		const { error } = await run(sandbox, { resource: 'email', operation: 'failedTest', testResultId: '1', to: 'ops@lab.example.com', ...bad });
		expect(error?.message).toContain(message);
	});

	it('a bad item leaves by the error output when chosen, the good ones go on', async () => {
		const deviceId = [...sandbox.account.data.devices.keys()][0];
		const bad = sandbox.account.syncTestResult({ device_id: deviceId, status: 'failed' });
		const { outputs, error } = await run(sandbox, { resource: 'email', operation: 'failedTest', to: 'ops@lab.example.com' }, { nodeSettings: { onError: 'continueErrorOutput' }, inputItems: [{ json: { id: bad.id } }, { json: { id: 'x' } }] });
		expect(error).toBeUndefined();
		expect(outputs[0].map((i) => i.json.dedupeKey)).toEqual([`failedTest:sandbox:${bad.id}:ops@lab.example.com`]);
		expect(outputs[1][0].json.error).toContain('Test Result ID: expected a test result ID');
		expect(outputs[1][0].pairedItem).toEqual({ item: 1 });
	});
});

describe('E-mail › Build Daily Digests', () => {
	/**
	 * The Lambdas' digest of `day` after the pollers saw the account since `since`: their view
	 * (the overdue list as the overdue poller stores it, the devices in a lead stage as the due-soon
	 * poller stores them) and the facts their events filed (overdue since, entered a stage since,
	 * failed since), sent by runDigest.
	 */
	async function lambdaDigests(since: number, day: string, recipients: unknown, locale: string, warnings = false) {
		const client = pollerClient(sandbox, sandbox.sandboxToken);
		const today = todayOf(Date.now(), TZ);
		const sinceDay = dayIn(since);
		const store = memoryStore();
		const overdueState = new Map<string, unknown>();
		const dueState = new Map<string, unknown>();
		const facts: Fact[] = [];
		for await (const raw of client.items('overdueDevice.list', {}, { pageSize: client.maxPageSize })) {
			const d = readOverdueDevice(raw, client.profile)!;
			overdueState.set(String(d.id), { overdue: true, episode: 1, device: d });
			if (d.nextTestDate! >= sinceDay) facts.push({ kind: 'overdue', key: `device-overdue:${d.id}:1`, at: '', device: d, episode: 1 });
		}
		for await (const raw of client.items('device.list', {}, { pageSize: client.maxPageSize })) {
			const d = readOverdueDevice(raw, client.profile)!;
			const due = d.nextTestDate?.slice(0, 10);
			if (!due || due < today) continue;
			const left = daysBetween(day, due);
			const stage = [30, 7].filter((s) => left <= s && daysBetween(sinceDay, due) > s).pop();
			if (stage === undefined || left < 0) continue;
			const { daysOverdue: _omit, ...rest } = d;
			const device: DueDevice = { ...rest, customerName: d.customerName ?? nameOf(d.customerId), nextTestDate: due, daysLeft: left };
			dueState.set(String(d.id), { due, stage, device: (({ daysLeft: _d, ...x }) => x)(device) });
			facts.push({ kind: 'dueSoon', key: `device-due-soon:${d.id}:${due}:${stage}`, at: '', device, stage });
		}
		for await (const raw of client.items('testResult.list', { filters: [{ key: 'synced_time', conditions: [{ keyword: 'newerOrSame', value: addDays(sinceDay, -1) }] }] }, { pageSize: client.maxPageSize })) {
			const r = readTestResult(raw)!;
			if (r.status !== 'failed' || Date.parse(r.syncedTime!) < since) continue;
			const e = emailEvent((await failedEvent(client, r.id))!);
			if (e['detail-type'] === DETAIL_TYPES.testResultFailed) {
				const d = e.detail.data;
				facts.push({ kind: 'failed', key: e.detail.metadata.dedupeKey, at: '', device: d.device, testResult: d.testResult, failedSteps: d.failedSteps, failedStepCount: d.failedStepCount, truncatedSteps: d.truncatedSteps });
			}
		}
		await store.putMany(MAIL_NS.facts, facts.map((f) => ({ key: f.key, value: f })));
		const pollerState = memoryStore();
		if (warnings) await pollerWarnings(client, since, pollerState);
		const view: DigestDeps['view'] = {
			list: async function* <T>(ns: string) {
				if (ns === POLLER_NS.measurementWarnings('sandbox')) return yield* pollerState.list<T>(ns);
				const from = ns === POLLER_NS.overdue('sandbox') ? overdueState : ns === POLLER_NS.dueSoon('sandbox') ? dueState : new Map();
				for (const [key, value] of from) yield { key, value: value as T };
			},
		};
		const { deps, mailer } = lambdaDeps(recipients, locale, store, view);
		await runDigest(deps, day);
		return { sent: mailer.sent, facts };
	}
	const nameOf = (id: number | null) => (id === null ? null : String(sandbox.account.data.customers.get(id)?.values[CUSTOMER.name] ?? null));

	it('one item per recipient, the same subject, HTML and text as the Lambdas’ digest: newly and still overdue, failed tests, coming due', async () => {
		const devices = [...sandbox.account.data.devices.keys()];
		for (const id of devices.slice(0, 3)) sandbox.account.syncTestResult({ device_id: id, status: 'failed', performed: { steps: 4, failedSteps: 2 } });
		const since = Date.now() - 12 * 86_400_000;
		const day = dayIn(Date.now());
		const rules = { customers: { [customerNames()[0]]: ['custodian@acme.example'] }, escalation: { afterDays: 60, to: ['manager@lab.example.com'] } };
		// The demo's own results of these 12 days: the poller's memory of their devices' values is not rebuilt here (the warnings' own test below compares them).
		const { items, error } = await run(sandbox, { resource: 'email', operation: 'digest', to: 'ops@lab.example.com', recipients: JSON.stringify(rules), failedSince: new Date(since).toISOString(), language: 'en', options: { measurementWarnings: false } }, { workflowSettings: { timezone: TZ } });
		expect(error).toBeUndefined();
		const lambda = await lambdaDigests(since, day, { default: ['ops@lab.example.com'], ...rules }, 'en');
		// Every kind of row is there to compare.
		expect(new Set(lambda.facts.map((f) => f.kind))).toEqual(new Set(['overdue', 'dueSoon', 'failed']));
		expect(lambda.sent.length).toBeGreaterThan(1);
		expect(items.map((i) => i.json.to)).toEqual(lambda.sent.map((e) => e.to));
		for (const [n, item] of items.entries()) {
			const email = lambda.sent[n];
			expect(item.json).toMatchObject({ subject: email.subject, kind: 'digest', language: 'en', dedupeKey: `digest:sandbox:${day}:${email.to}`, attachmentFields: '' });
			expect(item.json.text).toBe(email.text);
			expect(item.json.html).toBe(email.html);
		}
		const ops = items.find((i) => i.json.to === 'ops@lab.example.com')!.json.content as { failedTests: unknown[]; newlyOverdue: OverdueDevice[]; stillOverdue: OverdueDevice[] };
		expect(ops.failedTests.length + ops.newlyOverdue.length + ops.stillOverdue.length).toBeGreaterThan(0);
	});

	it('a recipient at a domain with umlauts: the same address (Punycode, as SES takes it), bytes and dedupeKey as the Lambdas’ digest', async () => {
		const devices = [...sandbox.account.data.devices.keys()];
		sandbox.account.syncTestResult({ device_id: devices[0], status: 'failed', performed: { steps: 4, failedSteps: 2 } });
		const since = Date.now() - 12 * 86_400_000;
		const day = dayIn(Date.now());
		// The demo's measured values: the poller's memory of them is not rebuilt here (the warnings' own tests compare them).
		const { items, error } = await run(sandbox, { resource: 'email', operation: 'digest', to: 'QS@Prüfdienst-Müller.de', failedSince: new Date(since).toISOString(), language: 'de', options: { measurementWarnings: false } }, { workflowSettings: { timezone: TZ } });
		expect(error).toBeUndefined();
		const lambda = await lambdaDigests(since, day, { default: ['QS@Prüfdienst-Müller.de'] }, 'de');
		expect(lambda.sent.map((e) => e.to)).toEqual(['qs@xn--prfdienst-mller-0vbj.de']);
		expect(items.map((i) => i.json.to)).toEqual(lambda.sent.map((e) => e.to));
		expect(items[0].json).toMatchObject({ subject: lambda.sent[0].subject, dedupeKey: `digest:sandbox:${day}:qs@xn--prfdienst-mller-0vbj.de` });
		expect(items[0].json.text).toBe(lambda.sent[0].text);
		expect(items[0].json.html).toBe(lambda.sent[0].html);
	});

	it('Failed Tests Since without an offset (as n8n’s date picker gives it) is a wall-clock time in the workflow’s time zone', async () => {
		const zone = 'Pacific/Kiritimati'; // UTC+14: read as UTC it would be 14 hours later
		const since = Date.now() - 2 * 86_400_000;
		const wall = wallTime(since, zone);
		const deviceId = [...sandbox.account.data.devices.keys()][5];
		const bad = sandbox.account.syncTestResult({ device_id: deviceId, status: 'failed', synced_time: new Date(since + 3_600_000).toISOString() });
		const { items, error } = await run(sandbox, { resource: 'email', operation: 'digest', to: 'ops@lab.example.com', failedSince: wall }, { workflowSettings: { timezone: zone } });
		expect(error).toBeUndefined();
		const failed = (items[0].json.content as { failedTests: Array<{ testResultId: number }> }).failedTests.map((f) => f.testResultId);
		expect(failed).toContain(bad.id);
	});

	it('German by the routing rules’ locales, the same bytes as the Lambdas’', async () => {
		const since = Date.now() - 12 * 86_400_000;
		const day = dayIn(Date.now());
		const rules = { locales: { 'ops@lab.example.com': 'de' } };
		// The demo's own results of these 12 days: the poller's memory of their devices' values is not rebuilt here (the warnings' own test below compares them).
		const { items } = await run(sandbox, { resource: 'email', operation: 'digest', to: 'ops@lab.example.com', recipients: JSON.stringify(rules), failedSince: new Date(since).toISOString(), options: { measurementWarnings: false } }, { workflowSettings: { timezone: TZ } });
		const lambda = await lambdaDigests(since, day, { default: ['ops@lab.example.com'], ...rules }, 'en');
		expect(items).toHaveLength(1);
		expect(items[0].json.language).toBe('de');
		expect(items[0].json.html).toBe(lambda.sent[0].html);
		expect(items[0].json.subject).toBe(lambda.sent[0].subject);
	});

	it('measured values near their limit: a known series uploaded through the admin API is listed for the device’s recipient with value, limit, share, test date and the predicted limit day against the next due date; the same bytes as the Lambdas’ digest from what the results poller recorded, in English and German; the option leaves the section out', async () => {
		const today = sandbox.account.today();
		const [device] = [...sandbox.account.data.devices.values()].filter((d) => typeof d.values[DEVICE.testInterval] === 'number' && d.customer_id !== null);
		for (const [id, r] of sandbox.account.data.testResults) if (r.device_id === device.id) sandbox.account.data.testResults.delete(id);
		const customer = String(sandbox.account.data.customers.get(device.customer_id!)!.values[CUSTOMER.name]);
		const since = sandbox.account.now() - 1000;
		const PE = 'Protective conductor resistance';
		const ids: number[] = [];
		for (const [offset, value] of [[-360, 0.1], [-180, 0.15], [0, 0.24]] as const) {
			const res = await fetch(`${sandbox.adminUrl}/test-results`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ device_id: device.id, test_date: addDays(today, offset), measurements: [{ step: PE, value, unit: 'Ω', high_limit: 0.3 }, { step: 'Insulation resistance', value: 200, unit: 'MΩ', low_limit: 1 }] }),
			});
			expect(res.status).toBe(201);
			ids.push(((await res.json()) as { id: number }).id);
		}
		const day = dayIn(Date.now());
		const rules = { customers: { [customer]: ['custodian@acme.example'] } };
		const nextTest = sandbox.account.data.devices.get(device.id)!.values[DEVICE.nextTest] as string;
		for (const language of ['en', 'de'] as const) {
			const { items, error } = await run(sandbox, { resource: 'email', operation: 'digest', to: 'ops@lab.example.com', recipients: JSON.stringify(rules), failedSince: new Date(since).toISOString(), language }, { workflowSettings: { timezone: TZ } });
			expect(error).toBeUndefined();
			const lambda = await lambdaDigests(since, day, { default: ['ops@lab.example.com'], ...rules }, language, true);
			expect(items.map((i) => i.json.to)).toEqual(lambda.sent.map((e) => e.to));
			for (const [n, item] of items.entries()) {
				expect(item.json.subject).toBe(lambda.sent[n].subject);
				expect(item.json.text).toBe(lambda.sent[n].text);
				expect(item.json.html).toBe(lambda.sent[n].html);
			}
			const custodian = items.find((i) => i.json.to === 'custodian@acme.example')!.json.content as { measurementWarnings: Array<Record<string, unknown>> };
			expect(custodian.measurementWarnings).toHaveLength(1);
			const [w] = custodian.measurementWarnings;
			expect(w).toMatchObject({ testResultId: ids[2], testDate: today, step: PE, value: 0.24, unit: 'Ω', lowLimit: null, highLimit: 0.3, limitUsed: 0.8, nearLimit: true, nextTestDate: nextTest, testEarlier: true });
			expect(w.device).toMatchObject({ id: device.id, customerName: customer });
			expect((w.predictedLimitDate as string) < nextTest).toBe(true);
			// Routed as the digest routes the device: its customer's address, not the default one.
			const ops = items.find((i) => i.json.to === 'ops@lab.example.com');
			expect((ops?.json.content as { measurementWarnings?: unknown[] } | undefined)?.measurementWarnings).toBeUndefined();
			const text = items.find((i) => i.json.to === 'custodian@acme.example')!.json.text as string;
			if (language === 'en') {
				expect(text).toContain('MEASURED VALUES NEAR THEIR LIMIT (1)');
				expect(text).toContain(`${PE} 0.24 Ω (limit ≤ 0.3 Ω), 80 % of the limit, tested ${today}`);
				expect(text).toContain(`before the next test due ${nextTest}: test earlier`);
			} else {
				expect(text).toContain('MESSWERTE NAHE AM GRENZWERT (1)');
				expect(text).toContain('früher prüfen');
			}
		}
		// Left out on request: no section, and no detail read for it.
		const { items: without } = await run(sandbox, { resource: 'email', operation: 'digest', to: 'ops@lab.example.com', recipients: JSON.stringify(rules), failedSince: new Date(since).toISOString(), options: { measurementWarnings: false } }, { workflowSettings: { timezone: TZ } });
		expect(without.every((i) => (i.json.content as { measurementWarnings?: unknown }).measurementWarnings === undefined)).toBe(true);
	});

	/**
	 * One device's Protective conductor resistance (high limit 0.3) uploaded through the admin API in
	 * the order given ([day offset from today, value]), its other results removed: the node's digest
	 * and the Lambdas' (from what the results poller recorded, upload by upload) side by side.
	 */
	async function driftDigests(series: ReadonlyArray<readonly [number, number] | readonly [number, number, typeof RISO]>) {
		const today = sandbox.account.today();
		const [device] = [...sandbox.account.data.devices.values()].filter((d) => typeof d.values[DEVICE.testInterval] === 'number' && d.customer_id !== null);
		for (const [id, r] of sandbox.account.data.testResults) if (r.device_id === device.id) sandbox.account.data.testResults.delete(id);
		const customer = String(sandbox.account.data.customers.get(device.customer_id!)!.values[CUSTOMER.name]);
		const since = sandbox.account.now() - 1000;
		const ids: number[] = [];
		for (const [offset, value, step] of series) {
			const measured = step === RISO ? { step, value, unit: 'MΩ', low_limit: 1 } : { step: DRIFT_STEP, value, unit: 'Ω', high_limit: 0.3 };
			const res = await fetch(`${sandbox.adminUrl}/test-results`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ device_id: device.id, test_date: addDays(today, offset), measurements: [measured] }) });
			expect(res.status).toBe(201);
			ids.push(((await res.json()) as { id: number }).id);
		}
		const rules = { customers: { [customer]: ['custodian@acme.example'] } };
		const before = { ...sandbox.stats.byPath };
		const { items, error } = await run(sandbox, { resource: 'email', operation: 'digest', to: 'ops@lab.example.com', recipients: JSON.stringify(rules), failedSince: new Date(since).toISOString(), language: 'en' }, { workflowSettings: { timezone: TZ } });
		expect(error).toBeUndefined();
		// What the node read of the device's results: each detail once, however many of its results need it.
		const detailReads = ids.map((id) => Object.entries(sandbox.stats.byPath).filter(([path]) => path.includes('/detailed/') && path.replace(/\/$/, '').endsWith(`/${id}`)).reduce((a, [path, n]) => a + n - (before[path] ?? 0), 0));
		const lambda = await lambdaDigests(since, dayIn(Date.now()), { default: ['ops@lab.example.com'], ...rules }, 'en', true);
		const nextTest = sandbox.account.data.devices.get(device.id)!.values[DEVICE.nextTest] as string;
		return { items, lambda, ids, today, device, nextTest, detailReads };
	}
	const DRIFT_STEP = 'Protective conductor resistance';
	const RISO = 'Insulation resistance';
	const custodianOf = (items: Array<{ json: IDataObject }>) => items.find((i) => i.json.to === 'custodian@acme.example');

	it('measured values drifting below the threshold: the trend’s "test earlier" rows reach the node’s digest as the results poller recorded them, the same bytes as the Lambdas’; Get Measurement Warnings (values at or above the threshold) lists none of them', async () => {
		const { items, lambda, ids, today, nextTest, detailReads } = await driftDigests([[-360, 0.02], [-270, 0.07], [-180, 0.12], [-90, 0.17], [0, 0.22]]);
		expect(detailReads).toEqual([1, 1, 1, 1, 1]);
		expect(items.map((i) => i.json.to)).toEqual(lambda.sent.map((e) => e.to));
		for (const [n, item] of items.entries()) {
			expect(item.json.subject).toBe(lambda.sent[n].subject);
			expect(item.json.text).toBe(lambda.sent[n].text);
			expect(item.json.html).toBe(lambda.sent[n].html);
		}
		const rows = (custodianOf(items)!.json.content as { measurementWarnings: Array<Record<string, unknown>> }).measurementWarnings;
		// The third, fourth and fifth result each had a trend of at least three values when it arrived.
		expect(rows.map((w) => w.testResultId)).toEqual(ids.slice(2));
		for (const w of rows) {
			expect(w).toMatchObject({ step: DRIFT_STEP, nearLimit: false, testEarlier: true, nextTestDate: nextTest });
			expect((w.predictedLimitDate as string) < nextTest).toBe(true);
		}
		expect(rows[2]).toMatchObject({ testDate: today, value: 0.22 });
		expect(custodianOf(items)!.json.text as string).toContain(`before the next test due ${nextTest}: test earlier`);
		// Get Measurement Warnings keeps its contract: values at or above the threshold only.
		const { items: listed, error } = await run(sandbox, { resource: 'compliance', operation: 'getMeasurementWarnings', returnAll: true }, { workflowSettings: { timezone: TZ } });
		expect(error).toBeUndefined();
		expect(listed.filter((i) => ids.includes(i.json.testResultId as number))).toEqual([]);
	});

	it('a late upload (a test older than the device’s latest result when it arrived): no trend on either face, as the results poller says ("a late upload of an older test says nothing about now"), the same bytes as the Lambdas’', async () => {
		const { items, lambda, ids, today } = await driftDigests([[-360, 0.1], [-180, 0.1], [0, 0.1], [-90, 0.26]]);
		expect(items.map((i) => i.json.to)).toEqual(lambda.sent.map((e) => e.to));
		for (const [n, item] of items.entries()) {
			expect(item.json.subject).toBe(lambda.sent[n].subject);
			expect(item.json.text).toBe(lambda.sent[n].text);
			expect(item.json.html).toBe(lambda.sent[n].html);
		}
		const rows = (custodianOf(items)!.json.content as { measurementWarnings: Array<Record<string, unknown>> }).measurementWarnings;
		expect(rows).toHaveLength(1);
		expect(rows[0]).toMatchObject({ testResultId: ids[3], testDate: addDays(today, -90), value: 0.26, nearLimit: true, predictedLimitDate: null, nextTestDate: null, testEarlier: false });
		expect(custodianOf(items)!.json.text as string).not.toContain('test earlier');
	});

	it('results that do not all measure the same step: a trend rests on the latest five passed results, so two insulation resistances, three protective-conductor-only results and a third insulation resistance give no trend, on either face, the same bytes as the Lambdas’', async () => {
		const { items, lambda, ids } = await driftDigests([[-500, 400, RISO], [-400, 150, RISO], [-300, 0.1], [-200, 0.1], [-100, 0.1], [0, 1.2, RISO]]);
		expect(items.map((i) => i.json.to)).toEqual(lambda.sent.map((e) => e.to));
		for (const [n, item] of items.entries()) {
			expect(item.json.subject).toBe(lambda.sent[n].subject);
			expect(item.json.text).toBe(lambda.sent[n].text);
			expect(item.json.html).toBe(lambda.sent[n].html);
		}
		const rows = (custodianOf(items)!.json.content as { measurementWarnings: Array<Record<string, unknown>> }).measurementWarnings;
		expect(rows).toHaveLength(1);
		expect(rows[0]).toMatchObject({ testResultId: ids[5], step: RISO, value: 1.2, nearLimit: true, predictedLimitDate: null, testEarlier: false });
	});

	it('a new result’s trend costs the details of the latest four earlier passed results only, whatever steps they measure: eight protective-conductor-only results uploaded before, then an insulation resistance', async () => {
		const today = sandbox.account.today();
		const [device] = [...sandbox.account.data.devices.values()].filter((d) => typeof d.values[DEVICE.testInterval] === 'number' && d.customer_id !== null);
		for (const [id, r] of sandbox.account.data.testResults) if (r.device_id === device.id) sandbox.account.data.testResults.delete(id);
		const uploadedBefore = new Date(sandbox.account.now() - 2 * 86_400_000).toISOString();
		const earlier = [-800, -700, -600, -500, -400, -300, -200, -100].map(
			(offset) => sandbox.account.syncTestResult({ device_id: device.id, test_date: addDays(today, offset), synced_time: uploadedBefore, measured: [{ step: DRIFT_STEP, value: 0.1, unit: 'Ω', high_limit: 0.3 }] as never }).id,
		);
		const since = sandbox.account.now() - 1000;
		sandbox.account.syncTestResult({ device_id: device.id, test_date: today, measured: [{ step: RISO, value: 1.2, unit: 'MΩ', low_limit: 1 }] as never });
		const before = { ...sandbox.stats.byPath };
		const { error } = await run(sandbox, { resource: 'email', operation: 'digest', to: 'ops@lab.example.com', failedSince: new Date(since).toISOString(), language: 'en' }, { workflowSettings: { timezone: TZ } });
		expect(error).toBeUndefined();
		const reads = earlier.map((id) => Object.entries(sandbox.stats.byPath).filter(([path]) => path.includes('/detailed/') && path.replace(/\/$/, '').endsWith(`/${id}`)).reduce((a, [path, n]) => a + n - (before[path] ?? 0), 0));
		expect(reads).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
	});

	it.each([
		[{ options: { nearLimitThreshold: 1.5 } }, 'Options › Near-Limit Threshold: must be a share of the limit above 0 and at most 1'],
		[{ failedSince: 'yesterday-ish' }, 'Failed Tests Since: expected a date and time'],
		[{ failedSince: '2999-01-01T00:00:00' }, 'Failed Tests Since: must not lie in the future'],
		[{ to: '' }, 'To: required'],
		[{ to: 'ops@lab' }, 'To: "ops@lab" is not an e-mail address'],
		[{ recipients: '{"escalation": {"afterDays": -1, "to": []}}' }, 'Recipients (Routing Rules)'],
		[{ language: 'fr' }, 'Language: must be one of en, de, got "fr"'],
		[{ options: { dueSoonStages: '30,soon' } }, 'Options › Coming Due Stages (Days): expected whole days from 1 to 366'],
	])('bad input %j is refused naming the parameter', async (bad, message) => {
		const { error } = await run(sandbox, { resource: 'email', operation: 'digest', to: 'ops@lab.example.com', ...bad });
		expect(error?.message).toContain(message);
	});

	it('On Error: Continue (regular output): a bad item gives its error item, the good one its digests', async () => {
		const { items, error } = await run(
			sandbox,
			{ resource: 'email', operation: 'digest', to: '={{ $json.to }}', failedSince: new Date(Date.now() - 12 * 86_400_000).toISOString() },
			{ nodeSettings: { onError: 'continueRegularOutput' }, inputItems: [{ json: { to: 'ops@lab.example.com' } }, { json: { to: 'not-an-address' } }] },
		);
		expect(error).toBeUndefined();
		expect(items.filter((i) => i.json.kind === 'digest').map((i) => [i.json.to, i.pairedItem])).toEqual([['ops@lab.example.com', { item: 0 }]]);
		const failed = items.filter((i) => i.json.error !== undefined);
		expect(failed).toHaveLength(1);
		expect(failed[0].json.error).toContain('To: "not-an-address" is not an e-mail address');
		expect(failed[0].pairedItem).toEqual({ item: 1 });
	});

	it('an unknown time zone in the workflow’s settings is refused naming it; on the error output when chosen', async () => {
		const { error } = await run(sandbox, { resource: 'email', operation: 'digest', to: 'ops@lab.example.com' }, { workflowSettings: { timezone: 'Mars/Olympus' } });
		expect(error?.message).toContain('Timezone (workflow settings): "Mars/Olympus" is not a time zone');
		const { outputs, error: none } = await run(sandbox, { resource: 'email', operation: 'digest', to: 'ops@lab.example.com', language: 'fr' }, { nodeSettings: { onError: 'continueErrorOutput' } });
		expect(none).toBeUndefined();
		expect(outputs[1][0].json.error).toContain('Language: must be one of en, de');
	});
});
