import { byUpload, emptySeries, epochDay, keptResults, readOrGone, readResultAlerts, roleValue, warningKey, warningRows, withoutResults, type DeviceSeries, type DriftWarning, type MeasurementWarning, type ResultFit, type WarningDevice } from '../../client';
import { makeEvent, type TecEvent } from '../events/event';
import { DETAIL_TYPES, type TestResultRecordedData } from '../events/schemas';
import { DAY_MS, countEmitted, keyScope, type PollerContext, type RunReport } from './context';
import { RunCustomerNames } from './customers';
import { readOverdueDevice } from './records';
import { NS, type MeasurementSeries, type PendingMeasurement, type RecordedWarningValue } from './state';

/**
 * `Test Result Near Limit` and `Device Measurement Drift`: what a new passed result's measured
 * values say, one event per result and step. Each new passed result costs one detail request (a
 * failed one costs none here: it only clears its device's kept values, client/measurementSeries.ts);
 * a result whose trend reaches a limit within the horizon costs one device read more, for its next
 * due date (once per device and run). The decisions are the client's (`resultAlerts`), so the
 * events say what the node's Get Measurement Warnings says of the same result.
 *
 * The kept values (namespace `measurements:`, one item per device, a few hundred bytes) are
 * written after the page's events are published and before its results are recorded as seen:
 * a crash repeats the result, which is kept once, with the same events and dedupe keys (its trend
 * fitted without the page's later uploads of its device, kept with it).
 * Each warning announced is also recorded as the row the e-mails show (namespace
 * `measurementWarnings:`, key: result and step, kept WARNING_KEEP_DAYS), written before the events
 * are published (`recordWarnings`): the daily digest lists the rows its recipients have not had,
 * the monthly report the rows of its month. A result with a
 * warning costs its device's record (once per device and run, shared with the next due date) and,
 * when the device names no customer, the customer list (once per run, shared with the failed steps'
 * owners, pollers/customers.ts `RunCustomerNames`): what the rows route by. A result with a
 * warning whose device is gone (deleted) gives no event and no row and is not kept (metric
 * `MeasurementsUnknownDevice`): Get Measurement Warnings skips it (`unknownDevices`).
 * A detail (or device) read that fails keeps the result as pending (namespace
 * `measurementPending:`, with its device's kept values as they stood for it, which its retry fits
 * it to), retried at the start of every later run in upload order, each one read added to the saved
 * series of its device's later pending results (a run without the failure fitted them with it);
 * a failed result is kept without its detail, so it is never pending for one. After MAX_ATTEMPTS runs, or
 * when the result no longer exists, it is given up (logged), as no value can be guessed.
 */

export const MAX_ATTEMPTS = 24;
/** Long enough for the monthly report of the month after a warning's test (and late uploads), short enough to stay small. */
export const WARNING_KEEP_DAYS = 100;

/** The dedupe key's step part: the step's name, and the measurement's own name when it has one. */
const stepPart = (v: { step: string; measurement: string | null }) => (v.measurement === null ? v.step : `${v.step}:${v.measurement}`);

type Recorded = TestResultRecordedData;

export class MeasuredAlerts {
	private readonly seriesNs: string;
	private readonly pendingNs: string;
	private readonly warningsNs: string;
	private readonly rawDevices = new Map<number, unknown>();
	private readonly warned: Array<{ key: string; value: RecordedWarningValue; expiresAt: number }> = [];
	private readonly series = new Map<number, DeviceSeries>();
	private readonly dirty = new Set<number>();
	private readonly dueDates = new Map<number, string | null>();
	private readonly pending = new Map<number, PendingMeasurement>();
	private readonly toRecord: Array<{ key: string; value: PendingMeasurement; expiresAt: number }> = [];

