import { ServiceError, failedStepsOf, testedDeviceOf, type FailedTestStep } from '../../client';
import { MAX_ENTRY_BYTES, entrySize, makeEvent, type TecEvent } from '../events/event';
import { DETAIL_TYPES, type TestResultFailedData, type TestResultRecordedData } from '../events/schemas';
import { DAY_MS, countEmitted, keyScope, type PollerContext, type RunReport } from './context';
import { NS, type PendingEvidence } from './state';

/**
 * `Test Result Failed`: the alert for a failed result, with its evidence (the failed steps, their
 * measured values and limits) read from the detailed result. Passed results cost no request.
 *
 * A detail request that fails never loses the fact: the result is remembered as pending (written
 * before the result is recorded as seen) and retried at the start of every later run; the event
 * keeps its dedupe key, so a crash between publishing and recording repeats it, never changes it.
 * After MAX_ATTEMPTS runs, or when the result no longer exists (404), the event goes out without
 * steps rather than never.
 */

export const MAX_ATTEMPTS = 24;
/** Room kept under the PutEvents entry limit for what the size estimate does not count. */
const SIZE_MARGIN = 2048;

/** Failed steps kept in the order given until the event would exceed the entry limit: the rest counted. */
export function buildFailedEvent(
	ctx: Pick<PollerContext, 'environment'>,
	recorded: TestResultRecordedData,
	detail: unknown,
	now: number,
): TecEvent {
	const steps: FailedTestStep[] = detail === undefined ? [] : failedStepsOf(detail);
	const device = { ...recorded.device, ...(detail === undefined ? { designation: null, idBarcode: null } : testedDeviceOf(detail)) };
	const key = `test-result-failed:${keyScope(ctx)}:${recorded.testResult.id}`;
	const data = (kept: FailedTestStep[]): TestResultFailedData => ({
		testResult: recorded.testResult,
		device,
		failedSteps: kept,
		failedStepCount: steps.length,
		truncatedSteps: steps.length - kept.length,
	});
	const empty = entrySize(makeEvent(DETAIL_TYPES.testResultFailed, ctx, key, data([]), now));
	let room = MAX_ENTRY_BYTES - SIZE_MARGIN - empty;
	const kept: FailedTestStep[] = [];
	for (const step of steps) {
		const size = Buffer.byteLength(JSON.stringify(step)) + 1;
		if (size > room) break;
		kept.push(step);
		room -= size;
	}
	return makeEvent(DETAIL_TYPES.testResultFailed, ctx, key, data(kept), now);
}

export class FailedEvidence {
	private readonly ns: string;
	private readonly pending = new Map<number, PendingEvidence>();
	private readonly toRecord: Array<{ key: string; value: PendingEvidence; expiresAt: number }> = [];

	constructor(
		private readonly ctx: PollerContext,
		private readonly report: RunReport,
	) {
		this.ns = NS.failedEvidence(keyScope(ctx));
	}

	/** The detailed result; undefined when it could not be read now (retried later). */
	private async detail(id: number): Promise<{ detail: unknown } | { gone: true } | undefined> {
		try {
			return { detail: await this.ctx.client.call('testResult.get', { pathParams: { id } }) };
		} catch (error) {
			if (error instanceof ServiceError && error.status === 404) return { gone: true };
			this.ctx.log.warn('Could not read the failed steps of a test result; the next run retries', { testResultId: id, error: (error as Error).message });
			this.ctx.metrics.count('FailedEvidenceDeferred');
			return undefined;
		}
	}

	/** Results whose evidence an earlier run could not read: their events now, or another try later. */
	async retryPending(): Promise<void> {
		for await (const item of this.ctx.store.list<PendingEvidence>(this.ns)) if (!item.value.done) this.pending.set(Number(item.key), item.value);
		const now = this.ctx.now();
		for (const [id, p] of this.pending) {
			const got = await this.detail(id);
			const attempts = p.attempts + 1;
			if (!got && attempts < MAX_ATTEMPTS) {
				await this.ctx.store.putMany(this.ns, [{ key: String(id), value: { ...p, attempts }, expiresAt: now + 30 * DAY_MS }]);
				continue;
			}
			if (!got || 'gone' in got) this.ctx.log.error('Announcing a failed test result without its steps', { testResultId: id, attempts, gone: Boolean(got) });
			const event = buildFailedEvent(this.ctx, p.recorded, got && 'detail' in got ? got.detail : undefined, now);
			await this.ctx.publisher.publish([event]);
			countEmitted(this.report, [event], this.ctx.metrics);
			await this.ctx.store.putMany(this.ns, [{ key: String(id), value: { ...p, attempts, done: true }, expiresAt: now }]);
		}
	}

	/**
	 * The `Test Result Failed` event of a newly recorded result (none for other statuses). When the
	 * evidence cannot be read now, the result is kept for `record()` and retried by a later run.
	 */
	async eventsFor(recordedEvent: TecEvent): Promise<TecEvent[]> {
		const recorded = recordedEvent.detail.data as TestResultRecordedData;
		if (recorded.testResult.passed !== false || this.pending.has(recorded.testResult.id)) return [];
		const got = await this.detail(recorded.testResult.id);
		if (!got) {
			this.toRecord.push({ key: String(recorded.testResult.id), value: { recorded, attempts: 1 }, expiresAt: this.ctx.now() + 30 * DAY_MS });
			return [];
		}
		return [buildFailedEvent(this.ctx, recorded, 'detail' in got ? got.detail : undefined, this.ctx.now())];
	}

	/** Writes the deferred results; call after the page is published and before it is recorded as seen. */
	async record(): Promise<void> {
		const items = this.toRecord.splice(0);
		if (items.length === 0) return;
		await this.ctx.store.putMany(this.ns, items);
		for (const i of items) this.pending.set(Number(i.key), i.value);
	}
}
