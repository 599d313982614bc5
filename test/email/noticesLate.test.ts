/** The digest's "late" line of a month's notices sent after the 1st, whatever run records the day's summary last. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileMailStore } from '../../lambdas/adapters/fileMailStore';
import { noticesNamespace, NOTICES_SUMMARY_NS, noticesSummaryKey, recordNoticesSummary, type NoticeSent, type NoticesReport } from '../../lambdas/email/notices';

describe('notices sent late (issue 41, item 12)', () => {
	it('a later run of the same day that sends nothing more (a retry of the one failed customer, a second run at once) keeps the digest saying they are late', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'notices-late-'));
		try {
			const day = '2026-10-02';
			const month = '2026-11';
			const now = Date.parse(`${day}T06:00:00Z`);
			const store = new FileMailStore(join(dir, 'mail.json'), () => now);
			const sent: NoticeSent = { month, customerId: 1, customerName: 'Acme', address: 'a@acme.example', locale: 'en', messageId: '<1@x>', sentAt: new Date(now).toISOString(), dueDevices: [1], overdueDevices: [] };
			await store.putMany(noticesNamespace(month, undefined), [{ key: '1', value: sent, expiresAt: now + 86_400_000 }]);
			const base: NoticesReport = { month, sent: [], alreadySent: [], noAddress: [], optedOut: [], inProgress: [], failed: [], skippedRecords: 0 };
			const first = await recordNoticesSummary(store, { ...base, sent: [sent], failed: [{ customerId: 2, customerName: 'Beta', address: 'b@beta.example', error: 'refused' }] }, day, now);
			expect(first.lateFrom).toBe('2026-10-01');
			// The retry: the one failed customer fails again, Acme is already sent.
			const retry = await recordNoticesSummary(store, { ...base, alreadySent: ['Acme'], failed: [{ customerId: 2, customerName: 'Beta', address: 'b@beta.example', error: 'refused' }] }, day, now + 60_000);
			expect(retry.lateFrom).toBe('2026-10-01');
			expect((await store.get<{ lateFrom?: string }>(NOTICES_SUMMARY_NS, noticesSummaryKey(day)))?.lateFrom).toBe('2026-10-01');
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});
