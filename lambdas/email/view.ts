import type { DueDevice, OverdueDevice } from '../events/schemas';
import type { MeasurementWarningItem } from '../../client';
import { NS as POLLER_NS, type DeviceState, type DueSoonState, type RecordedWarningValue } from '../pollers/state';
import type { StateStore } from '../ports';

/**
 * Today's truth for the digest: the pollers' current view, read from their state at digest
 * time (the same table in AWS, the runner's state under `npm start`). The overdue poller keeps
 * each listed device's record as last read (customer, department, due date), the due-soon poller
 * each announced device's; a device that left the list, was tested or was deleted is marked so
 * by their next complete scan. Events say what happened; this says what holds now.
 */
export type PollerView = Pick<StateStore, 'list'>;

export interface TodaysTruth {
	/** Devices on the overdue list now, by id, with the episode they are in. */
	overdue: Map<number, { episode: number; device: OverdueDevice }>;
	/** Devices that left the overdue list, by id: the last episode that ended. */
	ended: Map<number, number>;
	/** Devices announced as coming due and still in the window, by id: their due date and record. */
	dueSoon: Map<number, { due: string; dropped: boolean; device?: Omit<DueDevice, 'daysLeft'> }>;
}

/** `scope`: the environment, or `environment:account` for an account of several (truthScope in accounts.ts). */
export async function readTruth(view: PollerView, scope: string): Promise<TodaysTruth> {
	const truth: TodaysTruth = { overdue: new Map(), ended: new Map(), dueSoon: new Map() };
	for await (const { key, value } of view.list<DeviceState>(POLLER_NS.overdue(scope))) {
		if (value.overdue) truth.overdue.set(Number(key), { episode: value.episode, device: value.device });
		else truth.ended.set(Number(key), value.episode);
	}
	for await (const { key, value } of view.list<DueSoonState>(POLLER_NS.dueSoon(scope))) truth.dueSoon.set(Number(key), { due: value.due, dropped: value.dropped === true, device: value.device });
	return truth;
}

/** A measured-value warning the results poller recorded: the row as the e-mails show it, and the key a digest marks it carried by. */
export interface RecordedWarning {
	/** `measured:<scope>:<result id>:<step>`: one per account, result and step. */
	factKey: string;
	row: MeasurementWarningItem;
	announcedOn: string;
}

/** The measured-value warnings the results poller recorded (pollers/measuredAlerts.ts), as it keeps them (WARNING_KEEP_DAYS). */
export async function readWarnings(view: PollerView, scope: string): Promise<RecordedWarning[]> {
	const out: RecordedWarning[] = [];
	for await (const { key, value } of view.list<RecordedWarningValue>(POLLER_NS.measurementWarnings(scope))) {
		const { announcedOn, ...row } = value;
		out.push({ factKey: `measured:${scope}:${key}`, row, announcedOn });
	}
	return out;
}
