import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DeleteItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import { awsDeps, idempotencyStore, oncePerEvent } from '../../lambdas/email/aws';
import { DigestError, digestDay, onEvent, runDigest, type DigestDeps } from '../../lambdas/email/digest';
import { NS } from '../../lambdas/email/facts';
import { NS as POLLER_NS, type RecordedWarningValue } from '../../lambdas/pollers/state';
import { WARNING_KEEP_DAYS } from '../../lambdas/pollers/measuredAlerts';
import { parseEmailSettings } from '../../lambdas/email/settings';
import { device, dueSoon, emailEvent, failedTest, INSULATION_STEP, overdue, pollersSaw, resolved } from '../support/emailEvents';
import { createStateTable, startDynamo } from '../support/localAws';
import { LocalSes, mimeParts } from '../support/localSes';

const NOW = Date.parse('2026-11-20T06:00:00Z');
const DAY = '2026-11-20';
const settings = parseEmailSettings(
	{
		mailFrom: 'Calibration alerts <alerts@lab.example.com>',
		recipients: {
			default: ['maintenance@example.com'],
			customers: { 'Acme Instruments': ['custodian@acme.example'] },
			departments: { ICU: ['icu@example.com'] },
			escalation: { afterDays: 60, to: ['manager@example.com'] },
		},
	},
	'test',
);

const acme = device(1, { customerName: 'Acme Instruments', department: 'Workshop', nextTestDate: '2026-11-10', daysOverdue: 9 });
const icu = device(2, { customerName: 'Birch Medical', department: 'ICU', nextTestDate: '2026-11-15', daysOverdue: 4 });
const stray = device(3, { customerName: 'Other Co', department: 'Stores', nextTestDate: '2026-08-01', daysOverdue: 110 });

let dynamo: Awaited<ReturnType<typeof startDynamo>>;
let ses: LocalSes;
let table = 0;
let deps: DigestDeps;

beforeAll(async () => {
	process.env.AWS_LAMBDA_FUNCTION_NAME = 'email-test';
	dynamo = await startDynamo('email-0');
	ses = await new LocalSes().start();
});
afterAll(async () => {
	await ses.stop();
	await dynamo.stop();
});
beforeEach(async () => {
	// A fresh table per test (dynalite is in memory): tests do not see each other's records.
	const name = `email-${++table}`;
	await createStateTable(dynamo.client, name);
	ses.sent.length = 0;
	ses.calls = 0;
	ses.failCall = () => undefined;
	const aws = awsDeps({ table: name, settings, timeZone: 'Europe/Berlin', environment: 'sandbox' }, { dynamo: dynamo.client, ses: ses.client() });
	// As in Lambda: an unfinished send counts as in progress for the invocation's remaining time.
	aws.mailer.registerLambdaContext({ getRemainingTimeInMillis: () => 60_000 } as Context);
	deps = { ...aws, now: () => NOW };
});

const to = (address: string) => ses.sent.filter((m) => m.to.includes(address)).map((m) => mimeParts(m.raw));
/** Events as the pollers emit them: their state written (the digest's view), then each delivered to the collector. */
const collectAll = async (...events: Parameters<typeof emailEvent>[0][]) => {
	for (const e of events) {
		await pollersSaw(deps.store, e);
		await onEvent(deps, emailEvent(e));
	}
};

