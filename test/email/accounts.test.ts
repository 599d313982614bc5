import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileMailStore } from '../../lambdas/adapters/fileMailStore';
import { OutboxMailer } from '../../lambdas/adapters/outboxMailer';
import { onEvent, runDigest, type DigestDeps } from '../../lambdas/email/digest';
import { makeEvent } from '../../lambdas/events/event';
import { DETAIL_TYPES, type OverdueDevice } from '../../lambdas/events/schemas';
import { parseEmailSettings, RecipientsSchema } from '../../lambdas/email/settings';
import { device, emailEvent } from '../support/emailEvents';

/** E-mails of several accounts: routing per account; one digest per recipient, a section per account. */
const NOW = Date.parse('2026-11-20T06:00:00Z');
const DAY = '2026-11-20';
const settings = parseEmailSettings({ mailFrom: 'alerts@lab.example.com', recipients: { default: ['ops@example.com'] } }, 'test');
const recipients = (...to: string[]) => RecipientsSchema.parse({ default: to });

function world(): { deps: DigestDeps; outbox: string; state: string } {
	const dir = mkdtempSync(join(tmpdir(), 'tec-mail-accounts-'));
	const state = join(dir, 'email.json');
	const deps: DigestDeps = {
		store: new FileMailStore(state, () => NOW),
		mailer: new OutboxMailer(join(dir, 'outbox')),
		settings,
		timeZone: 'UTC',
		environment: 'sandbox',
		now: () => NOW,
		accounts: [
			{ account: 'site-a', recipients: recipients('a-lead@example.com', 'both@example.com') },
			{ account: 'site-b', recipients: recipients('b-lead@example.com', 'both@example.com') },
			// No recipients of its own: the deployment's.
			{ account: 'site-c' },
		],
	};
	return { deps, outbox: join(dir, 'outbox'), state };
}

const overdueOf = (account: string, d: OverdueDevice) => emailEvent(makeEvent(DETAIL_TYPES.deviceOverdue, { environment: 'sandbox', account }, `device-overdue:sandbox:${account}:${d.id}:1`, { device: d, episode: 1, reminder: 0 }, NOW - 3_600_000));
// The same device id in two accounts: two different devices.
const alpha = device(1, { designation: 'Alpha scope' });
const bravo = device(1, { designation: 'Bravo meter' });
const charlie = device(2, { designation: 'Charlie probe' });

describe('e-mails of several accounts', () => {
	it('routes each account by its own recipients; one digest per recipient with a section per account, never mixed', async () => {
		const { deps, outbox, state } = world();
		expect((await onEvent(deps, overdueOf('site-a', alpha))).recipients).toEqual(['a-lead@example.com', 'both@example.com']);
		expect((await onEvent(deps, overdueOf('site-b', bravo))).recipients).toEqual(['b-lead@example.com', 'both@example.com']);
		expect((await onEvent(deps, overdueOf('site-c', charlie))).recipients).toEqual(['ops@example.com']);

		const report = await runDigest(deps, DAY);
		expect(report.sent.map((s) => s.recipient).sort()).toEqual(['a-lead@example.com', 'b-lead@example.com', 'both@example.com', 'ops@example.com']);
		const html = (to: string) => readFileSync(join(outbox, `digest_${DAY}`, `${to}.html`), 'utf8');
		const eml = (to: string) => readFileSync(join(outbox, `digest_${DAY}`, `${to}.eml`), 'utf8');

		// Following two accounts: one e-mail, a section per account, each with its own device.
		const both = html('both@example.com');
		const [beforeB, afterB] = both.split('Account site-b');
		expect(beforeB).toContain('Account site-a');
		expect(beforeB).toContain('Alpha scope');
		expect(beforeB).not.toContain('Bravo meter');
		expect(afterB).toContain('Bravo meter');
		expect(afterB).not.toContain('Alpha scope');
		expect(both).not.toContain('Charlie probe');
		expect(eml('both@example.com')).toMatch(/Subject: .*site-a \(1 newly overdue\); site-b \(1 newly overdue\)/);
		// Following one: that account's digest, named.
		expect(html('a-lead@example.com')).toContain('Alpha scope');
		expect(html('a-lead@example.com')).not.toContain('Bravo meter');
		expect(html('ops@example.com')).toContain('Charlie probe');
		expect(html('ops@example.com')).not.toMatch(/Alpha scope|Bravo meter/);

		// The overdue lists are kept per account (device 1 twice, apart).
		const stored = JSON.parse(readFileSync(state, 'utf8')) as Record<string, Record<string, { v: { device?: { designation: string } } }>>;
		expect(stored['mail:overdue:site-a']['1'].v.device?.designation).toBe('Alpha scope');
		expect(stored['mail:overdue:site-b']['1'].v.device?.designation).toBe('Bravo meter');
		expect(stored['mail:overdue']).toBeUndefined();
	});
});
