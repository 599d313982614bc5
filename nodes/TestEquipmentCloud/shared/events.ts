import type { OperationId } from '../../../client';
import type { ListResource } from './resources';

/** The trigger's events. The values are public API: workflows store them. */
export type TriggerEvent = 'deviceOverdue' | 'testResultNew' | 'projectUpdated' | 'deviceDueSoon';

export const TRIGGER_EVENTS: readonly TriggerEvent[] = ['deviceOverdue', 'testResultNew', 'projectUpdated', 'deviceDueSoon'];

/** The list each event watches (its filters are that list's filters). */
export const EVENT_RESOURCE: Record<TriggerEvent, ListResource> = {
	deviceOverdue: 'overdueDevice',
	testResultNew: 'testResult',
	projectUpdated: 'project',
	deviceDueSoon: 'device',
};

export const EVENT_LIST: Record<TriggerEvent, OperationId> = {
	deviceOverdue: 'overdueDevice.list',
	testResultNew: 'testResult.list',
	projectUpdated: 'project.list',
	deviceDueSoon: 'device.list',
};

export function isTriggerEvent(value: unknown): value is TriggerEvent {
	return typeof value === 'string' && (TRIGGER_EVENTS as readonly string[]).includes(value);
}