describe('the daily digest from the events, sent with SES', () => {
	it('each recipient gets one e-mail with only the devices routed to them', async () => {
		await collectAll(overdue(acme), overdue(icu), overdue(stray), dueSoon(device(4, { customerName: 'Acme Instruments', department: null }), '2026-12-01', 12));
		const report = await runDigest(deps, DAY);
		expect(report.sent.map((s) => s.recipient)).toEqual(['custodian@acme.example', 'icu@example.com', 'maintenance@example.com', 'manager@example.com']);
		expect(ses.sent).toHaveLength(4);

		const [custodian] = to('custodian@acme.example');
		expect(custodian.headers.from).toBe('"Calibration alerts" <alerts@lab.example.com>');
		expect(custodian.headers.subject).toBe('Calibration digest Friday, 20 November 2026: 1 newly overdue, 1 coming due (sandbox)');
		expect(custodian.text).toContain('Device 1 (ID TE-00001), Acme Instruments / Workshop: 10 days overdue (was due 2026-11-10)');
		expect(custodian.text).toContain('Device 4 (ID TE-00004), Acme Instruments: due 2026-12-01 (in 11 days)');
		expect(custodian.text).not.toContain('Device 2');
		expect(custodian.html).toContain('Device 1');
		expect(to('icu@example.com')[0].text).toMatch(/NEWLY OVERDUE SINCE THE LAST DIGEST \(1\)\n- Device 2 /);
		// Routed to no list: the default list; overdue for more than 60 days: the escalation list too.
		expect(to('maintenance@example.com')[0].text).toContain('Device 3 (ID TE-00003), Other Co / Stores: 111 days overdue');
		expect(to('manager@example.com')[0].text).toContain('Device 3');
		expect(to('manager@example.com')[0].text).not.toContain('Device 1');
	});

	it('the next day: yesterday\'s news is gone, the devices still overdue are listed, longest first', async () => {
		await collectAll(overdue(acme), overdue(device(5, { customerName: 'Acme Instruments', nextTestDate: '2026-10-01' })));
		await runDigest(deps, DAY);
		ses.sent.length = 0;
		await runDigest(deps, '2026-11-21');
		const [next] = to('custodian@acme.example');
		expect(next.headers.subject).toBe('Calibration digest Saturday, 21 November 2026: 2 still overdue (sandbox)');
		expect(next.text).toMatch(/STILL OVERDUE, LONGEST FIRST \(2\)\n- Device 5 .*51 days overdue.*\n- Device 1 .*11 days overdue/);
	});

	it('nothing to say, no e-mail: a device resolved before the digest, an empty inbox', async () => {
		await collectAll(overdue(acme), resolved(acme));
		const report = await runDigest(deps, DAY);
		expect(ses.calls).toBe(0);
		expect(report.nothingToSay).toContain('custodian@acme.example');
		// A late Device Overdue of the resolved episode does not bring it back.
		await onEvent(deps, emailEvent(overdue(acme)));
		await runDigest(deps, DAY);
		expect(ses.calls).toBe(0);
	});

	it('a failed test: an e-mail at once, and a section of the digest with the failed steps, values and limits', async () => {
		await collectAll(dueSoon(icu, '2026-12-24', 35));
		await collectAll(failedTest(icu, 900, [INSULATION_STEP]));
		const now = to('icu@example.com');
		expect(now).toHaveLength(1);
		expect(now[0].headers.subject).toBe('Test failed: Device 2 (TE-00002), 1 failed step (sandbox)');
		expect(now[0].text).toContain('Step 4 Insulation resistance, R iso: measured 1.4 MΩ, limits ≥ 2 MΩ');
		await runDigest(deps, DAY);
		const digest = to('icu@example.com')[1];
		expect(digest.text).toContain('FAILED TESTS SINCE THE LAST DIGEST (1)');
		expect(digest.html).toContain('Insulation resistance');
	});

	it('measured values near their limit: the warnings the results poller recorded go to the device’s recipient once, in the next digest only', async () => {
		const warning: RecordedWarningValue = {
			testResultId: 501,
			testDate: '2026-11-19',
			device: { id: 1, customerId: 7, designation: 'Device 1', idBarcode: 'TE-00001', customerName: 'Acme Instruments', department: 'Workshop' },
			step: 'Protective conductor resistance',
			measurement: null,
			value: 0.27,
			unit: 'Ω',
			lowLimit: null,
			highLimit: 0.3,
			limitUsed: 0.9,
			nearLimit: true,
			predictedLimitDate: '2027-01-10',
			nextTestDate: '2027-05-01',
			testEarlier: true,
			announcedOn: '2026-11-19',
		};
		await deps.store.putMany(POLLER_NS.measurementWarnings('sandbox'), [{ key: '501:Protective conductor resistance', value: warning, expiresAt: NOW + 100 * 86_400_000 }]);
		await runDigest(deps, DAY);
		const [digest] = to('custodian@acme.example');
		expect(digest.headers.subject).toBe('Calibration digest Friday, 20 November 2026: 1 measured-value warning (sandbox)');
		expect(digest.text).toContain('MEASURED VALUES NEAR THEIR LIMIT (1)');
		expect(digest.text).toContain('- Device 1 (ID TE-00001), Acme Instruments / Workshop: Protective conductor resistance 0.27 Ω (limit ≤ 0.3 Ω), 90 % of the limit, tested 2026-11-19');
		expect(digest.text).toContain('trend reaches the limit about 2027-01-10, before the next test due 2027-05-01: test earlier');
		expect(digest.html).toContain('test earlier');
		// Routed as the device is: not to the default address.
		expect(to('maintenance@example.com')).toEqual([]);
		// Carried: the next day's digest does not say it again.
		ses.sent.length = 0;
		deps = { ...deps, now: () => NOW + 86_400_000 };
		const next = await runDigest(deps, '2026-11-21');
		expect(next.nothingToSay).toContain('custodian@acme.example');
		expect(to('custodian@acme.example')).toEqual([]);
	});

	it('a measured-value warning is never said twice: not when its carried mark expires before the poller lets the warning go', async () => {
		const warning: RecordedWarningValue = {
			testResultId: 501,
			testDate: '2026-11-19',
			device: { id: 1, customerId: 7, designation: 'Device 1', idBarcode: 'TE-00001', customerName: 'Acme Instruments', department: 'Workshop' },
			step: 'Protective conductor resistance',
			measurement: null,
			value: 0.27,
			unit: 'Ω',
			lowLimit: null,
			highLimit: 0.3,
			limitUsed: 0.9,
			nearLimit: true,
			predictedLimitDate: null,
			nextTestDate: null,
			testEarlier: false,
			announcedOn: '2026-11-19',
		};
		// Kept as the results poller keeps it (WARNING_KEEP_DAYS).
		await deps.store.putMany(POLLER_NS.measurementWarnings('sandbox'), [{ key: '501:Protective conductor resistance', value: warning, expiresAt: NOW + WARNING_KEEP_DAYS * 86_400_000 }]);
		await runDigest(deps, DAY);
		expect(to('custodian@acme.example')).toHaveLength(1);
		// Every day until the poller lets the warning go: DynamoDB's TTL removes what expired
		// (dynalite keeps it, so the sweep is done here), and the digest says nothing of it again.
		const name = `email-${table}`;
		for (let days = 1; days <= WARNING_KEEP_DAYS + 1; days++) {
			ses.sent.length = 0;
			const now = NOW + days * 86_400_000;
			for (const i of (await dynamo.client.send(new ScanCommand({ TableName: name }))).Items ?? []) {
				if (i.expiresAt?.N && Number(i.expiresAt.N) * 1000 <= now) await dynamo.client.send(new DeleteItemCommand({ TableName: name, Key: { pk: i.pk, sk: i.sk } }));
			}
			deps = { ...deps, now: () => now };
			await runDigest(deps, new Date(now).toISOString().slice(0, 10));
			expect(to('custodian@acme.example'), `day ${days}`).toEqual([]);
		}
	});

	it('immediate e-mails can be turned off', async () => {
		deps = { ...deps, settings: { ...settings, immediateFailedTests: false } };
		await collectAll(failedTest(stray, 901, [INSULATION_STEP]));
		expect(ses.calls).toBe(0);
		await runDigest(deps, DAY);
		expect(to('maintenance@example.com')[0].text).toContain('FAILED TESTS SINCE THE LAST DIGEST (1)');
	});

	it('the day is the local day the run was scheduled for, whenever it runs', () => {
		expect(digestDay({ scheduledTime: '2026-11-19T23:30:00Z' }, NOW, 'Europe/Berlin')).toBe('2026-11-20');
		expect(digestDay({ scheduledTime: '2026-11-19T23:30:00Z' }, NOW, 'UTC')).toBe('2026-11-19');
		expect(digestDay(undefined, NOW, 'America/New_York')).toBe('2026-11-20');
	});
});

