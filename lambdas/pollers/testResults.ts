import { addDays } from '../../client/dates';
import { makeEvent, type TecEvent } from '../events/event';
import { DETAIL_TYPES } from '../events/schemas';
import { DAY_MS, budgetedPages, countEmitted, newReport, withLease, type PollerContext, type RunReport } from './context';
import { FailedEvidence } from './failedEvidence';
import { passedOf, readTestResult } from './records';

/** The watermark: the calendar day up to which a complete run has seen every result. */
export interface ResultsCursor {
	watermark: string;
}

/**
 * One run: list results dated from (watermark − lookback) on, announce each one not seen
 * before, then move the watermark to the day the run started (only after a complete scan).
 * Results the equipment uploads late still fall inside the lookback window; a result id is
 * remembered longer than the window, so each is announced once. The first run records the
 * window without announcing it (no flood of history).
 */
export async function pollTestResults(ctx: PollerContext): Promise<RunReport> {
	const report = newReport('testResults');
	const seenNs = `results:${ctx.environment}`;
	const cursorNs = `cursor:${ctx.environment}`;
	return withLease(ctx, report, async () => {
		const now = ctx.now();
		const today = new Date(now).toISOString().slice(0, 10);
		const cursor = await ctx.store.get<ResultsCursor>(cursorNs, 'testResults');
		const { lookbackDays } = ctx.settings;
		const from = addDays(cursor?.watermark ?? today, -lookbackDays);
		const seen = new Set<number>();
		for await (const item of ctx.store.list<{ testDate: string }>(seenNs)) seen.add(Number(item.key));
		// Remembered longer than any result can stay inside the window.
		const expiresAt = now + (lookbackDays + 2) * DAY_MS;
		const evidence = new FailedEvidence(ctx, report);
		if (cursor) await evidence.retryPending();

		const query = {
			filters: [{ key: 'test_date', conditions: [{ keyword: 'newerOrSame', value: from }] }],
			ordering: { key: 'test_date', direction: 'asc' as const },
		};
		for await (const page of budgetedPages(ctx, report, 'testResult.list', query)) {
			const events: TecEvent[] = [];
			const writes: Array<{ key: string; value: { testDate: string }; expiresAt: number }> = [];
			for (const raw of page) {
				const r = readTestResult(raw);
				if (!r || seen.has(r.id)) continue;
				seen.add(r.id);
				if (cursor) {
					const recorded = makeEvent(
							DETAIL_TYPES.testResultRecorded,
							ctx.environment,
							`test-result-recorded:${ctx.environment}:${r.id}`,
							{
								testResult: {
									id: r.id,
									status: r.status,
									passed: passedOf(r.status),
									testDate: r.testDate,
									syncedTime: r.syncedTime,
									projectId: r.projectId,
									testSequence: r.testSequence,
									tester: r.tester,
								},
								device: { id: r.deviceId, customerId: r.customerId },
							},
							now,
						);
					events.push(recorded, ...(await evidence.eventsFor(recorded)));
				}
				writes.push({ key: String(r.id), value: { testDate: r.testDate }, expiresAt });
			}
			await ctx.publisher.publish(events);
			countEmitted(report, events, ctx.metrics);
			await evidence.record();
			await ctx.store.putMany(seenNs, writes);
		}
		if (report.stoppedForTime) return;
		await ctx.store.putMany<ResultsCursor>(cursorNs, [{ key: 'testResults', value: { watermark: today } }]);
		report.complete = true;
	});
}