	constructor(
		private readonly ctx: PollerContext,
		private readonly report: RunReport,
		private readonly customers = new RunCustomerNames(ctx),
	) {
		this.seriesNs = NS.measurements(keyScope(ctx));
		this.pendingNs = NS.measurementPending(keyScope(ctx));
		this.warningsNs = NS.measurementWarnings(keyScope(ctx));
	}

	private async seriesOf(deviceId: number): Promise<DeviceSeries> {
		let s = this.series.get(deviceId);
		if (!s) {
			s = (await this.ctx.store.get<DeviceSeries>(this.seriesNs, String(deviceId))) ?? emptySeries();
			this.series.set(deviceId, s);
		}
		return s;
	}

	/** A device's record, read once per run (undefined once it is gone). */
	private async rawDevice(deviceId: number): Promise<unknown> {
		if (!this.rawDevices.has(deviceId)) this.rawDevices.set(deviceId, await readOrGone(this.ctx.client, 'device.get', deviceId));
		return this.rawDevices.get(deviceId);
	}

	private async nextDueOf(deviceId: number): Promise<string | null> {
		if (!this.dueDates.has(deviceId)) {
			const raw = await this.rawDevice(deviceId);
			const v = raw === undefined ? undefined : roleValue(raw, 'nextTestDate', this.ctx.client.profile);
			this.dueDates.set(deviceId, typeof v === 'string' && epochDay(v.slice(0, 10)) !== undefined ? v.slice(0, 10) : null);
		}
		return this.dueDates.get(deviceId)!;
	}

	/** The device as the warning rows show and route it: its designation, ID Barcode, customer and department now. */
	private async deviceOf(device: { id: number; customerId: number | null }): Promise<WarningDevice> {
		const read = readOverdueDevice(await this.rawDevice(device.id), this.ctx.client.profile);
		if (!read) return { id: device.id, customerId: device.customerId, designation: null, idBarcode: null, customerName: null, department: null };
		const customerId = read.customerId ?? device.customerId;
		let customerName = read.customerName;
		if (customerName === null && customerId !== null) {
			customerName = (await this.customers.get()).get(customerId) ?? null;
		}
		return { id: device.id, customerId, designation: read.designation, idBarcode: read.idBarcode, customerName, department: read.department };
	}

	/** The events of one result, and how to add it to another kept series; undefined when its detail or device could not be read now. */
	private async alerts(recorded: Recorded, fit: ResultFit = {}): Promise<{ events: TecEvent[]; addTo: (series: DeviceSeries) => DeviceSeries } | undefined> {
		const { testResult, device } = recorded;
		try {
			const result = { id: testResult.id, deviceId: device.id, testDate: testResult.testDate, passed: testResult.passed };
			const read = await readResultAlerts(this.ctx.client, await this.seriesOf(device.id), result, this.ctx.settings.nearLimitThreshold, (id) => this.nextDueOf(id), fit);
			if (read.gone) this.ctx.log.warn('A new passed test result no longer exists; its measured values are not read', { testResultId: testResult.id });
			if (read.skipped > 0) this.ctx.metrics.count('MeasurementsSkipped', read.skipped);
			const { nearLimit, drift } = read.alerts;
			const warns = nearLimit.length + drift.length > 0;
			// Read before anything is kept: a device that cannot be read now defers the whole result.
			if (warns && (await this.rawDevice(device.id)) === undefined) {
				// Deleted: Get Measurement Warnings skips its results (unknownDevices), so nothing is announced or kept.
				this.ctx.log.warn('A new passed test result’s device no longer exists; its measured values give no warning and are not kept', { testResultId: testResult.id, deviceId: device.id });
				this.ctx.metrics.count('MeasurementsUnknownDevice');
				return { events: [], addTo: (series) => series };
			}
			const rows = warns ? warningRows(await this.deviceOf(device), nearLimit, drift) : [];
			const now = this.ctx.now();
			const announcedOn = new Date(now).toISOString().slice(0, 10);
			this.warned.push(...rows.map((row) => ({ key: warningKey(row), value: { ...row, announcedOn }, expiresAt: now + WARNING_KEEP_DAYS * DAY_MS })));
			this.keep(device.id, read.series);
			return { events: [...read.alerts.nearLimit.map((w) => this.nearLimitEvent(recorded, w)), ...read.alerts.drift.map((d) => this.driftEvent(recorded, d))], addTo: read.addTo };
		} catch (error) {
			this.ctx.log.warn('Could not read the measured values of a test result; the next run retries', { testResultId: testResult.id, error: (error as Error).message });
			this.ctx.metrics.count('MeasurementsDeferred');
			return undefined;
		}
	}

