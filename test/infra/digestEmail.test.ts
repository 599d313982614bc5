import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectService } from '../../lambdas/adapters/undiciService';
import { FileStateStore } from '../../lambdas/adapters/fileStateStore';
import { formatDigestEmail, type DigestDetail } from '../../lambdas/email/formatDigest';
import type { TecEvent } from '../../lambdas/events/event';
import { DEFAULT_SETTINGS, type PollerContext } from '../../lambdas/pollers/context';
import { pollOverdueDevices } from '../../lambdas/pollers/overdueDevices';
import { noMetrics, silentLog } from '../../lambdas/ports';
import { readDigestEmailEnv, sendDigestEmail } from '../../lambdas/handlers/digestEmail';
import { startSandbox, type Sandbox } from '../../sandbox/server';

// A fixed clock for the sandbox and the poller: the demo data (and so the e-mail) is the same every run.
const NOW = Date.parse('2026-11-20T08:05:00Z');
const SIZE = { customers: 4, devices: 40, testResults: 20 };

let dir: string;
const sandboxes: Sandbox[] = [];

beforeAll(() => {
	dir = mkdtempSync(join(tmpdir(), 'tec-digest-'));
});
afterAll(async () => {
	await Promise.all(sandboxes.map((s) => s.stop()));
	rmSync(dir, { recursive: true, force: true });
});

/** One run of the real overdue poller against the sandbox, wired like lambdas/runner.ts does; returns what it published. */
async function pollOnce(digestMaxDevices: number): Promise<TecEvent[]> {
	const sandbox = await startSandbox({ port: 0, now: () => NOW, size: SIZE });
	sandboxes.push(sandbox);
	const published: TecEvent[] = [];
	const ctx: PollerContext = {
		client: connectService({ baseUrl: sandbox.url, token: sandbox.sandboxToken, environment: 'sandbox' }),
		store: new FileStateStore(join(dir, `state-${sandboxes.length}.json`)),
		publisher: { publish: async (events) => void published.push(...events) },
		environment: 'sandbox',
		now: () => NOW,
		remainingMs: () => Number.POSITIVE_INFINITY,
		log: silentLog,
		metrics: noMetrics,
		settings: { ...DEFAULT_SETTINGS, safetyMs: 0, digestMaxDevices },
		runId: `digest-test-${digestMaxDevices}`,
	};
	const report = await pollOverdueDevices(ctx);
	expect(report.complete).toBe(true);
	return published;
}

function digestOf(events: TecEvent[]): TecEvent {
	const digests = events.filter((e) => e['detail-type'] === 'Overdue Devices Digest');
	expect(digests).toHaveLength(1);
	return digests[0];
}