describe('correct under failure', () => {
	it('redelivered events are filed once; a second run of the same day sends nothing more', async () => {
		const e = overdue(acme);
		await collectAll(e, e, e);
		await runDigest(deps, DAY);
		await runDigest(deps, DAY);
		expect(to('custodian@acme.example')).toHaveLength(1);
		expect(to('custodian@acme.example')[0].text.match(/Device 1 /g)).toHaveLength(1);
	});

	it('the schedule firing twice at once: each recipient still gets one e-mail', async () => {
		await collectAll(overdue(acme), overdue(icu), overdue(stray));
		const runs = await Promise.allSettled([runDigest(deps, DAY), runDigest(deps, DAY)]);
		// A run that met the other's send in progress fails for that recipient (and is retried): never a second e-mail.
		for (const r of runs) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(DigestError);
		await runDigest(deps, DAY);
		const counts = new Map<string, number>();
		for (const m of ses.sent) for (const a of m.to) counts.set(a, (counts.get(a) ?? 0) + 1);
		expect(Object.fromEntries(counts)).toEqual({ 'custodian@acme.example': 1, 'icu@example.com': 1, 'maintenance@example.com': 1, 'manager@example.com': 1 });
	});

	it('a send that fails is retried by the next run, without a second e-mail to those already served', async () => {
		await collectAll(overdue(acme), overdue(icu));
		ses.failCall = (_call, addresses) => (addresses.includes('icu@example.com') ? { status: 500, type: 'InternalFailure' } : undefined);
		const first = await runDigest(deps, DAY).catch((e: unknown) => e);
		expect(first).toBeInstanceOf(DigestError);
		expect((first as DigestError).report.failed.map((f) => f.recipient)).toEqual(['icu@example.com']);
		expect((first as DigestError).message).toMatch(/could not be sent to 1 recipient\(s\): icu@example\.com/);
		expect(to('custodian@acme.example')).toHaveLength(1);

		ses.failCall = () => undefined;
		const retry = await runDigest(deps, DAY);
		expect(retry.failed).toEqual([]);
		expect(to('custodian@acme.example')).toHaveLength(1);
		expect(to('icu@example.com')).toHaveLength(1);
		expect(to('icu@example.com')[0].text).toContain('Device 2');
	});

	it('a crash between sending and recording what it carried: the rerun sends nothing, and a fact that came in between waits for the next digest', async () => {
		await collectAll(overdue(acme));
		const putMany = deps.store.putMany.bind(deps.store);
		deps.store.putMany = async (ns, items) => {
			if (ns.startsWith('mail:carried:')) throw new Error('crashed before recording');
			return putMany(ns, items);
		};
		await expect(runDigest(deps, DAY)).rejects.toThrow(/crashed before recording/);
		expect(to('custodian@acme.example')).toHaveLength(1);

		deps.store.putMany = putMany;
		const late = device(6, { customerName: 'Acme Instruments', nextTestDate: '2026-11-19' });
		await collectAll(overdue(late));
		await runDigest(deps, DAY);
		expect(to('custodian@acme.example')).toHaveLength(1);
		const pending: string[] = [];
		for await (const { key } of deps.store.list(NS.facts)) pending.push(key);
		expect(pending).toEqual([late.id].map((id) => `device-overdue:${id}:1`));

		await runDigest(deps, '2026-11-21');
		const [, next] = to('custodian@acme.example');
		expect(next.text).toMatch(/NEWLY OVERDUE SINCE THE LAST DIGEST \(1\)\n- Device 6 /);
	});

	it('a crash while filing an event: the redelivery files it for everyone, once; redeliveries after the digest change nothing', async () => {
		const putMany = deps.store.putMany.bind(deps.store);
		let crashes = 1;
		deps.store.putMany = async (ns, items) => {
			if (ns === NS.filed && crashes-- > 0) throw new Error('crashed midway');
			return putMany(ns, items);
		};
		// Acme customer and ICU department: two recipients.
		const both = device(7, { customerName: 'Acme Instruments', department: 'ICU' });
		await pollersSaw(deps.store, overdue(both));
		await expect(onEvent(deps, emailEvent(overdue(both)))).rejects.toThrow(/crashed midway/);
		await runDigest(deps, DAY);
		// The redelivery lands after the digest that carried the fact: no second "newly overdue".
		await onEvent(deps, emailEvent(overdue(both)));
		await onEvent(deps, emailEvent(overdue(both)));
		await runDigest(deps, '2026-11-21');
		for (const r of ['custodian@acme.example', 'icu@example.com']) {
			expect(to(r)[0].text.match(/Device 7 /g)).toHaveLength(1);
			expect(to(r)[1].text).not.toContain('NEWLY OVERDUE');
		}
	});

	it('a failed test redelivered after the digest: one immediate e-mail, in one digest', async () => {
		const e = failedTest(icu, 902, [INSULATION_STEP]);
		await collectAll(e);
		await runDigest(deps, DAY);
		await collectAll(e, e);
		await runDigest(deps, '2026-11-21');
		const icuMail = to('icu@example.com');
		expect(icuMail.filter((m) => m.headers.subject.startsWith('Test failed'))).toHaveLength(1);
		expect(icuMail.filter((m) => m.text.includes('FAILED TESTS SINCE THE LAST DIGEST'))).toHaveLength(1);
	});

	it('today\'s truth: a device that changed hands is routed, dated and counted as the pollers see it now', async () => {
		await collectAll(overdue(acme));
		await runDigest(deps, DAY);
		// Moved to the ICU, its interval shortened: the pollers' record changes, no event.
		const moved = { ...acme, customerName: 'Birch Medical', department: 'ICU', nextTestDate: '2026-10-01' };
		await pollersSaw(deps.store, { ...overdue(moved), detail: { ...overdue(moved).detail, data: { device: moved, episode: 1, reminder: 0 } } });
		await runDigest(deps, '2026-11-21');
		const [icuDigest] = to('icu@example.com');
		expect(icuDigest.text).toContain('Device 1 (ID TE-00001), Birch Medical / ICU: 51 days overdue (was due 2026-10-01)');
		expect(to('custodian@acme.example')).toHaveLength(1);
	});

	it('coming due: a device tested or deleted before the digest is not listed', async () => {
		const tested = device(8, { customerName: 'Acme Instruments', department: null });
		await collectAll(dueSoon(tested, '2026-12-01', 11));
		// The due-soon poller's next complete scan no longer finds it in the window.
		const state = await deps.store.get<Record<string, unknown>>('dueSoon:sandbox', '8');
		await deps.store.putMany('dueSoon:sandbox', [{ key: '8', value: { ...state, dropped: true } }]);
		const report = await runDigest(deps, DAY);
		expect(report.nothingToSay).toContain('custodian@acme.example');
		const pending: string[] = [];
		for await (const { key } of deps.store.list(NS.facts)) pending.push(key);
		expect(pending).toEqual([]);
	});

	it('facts an earlier version filed per recipient go into the next digest, routed by today\'s truth', async () => {
		const moved = { ...icu, department: 'Stores', customerName: 'Acme Instruments' };
		await pollersSaw(deps.store, overdue(moved));
		const legacy = { kind: 'overdue' as const, key: 'device-overdue:sandbox:2:1', at: '2026-11-19T10:00:00.000Z', device: icu, episode: 1 };
		await deps.store.putMany('mail:inbox:icu@example.com', [{ key: legacy.key, value: legacy }]);
		await runDigest(deps, DAY);
		expect(to('custodian@acme.example')[0].text).toMatch(/NEWLY OVERDUE SINCE THE LAST DIGEST \(1\)\n- Device 2 .*Acme Instruments \/ Stores/);
		expect(to('icu@example.com')).toEqual([]);
		const left: string[] = [];
		for await (const { key } of deps.store.list('mail:inbox:icu@example.com')) left.push(key);
		expect(left).toEqual([]);
	});

	// The keys are selected in code, not by a JMESPath expression (the Lambda bundles leave JMESPath
	// out, infra/bundling.ts); the records stay where Powertools' expressions put them, so a send or
	// an event recorded before is still found.
	it('the send and event records keep the keys the JMESPath selections made', async () => {
		const name = `email-${table}`;
		const keyOf = (path: string, payload: unknown) => {
			const layer = idempotencyStore(name, dynamo.client);
			layer.configure({ config: new IdempotencyConfig({ eventKeyJmesPath: path }) });
			return (layer as unknown as { getHashedIdempotencyKey(data: unknown): string }).getHashedIdempotencyKey(payload);
		};
		const email = { from: 'alerts@lab.example.com', to: 'ops@example.com', subject: 'S', text: 'T', html: '<p>T</p>', messageId: '<1@lab.example.com>', date: new Date(NOW) };
		const request = { key: `digest:${DAY}`, recipient: 'ops@example.com', factKeys: [], email };
		await deps.mailer.sendOnce(request);
		const event = emailEvent(overdue(acme));
		await oncePerEvent(async () => 'filed', idempotencyStore(name, dynamo.client))(event, { getRemainingTimeInMillis: () => 60_000 } as Context);
		const items = (await dynamo.client.send(new ScanCommand({ TableName: name }))).Items ?? [];
		const keys = items.filter((i) => i.pk.S === 'idempotency:email').map((i) => i.sk.S);
		expect(keys.sort()).toEqual([keyOf('[key, recipient]', request), keyOf('detail.metadata.dedupeKey', event)].sort());
		expect(ses.sent).toHaveLength(1);
	});

	it('the send records live in the state table, under their own partition, with a TTL', async () => {
		await collectAll(overdue(acme));
		// Facts not taken by a digest expire too (DynamoDB TTL, in seconds), so nothing grows forever.
		const filed = ((await dynamo.client.send(new ScanCommand({ TableName: `email-${table}` }))).Items ?? []).filter((i) => i.pk.S === NS.facts);
		expect(filed).toHaveLength(1);
		expect(Number(filed[0].expiresAt.N)).toBeGreaterThan(NOW / 1000 + 30 * 86_400);
		await runDigest(deps, DAY);
		const items = (await dynamo.client.send(new ScanCommand({ TableName: `email-${table}` }))).Items ?? [];
		const records = items.filter((i) => i.pk.S === 'idempotency:email');

		expect(records.length).toBeGreaterThan(0);
		for (const r of records) {
			expect(r.status.S).toBe('COMPLETED');
			expect(Number(r.expiresAt.N)).toBeGreaterThan(Date.now() / 1000 + 2 * 86_400);
		}
		// Without the record, the same day would be sent again: the record is what keeps it once.
		for (const r of records) await dynamo.client.send(new DeleteItemCommand({ TableName: `email-${table}`, Key: { pk: r.pk, sk: r.sk } }));
		await collectAll(overdue(icu));
		await runDigest(deps, DAY);
		expect(to('custodian@acme.example')).toHaveLength(2);
	});
});