	private keep(deviceId: number, series: DeviceSeries): void {
		if (series === this.series.get(deviceId)) return;
		this.series.set(deviceId, series);
		this.dirty.add(deviceId);
	}

	private nearLimitEvent(recorded: Recorded, w: MeasurementWarning): TecEvent {
		const { step, measurement, value, unit, lowLimit, highLimit, limitUsed, limitSide } = w;
		return makeEvent(
			DETAIL_TYPES.testResultNearLimit,
			this.ctx,
			`test-result-near-limit:${keyScope(this.ctx)}:${recorded.testResult.id}:${stepPart(w)}`,
			{
				testResult: recorded.testResult,
				device: recorded.device,
				measurement: { step, measurement, value, unit, lowLimit, highLimit, limitUsed, limitSide },
				threshold: this.ctx.settings.nearLimitThreshold,
				predictedLimitDate: w.predictedLimitDate,
			},
			this.ctx.now(),
		);
	}

	private driftEvent(recorded: Recorded, d: DriftWarning): TecEvent {
		const { trend } = d;
		return makeEvent(
			DETAIL_TYPES.deviceMeasurementDrift,
			this.ctx,
			`device-measurement-drift:${keyScope(this.ctx)}:${recorded.testResult.id}:${stepPart(d)}`,
			{
				testResult: recorded.testResult,
				device: { ...recorded.device, nextTestDate: d.nextTestDate },
				measurement: { step: d.step, measurement: d.measurement, unit: trend.unit, lowLimit: trend.lowLimit, highLimit: trend.highLimit },
				trend: {
					points: trend.points.map((p) => ({ testResultId: p.testResultId, testDate: p.testDate, value: p.value })),
					slopePerDay: trend.fit?.slopePerDay ?? 0,
					boundAtLast: trend.boundAtLast,
					predictedLimitDate: d.predictedLimitDate,
					predictedLimitSide: trend.predictedLimitSide ?? 'high',
				},
			},
			this.ctx.now(),
		);
	}

	/**
	 * Results whose values an earlier run could not read: their events now, or another try later. In
	 * upload order (synced_time, then id): one read is added to the saved series of its device's
	 * later deferred results before those are fitted (the run without the deferral fitted them with it).
	 */
	async retryPending(): Promise<void> {
		for await (const item of this.ctx.store.list<PendingMeasurement>(this.pendingNs)) if (!item.value.done) this.pending.set(Number(item.key), item.value);
		const now = this.ctx.now();
		const uploadOf = (p: PendingMeasurement) => ({ id: p.recorded.testResult.id, syncedTime: p.recorded.testResult.syncedTime });
		const order = [...this.pending.keys()].sort((a, b) => byUpload(uploadOf(this.pending.get(a)!), uploadOf(this.pending.get(b)!)));
		for (const [at, id] of order.entries()) {
			const p = this.pending.get(id)!;
			const read = await this.alerts(p.recorded, p.series ? { arrivedTo: p.series } : { uploadedAfter: await this.keptSince(p) });
			const attempts = p.attempts + 1;
			if (!read) {
				const done = attempts >= MAX_ATTEMPTS;
				if (done) this.ctx.log.error('Giving up reading the measured values of a test result', { testResultId: id, attempts });
				await this.ctx.store.putMany(this.pendingNs, [{ key: String(id), value: { ...p, attempts, ...(done ? { done } : {}) }, expiresAt: now + 30 * DAY_MS }]);
				continue;
			}
			// Written with its done mark: a run that stops after it still fits them with it (a repeat adds it once).
			const laterOfDevice: Array<{ key: string; value: PendingMeasurement; expiresAt: number }> = [];
			for (const laterId of order.slice(at + 1)) {
				const later = this.pending.get(laterId)!;
				if (!later.series || later.recorded.device.id !== p.recorded.device.id) continue;
				const value = { ...later, series: read.addTo(later.series) as MeasurementSeries };
				this.pending.set(laterId, value);
				laterOfDevice.push({ key: String(laterId), value, expiresAt: now + 30 * DAY_MS });
			}
			const { events } = read;
			await this.recordWarnings();
			await this.ctx.publisher.publish(events);
			countEmitted(this.report, events, this.ctx.metrics);
			await this.writeSeries();
			await this.ctx.store.putMany(this.pendingNs, [...laterOfDevice, { key: String(id), value: { ...p, attempts, done: true }, expiresAt: now }]);
		}
	}

