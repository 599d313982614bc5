import { ServiceError, failedStepsOf, testedDeviceOf, type FailedTestStep } from '../../client';
import { MAX_ENTRY_BYTES, entrySize, makeEvent, type TecEvent } from '../events/event';
import { DETAIL_TYPES, type TestResultFailedData, type TestResultRecordedData } from '../events/schemas';
import { DAY_MS, countEmitted, keyScope, type PollerContext, type RunReport } from './context';
import { RunCustomerNames } from './customers';
import { readOverdueDevice } from './records';
import { NS, type PendingEvidence } from './state';

/**
 * `Test Result Failed`: the alert for a failed result, with its evidence (the failed steps, their
 * measured values and limits) read from the detailed result. (A passed result's detail is read by
 * measuredAlerts.ts, for its measured values: one detail request per new result either way.)
 *
 * A detail request that fails never loses the fact: the result is remembered as pending (written
 * before the result is recorded as seen) and retried at the start of every later run; the event
 * keeps its dedupe key, so a crash between publishing and recording repeats it, never changes it.
 * After MAX_ATTEMPTS runs, or when the result no longer exists (404), the event goes out without
 * steps rather than never.
 *
 * The event also carries what the alerts route by: the device's customer and department (its
 * detail, with the same retries, read at most once per run however many of its tests failed; the
 * customer's name from the customer list, read at most once per run). A device that no longer
 * exists has neither.
 */

export const MAX_ATTEMPTS = 24;
/** Room kept under the PutEvents entry limit for what the size estimate does not count. */
const SIZE_MARGIN = 2048;

/** Failed steps kept in the order given until the event would exceed the entry limit: the rest counted. */
export function buildFailedEvent(
	ctx: Pick<PollerContext, 'environment'>,
	recorded: TestResultRecordedData,
	detail: unknown,
	owner: DeviceOwner,
	now: number,
): TecEvent {
	const steps: FailedTestStep[] = detail === undefined ? [] : failedStepsOf(detail);
	const device = { ...recorded.device, ...(detail === undefined ? { designation: null, idBarcode: null } : testedDeviceOf(detail)), ...owner };
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

/** What a failed test routes by. */
export interface DeviceOwner {
	customerName: string | null;
	department: string | null;
}

const NO_OWNER: DeviceOwner = { customerName: null, department: null };

type Evidence = { detail: unknown; owner: DeviceOwner };

export class FailedEvidence {
	private readonly ns: string;
	/** Devices read in this run (a device that failed several tests is read once). */
	private readonly devices = new Map<number, unknown>();
	private readonly pending = new Map<number, PendingEvidence>();
	private readonly toRecord: Array<{ key: string; value: PendingEvidence; expiresAt: number }> = [];

	constructor(
		private readonly ctx: PollerContext,
		private readonly report: RunReport,
		private readonly customers = new RunCustomerNames(ctx),
	) {
		this.ns = NS.failedEvidence(keyScope(ctx));
	}

	/** The detailed result (undefined once it is gone) and its device's owner; undefined when either could not be read now (retried later). */
	private async evidence(recorded: TestResultRecordedData): Promise<Evidence | undefined> {
		const id = recorded.testResult.id;
		try {
			const detail = await this.read('testResult.get', id);
			const deviceId = recorded.device.id;
			if (!this.devices.has(deviceId)) this.devices.set(deviceId, await this.read('device.get', deviceId));
			const device = readOverdueDevice(this.devices.get(deviceId), this.ctx.client.profile);
			if (!device) return { detail, owner: NO_OWNER };
			let customerName = device.customerName;
			const customerId = device.customerId ?? recorded.device.customerId;
			if (customerName === null && customerId !== null) {
				customerName = (await this.customers.get()).get(customerId) ?? null;
			}
			return { detail, owner: { customerName, department: device.department } };
		} catch (error) {
			this.ctx.log.warn('Could not read the failed steps of a test result or its device; the next run retries', { testResultId: id, error: (error as Error).message });
			this.ctx.metrics.count('FailedEvidenceDeferred');
			return undefined;
		}
	}

	/** A detail read; undefined when the record no longer exists. */
	private async read(operation: 'testResult.get' | 'device.get', id: number): Promise<unknown> {
		try {
			return await this.ctx.client.call(operation, { pathParams: { id } });
		} catch (error) {
			if (error instanceof ServiceError && (error.status === 404 || error.status === 412)) return undefined;
			throw error;
		}
	}

	/** Results whose evidence an earlier run could not read: their events now, or another try later. */
	async retryPending(): Promise<void> {
		for await (const item of this.ctx.store.list<PendingEvidence>(this.ns)) if (!item.value.done) this.pending.set(Number(item.key), item.value);
		const now = this.ctx.now();
		for (const [id, p] of this.pending) {
			const got = await this.evidence(p.recorded);
			const attempts = p.attempts + 1;
			if (!got && attempts < MAX_ATTEMPTS) {
				await this.ctx.store.putMany(this.ns, [{ key: String(id), value: { ...p, attempts }, expiresAt: now + 30 * DAY_MS }]);
				continue;
			}
			if (got?.detail === undefined) this.ctx.log.error('Announcing a failed test result without its steps', { testResultId: id, attempts, gone: Boolean(got) });
			const event = buildFailedEvent(this.ctx, p.recorded, got?.detail, got?.owner ?? NO_OWNER, now);
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
		const got = await this.evidence(recorded);
		if (!got) {
			this.toRecord.push({ key: String(recorded.testResult.id), value: { recorded, attempts: 1 }, expiresAt: this.ctx.now() + 30 * DAY_MS });
			return [];
		}
		return [buildFailedEvent(this.ctx, recorded, got.detail, got.owner, this.ctx.now())];
	}

	/** Writes the deferred results; call after the page is published and before it is recorded as seen. */
	async record(): Promise<void> {
		const items = this.toRecord.splice(0);
		if (items.length === 0) return;
		await this.ctx.store.putMany(this.ns, items);
		for (const i of items) this.pending.set(Number(i.key), i.value);
	}
}