describe('the overdue e-mail, from a real digest of the pollers', () => {
	it('one readable e-mail: count in the subject, devices by customer and department', async () => {
		const events = await pollOnce(DEFAULT_SETTINGS.digestMaxDevices);
		const digest = digestOf(events);
		const detail = digest.detail as DigestDetail;
		const overdue = events.filter((e) => e['detail-type'] === 'Device Overdue');
		expect(detail.data.count).toBe(overdue.length);
		expect(detail.data.truncated).toBe(0);

		const email = formatDigestEmail(detail, { timeZone: 'Europe/Berlin', sender: 'TestEquipmentCloudAlerts (sandbox)' });
		expect(email.subject).toBe(`${overdue.length} devices became overdue (sandbox)`);
		// Every device of the run is in the body, with its ID Barcode, last test and days overdue.
		for (const e of overdue) {
			const d = (e.detail.data as { device: { designation: string; idBarcode: string; lastTestedDate: string; daysOverdue: number } }).device;
			expect(email.body).toContain(`${d.designation} (ID Barcode ${d.idBarcode}): last tested ${d.lastTestedDate}, ${d.daysOverdue} day`);
		}
		for (const g of detail.data.groups) expect(email.body).toContain(`${g.customerName} / ${g.department}: ${g.count} device`);
		// Not raw JSON.
		expect(email.body).not.toMatch(/[{}"]/);
		expect(email.body).toContain('poll run of 2026-11-20 09:05 (Europe/Berlin)');
		await expect(`Subject: ${email.subject}\n\n${email.body}`).toMatchFileSnapshot('./__snapshots__/digest-email.txt');
	});

	it('a capped digest says how many more there are', async () => {
		const digest = digestOf(await pollOnce(4));
		const detail = digest.detail as DigestDetail;
		expect(detail.data.listed).toBe(4);
		expect(detail.data.truncated).toBe(detail.data.count - 4);
		expect(detail.data.truncated).toBeGreaterThan(0);
		const email = formatDigestEmail(detail, { timeZone: 'UTC', sender: 'TestEquipmentCloudAlerts (sandbox)' });
		expect(email.subject).toBe(`${detail.data.count} devices became overdue (sandbox)`);
		expect(email.body).toContain(`…and ${detail.data.truncated} more not listed in this e-mail (4 of ${detail.data.count} shown).`);
		expect(email.body.match(/^ {2}- /gm)).toHaveLength(4);
		await expect(`Subject: ${email.subject}\n\n${email.body}`).toMatchFileSnapshot('./__snapshots__/digest-email-truncated.txt');
	});
});

describe('formatDigestEmail edge cases', () => {
	const device = { id: 1, designation: null, idBarcode: null, department: null, customerId: null, customerName: null, lastTestedDate: null, nextTestDate: '2026-11-20', daysOverdue: 1 };
	const detail = (over: Partial<DigestDetail['data']> = {}): DigestDetail => ({
		metadata: { dedupeKey: 'overdue-digest:production:abc', occurredAt: '2026-11-20T08:05:00.000Z', environment: 'production' },
		data: { count: 1, listed: 1, truncated: 0, groups: [{ customerName: null, department: null, count: 1, devices: [device] }], ...over },
	});

	it('one device, missing fields spelled out', () => {
		const email = formatDigestEmail(detail());
		expect(email.subject).toBe('1 device became overdue (production)');
		expect(email.body).toContain('(no customer) / (no department): 1 device\n  - (no designation) (no ID Barcode): never tested, 1 day overdue (due 2026-11-20)');
		expect(email.body).toContain('poll run of 2026-11-20 08:05 (UTC)');
		expect(email.body).toContain('Reference: overdue-digest:production:abc');
	});

	it('a group listed in part ends with how many more it has', () => {
		const email = formatDigestEmail(detail({ count: 3, listed: 1, truncated: 2, groups: [{ customerName: 'Acme', department: 'Lab', count: 3, devices: [{ ...device, designation: 'Scope', idBarcode: 'B-1', lastTestedDate: '2025-01-02', daysOverdue: 0 }] }] }));
		expect(email.body).toContain('Acme / Lab: 3 devices\n  - Scope (ID Barcode B-1): last tested 2025-01-02, due today (2026-11-20)\n  …and 2 more\n');
		expect(email.body).toContain('…and 2 more not listed in this e-mail (1 of 3 shown).\nThe overdue list');
	});

	it('keeps the subject within what SNS accepts (ASCII, at most 100 characters)', () => {
		const email = formatDigestEmail(detail({ count: 123456 }));
		expect(email.subject).toMatch(/^[\x20-\x7e]{1,100}$/);
	});
});

describe('the digest e-mail handler', () => {
	it('publishes one message to the topic for a valid digest event', async () => {
		const digest = digestOf(await pollOnce(100));
		const sent: Array<{ TopicArn: string; Subject: string; Message: string }> = [];
		const env = readDigestEmailEnv({ ALERT_TOPIC_ARN: 'arn:aws:sns:eu-central-1:111122223333:alerts', TIME_ZONE: 'UTC' });
		const result = await sendDigestEmail(digest, env, async (input) => {
			sent.push(input);
			return { MessageId: 'm-1' };
		});
		expect(sent).toHaveLength(1);
		expect(sent[0].TopicArn).toBe('arn:aws:sns:eu-central-1:111122223333:alerts');
		expect(sent[0].Subject).toMatch(/^\d+ devices became overdue \(sandbox\)$/);
		expect(sent[0].Message).toBe(formatDigestEmail(digest.detail as DigestDetail, { timeZone: 'UTC' }).body);
		expect(result).toEqual({ subject: sent[0].Subject, dedupeKey: digest.detail.metadata.dedupeKey, messageId: 'm-1' });
	});

	it('refuses other events and digests that break the contract (they land in the DLQ)', async () => {
		const env = readDigestEmailEnv({ ALERT_TOPIC_ARN: 'arn:aws:sns:eu-central-1:111122223333:alerts' });
		const never = async () => {
			throw new Error('must not publish');
		};
		await expect(sendDigestEmail({ source: 'test-equipment-cloud', 'detail-type': 'Device Overdue', detail: {} }, env, never)).rejects.toThrow(/Expected a test-equipment-cloud "Overdue Devices Digest" event/);
		await expect(
			sendDigestEmail({ source: 'test-equipment-cloud', 'detail-type': 'Overdue Devices Digest', detail: { metadata: {}, data: { count: 'x' } } }, env, never),
		).rejects.toThrow(/does not match its schema: metadata\.id/);
		expect(() => readDigestEmailEnv({})).toThrow(/ALERT_TOPIC_ARN is required/);
	});
});
