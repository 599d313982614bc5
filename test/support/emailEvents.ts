import { readEmailEvent, type EmailEvent } from '../../lambdas/email/events';
import { makeEvent, type TecEvent } from '../../lambdas/events/event';
import { DETAIL_TYPES, type DueDevice, type FailedStep, type OverdueDevice } from '../../lambdas/events/schemas';
import { NS as POLLER_NS, type DeviceState, type DueSoonState } from '../../lambdas/pollers/state';
import type { StateStore } from '../../lambdas/ports';

/**
 * Events as the pollers emit them (built with the contract's makeEvent, so each is checked
 * against its schema), for the e-mail tests and the README preview.
 */
const T = Date.parse('2026-11-19T10:00:00Z');

export function device(id: number, over: Partial<OverdueDevice> = {}): OverdueDevice {
	return {
		id,
		designation: `Device ${id}`,
		idBarcode: `TE-${String(id).padStart(5, '0')}`,
		department: 'Calibration Lab',
		customerId: 10,
		customerName: 'Acme Instruments',
		lastTestedDate: '2025-11-01',
		nextTestDate: '2026-11-01',
		daysOverdue: 18,
		...over,
	};
}

export function overdue(d: OverdueDevice, episode = 1, reminder = 0, at = T): TecEvent {
	return makeEvent(DETAIL_TYPES.deviceOverdue, 'sandbox', `device-overdue:${d.id}:${episode}${reminder ? `:reminder:${reminder}` : ''}`, { device: d, episode, reminder }, at);
}

export function resolved(d: OverdueDevice, episode = 1, at = T): TecEvent {
	return makeEvent(
		DETAIL_TYPES.deviceOverdueResolved,
		'sandbox',
		`device-overdue-resolved:${d.id}:${episode}`,
		{ device: { id: d.id, designation: d.designation, idBarcode: d.idBarcode }, episode, overdueSince: new Date(T - 86_400_000).toISOString() },
		at,
	);
}

export function dueSoon(d: OverdueDevice, nextTestDate: string, daysLeft: number, stage = 30, at = T): TecEvent {
	const { daysOverdue: _omit, ...rest } = d;
	const due: DueDevice = { ...rest, nextTestDate, daysLeft };
	return makeEvent(DETAIL_TYPES.deviceDueSoon, 'sandbox', `device-due-soon:${d.id}:${nextTestDate}:${stage}`, { device: due, stage }, at);
}

export function failedTest(d: OverdueDevice, resultId: number, steps: FailedStep[], at = T): TecEvent {
	return makeEvent(
		DETAIL_TYPES.testResultFailed,
		'sandbox',
		`test-result-failed:${resultId}`,
		{
			testResult: { id: resultId, status: 'failed', passed: false, testDate: '2026-11-19T09:12:00Z', syncedTime: '2026-11-19T09:20:00Z', projectId: null, testSequence: 'IEC 62353', tester: 'J. Keller' },
			device: { id: d.id, customerId: d.customerId, designation: d.designation, idBarcode: d.idBarcode, customerName: d.customerName, department: d.department },
			failedSteps: steps,
			failedStepCount: steps.length,
			truncatedSteps: 0,
		},
		at,
	);
}

export const INSULATION_STEP: FailedStep = {
	step: 4,
	name: 'Insulation resistance',
	status: 'failed',
	measurements: [{ name: 'R iso', value: 1.4, unit: 'MΩ', lowLimit: 2, highLimit: null, passed: false }],
	truncatedMeasurements: 0,
};
export const LEAKAGE_STEP: FailedStep = {
	step: 6,
	name: 'Patient leakage current',
	status: 'failed',
	measurements: [{ name: 'I leak', value: 142, unit: 'µA', lowLimit: null, highLimit: 100, passed: false }],
	truncatedMeasurements: 0,
};

/** An EventBridge delivery of an event to a Lambda target (what the collector receives). */
export function delivery(e: TecEvent): { source: string; 'detail-type': string; time: string; detail: unknown; id: string } {
	return { source: e.source, 'detail-type': e['detail-type'], time: e.time, detail: e.detail, id: e.detail.metadata.id };
}

/** A delivery read as the collector reads it (Powertools Parser), for code that takes a read event. */
export function emailEvent(e: TecEvent): EmailEvent {
	const read = readEmailEvent(delivery(e));
	if ('ignored' in read) throw new Error(`The e-mails do not read this event: ${read.ignored}`);
	return read;
}

/**
 * What the pollers store when they emit these events (lambdas/pollers/state.ts): the e-mail tests
 * give the digest its view of today's truth the way the pollers would have left it.
 */
export async function pollersSaw(store: Pick<StateStore, 'putMany' | 'get'>, ...events: TecEvent[]): Promise<void> {
	for (const e of events) {
		const data = e.detail.data as Record<string, unknown>;
		const id = String((data.device as { id: number }).id);
		switch (e['detail-type']) {
			case DETAIL_TYPES.deviceOverdue: {
				const prior = await store.get<DeviceState>(POLLER_NS.overdue('sandbox'), id);
				const since = Date.parse(e.detail.metadata.occurredAt);
				const value: DeviceState = { overdue: true, episode: data.episode as number, since: prior?.since ?? since, reminders: data.reminder as number, digestPending: false, device: data.device as OverdueDevice };
				await store.putMany(POLLER_NS.overdue('sandbox'), [{ key: id, value }]);
				break;
			}
			case DETAIL_TYPES.deviceOverdueResolved: {
				const prior = await store.get<DeviceState>(POLLER_NS.overdue('sandbox'), id);
				if (prior) await store.putMany(POLLER_NS.overdue('sandbox'), [{ key: id, value: { ...prior, overdue: false } }]);
				break;
			}
			case DETAIL_TYPES.deviceDueSoon: {
				const { daysLeft: _left, ...device } = data.device as DueDevice;
				const value: DueSoonState = { due: device.nextTestDate, stage: data.stage as number, device };
				await store.putMany(POLLER_NS.dueSoon('sandbox'), [{ key: id, value }]);
				break;
			}
			default:
				break;
		}
	}
}