	/**
	 * An entry of an earlier version (no series saved): its device's results kept since it was
	 * deferred, left out of its trend (a later failure or results pushed out of the kept 5 are not
	 * undone). None known for an entry saved with neither.
	 */
	private async keptSince(p: PendingMeasurement): Promise<ReadonlySet<number> | undefined> {
		if (p.keptBefore === undefined) return undefined;
		const before = new Set([...p.keptBefore, p.recorded.testResult.id]);
		return new Set(keptResults(await this.seriesOf(p.recorded.device.id)).map(([id]) => id).filter((id) => !before.has(id)));
	}

	/**
	 * The events of a newly recorded result; when its values cannot be read now, it is kept for
	 * `record()`. `uploadedAfter`: its device's results on the page uploaded after it (a repeated
	 * page finds them kept; the result's trend is the one it had without them).
	 */
	async eventsFor(recordedEvent: TecEvent, uploadedAfter?: ReadonlySet<number>): Promise<TecEvent[]> {
		const recorded = recordedEvent.detail.data as Recorded;
		if (this.pending.has(recorded.testResult.id)) return [];
		const read = await this.alerts(recorded, { uploadedAfter });
		if (read) return read.events;
		// Its device's kept values now, but those of a repeated page uploaded after it: what its retry fits it to,
		// whatever later results remove from the kept values meanwhile (a failure, the 5 kept).
		const series = withoutResults(await this.seriesOf(recorded.device.id), uploadedAfter ?? new Set());
		this.toRecord.push({ key: String(recorded.testResult.id), value: { recorded, attempts: 1, series: series as MeasurementSeries }, expiresAt: this.ctx.now() + 30 * DAY_MS });
		return [];
	}

	/**
	 * Writes the warning rows of the results read so far; call BEFORE their events are published.
	 * Keyed by result and step, a repeat rewrites the same rows (nothing decides by `announcedOn`),
	 * and the write stays out of the window between publishing and recording as seen.
	 */
	async recordWarnings(): Promise<void> {
		const warned = this.warned.splice(0);
		if (warned.length > 0) await this.ctx.store.putMany(this.warningsNs, warned);
	}

	private async writeSeries(): Promise<void> {
		if (this.dirty.size === 0) return;
		const items = [...this.dirty].map((id) => ({ key: String(id), value: this.series.get(id)! }));
		this.dirty.clear();
		await this.ctx.store.putMany(this.seriesNs, items);
	}

	/** Writes the kept values and the deferred results; call after the page is published and before it is recorded as seen. */
	async record(): Promise<void> {
		await this.writeSeries();
		const items = this.toRecord.splice(0);
		if (items.length === 0) return;
		await this.ctx.store.putMany(this.pendingNs, items);
		for (const i of items) this.pending.set(Number(i.key), i.value);
	}
}
